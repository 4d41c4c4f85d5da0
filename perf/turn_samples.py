#!/usr/bin/env python3
"""A measuring turn's samples, and what stopping once decided saves.

Run: ``python perf/turn_samples.py``.

A check's turn measures every case of its process: draw the inputs, warm up, sample. The
check's sampling stops a case once its device-time median is known to ``--precision``
(``iconbench.timing.measurement.median_decided``, after 20 samples, checked every 5). Two
parts, side by side in one run:

1. **recorded checks** (default: the committed H100 checks ``icon4py-comment-2026-11-26i``
   and ``gt4py-comment-2026-11-26h``, read from git history): each turn's samples as they
   were (all 50) and cut where the rule would have stopped; per check, the samples a turn,
   its sampling seconds (the samples' host time and the reference work beside each), the
   measuring seconds of all turns, and the gate's verdict on the cut ledgers against the
   whole ones (the process-level test on what the rule keeps);
2. **this machine** (``--live``): a case prepared once and measured alternately with and
   without the rule (``--live-repeats`` each), the samples and sampling seconds of each.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import pathlib
import shutil
import statistics
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

CHECKS = ("icon4py-comment-2026-11-26i", "gt4py-comment-2026-11-26h")


def stop_at(samples: list[float], precision: float) -> int:
    """How many of ``samples`` the sampling rule takes (``measure``'s loop, replayed)."""
    from iconbench.timing.measurement import DECIDE_AFTER, DECIDE_EVERY, median_decided

    for n in range(DECIDE_AFTER, len(samples) + 1):
        if n % DECIDE_EVERY == 0 and median_decided(samples[:n], precision):
            return n
    return len(samples)


@dataclasses.dataclass(frozen=True)
class Turn:
    """One case's measurement in a round (a "turn" of the issue), as recorded and as cut."""

    taken: int
    kept: int
    sampling_s: float  # the samples' host time and the reference work beside each
    saved_s: float  # of that, after the samples the rule keeps
    whole_s: float  # the ledger's duration_s: inputs drawn, program prepared, warm-up, samples
    warmup_s: float  # warm-up calls times the median call (each waits for the device)


def cut(source: pathlib.Path, target: pathlib.Path, precision: float) -> list[Turn]:
    """``source``'s session ledger with each turn cut where the rule stops, into ``target``."""
    turns = []
    target.parent.mkdir(parents=True, exist_ok=True)
    with source.open() as lines, target.open("w") as out:
        for line in lines:
            row = json.loads(line)
            m = row.get("measurement")
            if m and m["device_s"]:
                keep = stop_at(m["device_s"], precision)
                spent = [h + r for h, r in zip(m["host_s"], m["reference_s"], strict=False)]
                warmup = m["warmup_calls"] * statistics.median(m["host_s"])
                turns.append(Turn(len(m["host_s"]), keep, sum(spent), sum(spent[keep:]),
                                  row["duration_s"], warmup))  # fmt: skip
                for key in ("host_s", "device_s", "reference_s"):
                    m[key] = m[key][:keep]
                row["duration_s"] -= turns[-1].saved_s
            out.write(json.dumps(row) + "\n")
    return turns


def verdicts(base: pathlib.Path, head: pathlib.Path, grid: str) -> dict:
    """The gate's verdict per gated benchmark on two sides' session ledgers."""
    from iconbench import grids
    from iconbench.gate import verdict
    from iconbench.records import resultset

    resolved = grids.resolve(grid)
    summary = verdict.compare(
        resultset.ledger_set(base, label="base", commit="b", grid=resolved),
        resultset.ledger_set(head, label="head", commit="h", grid=resolved),
    )
    return {(b.id, b.metric): (b.verdict, b.ratio_ci) for b in summary.benchmarks
            if b.gated}  # fmt: skip


def recorded(check: str, precision: float, work: pathlib.Path) -> None:
    """Part 1 for one committed check (module docstring)."""
    from iconbench import results_archive
    from iconbench.records.check import CheckRecord

    name = f"results/pr-check-h100/{check}"
    grid = CheckRecord.read(ROOT / name).facts["grid"]
    sides, turns = {}, []
    for side in ("base", "head"):
        ledger = results_archive.cached(ROOT, f"{name}/{side}/work/session.jsonl")
        whole, kept = work / check / "whole" / side, work / check / "cut" / side
        (whole / "work").mkdir(parents=True, exist_ok=True)
        shutil.copy(ledger, whole / "work" / "session.jsonl")
        turns += cut(ledger, kept / "work" / "session.jsonl", precision)
        sides[side] = (whole, kept)
    before = verdicts(sides["base"][0], sides["head"][0], grid)
    after = verdicts(sides["base"][1], sides["head"][1], grid)
    same = sum(before[k][0] == after[k][0] for k in before)
    device = [k for k in before if k[1] == "device_time" and before[k][1] and after[k][1]]
    widths = [
        (after[k][1][1] / after[k][1][0]) / (before[k][1][1] / before[k][1][0]) for k in device
    ]

    def median(field: str) -> float:
        return statistics.median(getattr(t, field) for t in turns)

    whole, sampling, warmup = median("whole_s"), median("sampling_s"), median("warmup_s")
    measuring = sum(t.whole_s for t in turns)
    saved = sum(t.saved_s for t in turns)
    print(f"| {check} | {len(turns)} | {whole * 1e3:.0f} ms: "
          f"{(whole - sampling - warmup) / whole:.0%} inputs and the rest, {warmup / whole:.0%} "
          f"warm-up, {sampling / whole:.0%} samples | {median('taken'):.0f} / "
          f"{median('kept'):.0f} | {sampling * 1e3:.1f} / "
          f"{(sampling - median('saved_s')) * 1e3:.1f} ms | {measuring:.1f} / "
          f"{measuring - saved:.1f} s | {same} of {len(before)} | "
          f"{statistics.median(widths):.3f} |")  # fmt: skip


def live(args) -> None:
    """Part 2: one case measured alternately with and without the rule, here."""
    from iconbench import buildcache

    buildcache.configure(None, jobs=1)
    from iconbench import suite
    from iconbench.programs.backends import backend
    from iconbench.timing import clocks, measurement

    chosen = backend(args.live_backend)
    prepared = suite.prepare(args.live_case, chosen, args.live_grid)
    call = prepared.call_and_sync() if chosen.is_embedded else prepared
    runs: dict[str, list[tuple[int, float]]] = {"all samples": [], "decided": []}
    for _ in range(args.live_repeats):
        for name, precision in (("all samples", None), ("decided", args.precision)):
            start = time.perf_counter()
            m = measurement.measure(call, clocks.clock_for(chosen), samples=50, max_s=0.5,
                                    warmup_s=0.1, gt4py_calls=0, precision=precision)  # fmt: skip
            runs[name].append((len(m.host_s), time.perf_counter() - start))
    print(f"\n{args.live_case} on {chosen.name}, grid {args.live_grid}, here: "
          f"{args.live_repeats} alternating measurements each, warm-up 0.1 s in each")  # fmt: skip
    print("| sampling | samples (median) | seconds a measurement (median) |\n| --- | ---: | ---: |")
    for name, done in runs.items():
        print(f"| {name} | {statistics.median(n for n, _ in done):.0f} | "
              f"{statistics.median(s for _, s in done):.3f} |")  # fmt: skip
    was, now = (statistics.median(s for _, s in runs[k]) for k in runs)
    print(f"decided / all samples: {now / was:.2f}x")


def main() -> int:
    """Part 1 for each check, part 2 if asked."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--precision", type=float, default=0.005)
    parser.add_argument("--checks", nargs="*", default=list(CHECKS))
    parser.add_argument("--live", action="store_true", help="part 2 on this machine too")
    parser.add_argument("--live-case", default="compute_tangential_wind[default]")
    parser.add_argument("--live-backend", default="gtfn_cpu")
    parser.add_argument("--live-grid", default="tiny")
    parser.add_argument("--live-repeats", type=int, default=20)
    args = parser.parse_args()
    work = pathlib.Path(tempfile.mkdtemp(prefix="turn-samples-"))
    print(f"recorded checks, precision {args.precision:.3%} (half-width of the median's 95 % "
          "interval), device time; 'turns' are the cases' measurements, both sides")  # fmt: skip
    print("| check | turns | a turn (median) | samples a turn: taken / kept | sampling a turn "
          "(median): taken / kept | all turns: as measured / cut | gated verdicts the same | "
          "device-time interval width, cut / whole (median) |")  # fmt: skip
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
    for check in args.checks:
        recorded(check, args.precision, work)
    if args.live:
        live(args)
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

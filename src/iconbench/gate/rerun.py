"""More samples for inconclusive benchmarks, bounded in time, before the verdict.

An inconclusive benchmark's interval straddles a threshold: more samples narrow it. Only a
side measured by *this* checkout's code can be measured again (the other side's code is not
installed here); in CI that is head. New samples are added to the side's samples (the
interval then also holds the run-to-run drift between the two measurements, which makes it
wider, never falsely narrow).

A side is measured again the way every command measures, by the runner: ``iconbench suite
measure`` of those cases on the side's grid and stack, into a scratch output directory (a
runner set's compile ledger copied, so cached builds are reused; stored results are never
touched). That holds for a side read from asv's files too (``asv continuous``, ``asv run``).
On a backend without a device clock (``embedded``) the device time of either kind of side is
the host time, so there the runner's host samples are its device samples.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence

from iconbench.buildcache import REPO_ROOT
from iconbench.records.resultset import ResultSet

#: (side, [(case, backend)], budget seconds) -> {benchmark id: new samples}
Measure = Callable[[ResultSet, Sequence[tuple[str, str]], float], dict[str, tuple[float, ...]]]


def runner_measure(
    side: ResultSet, cases: Sequence[tuple[str, str]], budget_s: float
) -> dict[str, tuple[float, ...]]:
    """Measure ``cases`` again with ``iconbench suite measure`` into a scratch directory."""
    import re

    with tempfile.TemporaryDirectory(prefix="iconbench-rerun-") as scratch:
        out = pathlib.Path(scratch)
        (out / "work").mkdir()
        if side.results_dir and (side.results_dir / "work" / "compile.jsonl").exists():
            shutil.copy(side.results_dir / "work" / "compile.jsonl", out / "work")
        programs = "^(?:" + "|".join(re.escape(c) for c, _ in cases) + ")$"
        command = [sys.executable, "-m", "iconbench", "suite", "measure",
                   "--out", str(out), "--grid", side.grid.name,
                   "--backends", ",".join(sorted({b for _, b in cases})),
                   "--programs", programs, "--budget", f"{max(budget_s - 30, 10):.0f}"]  # fmt: skip
        if stack := side.stack.get("key"):
            command += ["--stack", stack]
        with contextlib.suppress(subprocess.TimeoutExpired):
            subprocess.run(
                command, cwd=REPO_ROOT, check=False, capture_output=True, timeout=budget_s
            )
        found: dict[str, tuple[float, ...]] = {}
        path = out / "work" / "session.jsonl"
        for line in path.read_text().splitlines() if path.exists() else []:
            row = json.loads(line)
            m = row.get("measurement") or {}
            host = tuple(m.get("host_s") or ())
            if not m.get("device_s"):  # no device clock (embedded): the host time stands for it
                m = {**m, "device_s": host}
            if row.get("error") or not m.get("device_s"):
                continue
            device = tuple(m["device_s"])
            found[f"{row['case']}|{row['backend']}|device_time"] = device
            if len(host) == len(device) and device != host:
                overhead = tuple(h - d for h, d in zip(host, device, strict=True))
                found[f"{row['case']}|{row['backend']}|host_overhead"] = overhead
        return found


def add_samples(side: ResultSet, new: dict[str, tuple[float, ...]]) -> ResultSet:
    """``side`` with ``new`` samples appended to its entries (unknown ids are ignored)."""
    entries = dict(side.entries)
    for key, samples in new.items():
        if (entry := entries.get(key)) is not None and not entry.error:
            entries[key] = dataclasses.replace(entry, samples=entry.samples + tuple(samples))
    return dataclasses.replace(side, entries=entries)


@dataclasses.dataclass(frozen=True)
class Rerun:
    """What re-measuring did: rounds, seconds, samples added per side."""

    rounds: int
    seconds: float
    added: dict[str, int]
    skipped: str | None = None


def rerun_inconclusive(
    base: ResultSet,
    head: ResultSet,
    inconclusive: Callable[[ResultSet, ResultSet], list[str]],
    *,
    max_s: float,
    measure_base: Measure | None = None,
    measure_head: Measure | None = None,
    max_rounds: int = 3,
) -> tuple[ResultSet, ResultSet, Rerun]:
    """Measure the inconclusive benchmarks again until none is left or ``max_s`` is spent.

    ``inconclusive(base, head)`` returns the ids still inconclusive (the gate, re-run on the
    grown samples). A side is measured only when a measure function is given for it.
    """
    start = time.monotonic()
    added = {"base": 0, "head": 0}
    rounds = 0
    if measure_base is None and measure_head is None:
        return base, head, Rerun(0, 0.0, added, "neither side is this checkout's commit")
    while rounds < max_rounds:
        left = max_s - (time.monotonic() - start)
        todo = inconclusive(base, head)
        if not todo or left < 5:
            break
        rounds += 1
        cases = sorted({tuple(k.split("|")[:2]) for k in todo})
        measures = [(n, m) for n, m in (("base", measure_base), ("head", measure_head)) if m]
        for name, measure in measures:
            share = (max_s - (time.monotonic() - start)) / len(measures)
            side = base if name == "base" else head
            new = {k: v for k, v in measure(side, cases, share).items() if k in todo}  # type: ignore[arg-type]
            added[name] += sum(len(v) for v in new.values())
            if name == "base":
                base = add_samples(base, new)
            else:
                head = add_samples(head, new)
        if not any(added.values()):
            break
    return base, head, Rerun(rounds, round(time.monotonic() - start, 1), added)

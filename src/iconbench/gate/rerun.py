"""More samples for inconclusive benchmarks, bounded in time, before the verdict.

An inconclusive benchmark's interval straddles a threshold: more samples narrow it. Only a
side measured by *this* checkout's code can be measured again (the other side's code is not
installed here); in CI that is head. New samples are added to the side's samples (the
interval then also holds the run-to-run drift between the two measurements, which makes it
wider, never falsely narrow).

How a side is measured again:

- asv results: ``asv run --bench`` on the same commit, in the current environment
  (``--python=same``, ``--record-samples``, ``--set-commit-hash``), as ``iconbench run``
  drives it, into a scratch results directory (stored results are never touched);
- a runner set (GPU or CPU): ``iconbench suite measure`` of those cases on the set's grid and
  stack, into a scratch output directory (the set's compile ledger copied, so cached builds
  are reused).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence

from iconbench.buildcache import REPO_ROOT
from iconbench.gate.resultset import ResultSet

#: (side, [(case, backend)], budget seconds) -> {benchmark id: new samples}
Measure = Callable[[ResultSet, Sequence[tuple[str, str]], float], dict[str, tuple[float, ...]]]


def asv_measure(
    side: ResultSet, cases: Sequence[tuple[str, str]], budget_s: float
) -> dict[str, tuple[float, ...]]:
    """Run ``time_device``/``time_host`` of ``cases`` with asv again; their new samples."""
    from iconbench import results
    from iconbench.cli.run import shard_bench_regex

    asv = shutil.which("asv") or os.path.join(os.path.dirname(sys.executable), "asv")
    with tempfile.TemporaryDirectory(prefix="iconbench-rerun-") as scratch:
        conf = {
            "version": 1,
            "project": "iconbench",
            "repo": str(REPO_ROOT),
            "branches": ["HEAD"],
            "benchmark_dir": str(REPO_ROOT / "benchmarks"),
            "environment_type": "existing",
            "results_dir": str(pathlib.Path(scratch) / "results"),
            "html_dir": str(pathlib.Path(scratch) / "html"),
        }
        config = pathlib.Path(scratch) / "asv.conf.json"
        config.write_text(json.dumps(conf), encoding="utf-8")
        machine = side.machine.get("name") or "iconbench-rerun"
        regex = shard_bench_regex([c for c, _ in cases]).replace(r"\w+", "time_(?:device|host)", 1)
        env = {
            **os.environ,
            "ICONBENCH_BACKENDS": ",".join(sorted({b for _, b in cases})),
            "ICONBENCH_GRID": side.grid.name,
        }
        subprocess.run(
            [asv, "machine", "--yes", "--config", str(config), "--machine", machine],
            env=env,
            check=False,
            capture_output=True,
        )
        command = [asv, "run", "--config", str(config), "--python=same", "--record-samples",
                   "--bench", regex, "--set-commit-hash", side.commit]  # fmt: skip
        command += ["--machine", machine]
        # asv saves after each benchmark; what finished before the time limit is used
        with contextlib.suppress(subprocess.TimeoutExpired):
            subprocess.run(command, env=env, check=False, capture_output=True, timeout=budget_s)
        root = pathlib.Path(scratch) / "results"
        if not root.exists():
            return {}
        found: dict[str, tuple[float, ...]] = {}
        from iconbench.gate.resultset import _asv_entries

        for entry in _asv_entries(r for r in results.read(root)).values():
            if entry.samples and not entry.error and entry.metric != "compile_time":
                found[entry.key] = entry.samples
        return found


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
            if row.get("error") or not m.get("device_s"):
                continue
            device, host = tuple(m["device_s"]), tuple(m.get("host_s") or ())
            found[f"{row['case']}|{row['backend']}|device_time"] = device
            if len(host) == len(device):
                overhead = tuple(h - d for h, d in zip(host, device, strict=True))
                found[f"{row['case']}|{row['backend']}|host_overhead"] = overhead
        return found


#: The runner's measure step.
RUNNER_MEASURE: Measure = runner_measure
ASV_MEASURE: Measure = asv_measure


def measurer_for(side: ResultSet) -> Measure:
    """How to measure ``side`` again."""
    return RUNNER_MEASURE if side.kind == "runner" else ASV_MEASURE


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

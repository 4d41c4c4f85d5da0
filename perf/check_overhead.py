#!/usr/bin/env python3
"""A check's overhead before and after, on this machine: ``python perf/check_overhead.py``.

What a check spends besides measuring when every build is in the cache, side by side in one
run: (1) the precompile of one side alone (``iconbench suite precompile``) with the compile
index off and on; (2) whole checks (``iconbench continuous`` of a comment-only gt4py change,
``--quick``) with iconbench at ``--before`` and at this checkout: the precompile phase, the
first block's start-up after it (``measure_split.startup``; overlapped, the workers' imports
run beside the precompile phase, so their sum is the figure to compare) and the whole check.
The gt4py checkout is the installed gt4py committed to a repository under ``--work`` (a
comment on the head), as in ``tests/stacks/test_continuous.py``; each kind of run is done
once to fill the caches before the runs timed. Runs on the CPU (``gtfn_cpu`` by default) in
a few minutes.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]  # this checkout's iconbench; the tests' gt4py


def gt4py_checkout(work: pathlib.Path) -> pathlib.Path:
    """The installed gt4py as branch ``main``, and ``same`` with one comment added."""
    from tests.stacks.test_continuous import committed_gt4py

    repo = work / "gt4py"
    return repo if (repo / ".git").is_dir() else committed_gt4py(repo)


def iconbench_at(ref: str, work: pathlib.Path) -> pathlib.Path:
    """The ``src`` of iconbench at ``ref`` (exported once)."""
    from iconbench.stacks import trees

    return trees.export_tree(ROOT, trees.resolve_commit(ROOT, ref), work / "iconbench") / "src"


def environment(src: pathlib.Path) -> dict[str, str]:
    """Our environment with iconbench's ``src`` on the path and the whole catalog."""
    env = {k: v for k, v in os.environ.items() if k != "ICONBENCH_CATALOG"}
    env["PYTHONPATH"] = str(src)
    return env


def check(src: pathlib.Path, repo: pathlib.Path, out: pathlib.Path, args) -> dict[str, float]:
    """One ``iconbench continuous main same --quick`` with iconbench's ``src``: its overhead."""
    from iconbench.records.check import CheckRecord

    shutil.rmtree(out, ignore_errors=True)
    command = [sys.executable, "-m", "iconbench", "continuous", "main", "same", "--repo",
               str(repo), "--programs", args.programs, "--backends", args.backends, "--grid",
               args.grid, "--out", str(out), "--quick"]  # fmt: skip
    done = subprocess.run(
        command, env=environment(src), capture_output=True, text=True, check=False
    )
    if done.returncode not in (0, 1):
        sys.exit(f"check_overhead: the check failed:\n{done.stderr[-2000:]}")
    return CheckRecord.read(out).overhead()


def precompile(repo: pathlib.Path, out: pathlib.Path, index: bool, args) -> float:
    """Wall seconds of one side's ``suite precompile`` (base's tree, its builds cached)."""
    from iconbench.stacks import sides
    from iconbench.stacks.identity import stack_key

    base = sides.resolve("gt4py", repo, ("main", "main"), out=out, stack=stack_key())[0]
    shutil.rmtree(out, ignore_errors=True)
    command = [sys.executable, "-m", "iconbench", "suite", "precompile", "--out", str(out),
               *base.runner_options(), "--backends", args.backends, "--grid", args.grid,
               "--programs", args.programs, "--jobs", "1"]  # fmt: skip
    command += [] if index else ["--no-compile-index"]
    env = base.environment(environment(ROOT / "src"))
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> int:
    """Fill the caches, time the runs, print the figures."""
    from iconbench.records.check import overhead_table

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="iconbench ref to compare with")
    parser.add_argument("--backends", default="gtfn_cpu")
    parser.add_argument("--grid", default="tiny")
    parser.add_argument("--programs", default=r"^compute_tangential_wind\[default\]$")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--work", type=pathlib.Path, help="kept between runs (default: temp)")
    args = parser.parse_args()
    work = args.work or pathlib.Path(tempfile.mkdtemp(prefix="check-overhead-"))
    work.mkdir(parents=True, exist_ok=True)
    repo = gt4py_checkout(work)
    sides = {"before": iconbench_at(args.before, work), "after": ROOT / "src"}
    for name, src in sides.items():  # builds, compile index, trees, bytecode
        check(src, repo, work / f"fill-{name}", args)
    runs: dict[str, list[dict]] = {name: [] for name in sides}
    alone: dict[str, list[float]] = {"index off": [], "index on": []}
    for repeat in range(args.repeats):
        for name, src in sides.items():
            runs[name].append(check(src, repo, work / f"{name}-{repeat}", args))
        for name, on in (("index off", False), ("index on", True)):
            alone[name].append(precompile(repo, work / "precompile", on, args))
    print(f"{args.repeats} runs each, {os.cpu_count()} cores, {args.backends}, {args.grid}, "
          f"{args.programs}; median [s]")  # fmt: skip
    off, on = (statistics.median(alone[k]) for k in ("index off", "index on"))
    print(f"precompile of one all-hit side alone: index off {off:.1f}, on {on:.1f} "
          f"({on / off:.2f}x)")  # fmt: skip
    print(overhead_table(runs["before"], runs["after"]), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())

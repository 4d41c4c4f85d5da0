#!/usr/bin/env python3
r"""A precompile pool worker's start-up before its first compile, alone and N together.

Every check with something to compile waits, before its longest build starts, for the
precompile's pool workers to start: on one H200 host (2026-11-29, ``results/pr-check-h200``,
d482bef) 10-11 s from the precompile's first line to the first build with main's builds (8
workers) and 15-16 s from an empty cache (16), where this workstation's one worker takes
about 3 s. This script tells which part grows: each worker is started as the precompile
starts it (``spawn``) and does what ``runner.precompile._worker`` does before
``suite.compile_case``'s timer starts, timed step by step:

- **start**: the interpreter up and the worker function unpickled (from ``submit``);
- **imports**: ``buildcache.configure`` and ``iconbench.suite`` with gt4py, icon4py and the
  backend (``resolve_backend``);
- **grid**: ``suite.generated_grid`` (a GPU backend: its neighbour tables on the device, the
  CUDA context with them);
- **case**: ``suite._build(..., fields=False)`` (the program's module, its static arguments).

Run with N = 1, then N together (``--processes 1,16``), side by side in one run::

    python perf/compile_worker_startup.py --backend gtfn_gpu --grid mch_icon-ch1_medium \
        --processes 1,16

``--context spawn,forkserver`` runs the same with a ``forkserver`` pool whose server imported
the stack once, as the precompile's is (:mod:`iconbench.runner.compile_server`: its preload,
and ``CUDAARCHS`` from ``nvidia-smi`` so that the server leaves CUDA to the workers);
``forkserver-programs`` with a server that also prepared the case's program, as the
precompile's does for the programs its ``--programs`` pattern names
(:mod:`iconbench.runner.compile_preload`). Each row runs in a fresh process (a server is one
per process), the rows in turn ``--repeats`` times (ABAB), and the table gives their medians.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import multiprocessing
import os
import re
import statistics
import subprocess
import sys
import time

CASE = "compute_rho_theta_pgrad_and_update_vn[is_iau_active=False-limited_area=False]"


def _start_up(job: tuple[float, str, str, str]) -> dict[str, float]:
    """One worker's steps before its compile, in seconds each (``job``: asked for at, ...)."""
    submitted, case, backend, grid = job
    steps = {"start": time.time() - submitted}
    began = time.perf_counter()
    from iconbench import buildcache

    buildcache.configure(os.environ.get("ICONBENCH_STACK", "startup"), jobs=1)
    from iconbench import suite

    suite.resolve_backend(backend)
    steps["imports"] = time.perf_counter() - began
    began = time.perf_counter()
    suite.generated_grid(grid, backend)
    steps["grid"] = time.perf_counter() - began
    began = time.perf_counter()
    suite._build(case, suite.as_backend(backend), suite.as_grid(grid), fields=False)
    steps["case"] = time.perf_counter() - began
    steps["total"] = time.time() - submitted
    return steps


def measure(
    processes: int, case: str, backend: str, grid: str, how: str = "spawn"
) -> list[dict[str, float]]:
    """``processes`` workers started together in one pool, each one's steps.

    ``how``: ``spawn``, or ``forkserver`` with the precompile's preload imported once in the
    server (started here, before the workers are asked for). Each worker's start counts from
    here, so a server's imports are in the first run's.
    """
    since = time.time()
    context = multiprocessing.get_context("spawn" if how == "spawn" else "forkserver")
    if how != "spawn":
        from iconbench.runner import compile_server

        program = re.escape(case.partition("[")[0])
        programs = rf"^{program}\[" if how == "forkserver-programs" else ""
        if compile_server.start(max(2, processes), programs) != "forkserver":  # the precompile's
            raise SystemExit("forkserver: the GPUs' CUDA architecture is not known (CUDAARCHS)")
    with concurrent.futures.ProcessPoolExecutor(processes, mp_context=context) as pool:
        futures = [pool.submit(_start_up, (since, case, backend, grid))
                   for _ in range(processes)]  # fmt: skip
        return [future.result() for future in futures]


def main() -> int:
    """Print one table row per pool kind and number of workers."""
    parser = argparse.ArgumentParser(description="A precompile pool worker's start-up.")
    parser.add_argument("--case", default=CASE)
    parser.add_argument("--backend", default="gtfn_cpu")
    parser.add_argument("--grid", default="tiny")
    parser.add_argument("--processes", default="1,2", help="comma-separated, each a run")
    parser.add_argument("--context", default="spawn",
                        help="comma-separated: spawn, forkserver, forkserver-programs")  # fmt: skip
    parser.add_argument("--repeats", type=int, default=1, help="each row, in turn (ABAB)")
    parser.add_argument("--one", default="", help=argparse.SUPPRESS)  # a row's own process
    args = parser.parse_args()
    from iconbench import buildcache, bytecode

    bytecode.configure()  # the workers import the stack from its cached bytecode, as iconbench's do
    buildcache.configure(os.environ.get("ICONBENCH_STACK", "startup"), jobs=1)  # a server's too
    if args.one:
        how, count = args.one.split(",")
        print(json.dumps(measure(int(count), args.case, args.backend, args.grid, how)))
        return 0
    counts = [int(n) for n in args.processes.split(",")]
    rows = [(h, n) for h in args.context.split(",") for n in counts]
    seen: dict[tuple[str, int], list[dict[str, float]]] = {row: [] for row in rows}
    for _ in range(args.repeats):
        for how, count in rows:
            done = subprocess.run(
                [sys.executable, __file__, "--case", args.case, "--backend", args.backend,
                 "--grid", args.grid, "--one", f"{how},{count}"],
                check=True, capture_output=True, text=True,
            )  # fmt: skip
            seen[how, count] += json.loads(done.stdout.strip().splitlines()[-1])
    print(f"{args.case} on {args.backend}, grid {args.grid}; {os.cpu_count()} cores; "
          f"each row {args.repeats} time(s), medians over its workers")  # fmt: skip
    print("| pool | workers together | start | imports | grid | case | total (median, max) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for (how, count), workers in seen.items():
        cells = [f"{statistics.median(r[step] for r in workers):.2f} s"
                 for step in ("start", "imports", "grid", "case")]  # fmt: skip
        totals = [r["total"] for r in workers]
        print(f"| {how} | {count} | " + " | ".join(cells)
              + f" | {statistics.median(totals):.2f} s, {max(totals):.2f} s |")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

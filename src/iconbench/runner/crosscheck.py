"""Independent checks of the harness's device times: ``crosscheck`` and ``ncu``.

``crosscheck`` re-times measured cases with ``cupyx.profiler.benchmark`` on the same compiled
call; ``ncu`` has Nsight Compute sum the kernel durations of a few calls
(``ncu-target`` is the process ncu profiles). Both pick cases from the slowest down, spread
over the range, and write ``OUT/crosscheck.json`` / ``OUT/ncu.json`` (append-only).
"""

from __future__ import annotations

import json
import pathlib
import re
import subprocess
import sys

from iconbench.grids.grid import Grid
from iconbench.programs.backends import Backend
from iconbench.records.resultdir import write_new_or_suffixed
from iconbench.runner.options import RunOptions
from iconbench.runner.progress import log


def crosscheck(options: RunOptions) -> None:
    """Harness device time vs cupyx.profiler.benchmark on the same compiled call."""
    import statistics

    import cupyx.profiler

    from iconbench import suite
    from iconbench.timing import report

    rows = []
    suite.generated_grid(options.grid, options.backends[0])
    for backend in options.backends:
        for record in _chosen_for_check(options, backend, options.crosscheck):
            prepared = suite.prepare(record.case, backend, options.grid)
            result = cupyx.profiler.benchmark(
                prepared, name=record.case, n_repeat=options.samples, n_warmup=10
            )
            cupyx_s = float(statistics.median(result.gpu_times[0]))
            harness_s = record.measurement.device_median
            rows.append(
                {
                    "case": record.case,
                    "backend": backend.name,
                    "harness_s": harness_s,
                    "cupyx_s": cupyx_s,
                    "ratio": harness_s / cupyx_s,
                }
            )
            suite.forget(record.case, backend, options.grid)
            print(
                f"{backend.name:<9} {record.case:<60} harness {harness_s * 1e6:10.1f} us  "
                f"cupyx {cupyx_s * 1e6:10.1f} us  ratio {harness_s / cupyx_s:.4f}",
                flush=True,
            )
    path = options.out / "crosscheck.json"
    write_new_or_suffixed(path, json.dumps(rows, indent=1))
    print(
        f"{report.within_5pct(rows)}/{len(rows)} within 5% of cupyx.profiler.benchmark", flush=True
    )
    print(
        "independent check with Nsight Compute (kernel durations of one case):\n  ncu "
        "--metrics gpu__time_duration.sum --csv iconbench suite ncu-target "
        f"--case '<case>' --backends {options.backends[0].name} {' '.join(options.grid.argv)}"
    )


def ncu_target(options: RunOptions) -> None:
    """Call one prepared case ``--ncu-calls`` times inside the NVTX range ncu profiles.

    With ``--turn`` the case is set up (imports, grid, program, inputs) while another side's
    process is profiled, and called only on its turn: nothing else runs on the device then
    (:func:`iconbench.explain.profile.profile_sides`).
    """
    import cupy

    from iconbench import suite
    from iconbench.runner import turn as turns
    from iconbench.timing import nsight

    prepared = suite.prepare(options.case, options.backends[0], options.grid)
    call = prepared.call_and_sync()
    if options.turn is not None:
        turns.take(options.turn)
    call()  # warm-up, outside the range
    cupy.cuda.nvtx.RangePush(nsight.NVTX_RANGE)
    for _ in range(options.ncu_calls):
        call()
    cupy.cuda.nvtx.RangePop()
    if options.turn is not None:  # the next side may call its case while ncu writes this one's
        turns.done_path(options.turn).write_text("done", encoding="utf-8")


def target_command(
    case: str,
    backend: str,
    grid: Grid,
    *,
    calls: int,
    stack: str,
    out: pathlib.Path,
    turn: pathlib.Path | None = None,
) -> list[str]:
    """The process ncu profiles: ``calls`` calls of ``case`` from the ``stack``'s build cache.

    ``out`` is the runner directory of that stack (the process checks that it holds it).
    ``backend`` is a name: the argv's (``explain`` has it from a gate summary). With
    ``turn``, it calls the case once the driver writes that file (:mod:`iconbench.runner.turn`).
    """
    command = [sys.executable, "-m", "iconbench", "suite", "ncu-target", "--case", case,
               "--backends", backend, *grid.argv, "--ncu-calls", str(calls), "--stack", stack,
               "--out", str(out)]  # fmt: skip
    return command + (["--turn", str(turn)] if turn is not None else [])


def _chosen_for_check(options: RunOptions, backend: Backend, count: int) -> list:
    """``count`` measured cases of ``backend``, from the slowest down, spread over the range."""
    from iconbench.records.session import SessionLedger
    from iconbench.timing import session

    measured = sorted(
        (
            r
            for r in SessionLedger(options.work / "session.jsonl").results()
            # only what the current clock measured (earlier runs may predate a clock change)
            if session.is_current(r)
            and r.measurement.device_s
            and r.grid == options.grid.name
            and r.backend == backend.name
            and (not options.programs or re.search(options.programs, r.case))
        ),
        key=lambda r: r.measurement.device_median,
        reverse=True,
    )
    step = max(1, len(measured) // max(1, count))
    return measured[::step][:count]


def ncu(options: RunOptions) -> None:
    """Nsight Compute kernel durations of ``--crosscheck`` cases per backend vs the harness."""
    from iconbench.errors import IconbenchError
    from iconbench.timing import nsight, report

    rows = []
    for backend in options.backends:
        for record in _chosen_for_check(options, backend, options.crosscheck):
            csv = options.work / "ncu.csv"
            csv.unlink(missing_ok=True)
            target = target_command(
                record.case,
                backend.name,
                options.grid,
                calls=options.ncu_calls,
                stack=options.stack,
                out=options.out,
            )
            command = nsight.command(target, csv)
            try:
                done = subprocess.run(command, check=False, capture_output=True, text=True)
            except FileNotFoundError:
                log("ncu: Nsight Compute (ncu) is not on PATH; install it or skip the ncu step")
                return
            if done.returncode != 0 or not csv.exists():
                log(f"ncu failed for {backend.name} {record.case}: {done.stderr.strip()[-500:]}")
                continue
            try:
                kernels = nsight.launches(csv.read_text())
            except IconbenchError as error:  # keep the rows of the other cases
                log(f"ncu: {backend.name} {record.case}: {error}")
                continue
            ncu_s = nsight.per_call_seconds(kernels, options.ncu_calls)
            harness_s = record.measurement.device_median
            rows.append(
                {
                    "case": record.case,
                    "backend": backend.name,
                    "harness_s": harness_s,
                    "ncu_s": ncu_s,
                    "kernels_per_call": len(kernels) / options.ncu_calls,
                    "ratio": harness_s / ncu_s,
                }
            )
            print(
                f"{backend.name:<9} {record.case:<60} harness {harness_s * 1e6:10.1f} us  "
                f"ncu {ncu_s * 1e6:10.1f} us ({len(kernels) // options.ncu_calls} kernels)  "
                f"ratio {harness_s / ncu_s:.4f}",
                flush=True,
            )
    write_new_or_suffixed(options.out / "ncu.json", json.dumps(rows, indent=1))
    print(
        f"{report.within_5pct(rows)}/{len(rows)} within 5% of Nsight Compute kernel durations",
        flush=True,
    )

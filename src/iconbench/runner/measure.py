"""``measure``: time every selected compiled pair on the measurement grid, in fresh workers.

The driver hands the cases to worker processes (``iconbench suite measure --worker-jobs``)
that stop at a failure or when device memory is not given back; a fresh worker takes what is
left (:mod:`iconbench.timing.isolation`). Every result is appended to ``work/session.jsonl``,
so a rerun measures only what is missing.
"""

from __future__ import annotations

import gc
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from iconbench.records import copy_peak, phases
from iconbench.runner import cases, devices
from iconbench.runner.options import RunOptions
from iconbench.runner.progress import log

if TYPE_CHECKING:
    import threading

    from iconbench.records.session import SessionLedger
    from iconbench.timing import isolation


def run(options: RunOptions) -> None:
    """Drive the workers (or be one, with ``--worker-jobs``)."""
    if options.worker_jobs:
        worker(options)
        return
    from iconbench import suite
    from iconbench.records import compilation
    from iconbench.records.session import SessionLedger
    from iconbench.timing import session

    jobs = cases.jobs(options)
    compile_ledger = compilation.CompileLedger(options.work / "compile.jsonl")
    # known compile failures of this stack are not compiled again here either (a failure on
    # another stack says nothing about this one)
    compiled = compile_ledger.compiled(options.stack)
    failed_compiles = compile_ledger.failed(options.stack)
    jobs = [j for j in jobs if j in compiled or j not in failed_compiles]
    ledger = SessionLedger(options.work / "session.jsonl")
    todo = session.to_measure(
        ledger, jobs, options.grid.name, retry_failed=options.retry_failed,
        max_cv=options.remeasure_cv_above,
    )  # fmt: skip
    if options.compiled_only:
        # a pair precompile did not get to would compile here, serially, inside the budget;
        # pairs measured already are not asked about (their build may be on an earlier machine)
        cached = compile_ledger.in_cache(options.stack, suite.build_cache_dir())
        embedded = {b.name for b in options.backends if b.is_embedded}
        kept = [j for j in todo if j[1] in embedded or j in cached]
        if len(kept) < len(todo):
            log(
                f"measure: {len(todo) - len(kept)} pairs to measure are not compiled yet "
                "(left for later: run precompile)"
            )
        todo = kept
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="iconbench-measure-") as scratch:
        shares = options.devices.shares(todo, {})
        if len(options.devices) > 1:  # balanced by the ledgers' measuring times
            seconds = devices.measuring_seconds(options.work, options.shard_ledgers)
            shares = options.devices.shares(todo, seconds)
            log(f"measure: {options.devices.describe_shares(shares)}")
        several = len(shares) > 1
        lanes = [
            _lane(
                options,
                device,
                jobs,
                ledger,
                scratch=pathlib.Path(scratch) / f"d{index}",
                several=several,
            )
            for index, device, jobs in shares
        ]
        runs = devices.side_by_side(lanes) if lanes else []
    workers = sum(r.workers for r in runs)
    results = [result for r in runs for result in r.results]
    failed = [result for r in runs for result in r.failed]
    elapsed = time.perf_counter() - start
    phases.append(options.work, "measure", elapsed, measured=len(results), workers=workers,
                  devices=options.devices.labels)  # fmt: skip
    left = len(
        session.to_measure(
            ledger, jobs, options.grid.name, retry_failed=options.retry_failed,
            max_cv=options.remeasure_cv_above,
        )
    )  # fmt: skip
    log(
        f"measure: {len(results)} cases in {elapsed:.0f}s ({workers} workers, "
        f"{len(failed)} failed); {left} left" + (" -> run measure again" if left else "")
    )


def _lane(
    options: RunOptions,
    device: devices.Device,
    jobs: list[tuple[str, str]],
    ledger: SessionLedger,
    *,
    scratch: pathlib.Path,
    several: bool,
) -> Callable[[threading.Event], isolation.WorkerRuns]:
    """One device's share: measured in its fresh workers, one at a time on that device.

    With ``--load-ahead N`` each worker measures N cases while the next one loads its N
    (:mod:`iconbench.runner.load_ahead`).
    """
    from iconbench.timing.isolation import run_in_workers

    scratch.mkdir()
    jobs_file, inflight = scratch / "jobs.json", scratch / "inflight"
    env = device.environment(os.environ)
    name = f"measure [{device.label}]" if several else "measure"

    def command(cases: list[tuple[str, str]], cases_file: pathlib.Path, inflight: pathlib.Path,
                *extra: str) -> list[str]:  # fmt: skip
        """A worker's command line: ``cases`` (written to ``cases_file``), this device."""
        cases_file.write_text(json.dumps(list(cases)), encoding="utf-8")
        argv = [
            sys.executable,
            "-m",
            "iconbench",
            "suite",
            *options.worker_argv,
            "--worker-jobs",
            str(cases_file),
            "--inflight",
            str(inflight),
            *extra,
        ]
        return argv + (["--device", device.label] if device.label else [])  # fmt: skip

    def start_worker(worker_cases, budget_s, inflight):
        budget = ["--budget", f"{budget_s:.0f}"] if budget_s is not None else []
        return subprocess.run(command(worker_cases, jobs_file, inflight, *budget), env=env,
                              check=False).returncode  # fmt: skip

    def spawn(worker_cases: list[tuple[str, str]], turn: pathlib.Path) -> subprocess.Popen:
        """A worker for ``worker_cases`` that loads them, then waits for ``turn``."""
        cases_file = turn.with_suffix(".json")
        return subprocess.Popen(command(worker_cases, cases_file, inflight, "--turn", str(turn)),
                                env=env)  # fmt: skip

    def lane(stop: threading.Event) -> isolation.WorkerRuns:
        from iconbench.runner.load_ahead import Ahead

        ahead = None
        if options.load_ahead and options.budget is None:
            ahead = Ahead(options.load_ahead, spawn, scratch, fallback=start_worker)
        elif options.load_ahead:
            log(f"{name}: --load-ahead is not used with --budget: one worker loads and measures")
        try:
            return run_in_workers(
                jobs,
                grid=options.grid,
                ledger=ledger,
                start_worker=ahead or start_worker,
                inflight=inflight,
                budget_s=options.budget,
                progress=lambda line: log(line.replace("measure", name, 1)),
                stop=stop,
            )
        finally:
            if ahead is not None:
                ahead.close()

    return lane


def worker(options: RunOptions) -> None:
    """One measure worker: the grid once, the copy peak, then the cases of ``--worker-jobs``.

    With ``--turn`` (a check's round, a suite's worker loaded ahead) it loads its programs
    first and measures in the turns the driver gives it (:func:`_in_turns`).
    """
    from iconbench import suite
    from iconbench.records import compilation
    from iconbench.records.session import SessionLedger
    from iconbench.runner import turn as turns
    from iconbench.timing import bandwidth, isolation, session

    jobs = [tuple(job) for job in json.loads(options.worker_jobs.read_text(encoding="utf-8"))]
    if options.load_after is not None:
        yield_to_compiles()
    if options.startup_cores and hasattr(os, "sched_setaffinity"):
        # start up and wait off the cores the measuring workers (of every device) run on
        os.sched_setaffinity(0, set(options.startup_cores))
    who = f"measure worker [{options.device}]" if options.device else "measure worker"
    compile_ledger = compilation.CompileLedger(options.work / "compile.jsonl")
    start = time.perf_counter()
    log(f"{who}: generating grid {options.grid.name} ...")
    marker = turns.loading_path(options.turn) if options.turn is not None else None
    with turns.quietly(options.hold_loads, marker):  # its uploads: not during a turn (and no
        suite.generated_grid(options.grid, options.backends[0])  # turn before it is set up)
    log(f"{who}: grid ready after {time.perf_counter() - start:.0f}s")
    on_gpu = any(b.on_gpu for b in options.backends)
    named = {b.name: b for b in options.backends}  # the job pairs name them (the ledgers')
    measured_since: list[float] = []  # when the first turn began

    def measure_now(these: list[tuple[str, str]]) -> None:
        peak = _copy_peak(options.work / copy_peak.FILE, on_gpu=on_gpu,
                          again=not (options.round_name or options.turn))  # fmt: skip
        datasheet = bandwidth.datasheet_peak(peak.device)
        if not measured_since:  # its first turn
            measured_since.append(time.perf_counter())
            log(
                f"{who}: copy peak {peak.bytes_per_s / 1e12:.3f} TB/s on {peak.device} "
                f"(datasheet {datasheet and datasheet / 1e12} TB/s)"
            )
        elapsed = time.perf_counter() - (measured_since[0] if options.turn else start)
        remaining = None if options.budget is None else options.budget - elapsed
        session.run_cases(
            these,
            grid=options.grid,
            ledger=SessionLedger(options.work / "session.jsonl"),
            prepare=suite.prepare,
            release=suite.forget,
            cold_compile_s=lambda c, b: compile_ledger.cold_seconds(c, b, options.stack),
            copy_peak=lambda _b: peak.bytes_per_s,
            datasheet=lambda _b: datasheet,
            budget_s=remaining,
            retry_failed=True,
            max_cv=options.remeasure_cv_above,
            measure_options={
                "samples": options.samples,
                "max_s": options.max_s,
                "warmup_s": options.warmup_s,
                "warmup_next_s": options.warmup_next_s,
                "gt4py_calls": options.gt4py_calls,
                "precision": options.precision,
            },
            stop_after_failure=True,
            fit_for_next=isolation.DeviceMemory() if on_gpu else lambda: None,
            starting=lambda job: (
                options.inflight and isolation.write_inflight(options.inflight, job)
            ),
            worker=options.round_name or None,
            device=devices.recorded_label(options.device, os.environ),
            progress=_progress(options.device),
            backends=options.backends,
        )

    if options.turn is not None:
        _in_turns(jobs, options, named, measure_now, who=who, since=start)
    else:
        measure_now(jobs)
    if options.round_name or options.turn is not None:
        # a check's round (or a worker loaded ahead) ends here, and the next waits for this
        # process to be gone: leave
        # without tearing down the interpreter's heap (seconds); the ledger is closed already
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


def _in_turns(
    jobs: list[tuple[str, str]],
    options: RunOptions,
    named: dict[str, Any],
    measure_now: Callable[[list[tuple[str, str]]], None],
    *,
    who: str,
    since: float,
) -> None:
    """Load the programs as their builds come, and measure the cases each turn names.

    A check's round worker starts while the check's precompile runs
    (:mod:`iconbench.check.rounds`): it loads each program once its build is in the cache
    (:func:`_loadable`), never while another worker measures (``--hold-loads``), says what it
    has loaded (:func:`iconbench.runner.turn.write_loaded`: not settled from the moment it
    finds a program to load until it has loaded it, so the driver does not take a turn that
    would hold that load back), and measures in each turn the
    cases the driver names, those every worker of its block has loaded, until none is left;
    between turns it loads on the start-up cores and measures on its own
    (``--measure-cores``). What it set up (modules, grid, programs) lives as long as the
    process: frozen, the collections before each case walk only what the cases made,
    milliseconds instead of a tenth of a second a case. A suite's worker loaded ahead
    (:mod:`iconbench.runner.load_ahead`) gets one turn for every case.
    """
    from iconbench import suite
    from iconbench.runner import turn as turns

    turn = options.turn
    assert turn is not None
    marker = turns.loading_path(turn)
    loadable = _loadable(options)
    loaded: list[tuple[str, str]] = []
    said = turns.Loaded()
    left = list(jobs)
    number = 1
    while left:
        path = turns.numbered(turn, number)
        polled = -1.0
        while not path.exists():
            if time.perf_counter() - polled < 0.2:
                time.sleep(0.02)
                continue
            polled = time.perf_counter()
            now = loadable([job for job in jobs if job not in loaded])
            if now and said.settled:  # more to load: not settled while it loads (or waits to)
                turns.write_loaded(turn, said := turns.Loaded(frozenset(loaded), settled=False))
            for case, backend in now:
                with turns.quietly(options.hold_loads, marker, turn=path) as free:
                    if free:
                        suite.preload(case, named[backend], options.grid)
                if not free:
                    break  # its turn came while it waited to load: the turn first
                loaded.append((case, backend))
                gc.freeze()
                if path.exists():
                    break  # its turn first; the rest after it
            else:
                if now or not said.settled:
                    said = turns.Loaded(frozenset(loaded), settled=True)
                    turns.write_loaded(turn, said)
                    if len(loaded) == len(jobs):
                        log(f"{who}: {len(jobs)} programs loaded after "
                            f"{time.perf_counter() - since:.0f}s")  # fmt: skip
                        turns.say_ready(turn)
                continue
            turns.write_loaded(turn, said := turns.Loaded(frozenset(loaded), settled=False))
        these = turns.jobs_of(path, left)
        for case, backend in these:  # named before it was loaded: loaded now, on its turn
            if (case, backend) not in loaded:
                suite.preload(case, named[backend], options.grid)
                loaded.append((case, backend))
        _pin(options.measure_cores)
        measure_now(these)
        left = [job for job in left if job not in these]
        turns.done_path(path).write_text("done", encoding="utf-8")
        if left:
            _pin(options.startup_cores)
        number += 1


def _loadable(options: RunOptions) -> Callable[[list[tuple[str, str]]], list[tuple[str, str]]]:
    """Which of a worker's programs not loaded yet it may load now.

    Without a precompile running (no ``--load-after``, or its file written): all. While it
    runs, those whose build is entered in the stack's compile index
    (:mod:`iconbench.timing.compile_index`, the side's own sources: ``--sources``,
    ``--sources-identity``), so never one whose build is not in the cache yet, which this
    process would compile itself; without the index (``--no-compile-index``, or sources
    whose code identity was not given) none until the precompile has ended.
    """
    from iconbench.runner.precompile import compile_index

    after = options.load_after
    index = None
    # no code identity given: not computed here, in every worker (it hashes the whole tree)
    if (
        after is not None
        and options.compile_index
        and (options.sources_identity or not options.sources)
    ):
        index = compile_index(options)
    grid = options.compile_grid or options.grid

    def now(jobs: list[tuple[str, str]]) -> list[tuple[str, str]]:
        if after is None or after.exists():
            return jobs
        if index is None:
            return []
        return [job for job in jobs if index.lookup(job[0], job[1], grid) is not None]

    return now


def _progress(device: str) -> Callable[[str], None]:
    """A worker's progress lines on stderr, named by its device where a run has several."""
    prefix = f"[{device}] " if device else ""
    return lambda line: print(prefix + line, file=sys.stderr, flush=True)


def _copy_peak(ledger: pathlib.Path, *, on_gpu: bool, again: bool) -> copy_peak.CopyPeak:
    """The device's copy peak: measured and appended to ``ledger``, or its last line reused.

    A check's rounds and a suite's workers loading ahead (``again=False``) measure it once:
    a check's per side, the first round's figure being the side's; a suite's in its first
    worker, the host's GPUs being of one model. The 20 one-GiB copies (and cupy's first
    kernel load) are not repeated in every worker's turn on the device.
    """
    from iconbench.timing import bandwidth

    known = None if again else copy_peak.last(ledger)
    if known is not None:
        return known
    peak = bandwidth.measure_copy_peak(on_gpu=on_gpu)
    copy_peak.append(ledger, peak)
    return peak


#: The niceness a check's first workers start up with while its precompile runs.
STARTUP_NICENESS = 10


def yield_to_compiles() -> None:
    """Lower this process's priority (``nice`` +10) for a start-up beside a check's precompile.

    The longest builds are the precompile's critical path: on the H100 host (2026-11-27,
    mch_icon-ch1_medium, 15 compile processes on 16 cores) the four ``dace_gpu`` builds of
    ``compute_rho_theta_pgrad_and_update_vn`` took 165-194 s in a precompile alone and
    228-257 s beside the 16 measuring workers that loaded base's programs at the same
    priority. At +10 a worker gets the cores the compiles leave idle, which the precompile's
    tail, a few long builds, leaves plenty of. A process cannot raise its priority again, so
    the worker measures at +10 too: on a core of its own (``--measure-cores``), beside
    workers started up at the same niceness, the scheduler then has nothing to weigh.

    >>> import subprocess, sys
    >>> code = ("import os; from iconbench.runner.measure import yield_to_compiles; "
    ...         "before = os.nice(0); yield_to_compiles(); print(os.nice(0) - before)")
    >>> int(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
    ...                    check=True).stdout) in (STARTUP_NICENESS, 19 - os.nice(0))
    True
    """
    os.nice(STARTUP_NICENESS)


def _pin(cores: tuple[int, ...]) -> None:
    """Run on ``cores`` (none: as it is): a worker's own core for its turn, the others between.

    Pinned to one core, the measuring thread does not move between cores (and their clock
    speeds) from process to process.
    """
    if cores and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, set(cores))

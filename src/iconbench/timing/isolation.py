"""Measuring in a series of fresh worker processes, so that one case cannot spoil the rest.

On the H100 (code 8c5fb4c, 2026-11-23) one process measured 100 cases in a row: after 29 cases
cupy held 53.6 GB (of the GPU's 85.0 GB) that freeing its pool did not give back, the 30th
failed to allocate, and so did every case after it; a DaCe program whose own allocation then
failed left an illegal address behind, an error CUDA keeps for the life of the process. 69 of
100 cases were lost to what the cases before them had left. The rules here:

- a worker measures its cases in the given order and stops after its first failure, or when
  :class:`DeviceMemory` finds that releasing a case no longer gives the memory back;
- the driver (:func:`run_in_workers`) starts a new worker on what is left;
- a case that failed after other cases in the same worker is tried once more, as the first
  case of a fresh worker: only a failure there is the case's own;
- a worker that dies (a signal, an abort in native code) before recording the case it was on
  (named in the ``inflight`` file it writes before each case) gets a failure record for that
  case from the driver, and the same once-more rule;
- a worker that records nothing ends the run with :class:`IconbenchError` (it failed before its
  first case: the grid, the imports), since another would fail the same way.

A restart costs the worker's start-up (imports, the grid: ~15 s on the 1M-cell grid), paid
only after a failure or a leak.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence

from iconbench.errors import IconbenchError
from iconbench.grids.grid import Grid
from iconbench.records.session import CaseResult, SessionLedger

Job = tuple[str, str]

#: ``start_worker(cases, budget_s, inflight)``: run one worker process on ``cases`` (in order)
#: for at most ``budget_s`` seconds, writing each case's key to ``inflight`` before it starts;
#: return its exit status (negative: killed by that signal, as :mod:`subprocess` reports it).
StartWorker = Callable[[Sequence[Job], float | None, pathlib.Path], int]


@dataclasses.dataclass(frozen=True)
class WorkerRuns:
    """What :func:`run_in_workers` did: workers started, and results recorded in this run."""

    workers: int
    results: list[CaseResult]

    @property
    def failed(self) -> list[CaseResult]:
        """Final failures: the latest record of each case that failed, after its retry."""
        latest = {(r.case, r.backend): r for r in self.results}
        return [r for r in latest.values() if r.error is not None]


def write_inflight(path: pathlib.Path, job: Job | None) -> None:
    """Name the case a worker is about to measure (``None``: between cases)."""
    path.write_text(json.dumps(list(job)) if job else "", encoding="utf-8")


def read_inflight(path: pathlib.Path) -> Job | None:
    """The case named by :func:`write_inflight`, if any.

    >>> import tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "inflight"
    >>> write_inflight(path, ("prog[default]", "gtfn_gpu")); read_inflight(path)
    ('prog[default]', 'gtfn_gpu')
    >>> write_inflight(path, None); read_inflight(path) is None
    True
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    if not text:
        return None
    case, backend = json.loads(text)
    return case, backend


def exit_description(returncode: int) -> str:
    """``-11`` → ``"killed by SIGSEGV"``; ``3`` → ``"exit status 3"``.

    >>> exit_description(-6), exit_description(1)
    ('killed by SIGABRT', 'exit status 1')
    """
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exit status {returncode}"


def run_in_workers(
    jobs: Sequence[Job],
    *,
    grid: Grid,
    ledger: SessionLedger,
    start_worker: StartWorker,
    inflight: pathlib.Path,
    budget_s: float | None = None,
    progress: Callable[[str], None] = lambda line: print(line, file=sys.stderr, flush=True),
    stop: threading.Event | None = None,
) -> WorkerRuns:
    """Measure ``jobs`` (all still to do) in as many fresh workers as the rules above need.

    The workers of other devices may append to ``ledger`` meanwhile (each device measures its
    own share of the cases, :mod:`iconbench.runner.devices`): only records of ``jobs`` count.
    Once ``stop`` is set (another device's run failed) no fresh worker starts.
    """
    started = time.perf_counter()
    pending = list(jobs)
    mine = set(pending)
    retried: set[Job] = set()
    recorded: list[CaseResult] = []
    workers = 0
    while pending and not (stop is not None and stop.is_set()):
        left_s = None if budget_s is None else budget_s - (time.perf_counter() - started)
        if left_s is not None and left_s <= 0:
            progress(f"measure: time budget used; {len(pending)} cases left")
            break
        write_inflight(inflight, None)
        offset = ledger.size()
        returncode = start_worker(list(pending), left_s, inflight)
        workers += 1
        since = ledger.results_since(offset)
        new = [r for r in since if r.grid == grid.name and (r.case, r.backend) in mine]
        died_on = read_inflight(inflight) if returncode != 0 else None
        if died_on is not None and died_on not in {(r.case, r.backend) for r in new}:
            crash = CaseResult.failure(
                *died_on,
                grid.name,
                f"measure worker {exit_description(returncode)} during this case",
            )
            ledger.append(crash)
            new.append(crash)
        if not new:
            raise IconbenchError(
                f"measure worker: {exit_description(returncode)} before its first case "
                "(see its output above); fix that and run measure again"
            )
        recorded.extend(new)
        first = (new[0].case, new[0].backend)
        for result in new:
            job = (result.case, result.backend)
            if job not in pending:
                continue
            pending.remove(job)
            if result.error is not None and job != first and job not in retried:
                # possibly the earlier cases' fault: once more, first in a fresh worker
                retried.add(job)
                pending.insert(0, job)
        out_of_time = budget_s is not None and time.perf_counter() - started >= budget_s
        if pending and not out_of_time:
            progress(
                f"measure: worker {workers} ended ({exit_description(returncode)}) after "
                f"{len(new)} cases; a fresh worker takes the {len(pending)} left"
            )
    return WorkerRuns(workers, recorded)


def gpu_memory_in_use() -> tuple[int, int]:
    """(bytes in use on the GPU after freeing what can be freed, total bytes).

    Collects garbage and returns cupy's free blocks to the driver first, so that what is left
    is held by live arrays or outside cupy (compiled programs, the CUDA context).
    """
    import gc

    import cupy

    gc.collect()
    cupy.get_default_memory_pool().free_all_blocks()
    free, total = cupy.cuda.runtime.memGetInfo()
    return total - free, total


class DeviceMemory:
    """Whether releasing a case gave its device memory back (a worker's fitness for the next).

    Called after each case, it compares the memory in use (``in_use()``, by default
    :func:`gpu_memory_in_use`) with what it was when the worker started. Memory still held
    beyond ``limit`` of the GPU is not coming back in this process (a leak, or cupy chunks
    pinned by small live arrays), so the worker should make way for a fresh one.

    >>> readings = iter([(2e9, 80e9), (3e9, 80e9), (25e9, 80e9)])
    >>> fit = DeviceMemory(in_use=lambda: next(readings), log=lambda line: None)
    >>> fit() is None
    True
    >>> fit()
    '23.0 GB of device memory not given back after releasing the case (25.0 of 80.0 GB in use)'
    """

    def __init__(
        self,
        limit: float = 0.25,
        *,
        in_use: Callable[[], tuple[int, int]] | None = None,
        log: Callable[[str], None] | None = None,
    ) -> None:
        self.limit = limit
        self._in_use = in_use or gpu_memory_in_use
        self._log = log or (lambda line: print(line, file=sys.stderr, flush=True))
        self.baseline = self._in_use()[0]

    def __call__(self) -> str | None:
        """``None`` while fit; else why this worker should stop."""
        held, total = self._in_use()
        grown = held - self.baseline
        self._log(f"           device memory in use {held / 1e9:.1f} GB ({grown / 1e9:+.1f} GB)")
        if grown > self.limit * total:
            return (
                f"{grown / 1e9:.1f} GB of device memory not given back after releasing the case "
                f"({held / 1e9:.1f} of {total / 1e9:.1f} GB in use)"
            )
        return None

"""Measuring many cases in one process, resumably.

asv runs every benchmark in a fresh process, which on a 1M-cell grid means regenerating the
grid and reloading programs hundreds of times. For the big GPU runs (and the demo) the same
measurements are taken here in *one* process, with the same clocks and protocol
(:func:`iconbench.timing.measurement.measure`), and then written in asv's result format by
:mod:`iconbench.records.asv`, so asv compare/publish work on them unchanged.

Every finished case is appended to the session ledger at once
(:mod:`iconbench.records.session`: its records, how they are read and joined); a run killed
at its time limit restarts where it stopped. Cases in the ledger are not measured again,
except those whose device time came from a clock iconbench no longer uses (a newer record
then wins; the old line stays in the file), and failed ones on request.
"""

from __future__ import annotations

import dataclasses
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from iconbench.programs import backends as registry
from iconbench.records.session import CaseResult, SessionLedger
from iconbench.sample_stats import CV_THRESHOLD_S, summarize
from iconbench.timing.clocks import clock_for, clock_type_for
from iconbench.timing.measurement import measure

if TYPE_CHECKING:
    from iconbench.grids import Grid
    from iconbench.programs.backends import Backend


def to_measure(
    ledger: SessionLedger,
    jobs: Sequence[tuple[str, str]],
    grid: str,
    *,
    retry_failed: bool = False,
    max_cv: float | None = None,
) -> list[tuple[str, str]]:
    """The ``jobs`` still to measure on ``grid``, in order (see :func:`measured`).

    Reads the ledger once (it holds every sample of every case: megabytes on the H100).
    """
    skip = {
        (r.case, r.backend, r.grid)
        for r in ledger.results()
        if _counts_as_measured(r, max_cv) or (not retry_failed and r.error is not None)
    }
    return [(c, b) for c, b in jobs if (c, b, grid) not in skip]


def measured(ledger: SessionLedger, max_cv: float | None = None) -> set[tuple[str, str, str]]:
    """Keys of cases measured with the clock in use now, no noisier than ``max_cv``.

    See :func:`is_current` and :func:`is_noisy`.
    """
    return {(r.case, r.backend, r.grid) for r in ledger.results() if _counts_as_measured(r, max_cv)}


def _counts_as_measured(result: CaseResult, max_cv: float | None) -> bool:
    """Measured by today's clock, and no noisier than ``max_cv`` when one is given."""
    return is_current(result) and not (max_cv is not None and is_noisy(result, max_cv))


def is_current(result: CaseResult) -> bool:
    """Whether ``result`` was measured, and its device time taken by today's clock.

    A device time from another clock is not comparable (the unheld CUDA-event clock counted
    ~150 µs of Python launch time on an H100), so such a case counts as not measured.

    >>> from iconbench.records.session import Measurement
    >>> def made_with(source):
    ...     m = Measurement(host_s=[1e-3], device_s=[9e-4], device_source=source)
    ...     return CaseResult("c", "gtfn_gpu", "g", m, 0, 0.0, None, None, None, None, 0.0, 1.0)
    >>> is_current(made_with("cuda-events-held")), is_current(made_with("cuda-events"))
    (True, False)
    """
    if result.error is not None or result.measurement is None:
        return False
    source = result.measurement.device_source
    clock = clock_type_for(registry.backend(result.backend))
    return source in ("none", clock.device_source)


def is_noisy(result: CaseResult, max_cv: float) -> bool:
    """Whether a device time above ``CV_THRESHOLD_S`` varied by more than ``max_cv``.

    Such a case was disturbed (on the H100, a verify job beside the measurements put outliers
    of 1.2-2.4x the median into 19 of 149 cases); measured again alone, it gives the number
    to keep.

    >>> from iconbench.records.session import Measurement
    >>> def timed(samples):
    ...     m = Measurement(host_s=samples, device_s=samples, device_source="cuda-events-held")
    ...     return CaseResult("c", "gtfn_gpu", "g", m, 0, 0.0, None, None, None, None, 0.0, 1.0)
    >>> is_noisy(timed([846e-6] * 99 + [1243e-6]), 0.01)
    True
    >>> is_noisy(timed([846e-6, 847e-6, 848e-6]), 0.01), is_noisy(timed([9e-6, 20e-6]), 0.01)
    (False, False)
    """
    m = result.measurement
    if m is None or not m.device_s or (m.device_median or 0.0) <= CV_THRESHOLD_S:
        return False
    return summarize(m.device_s).cv > max_cv


def run_cases(
    jobs: Sequence[tuple[str, str]],
    *,
    grid: Grid,
    ledger: SessionLedger,
    prepare: Callable[[str, Backend, Grid], Any],
    release: Callable[[str, Backend, Grid], None] = lambda *_: None,
    cold_compile_s: Callable[[str, str], float | None] = lambda *_: None,
    copy_peak: Callable[[str], float | None] = lambda _: None,
    datasheet: Callable[[str], float | None] = lambda _: None,
    budget_s: float | None = None,
    retry_failed: bool = False,
    max_cv: float | None = None,
    measure_options: dict[str, Any] | None = None,
    progress: Callable[[str], None] = lambda line: print(line, file=sys.stderr, flush=True),
    stop_after_failure: bool = False,
    fit_for_next: Callable[[], str | None] = lambda: None,
    starting: Callable[[tuple[str, str] | None], None] = lambda _: None,
    worker: str | None = None,
    device: str | None = None,
    backends: Sequence[Backend] = (),
) -> list[CaseResult]:
    """Measure every (case, backend) of ``jobs`` not yet in ``ledger``; stop after ``budget_s``.

    With ``max_cv``, cases measured noisier than that (:func:`is_noisy`) are measured again.

    For a worker of :mod:`iconbench.timing.isolation`: ``stop_after_failure`` ends the run
    after a failed case (it may have left the process unusable), ``fit_for_next()`` is asked
    after each case for a reason to stop (device memory not given back), and
    ``starting(job)`` names each case before it starts (``None`` once it is recorded).

    Results are recorded under ``grid``'s name with its counts.

    ``jobs`` name their backends, as the ledgers do; ``backends`` are the run's, resolved at
    its command line, and a job naming another is resolved here, once. ``prepare`` and
    ``release`` get the :class:`~iconbench.programs.backends.Backend`; ``cold_compile_s``,
    ``copy_peak`` and ``datasheet`` its name (the ledgers' key).

    ``prepare(case, backend, grid)`` returns a :class:`iconbench.suite.PreparedCase`-like
    object (callable, ``call_and_sync()``, ``bytes_moved``, ``load_s``, and optionally the
    ``fingerprint`` of its generated code).

    ``measure_options`` are :func:`~iconbench.timing.measurement.measure`'s, and
    ``warmup_next_s``: the warm-up of each GPU case after the first (the device is working
    already: the first case warmed its clocks, and the one before has just run on it). A CPU
    case warms up ``warmup_s`` wherever it comes: the host's caches hold the case before it.

    A ``worker`` of an interleaved check (a round's process) measures every job again, whatever
    the ledger holds, and tags its records with its name; ``device`` tags them with the device
    they were measured on.
    """
    started = time.perf_counter()
    todo = (
        list(jobs)
        if worker
        else to_measure(ledger, jobs, grid.name, retry_failed=retry_failed, max_cv=max_cv)
    )
    new: list[CaseResult] = []
    resolved = {b.name: b for b in backends}
    first = dict(measure_options or {})
    following_s = first.pop("warmup_next_s", None)
    following = first if following_s is None else {**first, "warmup_s": following_s}
    for number, (case, backend) in enumerate(todo, start=1):
        if budget_s is not None and time.perf_counter() - started > budget_s:
            progress(f"time budget of {budget_s:.0f}s used; {len(todo) - number + 1} cases left")
            break
        starting((case, backend))
        try:
            if backend not in resolved:
                resolved[backend] = registry.backend(backend)
            result = _measure_case(
                case,
                resolved[backend],
                grid,
                prepare=prepare,
                cold_compile_s=cold_compile_s,
                copy_peak=copy_peak,
                datasheet=datasheet,
                measure_options=following if new and resolved[backend].on_gpu else first,
            )
        finally:
            release(case, resolved[backend], grid)
        if worker or device:
            result = dataclasses.replace(result, worker=worker, device=device)
        ledger.append(result)
        starting(None)
        new.append(result)
        timed = f"{result.timed_s * 1e6:10.1f} us" if result.timed_s else "    FAILED"
        progress(
            f"[{number:>4}/{len(todo)}] {backend:<9} {case:<60} {timed}"
            f"  (load {result.load_s:.1f}s)"
        )
        if result.error:
            progress(f"           {result.error.splitlines()[-1]}")
        left = len(todo) - number
        if result.error and stop_after_failure and left:
            progress(f"stopping after a failure; {left} cases left for a fresh process")
            break
        reason = fit_for_next()
        if reason and left:
            progress(f"stopping: {reason}; {left} cases left for a fresh process")
            break
    return new


def _measure_case(
    case: str,
    backend: Backend,
    grid: Grid,
    *,
    prepare: Callable[[str, Backend, Grid], Any],
    cold_compile_s: Callable[[str, str], float | None],
    copy_peak: Callable[[str], float | None],
    datasheet: Callable[[str], float | None],
    measure_options: dict[str, Any],
) -> CaseResult:
    """Prepare and measure one case; a failure becomes a record, not an exception.

    A function of its own so that the prepared case (its fields: 29.9 GB for a solver program
    on the 1M-cell grid) is unreferenced once it returns. As locals of the loop in
    :func:`run_cases` the fields of each case lived on into the next one: on the H100 that ran
    the 30th case of the run at 8c5fb4c out of memory, and the run at 566c841 found the 29.9 GB
    still held after the case was released.
    """
    t0, wall0 = time.perf_counter(), time.time()
    try:
        prepared = prepare(case, backend, grid)
        prepared_s = time.perf_counter() - t0
        call = prepared.call_and_sync() if backend.is_embedded else prepared
        return CaseResult(
            case=case,
            backend=backend.name,
            grid=grid.name,
            measurement=measure(call, clock_for(backend), **measure_options),
            bytes_moved=int(prepared.bytes_moved),
            load_s=float(prepared.load_s),
            cold_compile_s=cold_compile_s(case, backend.name),
            fingerprint=getattr(prepared, "fingerprint", None),
            copy_peak_bytes_per_s=copy_peak(backend.name),
            datasheet_bytes_per_s=datasheet(backend.name),
            started_at=wall0,
            duration_s=time.perf_counter() - t0,
            grid_counts=grid.counts.as_dict(),
            bytes_model=getattr(prepared, "bytes_model", None),
            prepare_s=prepared_s,
        )
    except Exception as error:
        detail = "".join(traceback.format_exception_only(error)).strip()[-2000:]
        return CaseResult.failure(case, backend.name, grid.name, detail, started_at=wall0)

"""``precompile``: the one driver that compiles programs up front, in a process pool.

A full suite is ~200 programs per backend at 30–50 s each, so compiling serially inside the
measurement would take hours. :func:`compile_pairs` compiles every (case, backend) in a
process pool (forked from a server that imported the stack once, :mod:`.compile_server`,
else ``spawn``) into the persistent gt4py build cache shared by all processes
(:func:`iconbench.buildcache.configure`, keyed by the stack), and appends each compile to the
result directory's ledger (``work/compile.jsonl``,
:class:`~iconbench.records.compilation.CompileLedger`); measuring then only *loads* from the
cache. Every command that compiles goes through it: ``iconbench suite``/``run``/``demo``/
``check`` (the :func:`run` step), ``iconbench verify``, and the asv suite's ``setup_cache``
(``asv continuous``). A pair whose build the compile index knows
(:mod:`iconbench.timing.compile_index`) is not compiled, and no pool starts when every pair
is known: a check whose builds are all cached precompiles in the seconds of one process start.
On a runner that keeps its cache (``ICONBENCH_SHARED_BUILD_CACHE=1``) the stack's cache first
gets the build folders of the runner's other stacks (:mod:`iconbench.stacks.shared_builds`).
"""

from __future__ import annotations

import concurrent.futures
import os
import pathlib
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from contextlib import nullcontext

from iconbench.grids.grid import Grid
from iconbench.records import phases
from iconbench.records.compilation import CompileLedger, CompileRecord
from iconbench.runner import busy_builds, cases, compile_server
from iconbench.runner.busy_builds import Deferred
from iconbench.runner.options import RunOptions
from iconbench.runner.progress import log
from iconbench.stacks import shared_builds
from iconbench.timing.compile_index import CompileIndex, Sources


def run(options: RunOptions) -> None:
    """Compile what is not yet measured and not yet in the cache (``work/compile.jsonl``)."""
    from iconbench import suite

    jobs = cases.unmeasured(options)
    ledger = CompileLedger(options.work / "compile.jsonl")
    cache_dir = suite.build_cache_dir()
    if options.shared_builds:
        version = suite.build_cache_version()
        linked = shared_builds.link_runner_builds(cache_dir, version)
        log(f"precompile: {linked} build folders of this runner's other stacks (gt4py {version}) "
            f"linked into {cache_dir}; translations are the stack's own")  # fmt: skip
    index = compile_index(options) if options.compile_index else None
    log(
        f"precompile: {len(jobs)} (program, backend) pairs, {options.processes} processes, "
        f"{os.environ['GT4PY_BUILD_JOBS']} build jobs each, "
        f"cache {os.environ['GT4PY_BUILD_CACHE_DIR']}"
    )
    start = time.perf_counter()
    records = compile_pairs(
        jobs,
        grid=options.compile_grid,
        stack=options.stack,
        ledger=ledger,
        processes=options.processes,
        budget_s=options.budget,
        skip_failed=not options.retry_failed,
        cache_dir=cache_dir,
        shortest_first=options.shortest_first,
        index=index,
        runner_ledgers=[CompileLedger(options.shard_ledgers / "compile.jsonl")]
        if options.shard_ledgers is not None
        else [],
    )
    elapsed = time.perf_counter() - start
    found = sum(r.from_index for r in records)
    compiled = len(records) - found
    phases.append(options.work, "precompile", elapsed, compiled=compiled, from_index=found)
    known_failures = ledger.failed(options.stack) & set(jobs)
    left = len(ledger.pending(jobs, options.stack, cache_dir=cache_dir, skip_failed=True))
    failed = sum(1 for r in records if r.error)
    log(
        f"precompile: {compiled} compiled in {elapsed:.0f}s ({failed} failed), {found} found "
        "in the compile index; "
        f"{len(known_failures)} pairs fail to compile"
        + ("" if options.retry_failed else " (not tried again; --retry-failed does)")
        + f"; {left} pairs not compiled yet"
        + (" -> run precompile again" if left else "")
    )


def compile_index(options: RunOptions) -> CompileIndex:
    """The compile index of this run's stack and sources, in the build cache in effect."""
    from iconbench import suite

    sources = Sources.of(options.sources, options.sources_identity)
    directory = pathlib.Path(os.environ["GT4PY_BUILD_CACHE_DIR"])
    return CompileIndex(directory, suite.build_cache_dir(), options.stack, sources, warn=log)


def compile_pairs(
    jobs: Sequence[tuple[str, str]],
    *,
    grid: Grid,
    stack: str,
    ledger: CompileLedger,
    processes: int,
    progress: Callable[[int, int, CompileRecord], None] | None = None,
    skip_failed: bool = False,
    budget_s: float | None = None,
    cache_dir: os.PathLike[str] | None = None,
    shortest_first: bool = False,
    index: CompileIndex | None = None,
    runner_ledgers: Sequence[CompileLedger] = (),
) -> list[CompileRecord]:
    """Compile every (case, backend) of ``jobs`` with ``processes`` workers; append to ``ledger``.

    Only :meth:`~iconbench.records.compilation.CompileLedger.pending` pairs are compiled
    (resumable: a run killed at its time limit continues where it stopped; ``cache_dir`` and
    ``skip_failed`` as there), and never ``embedded``, which has nothing to compile. No
    compile starts that the ledger expects to end after ``budget_s`` seconds
    (:func:`take_fitting`; on the H100, starting 14 solver variants of ~160 s each shortly
    before the budget ran out took the compiling of the run at 566c841 120 s past it).
    gt4py's ``GT4PY_BUILD_JOBS`` parallelises the C++ build inside each worker, so
    ``processes * build jobs`` should be about the core count. The longest compiles (as the
    ledger, or else one of ``runner_ledgers``, knows them from earlier runs) start first, so
    that a 190 s fused program does not start last and keep the pool waiting on it alone. A
    check's side has a fresh result directory whose ledger knows no compile: without the
    runner's ledgers its pool took the jobs in the order of the case list.
    ``shortest_first`` turns that order round for a second pool over the same jobs into the
    same build cache (a check's head beside its base), where the two would otherwise meet
    on each build.
    A worker does not wait on a build folder another process is building while other jobs
    are left: the job goes back (:mod:`iconbench.runner.busy_builds`) and is taken up again,
    waiting, once no other is pending; so two pools in one order make each build once too.
    With an ``index``, a pending pair whose build it finds goes into the ledger from there
    (``from_index``; returned too) and only the others are compiled; each compile that built
    a library is entered into it. ``progress`` defaults to one line per compile on stderr.
    """
    progress = progress or print_progress
    compiled = [job for job in jobs if job[1] != "embedded"]
    pending_pairs = ledger.pending(compiled, stack, cache_dir=cache_dir, skip_failed=skip_failed)
    results: list[CompileRecord] = []
    if index is not None:
        pending_pairs = _known_builds(pending_pairs, index, grid, ledger, results)
    todo = [(case, backend, grid, stack) for case, backend in pending_pairs]
    if not todo:
        return results
    found = len(results)
    started = time.perf_counter()
    context = compile_server.context()  # forked from a preloaded server where one runs
    expected = ledger.expected_seconds(*runner_ledgers)
    pending = queue(todo, lambda job: expected(job[0], job[1]), shortest_first=shortest_first)
    deferred: list[tuple[str, str, Grid, str]] = []  # busy elsewhere: taken up again, waiting
    workers = max(1, processes)
    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=context) as pool:
        running: dict[concurrent.futures.Future[CompileRecord | Deferred], tuple] = {}
        while pending or running or deferred:
            while (pending or deferred) and len(running) < workers:
                left_s = None if budget_s is None else budget_s - (time.perf_counter() - started)
                waiting = not pending  # the last jobs wait for a build another process makes
                job = take_fitting(pending or deferred, left_s, lambda j: expected(j[0], j[1]))
                if job is None:
                    break
                running[pool.submit(_worker, (*job, not waiting))] = job
            if not running:
                break
            finished, _ = concurrent.futures.wait(
                running, return_when=concurrent.futures.FIRST_COMPLETED
            )
            for future in finished:
                job, record = running.pop(future), future.result()
                if isinstance(record, Deferred):
                    log(f"precompile: {record.case} on {record.backend}: {record.folder} is "
                        "being built by another process; taken up again later (after "
                        f"{record.seconds:.1f} s)")  # fmt: skip
                    deferred.append(job)
                    continue
                ledger.append(record)
                if index is not None:
                    index.record(record, grid)
                results.append(record)
                progress(len(results) - found, len(todo), record)
    return results


def _known_builds(
    pairs: Sequence[tuple[str, str]],
    index: CompileIndex,
    grid: Grid,
    ledger: CompileLedger,
    found: list[CompileRecord],
) -> list[tuple[str, str]]:
    """The pairs whose build ``index`` does not know; the known go to ``ledger`` and ``found``."""
    left = []
    for case, backend in pairs:
        record = index.lookup(case, backend, grid)
        if record is None:
            left.append((case, backend))
        else:
            ledger.append(record)
            found.append(record)
    return left


def _worker(job: tuple[str, str, Grid, str, bool]) -> CompileRecord | Deferred:
    """Compile one (case, backend, grid) in a pool process (imports gt4py there).

    ``defer``: a build folder another process holds is not waited on (:class:`Deferred`).
    """
    case, backend, grid, stack, defer = job
    name = grid.name  # what the ledger records the grid by
    from iconbench import buildcache

    buildcache.configure(stack, jobs=int(os.environ.get("GT4PY_BUILD_JOBS", "1")))
    from iconbench import suite
    from iconbench.records.build_stages import with_other
    from iconbench.timing import compile_stages

    started = time.perf_counter()
    try:
        with (busy_builds.deferring(suite.build_cache_dir()) if defer else nullcontext(),
              busy_builds.translating_once(defer=defer),
              compile_stages.timed(suite.build_cache_dir()) as stages):  # fmt: skip
            seconds, build = suite.compile_case(case, backend, grid)
        timed = with_other(stages, total=seconds) if stages else None
        if build is None:
            return CompileRecord(case, backend, name, stack, seconds, stages=timed)
        return CompileRecord(case, backend, name, stack, seconds, build.fingerprint,
                             library=build.library, stages=timed)  # fmt: skip
    except busy_builds.BusyBuildError as busy:
        return Deferred(case, backend, busy.folder, time.perf_counter() - started)
    except Exception as error:
        from iconbench.stacks.breakage import classify

        found = classify(error)  # a stack that breaks here says where, in one line
        detail = found.line() if found else "".join(traceback.format_exception_only(error))
        return CompileRecord(case, backend, name, stack, 0.0, None, detail.strip()[-2000:])


def split_processes(work: Sequence[float], processes: int) -> list[int]:
    """``processes`` compile processes shared by pools side by side, in proportion to ``work``.

    A check precompiles base and head at once, each in its own pool (their sources differ).
    An even split left half the cores idle where one side had its builds in the cache: the
    head of a change against main's builds compiled on half the host. Each pool with work
    gets at least one process (largest remainders get the rest); one without gets one, which
    starts no pool (its builds are found in the compile index).

    >>> split_processes([100.0, 100.0], 16), split_processes([0.0, 300.0], 16)
    ([8, 8], [1, 16])
    >>> split_processes([50.0, 150.0], 16), split_processes([1.0, 999.0], 16)
    ([4, 12], [1, 15])
    >>> split_processes([0.0, 0.0], 16), split_processes([5.0, 5.0], 1)
    ([1, 1], [1, 1])
    """
    busy = [i for i, w in enumerate(work) if w > 0]
    shares = [1] * len(work)
    if not busy:
        return shares
    total = sum(work[i] for i in busy)
    exact = {i: processes * work[i] / total for i in busy}
    for i in busy:
        shares[i] = max(1, int(exact[i]))
    left = processes - sum(shares[i] for i in busy)
    for i in sorted(busy, key=lambda i: exact[i] - shares[i], reverse=True)[: max(0, left)]:
        shares[i] += 1
    return shares


def pending_seconds(
    jobs: Sequence[tuple[str, str]],
    index: CompileIndex,
    grid: Grid,
    expected: Callable[[str, str], float],
) -> float:
    """The compile seconds ``jobs`` are expected to take, those the ``index`` knows left out.

    No gt4py is imported: a check weighs its two pools before it starts them. A job the
    ledger has no time for counts one second (it is work all the same).
    """
    return sum(max(1.0, expected(case, backend)) for case, backend in jobs
               if backend != "embedded" and index.lookup(case, backend, grid) is None)  # fmt: skip


def queue[Job](
    jobs: Sequence[Job], expected: Callable[[Job], float], *, shortest_first: bool = False
) -> list[Job]:
    """``jobs`` in the order :func:`take_fitting` takes them from the end: longest first.

    With ``shortest_first`` the whole order is turned round, the jobs' own order too where
    the ledger knows none of them, so that a second pool over the same jobs starts at the
    other end.

    >>> seconds = {"a": 10.0, "b": 60.0, "c": 160.0, "d": 0.0}.get
    >>> queue("abcd", seconds)[::-1], queue("abcd", seconds, shortest_first=True)[::-1]
    (['c', 'b', 'a', 'd'], ['d', 'a', 'b', 'c'])
    >>> unknown = dict.fromkeys("xyz", 0.0).get
    >>> queue("xyz", unknown)[::-1], queue("xyz", unknown, shortest_first=True)[::-1]
    (['z', 'y', 'x'], ['x', 'y', 'z'])
    """
    ordered = sorted(jobs, key=expected)
    if shortest_first:
        ordered.reverse()
    return ordered


def take_fitting[Job](
    pending: list[Job], left_s: float | None, expected: Callable[[Job], float]
) -> Job | None:
    """Take the longest job expected to end within ``left_s`` seconds out of ``pending``.

    ``pending`` is sorted by ``expected``, shortest first; ``None`` if no job fits.

    >>> pending = [("a", 10.0), ("b", 60.0), ("c", 160.0)]
    >>> take_fitting(pending, 100.0, lambda job: job[1]), pending
    (('b', 60.0), [('a', 10.0), ('c', 160.0)])
    >>> take_fitting(pending, 5.0, lambda job: job[1]), take_fitting(pending, None, lambda j: j[1])
    (None, ('c', 160.0))
    """
    if left_s is None:
        return pending.pop() if pending else None
    if left_s <= 0:
        return None
    for index in range(len(pending) - 1, -1, -1):
        if expected(pending[index]) <= left_s:
            return pending.pop(index)
    return None


def print_progress(number: int, total: int, record: CompileRecord) -> None:
    """A one-line progress report per finished compile."""
    status = f"{record.seconds:6.1f}s" if record.error is None else "FAILED"
    print(
        f"[{number:>4}/{total}] compiled {record.backend:<9} {record.case} {status}",
        file=sys.stderr,
        flush=True,
    )
    if record.error:
        print(f"           {record.error.splitlines()[-1]}", file=sys.stderr, flush=True)

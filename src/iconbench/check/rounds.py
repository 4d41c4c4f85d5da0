"""Base and head measured in alternating fresh processes, one on the device at a time.

Measuring all of base and then all of head puts any change of the machine between the two
phases (a neighbour's load, the GPU's clocks warming, a throttle) onto one side: on a busy
2-core runner that made two regressions and two improvements out of unchanged code. Here each
**round** is one fresh worker process measuring every case of one side, and rounds alternate
in blocks ``ABBA``, ``BAAB``: a drift linear in time adds the same to both sides within each
block (and a step cancels over two blocks), and each side is measured in as many processes as
rounds, so the gate sees the spread between processes (:mod:`iconbench.gate.processes`).

The workers of the first blocks (those every check measures before the gate is asked) start
up side by side (imports, grid, loading their programs: the seconds a DaCe program takes to
load), and then measure one at a time, the others idle: start-up is paid once for those
blocks, and nothing else runs beside a measurement (no worker loads during another's turn,
:func:`iconbench.runner.turn.quietly`). (Starting the next worker while one measured spread
the host overhead of the same code over 0.6-1.5x between processes on an H100.) A check's
first workers start while its precompile runs: they import the stack and build the grid
meanwhile, and load each program once its build is entered in the compile index, the rest
once the precompile has ended (``--load-after``). A worker measures in **turns**: each turn
names the cases every worker of its block has loaded and not measured yet, ABBA over the
block's four rounds, so on a GPU (``Plan.while_compiling``) the cases whose builds both sides
have are measured while the longest builds still compile, and the check ends soon after its
last build instead of measuring everything after it; a round's process still measures each
of its cases once. On a CPU backend the compiles beside a measurement would change its
timings: there the turns come once the precompile has ended, as before.
Later blocks, needed only when the gate is still undecided, start up the same way, as many
at once as the first (blocks 3 and 4 of a check together), and measure only the cases of the
benchmarks still open (:func:`iconbench.check.stopping.keeping_on`): a few programs to load
instead of all, and the gate still decides after each block (the workers of a block it no
longer needs are ended). While the precompile still runs and the first blocks wait for the
last builds, the gate is asked about the benchmarks whose cases every round has measured
already: where it would measure some again, the later blocks start for their cases at once
and are measured while the builds compile (``open_early``), not after the last of them.

Loading is where a worker's start-up goes: on the H100, each of a gt4py check's eight first
workers loaded its 18 programs in 20.8-29.0 s, the 9 DaCe ones 17.1-23.7 s of it, each on one
core while half the host's cores idled. A round's cases are
therefore split into **parts** where the host has the cores (:func:`parts_per_round`): each
part is a fresh process that loads and measures its share, balanced by the programs' load
times (:func:`split_round`), and the parts of a round take their turns one after another.
Every case is still measured once per round in a fresh process.
After each block the gate decides on what is measured so far; the check stops when no gated
benchmark is inconclusive, when no further block could decide one
(:mod:`iconbench.check.stopping`), or when ``max_blocks`` or the time budget is spent.

On a host with several GPUs (:mod:`iconbench.runner.devices`) each device takes a share of the
cases, balanced by their measuring time, and runs these blocks over its share with its own
workers, at the same time as the other devices: one worker measures on each device at a time,
on a core of its own, and both sides of a case are always measured on the same device (the
gate compares them). A block ends when every device has measured it. The one exception is
an A/B of two GPUs rather than two commits: each side names its own GPU (``Side.device``),
both are measured in one lane, and the rounds alternate between the two GPUs.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import os
import pathlib
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from iconbench.errors import IconbenchError
from iconbench.runner.devices import Device, side_by_side
from iconbench.runner.progress import log
from iconbench.stacks.sides import Side


def block_order(block: int) -> tuple[str, ...]:
    """The sides of block ``block`` (0-based): ABBA, then BAAB, alternately.

    >>> ["".join(side[0] for side in block_order(b)) for b in range(3)]
    ['bhhb', 'hbbh', 'bhhb']
    """
    return ("base", "head", "head", "base") if block % 2 == 0 else ("head", "base", "base", "head")


@dataclasses.dataclass(frozen=True)
class Plan:
    """How much to measure: per round, and when to stop."""

    samples: int
    max_s: float
    warmup_s: float
    min_blocks: int = 1
    max_blocks: int = 4
    budget_s: float | None = None
    #: the cores each device's measuring worker runs on, in the order of the devices; the
    #: others are where the workers start up and wait (empty: not pinned)
    measure_cores: tuple[tuple[int, ...], ...] = ()
    #: processes a round's cases are split into (0: as the host's cores allow,
    #: :func:`parts_per_round`)
    parts: int = 0
    #: a case's sampling stops once its device-time median is known this well (None: all
    #: ``samples``; :func:`iconbench.timing.measurement.median_decided`)
    precision: float | None = None
    #: the warm-up of a GPU case after the first of a worker (None: ``warmup_s``)
    warmup_next_s: float | None = None
    #: measure the cases whose builds are done while a check's precompile still runs
    #: (:func:`measure`)
    while_compiling: bool = False


@dataclasses.dataclass(frozen=True)
class Rounds:
    """What the interleaved measurement did."""

    rounds: int
    blocks: int
    seconds: float
    stopped: str
    #: waiting for workers to start up (imports, grid, programs loaded), measuring turns, and
    #: the gate's decisions between blocks: where the measure phase's time went
    startup_s: float = 0.0
    measuring_s: float = 0.0
    deciding_s: float = 0.0
    #: per device that measured: its label (``None``: the one device a process finds), its
    #: cases, and the seconds its turns took
    devices: tuple[dict[str, Any], ...] = ()
    #: the turns' seconds while the precompile still ran (in ``measuring_s`` too)
    during_precompile_s: float = 0.0
    #: the seconds ``while_waiting`` worked (a check's why, while the builds compile)
    explained_s: float = 0.0
    #: the cases whose later blocks started while the precompile ran (``open_early``)
    started_early: int = 0


def measuring_cores(
    on_gpu: bool, devices: int = 1, cores: Iterable[int] | None = None
) -> tuple[tuple[int, ...], ...]:
    """The cores of each device's measuring worker: one for a GPU, a share for a CPU backend.

    The workers start up (imports, grid) and wait on the cores left. A GPU program's host side
    is one thread: pinned to one core, it does not move between cores, and their clocks, from
    process to process; the measuring workers of several GPUs each get a core of their own. A
    CPU backend's threads need the cores; one is kept free, or the start-up beside them slows
    a CPU program by orders of magnitude (seen on a 2-core runner: 11.8 ms instead of 13 µs).
    Too few cores for that: not pinned. ``cores``: those this process may run on.

    >>> measuring_cores(True, cores=range(16)), measuring_cores(True, 2, cores=range(16))
    (((15,),), ((15,), (14,)))
    >>> measuring_cores(False, cores=range(4)), measuring_cores(False, 2, cores=range(8))
    (((1, 2, 3),), ((1, 2, 3), (4, 5, 6)))
    >>> measuring_cores(False, 2, cores=range(2))
    ()
    """
    if cores is None:
        if not hasattr(os, "sched_getaffinity"):
            return ()
        cores = os.sched_getaffinity(0)
    ordered = sorted(cores)
    if len(ordered) < devices + 1:
        return ()
    if on_gpu:
        return tuple((core,) for core in reversed(ordered[-devices:]))
    share = (len(ordered) - 1) // devices
    return tuple(tuple(ordered[1 + i * share : 1 + (i + 1) * share]) for i in range(devices))


def startup_cores(plan: Plan) -> tuple[int, ...]:
    """The cores left when ``plan``'s measuring cores are taken (none pinned: empty).

    The workers start up and wait there, and a check's compiles run there while it measures.

    >>> import os
    >>> left = startup_cores(Plan(1, 0.1, 0.0, measure_cores=((max(os.sched_getaffinity(0)),),)))
    >>> max(os.sched_getaffinity(0)) in left, startup_cores(Plan(1, 0.1, 0.0))
    (False, ())
    """
    pinned = set().union(*plan.measure_cores)
    return tuple(sorted(set(os.sched_getaffinity(0)) - pinned)) if pinned else ()


#: How much longer a DaCe program takes to load than another (a gtfn program): on the H100
#: a worker's 9 DaCe programs of the gt4py subset loaded in 17.1-23.7 s, its 9 gtfn ones in
#: 3.7-5.3 s (the session ledgers of results/pr-check-h100/gt4py-comment-2026-11-26{d,e,f}).
DACE_LOAD_WEIGHT = 4.0


def load_weight(job: tuple[str, str]) -> float:
    """The relative time ``job``'s program takes to load in a worker (:data:`DACE_LOAD_WEIGHT`).

    >>> load_weight(("p[default]", "dace_gpu")), load_weight(("p[default]", "gtfn_gpu"))
    (4.0, 1.0)
    """
    from iconbench.programs.backends import backend

    return DACE_LOAD_WEIGHT if backend(job[1]).base.startswith("dace") else 1.0


def parts_per_round(workers: int, cores: int, jobs: int) -> int:
    """Processes to split each round of ``jobs`` cases into, ``workers`` rounds starting at once.

    As many as the ``cores`` they start up on take, rounded up (loading is one core's work
    per process), and none where a round has fewer than 8 cases: then the imports and the
    grid, which every process pays, are most of a start-up.

    >>> parts_per_round(8, 15, 18), parts_per_round(8, 15, 2), parts_per_round(8, 2, 18)
    (2, 1, 1)
    >>> parts_per_round(32, 60, 18)  # four GPUs' lanes on a 64-core node
    2
    """
    if jobs < 8 or workers <= 0:
        return 1
    return max(1, min(-(-cores // workers), jobs // 2))


def split_round(jobs: Sequence[tuple[str, str]], parts: int) -> list[list[tuple[str, str]]]:
    """``jobs`` in ``parts`` shares that load in about the same time (:func:`load_weight`).

    >>> jobs = [(f"p{i}[default]", b) for i in range(4) for b in ("gtfn_gpu", "dace_gpu")]
    >>> [[(c[:2], b[:4]) for c, b in share] for share in split_round(jobs, 2)]
    ... # doctest: +NORMALIZE_WHITESPACE
    [[('p0', 'gtfn'), ('p0', 'dace'), ('p2', 'gtfn'), ('p2', 'dace')],
     [('p1', 'gtfn'), ('p1', 'dace'), ('p3', 'gtfn'), ('p3', 'dace')]]
    """
    from iconbench.runner.devices import split

    return [share for share in split(jobs, parts, {job: load_weight(job) for job in jobs}) if share]


def _worker_command(side: Side, common: Sequence[str], lane: _Lane, name: str, *,
                    jobs_file: pathlib.Path, turn: pathlib.Path, plan: Plan,
                    load_after: pathlib.Path | None = None) -> list[str]:  # fmt: skip
    command = [sys.executable, "-m", "iconbench", "suite", "measure", "--out", str(side.out),
               *side.runner_options(), *common, "--samples", str(plan.samples),
               "--max-s", str(plan.max_s), "--warmup-s", str(plan.warmup_s), "--gt4py-calls", "0",
               "--worker-jobs", str(jobs_file), "--round-name", name, "--turn", str(turn),
               "--inflight", str(turn.with_name(turn.name + ".inflight")),
               "--hold-loads", str(lane.hold)]  # fmt: skip
    if plan.precision is not None:
        command += ["--precision", str(plan.precision)]
    if plan.warmup_next_s is not None:
        command += ["--warmup-next-s", str(plan.warmup_next_s)]
    if lane.cores:
        command += ["--measure-cores", ",".join(map(str, lane.cores)),
                    "--startup-cores", ",".join(map(str, lane.startup_cores))]  # fmt: skip
    if device := lane.device_of(side).label:
        command += ["--device", device]
    if load_after is not None:
        command += ["--load-after", str(load_after)]
    return command


def measure(
    sides: dict[str, Side],
    shares: Sequence[tuple[int, Device, Sequence[tuple[str, str]]]],
    common: Sequence[str],
    *,
    plan: Plan,
    scratch: pathlib.Path,
    decided: Callable[[int], str | frozenset[tuple[str, str]] | None],
    meanwhile: Callable[[], None] | None = None,
    while_waiting: WhileWaiting | None = None,
    open_early: OpenEarly | None = None,
) -> Rounds:
    """Measure each device's share on both sides in alternating rounds until ``decided()``.

    ``shares`` are ``(index, device, jobs)`` (:meth:`iconbench.runner.devices.Devices.shares`):
    every device runs its own blocks ABBA BAAB over its jobs (module doc), at the same time as
    the others, so both sides of a case are measured on one device; a block ends when every
    device has measured it. ``common`` holds the runner options every worker gets
    (``--backends``, ``--grid`` …). ``decided(processes)`` says why to stop after a block, with
    ``processes`` measured a side (:func:`iconbench.check.stopping.reason_to_stop`), or ``None``
    to go on, or the cases to go on with: blocks started after it measure only those (the
    cases of the benchmarks still open, a few programs to load instead of all). The workers
    of the first ``plan.min_blocks`` blocks (no decision is taken before those are measured)
    start up together, and later blocks as many at once: start-up is paid once for the
    blocks every check measures, once more for those it may add.

    ``meanwhile`` (a check's precompile) runs beside the first workers: until it has returned
    they load only the programs whose builds it has entered in the compile index. With
    ``plan.while_compiling`` they measure meanwhile too, in turns (:meth:`_Lane.ready`): each turn
    measures the cases every worker of its block has loaded, and a round's process measures
    its later cases in a later turn, so a case whose builds both sides have is measured while
    the longest builds still compile, and the check ends soon after the last of them. Without
    it (a CPU backend, whose timings the compiles beside it would change) they measure once it
    has returned. Its seconds count neither as start-up nor as measuring. ``while_waiting``
    (a check's early why, :class:`iconbench.check.early_why.EarlyWhy`) is called when every
    device waits for builds, with the cases measured in every round started so far and a way
    to hold the devices.

    ``open_early(processes, measured)`` (with ``plan.while_compiling``): asked while every
    device waits for builds, before any decision, with the cases every round of the first
    blocks has measured; the cases among them whose benchmarks the gate would measure again
    with ``processes`` a side. The next blocks start for those at once and measure them in
    turns while the last builds compile; after the decision they are not started again, and
    those the gate no longer needs are ended. Asked again whenever more cases are measured;
    those it names then that have not started yet start in parts of their own.

    A worker that fails ends the check with one line naming its round and its log; the
    workers end when ``meanwhile`` fails. A side with a ``device`` of its own measures there,
    whatever its lane's device.
    """
    if len(shares) > 1 and any(side.device for side in sides.values()):
        raise ValueError("sides on GPUs of their own are measured on one lane, not shared out")
    scratch.mkdir(parents=True, exist_ok=True)
    startup = startup_cores(plan)
    ahead = max(1, min(plan.min_blocks, plan.max_blocks))  # blocks whose workers start at once

    def parts_of(blocks_at_once: int, cases: int) -> int:
        """The processes a round of ``cases`` is split into, ``blocks_at_once`` starting."""
        return plan.parts or parts_per_round(
            4 * blocks_at_once * len(shares), len(startup) or len(os.sched_getaffinity(0)), cases
        )

    parts = parts_of(ahead, max((len(jobs) for _, _, jobs in shares), default=0))
    lanes = []
    for index, device, jobs in shares:
        prefix = f"d{index}-" if device.label else ""
        cores = plan.measure_cores[index] if plan.measure_cores else ()
        hold = scratch / f"{prefix}measuring"
        lanes.append(_Lane(device, prefix, len(jobs), cores, startup, hold, jobs=tuple(jobs)))
        lanes[-1].share_out(lanes[-1].jobs, parts, scratch / f"{prefix}jobs")
    if parts > 1:
        log(f"check: each round in {parts} processes, balanced by their programs' load times")
    clock = _Clock()
    blocks = 0
    stopped = f"{plan.max_blocks} blocks measured"
    compiling: _Meanwhile | None = None
    focus: frozenset[tuple[str, str]] | None = None  # the cases later blocks measure (all)
    early = _Early()

    def launch(lane: _Lane, block: int, load_after: pathlib.Path | None) -> None:
        """A block's rounds on ``lane``: one process a part, set up and waiting for turns.

        Parts after those the block has already (started early) are numbered on.
        """
        first = len({part for (b, part) in lane.rounds if b == block})
        for side_name in block_order(block):
            lane.number += 1
            side = sides[side_name]
            env = lane.device_of(side).environment(side.environment())
            if lane.cores:  # a CPU program's threads: as many as its cores
                env["OMP_NUM_THREADS"] = str(len(lane.cores))
            for number, (jobs_file, jobs) in enumerate(lane.parts):
                part = first + number
                name = f"{lane.prefix}r{lane.number:02d}-{side_name}"
                name += f"-p{part + 1}" if len(lane.parts) > 1 or first else ""
                turn = scratch / f"{name}.turn"
                log_path = scratch / f"{name}.log"
                with log_path.open("w", encoding="utf-8") as handle:
                    process = subprocess.Popen(
                        _worker_command(side, common, lane, name, jobs_file=jobs_file,
                                        turn=turn, plan=plan, load_after=load_after),
                        env=env, stdout=handle, stderr=subprocess.STDOUT,
                    )  # fmt: skip
                lane.rounds.setdefault((block, part), []).append(
                    _Worker(name, process, turn, log_path, jobs)
                )

    def start_early(first: range, open_early: OpenEarly) -> None:
        """The next blocks for the cases the gate would measure again, if it names any now.

        Asked only when more cases are measured in every round of ``first`` than last time.
        """
        if not early.ask(_measured_in_all(lanes, first)):
            return
        later = range(first.stop, min(plan.max_blocks, first.stop + len(first)))
        cases = (open_early(2 * first.stop, early.asked) if later else frozenset()) - early.cases
        if not cases:
            return
        for lane in lanes:
            mine = [job for job in lane.jobs if job in cases]
            stem = scratch / f"{lane.prefix}jobs-b{later[0] + 1:02d}-early{len(early.cases)}"
            lane.share_out(mine, parts_of(len(later), len(mine)), stem)
            for b in later:  # started beside the builds, as the first blocks' workers were
                launch(lane, b, scratch / "precompiled")
        early.started(cases, later)
        log(f"check: blocks {later[0] + 1}-{later[-1] + 1} start for {len(cases)} more case(s) "
            "of the benchmarks the gate leaves open so far, while the builds compile")  # fmt: skip

    try:
        block = 0
        while block < plan.max_blocks:
            count = min(ahead, plan.max_blocks - block)
            if block and (focus is not None or early.cases):
                # later blocks: only the cases the gate has left open, less those started early
                left_open = focus or frozenset(job for lane in lanes for job in lane.jobs)
                wanted = left_open - early.cases
                for lane in lanes:
                    mine = [job for job in lane.jobs if job in wanted]
                    lane.share_out(mine, parts_of(count, len(mine)),
                                   scratch / f"{lane.prefix}jobs-b{block + 1:02d}")  # fmt: skip
                log(f"check: blocks {block + 1}-{block + count} measure the {len(left_open)} "
                    "case(s) of the benchmarks left open"
                    + (f", {len(left_open & early.cases)} of them since the precompile"
                       if early.cases else ""))  # fmt: skip
            load_after = scratch / "precompiled" if block == 0 and meanwhile else None
            for lane in lanes:
                for b in range(block, block + count):
                    launch(lane, b, load_after)
            if load_after is not None and meanwhile is not None:
                compiling = _Meanwhile(meanwhile, load_after)
            # measure the blocks started, in turns, and decide after each that every lane has
            # measured once no decision is taken before it
            first_decision = min(max(block, plan.min_blocks - 1), block + count - 1)
            for target in range(first_decision, block + count):
                open_blocks = range(block, target + 1)
                while not all(lane.measured(b) for lane in lanes for b in open_blocks):
                    busy = compiling is not None and not compiling.done()
                    if busy and not plan.while_compiling:
                        _check_alive(lanes, compiling)
                        clock.wait(_pause(), busy=True)
                        continue
                    t0 = time.perf_counter()
                    # while the builds compile, the turns of the blocks started early too
                    todo = _turns(lanes, early.measuring(open_blocks) if busy else open_blocks,
                                  busy=busy)  # fmt: skip
                    did = side_by_side(todo) if todo else []
                    if any(did):
                        clock.turns(time.perf_counter() - t0, busy=busy)
                    else:
                        _check_alive(lanes, compiling)
                        t0 = time.perf_counter()
                        if busy and block == 0 and open_early is not None:
                            start_early(range(block, block + count), open_early)
                            clock.wait(time.perf_counter() - t0, busy=busy)
                            t0 = time.perf_counter()
                        if (
                            busy
                            and while_waiting is not None
                            and while_waiting(
                                _measured_in_all(lanes, range(block, block + count)),
                                functools.partial(_holding, lanes),
                            )
                        ):
                            clock.explained_s += time.perf_counter() - t0
                            clock.wait(time.perf_counter() - t0, busy=busy)
                        else:
                            clock.wait(_pause(), busy=busy)
                blocks = target + 1
                if blocks < plan.min_blocks:
                    continue
                t0 = time.perf_counter()
                reason = decided(2 * blocks)
                clock.deciding_s += time.perf_counter() - t0
                if isinstance(reason, frozenset):
                    focus, reason = reason, None
                if early.cases and not reason:
                    _stop(early.unneeded(lanes, focus))
                if reason:
                    stopped = f"{reason} (after {blocks} blocks)"
                    break
                if plan.budget_s is not None and clock.elapsed() > plan.budget_s:
                    stopped = f"time budget of {plan.budget_s:.0f}s spent"
                    break
                if blocks < plan.max_blocks:
                    log(f"check: block {blocks} measured in {clock.elapsed():.0f}s; "
                        "not decided yet")  # fmt: skip
            else:
                block += count
                if compiling is not None:
                    compiling.join()
                continue
            break
        if compiling is not None:
            compiling.join()
    finally:
        # a failure, or a decision before the blocks started ahead: their workers end unmeasured
        _stop([worker for lane in lanes for worker in lane.unfinished()])
        if compiling is not None:
            compiling.join(quietly=True)
    blocks = max([blocks] + [b + 1 for b in early.blocks if early.measured(lanes, b)])
    return Rounds(
        4 * blocks, blocks, clock.elapsed(), stopped,
        startup_s=round(clock.startup_s, 1), measuring_s=round(clock.measuring_s, 1),
        deciding_s=round(clock.deciding_s, 1),
        devices=tuple({"device": lane.device.label or None, "cases": lane.cases,
                       "measuring_s": round(lane.measuring_s, 1)} for lane in lanes),
        during_precompile_s=round(clock.during_precompile_s, 1),
        explained_s=round(clock.explained_s, 1),
        started_early=len(early.cases),
    )  # fmt: skip


#: Seconds cases ready to measure wait for the workers still loading, while the precompile runs:
#: from an empty cache builds end every few seconds and some worker is always loading one (on
#: the H200, #1405's first turn came only once the last build had ended), so the cases ready
#: are measured after this wait, the loads of the others held meanwhile.
READY_WAIT_S = 5.0

#: Per (block, part) of a lane, the cases its four rounds measure in their next turns.
Ready = dict[tuple[int, int], frozenset[tuple[str, str]]]


def _turns(
    lanes: Sequence[_Lane], blocks: range, *, busy: bool
) -> list[Callable[[threading.Event], bool]]:
    """The lanes' turns to take now, side by side (none: wait).

    While the precompile runs each lane measures what it has ready; once it has ended, the
    lanes measure together, once every lane with cases left has them all loaded (each
    device's blocks at the same time, as before the turns).
    """
    found = [(lane, lane.ready(blocks, every=not busy)) for lane in lanes]
    if not busy and any(
        ready is None and not all(lane.measured(b) for b in blocks) for lane, ready in found
    ):
        return []
    return [lane.turns_for(ready) for lane, ready in found if ready]


#: Work for the devices while they wait for builds: called with the cases measured in every
#: round so far and a context manager that holds the devices; whether it did any.
WhileWaiting = Callable[
    [frozenset[tuple[str, str]], Callable[[], contextlib.AbstractContextManager]], bool
]


#: The cases, among those measured in every round of the first blocks, whose benchmarks the
#: gate would measure again with the processes a side given (``measure``'s ``open_early``).
OpenEarly = Callable[[int, frozenset[tuple[str, str]]], frozenset[tuple[str, str]]]


@dataclasses.dataclass
class _Early:
    """The later blocks started while the precompile runs (``measure``'s ``open_early``)."""

    #: the cases they measure (none: not started)
    cases: frozenset[tuple[str, str]] = frozenset()
    blocks: range = range(0)
    #: the cases measured in every round when the gate was last asked
    asked: frozenset[tuple[str, str]] = frozenset()

    def ask(self, measured: frozenset[tuple[str, str]]) -> bool:
        """Whether to ask the gate now: more cases measured in every round than last time.

        >>> early, one = _Early(), frozenset({("p[default]", "gtfn_gpu")})
        >>> early.ask(frozenset()), early.ask(one), early.ask(one)
        (False, True, False)
        """
        if measured <= self.asked:
            return False
        self.asked = measured
        return True

    def started(self, cases: frozenset[tuple[str, str]], blocks: range) -> None:
        self.cases, self.blocks = self.cases | cases, blocks

    def measuring(self, blocks: range) -> range:
        """The blocks whose turns to take: ``blocks`` and those started early.

        >>> _Early().measuring(range(0, 2)), _Early(blocks=range(2, 4)).measuring(range(0, 2))
        (range(0, 2), range(0, 4))
        """
        return range(blocks.start, max(blocks.stop, self.blocks.stop))

    def unneeded(
        self, lanes: Sequence[_Lane], focus: frozenset[tuple[str, str]] | None
    ) -> list[_Worker]:
        """The later blocks' workers whose cases the gate no longer needs, off the lanes.

        Asked after each decision once blocks started early: a part of those blocks not
        measured yet in every round is not waited for, its workers are ended (what they
        measured stays measured). A part measured already stays.
        """
        if focus is None:
            return []
        ended = []
        for lane in lanes:
            for key in [k for k in lane.rounds if k[0] in self.blocks]:
                four = lane.rounds[key]
                if any(w.left for w in four) and not four[0].jobs & focus:
                    ended += [w for w in four if w.process.poll() is None]
                    del lane.rounds[key]
        return ended

    @staticmethod
    def measured(lanes: Sequence[_Lane], block: int) -> bool:
        """Whether ``block`` has rounds and every one has measured all its cases."""
        started = any(b == block for lane in lanes for b, _ in lane.rounds)
        return started and all(lane.measured(block) for lane in lanes)


def _measured_in_all(lanes: Sequence[_Lane], blocks: range) -> frozenset[tuple[str, str]]:
    """The cases every round of ``blocks`` has measured, on every lane."""
    found: set[tuple[str, str]] = set()
    for lane in lanes:
        per_block = [
            set().union(*(frozenset.intersection(*(frozenset(w.measured) for w in four))
                          for (b, _), four in lane.rounds.items() if b == block))
            for block in blocks
        ]  # fmt: skip
        found |= set.intersection(*per_block) if per_block else set()
    return frozenset(found)


@contextlib.contextmanager
def _holding(lanes: Sequence[_Lane]) -> Iterator[None]:
    """Every lane held: no worker loads (or measures) until the block has run."""
    from iconbench.runner import turn as turns

    for lane in lanes:
        lane.hold.write_text("held", encoding="utf-8")
    try:
        turns.wait_quiet((w.process, w.turn) for lane in lanes for w in lane.unfinished())
        yield
    finally:
        for lane in lanes:
            lane.hold.unlink(missing_ok=True)


def _check_alive(lanes: Sequence[_Lane], compiling: _Meanwhile | None) -> None:
    """A failed precompile, or a waiting worker that has ended, ends the check in one line.

    The precompile's line where it fails too: a broken stack or a compile that fails, what
    broke the worker, said better.
    """
    if compiling is not None:
        compiling.raise_failure()
    try:
        for lane in lanes:
            lane.check_alive()
    except IconbenchError:
        if compiling is not None:
            compiling.join(quietly=True)
            compiling.raise_failure()
        raise


def _pause() -> float:
    time.sleep(0.05)
    return 0.05


@dataclasses.dataclass
class _Clock:
    """Where the measure's seconds went: start-up (waiting for loads), turns, decisions.

    Seconds spent while the precompile ran are the precompile's (the check's phases add up
    to its wall time), except the turns measured meanwhile, counted apart.
    """

    started: float = dataclasses.field(default_factory=time.perf_counter)
    precompile_s: float = 0.0
    startup_s: float = 0.0
    measuring_s: float = 0.0
    during_precompile_s: float = 0.0
    deciding_s: float = 0.0
    explained_s: float = 0.0

    def wait(self, seconds: float, *, busy: bool) -> None:
        if busy:
            self.precompile_s += seconds
        else:
            self.startup_s += seconds

    def turns(self, seconds: float, *, busy: bool) -> None:
        self.measuring_s += seconds
        if busy:
            self.during_precompile_s += seconds
            self.precompile_s += seconds

    def elapsed(self) -> float:
        """The measure's wall time so far, the precompile's left out."""
        return time.perf_counter() - self.started - self.precompile_s


class _Meanwhile:
    """The precompile in a thread of its own; ``load_after`` written once it has returned."""

    def __init__(self, work: Callable[[], None], load_after: pathlib.Path) -> None:
        self.error: BaseException | None = None

        def run() -> None:
            try:
                work()
            except BaseException as error:  # raised in the measuring thread
                self.error = error
            else:
                load_after.write_text("done", encoding="utf-8")

        self.thread = threading.Thread(target=run, name="precompile", daemon=True)
        self.thread.start()

    def done(self) -> bool:
        return not self.thread.is_alive()

    def raise_failure(self) -> None:
        if self.done() and self.error is not None:
            raise self.error

    def join(self, quietly: bool = False) -> None:
        self.thread.join()
        if not quietly:
            self.raise_failure()


@dataclasses.dataclass
class _Lane:
    """One device's rounds: its share of the cases, its cores, its workers and their turns."""

    device: Device
    prefix: str  # of its rounds' names: "" on the one device a process finds, else "d<index>-"
    cases: int
    cores: tuple[int, ...]
    startup_cores: tuple[int, ...]
    #: written while a worker of this lane measures: the others load nothing then
    hold: pathlib.Path
    number: int = 0
    #: every case of its share
    jobs: tuple[tuple[str, str], ...] = ()
    #: the next blocks' part of each round (:func:`split_round`): its jobs file and cases
    parts: tuple[tuple[pathlib.Path, frozenset[tuple[str, str]]], ...] = ()
    #: since when cases have been ready to measure (``None``: none is)
    ready_since: float | None = None
    #: per (block, part), its four rounds' processes in the block's order
    rounds: dict[tuple[int, int], list[_Worker]] = dataclasses.field(default_factory=dict)
    measuring_s: float = 0.0

    def share_out(self, jobs: Sequence[tuple[str, str]], parts: int, stem: pathlib.Path) -> None:
        """The cases the next blocks' rounds measure, ``parts`` processes a round.

        Shared out by :func:`split_round`, written beside ``stem`` (``STEM-p1.json`` …); no
        cases: the blocks have no rounds on this lane.
        """
        found = []
        for number, share in enumerate(split_round(jobs, parts) if jobs else [], start=1):
            path = stem.with_name(f"{stem.name}-p{number}.json")
            path.write_text(json.dumps([list(j) for j in share]), encoding="utf-8")
            found.append((path, frozenset(share)))
        self.parts = tuple(found)

    def device_of(self, side: Side) -> Device:
        """The device ``side``'s workers measure on: its own GPU where it names one."""
        return Device(side.device) if side.device else self.device

    def measured(self, block: int) -> bool:
        """Whether every round of ``block`` has measured every case of its part."""
        return all(not w.left for (b, _), four in self.rounds.items() if b == block for w in four)

    def unfinished(self) -> list[_Worker]:
        return [w for four in self.rounds.values() for w in four if w.process.poll() is None]

    def check_alive(self) -> None:
        """A waiting worker that has ended (a load broke it): the check ends, in one line."""
        for four in self.rounds.values():
            for worker in four:
                if worker.left and worker.process.poll() is not None:
                    raise IconbenchError(
                        f"measuring round {worker.name} ended before it was measured (exit "
                        f"{worker.process.returncode}); its log: {worker.log} "
                        f"(last line: {_last_line(worker.log)})"
                    )

    def ready(self, blocks: range, *, every: bool) -> Ready | None:
        """Per block and part of ``blocks``, the cases to measure now (``None``: none now).

        The cases all four rounds have loaded and not measured yet. While the precompile
        runs, once every waiting worker has loaded what the cache holds so far (none is about
        to load the next build), or once cases have waited :data:`READY_WAIT_S` (builds that
        end one after another keep some worker loading); with ``every`` (no precompile runs)
        once every worker has loaded all its cases.
        """
        from iconbench.runner import turn as turns

        waiting = [w for four in self.rounds.values() for w in four if w.left]
        states = {w.name: turns.read_loaded(w.turn) for w in waiting}
        if every and not all(states[w.name].jobs >= w.left for w in waiting):
            return None
        ready = {}
        for (block, part), four in sorted(self.rounds.items()):
            if block in blocks and four[0].left:
                common = frozenset.intersection(*(states[w.name].jobs for w in four if w.left))
                if common := common & four[0].left:
                    ready[block, part] = common
        if not ready:
            self.ready_since = None
            return None
        now = time.perf_counter()
        self.ready_since = self.ready_since or now
        settled = all(state.settled for state in states.values())
        if not (every or settled or now - self.ready_since >= READY_WAIT_S):
            return None
        self.ready_since = None
        return ready

    def turns_for(self, ready: Ready) -> Callable[[threading.Event], bool]:
        return lambda stop: self.measure(ready, stop)

    def measure(self, ready: Ready, stop: threading.Event) -> bool:
        """The turns of :meth:`ready`'s cases.

        Per block and part, its four rounds one after another in the block's order (ABBA,
        BAAB). No worker loads while one measures (``hold``, :func:`iconbench.runner.turn.quietly`).
        """
        from iconbench.runner import turn as turns

        t0 = time.perf_counter()
        self.hold.write_text("measuring", encoding="utf-8")
        try:
            turns.wait_quiet((w.process, w.turn) for w in self.unfinished())
            for (block, part), cases in sorted(ready.items()):
                for worker in self.rounds[block, part]:
                    if stop.is_set():  # another device's round failed: the check ends
                        return True
                    worker.take_turn(cases)
        finally:
            self.hold.unlink(missing_ok=True)
        self.measuring_s += time.perf_counter() - t0
        return True


@dataclasses.dataclass
class _Worker:
    """One round's process, started, until it has measured every case of its part."""

    name: str
    process: subprocess.Popen
    turn: pathlib.Path
    log: pathlib.Path
    jobs: frozenset[tuple[str, str]]
    measured: set[tuple[str, str]] = dataclasses.field(default_factory=set)
    turns: int = 0

    @property
    def left(self) -> frozenset[tuple[str, str]]:
        return self.jobs - self.measured

    def take_turn(self, cases: frozenset[tuple[str, str]]) -> None:
        """Its next turn, for ``cases``, until it is done with the device.

        Its last turn lasts until the process is gone: the next measures once this one's
        device memory is given back.
        """
        from iconbench.runner import turn as turns

        self.turns += 1
        path = turns.numbered(self.turn, self.turns)
        last = cases >= self.left
        turns.give(path, None if last else sorted(cases))
        if last:
            self.process.wait()
        else:
            turns.wait_done(self.process, path)
        code = self.process.poll()
        if code is not None and (code != 0 or not last):  # failed, or gone before its last
            raise IconbenchError(
                f"measuring round {self.name} failed (exit {self.process.returncode}); its "
                f"log: {self.log} (last line: {_last_line(self.log)})"
            )
        self.measured |= cases


def _stop(waiting: list[_Worker]) -> None:
    """End the workers started ahead that will not get a turn (or their last)."""
    from iconbench.runner.turn import end

    end(worker.process for worker in waiting)


def _last_line(path: pathlib.Path) -> str:
    lines = [line for line in path.read_text(errors="replace").splitlines() if line.strip()]
    return lines[-1][:300] if lines else "(empty)"

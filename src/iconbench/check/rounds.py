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
load), each waits for its turn (:func:`iconbench.runner.measure.ready_path`), and then they
measure one at a time, the others idle: start-up is paid once for those blocks, and nothing
else runs beside a measurement. (Starting the next worker while one measured spread the host
overhead of the same code over 0.6-1.5x between processes on an H100.) A later block, needed
only when the gate is still undecided, starts up its four workers the same way.
After each block the gate decides on what is measured so far; the check stops when no gated
benchmark is inconclusive, when no further block could decide one
(:mod:`iconbench.check.stopping`), or when ``max_blocks`` or the time budget is spent.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import subprocess
import sys
import time
from collections.abc import Callable, Sequence

from iconbench.check.sides import Side
from iconbench.errors import IconbenchError
from iconbench.runner.progress import log


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
    #: the cores the measuring worker runs on, the others are where the next one starts up
    #: (empty: not pinned)
    measure_cores: tuple[int, ...] = ()


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


def measuring_cores(on_gpu: bool) -> tuple[int, ...]:
    """The cores of the measuring worker: one for a GPU, all but one for a CPU backend.

    The next round's worker starts up (imports, grid) on the cores left. A GPU program's host
    side is one thread: pinned to one core, it does not move between cores, and their clocks,
    from process to process. A CPU backend's threads need the cores; one is kept free, or the
    start-up beside them slows a CPU program by orders of magnitude (seen on a 2-core runner:
    11.8 ms instead of 13 µs).
    """
    if not hasattr(os, "sched_getaffinity"):
        return ()
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        return ()
    return (cores[-1],) if on_gpu else tuple(cores[1:])


def _worker_command(side: Side, common: Sequence[str], jobs: pathlib.Path, name: str, *,
                    turn: pathlib.Path, plan: Plan) -> list[str]:  # fmt: skip
    command = [sys.executable, "-m", "iconbench", "suite", "measure", "--out", str(side.out),
               "--stack", side.stack, *common, "--samples", str(plan.samples),
               "--max-s", str(plan.max_s), "--warmup-s", str(plan.warmup_s), "--gt4py-calls", "0",
               "--worker-jobs", str(jobs), "--round-name", name, "--turn", str(turn),
               "--inflight", str(turn.with_name(turn.name + ".inflight"))]  # fmt: skip
    if plan.measure_cores:
        command += ["--measure-cores", ",".join(map(str, plan.measure_cores))]
    return command


def measure(
    sides: dict[str, Side],
    jobs: Sequence[tuple[str, str]],
    common: Sequence[str],
    *,
    plan: Plan,
    scratch: pathlib.Path,
    decided: Callable[[int], str | None],
) -> Rounds:
    """Measure ``jobs`` on both sides in alternating rounds until ``decided()`` (module doc).

    ``common`` holds the runner options every worker gets (``--backends``, ``--grid`` …).
    ``decided(processes)`` says why to stop after a block, with ``processes`` measured a
    side (:func:`iconbench.check.stopping.reason_to_stop`), or ``None`` to go on.
    The workers of the first ``plan.min_blocks`` blocks (no decision is taken before those
    are measured) start up together, later blocks' one block at a time: start-up is paid
    once for the blocks every check measures.
    A worker that fails ends the check with one line naming its round and its log.
    """
    scratch.mkdir(parents=True, exist_ok=True)
    jobs_file = scratch / "jobs.json"
    jobs_file.write_text(json.dumps([list(j) for j in jobs]), encoding="utf-8")
    start = time.perf_counter()
    number = 0
    blocks = 0
    stopped = f"{plan.max_blocks} blocks measured"
    waiting: list[_Worker] = []  # started, set up, not measured yet (in turn order)
    startup_s = measuring_s = deciding_s = 0.0

    def launch(side_name: str) -> _Worker:
        nonlocal number
        number += 1
        name = f"r{number:02d}-{side_name}"
        turn = scratch / f"{name}.turn"
        log_path = scratch / f"{name}.log"
        side = sides[side_name]
        env = side.environment()
        if plan.measure_cores:  # a CPU program's threads: as many as its cores
            env["OMP_NUM_THREADS"] = str(len(plan.measure_cores))
        with log_path.open("w", encoding="utf-8") as handle:
            process = subprocess.Popen(
                _worker_command(side, common, jobs_file, name, turn=turn, plan=plan),
                env=env, stdout=handle, stderr=subprocess.STDOUT,
            )  # fmt: skip
        return _Worker(name, process, turn, log_path)

    try:
        for block in range(plan.max_blocks):
            if not waiting:  # start up this block (and, at first, every block before a decision)
                ahead = max(1, min(plan.min_blocks, plan.max_blocks)) if block == 0 else 1
                t0 = time.perf_counter()
                started = [launch(s) for b in range(block, block + ahead) for s in block_order(b)]
                waiting.extend(started)
                for worker in started:
                    _wait_ready(worker)
                startup_s += time.perf_counter() - t0
            t0 = time.perf_counter()
            for _ in range(4):  # then measure one at a time; the others wait, idle
                worker = waiting.pop(0)
                worker.turn.write_text("go", encoding="utf-8")
                if worker.process.wait() != 0:
                    raise IconbenchError(
                        f"measuring round {worker.name} failed (exit "
                        f"{worker.process.returncode}); its log: {worker.log} "
                        f"(last line: {_last_line(worker.log)})"
                    )
            measuring_s += time.perf_counter() - t0
            blocks += 1
            elapsed = time.perf_counter() - start
            if waiting:  # started ahead: no decision before they are measured
                continue
            t0 = time.perf_counter()
            reason = decided(2 * blocks) if blocks >= plan.min_blocks else None
            deciding_s += time.perf_counter() - t0
            if reason:
                stopped = f"{reason} (after {blocks} blocks)"
                break
            if plan.budget_s is not None and elapsed > plan.budget_s:
                stopped = f"time budget of {plan.budget_s:.0f}s spent"
                break
            if blocks < plan.max_blocks:
                log(f"check: block {blocks} measured in {elapsed:.0f}s; not decided yet")
    finally:
        _stop(waiting)  # after a failure: the workers that will not get a turn
    return Rounds(
        number, blocks, time.perf_counter() - start, stopped,
        startup_s=round(startup_s, 1), measuring_s=round(measuring_s, 1),
        deciding_s=round(deciding_s, 1),
    )  # fmt: skip


@dataclasses.dataclass(frozen=True)
class _Worker:
    """One round's process, started, until its turn is over."""

    name: str
    process: subprocess.Popen
    turn: pathlib.Path
    log: pathlib.Path


def _wait_ready(worker: _Worker) -> None:
    from iconbench.runner.measure import ready_path

    ready = ready_path(worker.turn)
    while not ready.exists():
        if worker.process.poll() is not None:
            raise IconbenchError(
                f"measuring round {worker.name} ended before it was set up (exit "
                f"{worker.process.returncode}); its log: {worker.log} "
                f"(last line: {_last_line(worker.log)})"
            )
        time.sleep(0.02)


def _stop(waiting: list[_Worker]) -> None:
    """End the workers started ahead that will not get a turn."""
    for worker in waiting:
        worker.process.terminate()
    for worker in waiting:
        try:
            worker.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            worker.process.kill()
    waiting.clear()


def _last_line(path: pathlib.Path) -> str:
    lines = [line for line in path.read_text(errors="replace").splitlines() if line.strip()]
    return lines[-1][:300] if lines else "(empty)"

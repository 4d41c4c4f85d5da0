"""Base and head measured in alternating fresh processes, one on the device at a time.

Measuring all of base and then all of head puts any change of the machine between the two
phases (a neighbour's load, the GPU's clocks warming, a throttle) onto one side: on a busy
2-core runner that made two regressions and two improvements out of unchanged code. Here each
**round** is one fresh worker process measuring every case of one side, and rounds alternate
in blocks ``ABBA``, ``BAAB``: a drift linear in time adds the same to both sides within each
block (and a step cancels over two blocks), and each side is measured in as many processes as
rounds, so the gate sees the spread between processes (:mod:`iconbench.gate.processes`).

The four workers of a block start up side by side (imports, grid, loading their programs: the
seconds a DaCe program takes to load), each waits for its turn
(:func:`iconbench.runner.measure.ready_path`), and then they measure one at a time, the others
idle: start-up costs once a block, not once a round, and nothing else runs beside a
measurement. (Starting the next worker while one measured spread the host overhead of the
same code over 0.6-1.5x between processes on an H100.)
After each block the gate decides on what is measured so far; the check stops when no gated
benchmark is inconclusive, or when ``max_blocks`` or the time budget is spent.
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
    decided: Callable[[], bool],
) -> Rounds:
    """Measure ``jobs`` on both sides in alternating rounds until ``decided()`` (module doc).

    ``common`` holds the runner options every worker gets (``--backends``, ``--grid`` …).
    A worker that fails ends the check with one line naming its round and its log.
    """
    scratch.mkdir(parents=True, exist_ok=True)
    jobs_file = scratch / "jobs.json"
    jobs_file.write_text(json.dumps([list(j) for j in jobs]), encoding="utf-8")
    start = time.perf_counter()
    number = 0
    blocks = 0
    stopped = f"{plan.max_blocks} blocks measured"
    pending: list[tuple[str, subprocess.Popen, pathlib.Path, pathlib.Path]] = []

    def launch(side_name: str) -> None:
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
        pending.append((name, process, turn, log_path))

    for block in range(plan.max_blocks):
        for side_name in block_order(block):  # the block's four start up side by side
            launch(side_name)
        for name, process, turn, log_path in pending:
            _wait_ready(process, turn, name, log_path, pending)
        while pending:  # then measure one at a time; the others wait, idle
            name, process, turn, log_path = pending.pop(0)
            turn.write_text("go", encoding="utf-8")
            if process.wait() != 0:
                _stop(pending)
                raise IconbenchError(
                    f"measuring round {name} failed (exit {process.returncode}); its log: "
                    f"{log_path} (last line: {_last_line(log_path)})"
                )
        blocks += 1
        elapsed = time.perf_counter() - start
        if blocks >= plan.min_blocks and decided():
            stopped = f"decided after {blocks} block(s)"
            break
        if plan.budget_s is not None and elapsed > plan.budget_s:
            stopped = f"time budget of {plan.budget_s:.0f}s spent"
            break
        if blocks < plan.max_blocks:
            log(f"check: block {blocks} measured in {elapsed:.0f}s; not decided yet")
    return Rounds(number, blocks, time.perf_counter() - start, stopped)  # every block drained


def _wait_ready(process: subprocess.Popen, turn: pathlib.Path, name: str, log_path,
                pending: list) -> None:  # fmt: skip
    from iconbench.runner.measure import ready_path

    ready = ready_path(turn)
    while not ready.exists():
        if process.poll() is not None:
            _stop(pending)
            raise IconbenchError(
                f"measuring round {name} ended before it was set up (exit {process.returncode});"
                f" its log: {log_path} (last line: {_last_line(log_path)})"
            )
        time.sleep(0.02)


def _stop(pending: list) -> None:
    """End the workers started ahead that will not get a turn."""
    for _name, process, _turn, _log in pending:
        process.terminate()
    for _name, process, _turn, _log in pending:
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
    pending.clear()


def _last_line(path: pathlib.Path) -> str:
    lines = [line for line in path.read_text(errors="replace").splitlines() if line.strip()]
    return lines[-1][:300] if lines else "(empty)"

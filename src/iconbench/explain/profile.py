"""One side's kernels of one benchmark: its program call under Nsight Compute, per call.

The process ncu profiles is the suite's ``ncu-target`` (:mod:`iconbench.runner.crosscheck`):
the case prepared from the side's build cache, one call outside the NVTX range (warm-up),
then ``calls`` calls inside it. Every call launches the same kernels in the same order, so
launch ``i`` of the profile is launch ``i % per_call`` of a call; launches with the same
demangled name are the same kernel code (DaCe launches a map's kernel each time the state
runs) and count as one kernel with several launches. Kernels that share a function name but
not their code (gtfn instantiates one ``kernel`` template per stencil) are told apart by the
order of their first launch: ``kernel#1``, ``kernel#2``.
"""

from __future__ import annotations

import collections
import pathlib
import statistics
import subprocess
import time
from collections.abc import Sequence

from iconbench.errors import IconbenchError
from iconbench.explain import side_process
from iconbench.grids.grid import Grid
from iconbench.records.kernels import KernelRecord
from iconbench.stacks.sides import Side
from iconbench.timing import nsight

#: Calls profiled per side (their median is kept).
CALLS = 3


def kernel_records(found: Sequence[nsight.KernelLaunch], calls: int) -> list[KernelRecord]:
    """The kernels of one call, from ``calls`` profiled calls (launch order of the first).

    >>> L = nsight.KernelLaunch
    >>> found = [L("k<1>(int)", 2e-6, 10.0, 32, 0.5), L("k<2>(int)", 1e-6, 20.0, 40, 0.25)] * 2
    >>> [(r.kernel, r.count, r.device_s, r.registers) for r in kernel_records(found, 2)]
    [('k#1', 1, 2e-06, 32), ('k#2', 1, 1e-06, 40)]
    """
    if calls < 1 or not found or len(found) % calls:
        raise IconbenchError(
            f"{len(found)} kernel launches in {calls} profiled calls: the calls did not launch "
            "the same kernels"
        )
    per_call = len(found) // calls
    sequences = [found[i * per_call : (i + 1) * per_call] for i in range(calls)]
    names = [launch.kernel for launch in sequences[0]]
    if any([launch.kernel for launch in sequence] != names for sequence in sequences[1:]):
        raise IconbenchError("the profiled calls launched different kernels; profile again")
    positions: dict[str, list[int]] = {}
    for position, name in enumerate(names):
        positions.setdefault(name, []).append(position)
    short = {name: nsight.function_name(name) for name in positions}
    shared = collections.Counter(short.values())
    seen: collections.Counter[str] = collections.Counter()
    records = []
    for name, where in positions.items():
        label = short[name]
        if shared[label] > 1:
            seen[label] += 1
            label = f"{label}#{seen[label]}"
        launches = [sequence[p] for sequence in sequences for p in where]
        seconds = statistics.median(sum(s[p].seconds for p in where) for s in sequences)
        dram = None
        if all(launch.dram_bytes is not None for launch in launches):
            dram = statistics.median(sum(s[p].dram_bytes or 0.0 for p in where) for s in sequences)
        registers = [launch.registers for launch in launches if launch.registers is not None]
        weighted = [(launch.occupancy, launch.seconds) for launch in launches]
        occupancy = None
        if all(value is not None for value, _ in weighted):
            total = sum(t for _, t in weighted)
            occupancy = sum((value or 0.0) * t for value, t in weighted) / total if total else None
        records.append(
            KernelRecord(
                kernel=label,
                count=len(where),
                device_s=seconds,
                dram_bytes=dram,
                registers=max(registers) if registers else None,
                occupancy=None if occupancy is None else round(occupancy, 4),
                block=launches[0].block,
            )
        )
    return records


def profile_sides(
    sides: Sequence[Side],
    case: str,
    backend: str,
    grid: Grid,
    *,
    work: pathlib.Path,
    calls: int = CALLS,
    timeout_s: float = 900.0,
) -> list[list[KernelRecord]]:
    """The kernels of one call of ``case`` on each of ``sides``; one line naming a failed side.

    The sides' processes start together: each imports its stack, makes the grid, loads its
    build and draws the inputs while the others do (most of a profile's seconds), then waits.
    They are profiled one at a time, in the order of ``sides``: each calls the case only on
    its turn (:mod:`iconbench.runner.turn`), so no other side's kernels or uploads run on the
    device while ncu times a side's; the next turn comes once a side's profiled calls are over
    (:func:`~iconbench.runner.turn.done_path`), while ncu still writes that side's report.
    ncu's CSV and its output stay in ``work`` (``SIDE.ncu.csv``, ``SIDE.ncu.log``).
    """
    from iconbench.runner import turn as turns
    from iconbench.runner.crosscheck import target_command

    work.mkdir(parents=True, exist_ok=True)
    started: list[tuple[side_process.Started, pathlib.Path, pathlib.Path]] = []
    try:
        for side in sides:
            csv, turn = work / f"{side.name}.ncu.csv", work / f"{side.name}.turn"
            for stale in (csv, turn, turns.ready_path(turn), turns.done_path(turn)):
                stale.unlink(missing_ok=True)
            target = target_command(case, backend, grid, calls=calls, stack=side.stack,
                                    out=side.out, turn=turn)  # fmt: skip
            command = nsight.command(target, csv, nsight.KERNEL_METRICS)
            log = work / f"{side.name}.ncu.log"
            started.append((side_process.start(side, command, what="ncu", log=log), csv, turn))
        _set_up([(running.process, turn) for running, _csv, turn in started])
        for running, _csv, turn in started:  # one at a time on the device
            if turns.wait_ready(running.process, turn):
                turn.write_text("go", encoding="utf-8")
                turns.wait_done(running.process, turn)  # ncu writes its report meanwhile
        found = []
        for running, csv, _turn in started:
            running.finish(timeout_s)  # ended before its turn: its one line
            if not csv.exists():
                raise IconbenchError(f"{running.where} wrote no CSV; its output: {running.log}")
            try:
                found.append(kernel_records(nsight.launches(csv.read_text("utf-8")), calls))
            except IconbenchError as error:
                raise IconbenchError(f"{running.where}: {error}") from None
        turns.forget(work)  # the sides' turn files: protocol; their CSVs and logs stay
        return found
    finally:
        for running, _csv, _turn in started:
            running.stop()


#: How long the first side set up waits for the others before it is profiled anyway: a
#: profiler that let one process start only after another ended would otherwise hold both.
SETUP_GRACE_S = 60.0


def _set_up(processes: Sequence[tuple[subprocess.Popen, pathlib.Path]]) -> None:
    """Wait until every process is set up or ended, at most :data:`SETUP_GRACE_S` past the first.

    A process that has ended and one that says it is set up are waited for no longer:

    >>> import sys, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> ended = subprocess.Popen([sys.executable, "-c", "pass"])
    >>> waiting = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    >>> (folder / "w.turn.ready").write_text("1")
    1
    >>> start = time.monotonic()
    >>> _set_up([(ended, folder / "e.turn"), (waiting, folder / "w.turn")])
    >>> time.monotonic() - start < 10, waiting.poll() is None
    (True, True)
    >>> waiting.kill(); _ = waiting.wait()
    """
    from iconbench.runner.turn import ready_path

    deadline = None
    while True:
        waiting = [(p, t) for p, t in processes if p.poll() is None and not ready_path(t).exists()]
        if not waiting:
            return
        if deadline is None and len(waiting) < len(processes):
            deadline = time.monotonic() + SETUP_GRACE_S
        if deadline is not None and time.monotonic() > deadline:
            return
        time.sleep(0.05)

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


def profile(
    side: Side,
    case: str,
    backend: str,
    grid: Grid,
    *,
    work: pathlib.Path,
    calls: int = CALLS,
    timeout_s: float = 900.0,
) -> list[KernelRecord]:
    """The kernels of one call of ``case`` on ``side``; one line naming the side if it fails.

    ncu's CSV and its output stay in ``work`` (``SIDE.ncu.csv``, ``SIDE.ncu.log``).
    """
    from iconbench.runner.crosscheck import target_command

    work.mkdir(parents=True, exist_ok=True)
    log_file = work / f"{side.name}.ncu.csv"
    log_file.unlink(missing_ok=True)
    target = target_command(case, backend, grid, calls=calls, stack=side.stack, out=side.out)
    command = nsight.command(target, log_file, nsight.KERNEL_METRICS)
    output = work / f"{side.name}.ncu.log"
    side_process.run(side, command, what="ncu", timeout_s=timeout_s, log=output)
    where = f"ncu on {side.name} ({side.commit[:12]})"
    if not log_file.exists():
        raise IconbenchError(f"{where} wrote no CSV; its output: {output}")
    try:
        return kernel_records(nsight.launches(log_file.read_text(encoding="utf-8")), calls)
    except IconbenchError as error:
        raise IconbenchError(f"{where}: {error}") from None

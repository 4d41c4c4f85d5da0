"""A granule call's kernel time from the suite's CUDA-event times of the programs it calls.

gt4py 1.2.1's ``compute`` metric is not kernel time on GPU backends (gtfn_gpu times the C++
call and a device synchronisation; dace_gpu's came out up to 4.5x below CUDA events), so a
granule's *overhead* cannot be its wall time minus that metric. The suite measures every
program variant alone with CUDA events around a held stream (``cuda-events-held``): kernels
and the gaps between them, not the Python before the first launch. The *kernel sum* of a
granule call is each program call the granule made (counted by gt4py's call hook) times the
suite's device median of the same program variant, on the same grid, backend and GPU; the
overhead is the wall time minus it. Calls whose variant the suite did not measure are left
out and counted (``coverage``), never guessed.

A suite case matches a call as a timer mapping's program reference does
(:meth:`~iconbench.baselines.mapping.ProgramRef.matches`: same program, and every static
argument the case names has the call's value; the call also carries the switches the case
leaves at their default); the case naming the most of them wins.
"""

from __future__ import annotations

import dataclasses
import pathlib
from collections.abc import Mapping

from iconbench.baselines import gt4py_timings
from iconbench.baselines.mapping import ProgramRef
from iconbench.errors import IconbenchError
from iconbench.granules.calls import ProgramKey
from iconbench.programs.catalog import split_case
from iconbench.records.resultdir import newest_summary, read_summary

#: (backend, program) -> [(the case as a program reference, device median seconds)]
SuiteTimes = dict[tuple[str, str], list[tuple[ProgramRef, float]]]


@dataclasses.dataclass(frozen=True)
class KernelSum:
    """Kernel seconds per granule call from the suite, and how many calls it covers."""

    seconds: float
    matched_calls: float
    calls: float
    #: ``program[variant]`` of calls without a measured suite variant
    unmatched: tuple[str, ...]

    @property
    def coverage(self) -> float:
        """Share of the granule's program calls with a suite time."""
        return self.matched_calls / self.calls if self.calls else 0.0


def suite_times(results: pathlib.Path, *, grid: str, gpu: str) -> SuiteTimes:
    """Device medians per (backend, program) from a suite result directory's newest summary.

    Refuses a directory measured on another grid or GPU (one line): kernel times only add up
    to a granule's on the same ones.
    """
    # a directory's newest summary holds every case of its ledger (older ones, fewer)
    path = (newest_summary(results) or results / "summary.json") if results.is_dir() else results
    try:
        summary = read_summary(path)
    except IconbenchError as error:
        raise IconbenchError(f"--suite {error}") from None
    if summary.get("grid") != grid:
        raise IconbenchError(
            f"--suite {path}: measured on grid {summary.get('grid')!r}, the granules on {grid!r}"
        )
    suite_gpu = (summary.get("provenance", {}).get("gpu") or {}).get("name", "none")
    if suite_gpu != gpu:
        raise IconbenchError(f"--suite {path}: measured on {suite_gpu!r}, the granules on {gpu!r}")
    times: SuiteTimes = {}
    for case in summary.get("cases", []):
        if case.get("error") or case.get("device_median_s") is None:
            continue
        program, variant = split_case(case["case"])
        static = tuple(gt4py_timings.parse_variant(variant).items())
        entry = (ProgramRef(program, static), float(case["device_median_s"]))
        times.setdefault((case["backend"], program), []).append(entry)
    return times


def kernel_sum(calls: Mapping[ProgramKey, float], backend: str, times: SuiteTimes) -> KernelSum:
    """Sum of calls x suite device median over the calls a suite variant matches.

    >>> times = {("b", "p"): [(ProgramRef("p"), 1e-4), (ProgramRef("p", (("x", True),)), 3e-4)],
    ...          ("b", "q"): [(ProgramRef("q"), 2e-4)]}
    >>> calls = {ProgramKey("p", "x=True-y=2"): 5.0, ProgramKey("q", ""): 1.0,
    ...          ProgramKey("r", ""): 2.0}
    >>> k = kernel_sum(calls, "b", times)
    >>> round(k.seconds * 1e6), k.matched_calls, k.calls, k.unmatched
    (1700, 6.0, 8.0, ('r[default]',))
    """
    seconds = matched = total = 0.0
    unmatched = []
    for key, n in calls.items():
        total += n
        switches = gt4py_timings.parse_variant(key.variant)
        fitting = [
            (len(ref.static_args), median)
            for ref, median in times.get((backend, key.program), [])
            if ref.matches(key.program, switches)
        ]
        if not fitting:
            unmatched.append(key.case_id)
            continue
        seconds += n * max(fitting)[1]
        matched += n
    return KernelSum(seconds, matched, total, tuple(unmatched))


def suite_timings(
    times: SuiteTimes, backend: str, *, grid: str, gpu: str
) -> list[gt4py_timings.GT4PyTiming]:
    """The suite's device medians of ``backend`` as timings for the ``integrate_nh`` estimate."""
    return [
        gt4py_timings.GT4PyTiming(
            program=program,
            static_args=tuple(sorted(ref.static_args)),
            backend=backend,
            grid=grid,
            gpu=gpu,
            samples_s=(median,),
            metric="time_device",
        )
        for (name, program), variants in times.items()
        if name == backend
        for ref, median in variants
    ]

"""Granule results against an OpenACC baseline: measured and estimated speed-ups, overhead.

For each backend's result file:

* per case with an ICON timer (``nh_hdiff_run``, ``nh_hdiff_run_initial``, ``integrate_nh``;
  bencher names ``nh_hdiff``, ``nh_hdiff_initial_run`` as fallbacks): OpenACC ``t_avg`` over
  the measured wall median (the speed-up ICON would see) and over the device sum (the speed-up
  without Python overhead);
* the ``integrate_nh`` estimate of :mod:`iconbench.baselines.speedup` from the programs' device
  times of the same ``integrate_nh`` run, once with the mapping's assumed call counts and once
  with the counted ones (:class:`~iconbench.baselines.speedup.MeasuredCalls`), next to the
  measured ``integrate_nh`` speed-up.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from iconbench.baselines import gt4py_timings, speedup
from iconbench.baselines.format import Baseline
from iconbench.baselines.mapping import TimerProgramMapping
from iconbench.granules.results import CaseResult, GranuleResults

#: ICON timer names per case, first present wins (timer table names, then bencher names).
TIMERS: dict[str, tuple[str, ...]] = {
    "diffusion.run": ("nh_hdiff_run", "nh_hdiff"),
    "diffusion.initial_run": ("nh_hdiff_run_initial", "nh_hdiff_initial_run"),
    "integrate_nh": ("integrate_nh",),
}


@dataclasses.dataclass(frozen=True)
class CaseComparison:
    """One case of one backend next to its OpenACC timer (if the baseline has it)."""

    case: str
    backend: str
    wall_s: float
    device_s: float
    overhead_s: float
    overhead_share: float
    calls_per_call: float
    metric: str
    timer: str | None = None
    openacc_s: float | None = None

    @property
    def measured_speedup(self) -> float | None:
        return self.openacc_s / self.wall_s if self.openacc_s and self.wall_s > 0 else None

    @property
    def kernel_speedup(self) -> float | None:
        return self.openacc_s / self.device_s if self.openacc_s and self.device_s > 0 else None


@dataclasses.dataclass(frozen=True)
class BackendComparison:
    """All cases of one backend, the integrate_nh estimates and the replaced call counts."""

    backend: str
    grid: str
    gpu: str
    cases: tuple[CaseComparison, ...]
    estimate_assumed: speedup.Estimate | None
    estimate_counted: speedup.Estimate | None
    calls_replaced: tuple[tuple[str, str, float, float], ...]
    forced: tuple[str, ...]


def measured_calls(results: GranuleResults) -> speedup.MeasuredCalls:
    """Counted calls: per step (``integrate_nh``), per diffusion call (``diffusion.run``)."""

    def keyed(case: CaseResult | None) -> dict[tuple[str, tuple[tuple[str, Any], ...]], float]:
        if case is None:
            return {}
        return {
            (k.program, tuple(gt4py_timings.parse_variant(k.variant).items())): n
            for k, n in case.calls.items()
        }

    per_granule = {}
    if "diffusion.run" in results.cases:
        per_granule["diffusion"] = keyed(results.cases["diffusion.run"])
    return speedup.MeasuredCalls(
        per_step=keyed(results.cases.get("integrate_nh")), per_granule=per_granule
    )


def program_timings(
    results: GranuleResults, case: str, *, grid: str, gpu: str
) -> list[gt4py_timings.GT4PyTiming]:
    """Per-call device times of each program variant in ``case`` (per-case sums / calls)."""
    timings = []
    for program in results.cases[case].programs:
        calls = float(program["calls"]) or 1.0
        static = tuple(sorted((program.get("static_args") or {}).items()))
        timings.append(
            gt4py_timings.GT4PyTiming(
                program=program["program"],
                static_args=static,
                backend=results.backend,
                grid=grid,
                gpu=gpu,
                samples_s=tuple(s / calls for s in program["samples_s"]),
                metric=results.cases[case].metric,
            )
        )
    return timings


def compare(
    baseline: Baseline,
    mapping: TimerProgramMapping,
    results: Sequence[GranuleResults],
    *,
    pins: dict[str, Any] | None = None,
    force: bool = False,
) -> list[BackendComparison]:
    """One comparison per result file; grids/GPUs other than the baseline's need ``force``."""
    comparisons = []
    for result in results:
        cases = []
        for name, case in result.cases.items():
            timer = next((t for t in TIMERS.get(name, ()) if baseline.timer(t) is not None), None)
            acc = baseline.timer(timer) if timer else None
            cases.append(
                CaseComparison(
                    case=name,
                    backend=result.backend,
                    wall_s=case.wall_median_s,
                    device_s=case.device_median_s,
                    overhead_s=case.overhead_s,
                    overhead_share=case.overhead_share,
                    calls_per_call=sum(case.calls.values()),
                    metric=case.metric,
                    timer=timer,
                    openacc_s=acc.t_avg_s if acc else None,
                )
            )
        assumed = counted = None
        replaced: list[tuple[str, str, float, float]] = []
        forced: tuple[str, ...] = ()
        if "integrate_nh" in result.cases and result.cases["integrate_nh"].programs:
            timings = program_timings(result, "integrate_nh", grid=result.grid, gpu=result.gpu)
            forced = tuple(speedup.check_comparable(baseline, timings, force))
            plain = speedup.compare(baseline, mapping, timings, force=True, pins=pins)
            with_calls = speedup.compare(
                baseline, mapping, timings, force=True, pins=pins,
                measured_calls=measured_calls(result),
            )  # fmt: skip
            assumed = plain.backends[0].estimate
            counted = with_calls.backends[0].estimate
            replaced = [
                (row.timer, label, before, after)
                for row in with_calls.backends[0].rows
                for label, before, after in row.calls_replaced
            ]
        comparisons.append(
            BackendComparison(
                backend=result.backend,
                grid=result.grid,
                gpu=result.gpu,
                cases=tuple(cases),
                estimate_assumed=assumed,
                estimate_counted=counted,
                calls_replaced=tuple(replaced),
                forced=forced,
            )
        )
    return comparisons

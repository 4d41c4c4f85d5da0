"""Granule results against an OpenACC baseline: measured and estimated speed-ups, overhead.

For each backend's result file:

* per case with an ICON timer (``nh_hdiff_run``, ``nh_hdiff_run_initial``, ``nh_solve``;
  bencher names ``nh_hdiff``, ``nh_hdiff_initial_run`` as fallbacks): OpenACC ``t_avg`` over
  the measured wall median (the speed-up ICON would see) and over the device sum (the speed-up
  without Python overhead);
* the ``integrate_nh`` case (substeps x solve_nonhydro + one diffusion) against the same part
  of ICON's time step: ``substeps x nh_solve + nh_hdiff``, the substeps read off the baseline
  (``nh_solve`` calls per ``integrate_nh`` call). ICON's ``integrate_nh`` timer itself also
  holds physics, tracer transport and output (in mch_icon-ch1_medium 64.7 ms per step against
  24.0 ms for its dynamical core): comparing the granules with it would flatter GT4Py 2.7x;
* the ``integrate_nh`` estimate of :mod:`iconbench.baselines.speedup` from the programs' device
  times of the same ``integrate_nh`` run, once with the mapping's assumed call counts and once
  with the counted ones (:class:`~iconbench.baselines.speedup.MeasuredCalls`), next to the
  measured ``integrate_nh`` speed-up.
"""

from __future__ import annotations

import dataclasses
import pathlib
from collections.abc import Sequence
from typing import Any

from iconbench.baselines import gt4py_timings, speedup
from iconbench.baselines.format import Baseline, Timer
from iconbench.baselines.mapping import TimerProgramMapping
from iconbench.granules.kernels import KernelSum, kernel_sum, suite_times, suite_timings
from iconbench.granules.results import CaseResult, GranuleResults

#: ICON timer names per case, first present wins (timer table names, then bencher names).
TIMERS: dict[str, tuple[str, ...]] = {
    "diffusion.run": ("nh_hdiff_run", "nh_hdiff"),
    "diffusion.initial_run": ("nh_hdiff_run_initial", "nh_hdiff_initial_run"),
    "solve_nonhydro.substep": ("nh_solve",),
}
STEP_TIMER = "integrate_nh"


def _first_timer(baseline: Baseline, names: Sequence[str]) -> Timer | None:
    """The first of ``names`` the baseline has."""
    return next((timer for name in names if (timer := baseline.timer(name))), None)


def openacc_time(baseline: Baseline, case: str) -> tuple[str, float] | None:
    """``(what, seconds per call)`` of ICON's OpenACC time for ``case``; None if not timed.

    >>> from iconbench.baselines import store
    >>> b = store.load(store.default_root(), "mch-icon-ch1-medium/unknown_gh200_2026-07")
    >>> what, seconds = openacc_time(b, "integrate_nh")
    >>> what, round(seconds * 1e3, 2), round(b.timer("integrate_nh").t_avg_s * 1e3, 2)
    ('5 x nh_solve + nh_hdiff', 23.98, 64.67)
    >>> openacc_time(b, "solve_nonhydro.substep")
    ('nh_solve', 0.00455317)
    """
    if case == STEP_TIMER:
        step = baseline.timer(STEP_TIMER)
        solve = _first_timer(baseline, TIMERS["solve_nonhydro.substep"])
        diffusion = _first_timer(baseline, TIMERS["diffusion.run"])
        if step is None or solve is None or diffusion is None or not step.calls:
            return None
        substeps = solve.calls / step.calls
        what = f"{substeps:g} x {solve.name} + {diffusion.name}"
        return what, substeps * solve.t_avg_s + diffusion.t_avg_s
    timer = _first_timer(baseline, TIMERS.get(case, ()))
    return (timer.name, timer.t_avg_s) if timer else None


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
    #: kernel seconds from the suite's CUDA-event times (``--suite``), None without
    kernels: KernelSum | None = None

    @property
    def kernel_overhead_s(self) -> float | None:
        """Wall minus the suite kernel sum: an upper bound (unmatched calls' kernels are in it)."""
        return self.wall_s - self.kernels.seconds if self.kernels else None

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
    #: the estimate from the suite's kernel times with the counted calls (``--suite``)
    estimate_suite: speedup.Estimate | None = None


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
    suite: pathlib.Path | None = None,
) -> list[BackendComparison]:
    """One comparison per result file; grids/GPUs other than the baseline's need ``force``.

    ``suite``: a suite result directory of the same grid and GPU whose CUDA-event device
    times give each case's kernel sum (:mod:`iconbench.granules.kernels`).
    """
    comparisons = []
    for result in results:
        times = suite_times(suite, grid=result.grid, gpu=result.gpu) if suite else None
        cases = []
        for name, case in result.cases.items():
            timer, openacc_s = openacc_time(baseline, name) or (None, None)
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
                    openacc_s=openacc_s,
                    kernels=kernel_sum(case.calls, result.backend, times) if times else None,
                )
            )
        assumed = counted = estimate_suite = None
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
            if times:
                kernel_timings = suite_timings(
                    times, result.backend, grid=result.grid, gpu=result.gpu
                )
                from_suite = speedup.compare(
                    baseline, mapping, kernel_timings, force=True, pins=pins,
                    measured_calls=measured_calls(result),
                )  # fmt: skip
                estimate_suite = from_suite.backends[0].estimate
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
                estimate_suite=estimate_suite,
            )
        )
    return comparisons

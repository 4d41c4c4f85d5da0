r"""Speed-up of GT4Py over the OpenACC baseline, per ICON timer and for the whole step.

Definitions (all times per call, in seconds):

* OpenACC time of timer :math:`t`: :math:`a_t` = ``t_avg`` of the baseline. ICON's timers keep
  only min/avg/max, not the samples, so :math:`a_t` is a point estimate; the min-max spread is
  reported next to it as ``a_min/g .. a_max/g``, not folded into the confidence interval.
* GT4Py time of timer :math:`t`: :math:`g_t = \sum_{p \in t} c_p \, \tilde{x}_p`, the sum over
  the programs mapped to the timer of ``calls x median`` of their samples. One program per
  timer is the per-program speed-up; several programs (ICON fuses what icon4py splits, or the
  timer is a whole granule such as ``nh_hdiff_run``) compare the timer with the sum of the
  programs' kernel times, i.e. a granule-level comparison without Python overhead.
* Speed-up :math:`s_t = a_t / g_t` (> 1: GT4Py is faster).
* ``integrate_nh`` estimate :math:`E = \sum_t n_t a_t / \sum_t n_t g_t` over the mapped,
  measured timers, with :math:`n_t` the OpenACC call count of the timer (calls per run, so
  the weights are how often each timer runs per timestep times the timesteps). It is the
  speed-up of the mapped part of the step, assuming each GT4Py call costs what the benchmark
  measured; ``coverage`` says which share of the OpenACC step time it speaks for.
* Coverage: :math:`\sum_t n_t a_t` over counted timers divided by the step time: the first
  ``reference_timers`` entry present (``integrate_nh``), else the sum over all timers that do
  not enclose others.
* Measured call counts (:class:`MeasuredCalls`, from a whole-granule run,
  :mod:`iconbench.granules`): where given, :math:`c_p` is what GT4Py really issued instead of
  the mapping's assumed count: for a granule timer (``granule = "diffusion"``) the program's
  calls per granule call, for any other timer its calls per time step divided by the timer's
  OpenACC calls per time step. Rows record each replaced count (``calls_replaced``).
* Goal: ``distance = E - 1.5``; when below the goal, GT4Py time must shrink by
  :math:`1 - E/1.5` to reach it.

Confidence intervals: percentile bootstrap (:func:`scipy.stats.bootstrap`, unpaired, each
program's samples resampled independently) of the statistic itself (:math:`s_t` or :math:`E`),
95 % by default. It quantifies the GT4Py sampling uncertainty of the medians; the OpenACC side
is fixed at ``t_avg``. With fewer than two samples of any program there is no interval.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from iconbench.baselines.format import Baseline, Timer, slug
from iconbench.baselines.gt4py_timings import GT4PyTiming
from iconbench.baselines.mapping import ProgramRef, TimerMapping, TimerProgramMapping
from iconbench.errors import IconbenchError
from iconbench.grids.presets import GridCounts

#: The upstream goal for the dycore on a single GPU (DaCe optimisation project).
GOAL = 1.5
CONFIDENCE = 0.95
N_RESAMPLES = 2000


@dataclasses.dataclass(frozen=True)
class Row:
    """One ICON timer compared with its GT4Py programs on one backend."""

    timer: str
    programs: tuple[str, ...]
    #: OpenACC calls in the run, and per timestep (the weight of the timer in the estimate).
    calls: int
    calls_per_step: float
    openacc_s: float
    openacc_min_s: float
    openacc_max_s: float
    share: float
    #: "ok", "partial" (optional programs missing), "not measured", "enclosed" (finer
    #: timers of the same code are in the baseline: shown, not counted).
    status: str
    missing: tuple[str, ...] = ()
    gt4py_s: float | None = None
    speedup: float | None = None
    ci: tuple[float, float] | None = None
    metric: str = ""
    #: estimate for the baseline's GPU (speed-up x bandwidth ratio), when the GPUs differ
    speedup_bandwidth_scaled: float | None = None
    #: ``(program label, assumed calls, measured calls)`` where a measured count replaced the
    #: mapping's (see :class:`MeasuredCalls`).
    calls_replaced: tuple[tuple[str, float, float], ...] = ()

    @property
    def counted(self) -> bool:
        """Whether the row enters the estimate and coverage."""
        return self.status in {"ok", "partial"}


@dataclasses.dataclass(frozen=True)
class Granule:
    """A granule timer next to a benchmark that measured the whole granule call directly."""

    timer: str
    benchmark: str
    openacc_s: float
    direct_s: float
    direct_speedup: float
    direct_ci: tuple[float, float] | None
    programs_s: float
    #: direct - sum of programs: what the granule adds around the kernels (Python, copies).
    overhead_s: float


@dataclasses.dataclass(frozen=True)
class Estimate:
    """The integrate_nh estimate of one backend."""

    value: float
    ci: tuple[float, float] | None
    coverage: float
    reference: str
    openacc_s: float
    gt4py_s: float
    #: estimate for the baseline's GPU (value x bandwidth ratio), when the GPUs differ
    value_bandwidth_scaled: float | None = None

    @property
    def distance_to_goal(self) -> float:
        """``E - 1.5``: negative while the goal is not reached."""
        return self.value - GOAL

    @property
    def reduction_needed(self) -> float:
        """Share of GT4Py time to remove to reach the goal (0 once reached)."""
        return max(0.0, 1 - self.value / GOAL)


@dataclasses.dataclass(frozen=True)
class BackendReport:
    """Rows (sorted by share of OpenACC time), the estimate and direct granule comparisons."""

    backend: str
    rows: tuple[Row, ...]
    estimate: Estimate | None
    granules: tuple[Granule, ...]


@dataclasses.dataclass(frozen=True)
class Report:
    """The speed-up report of GT4Py timings against one baseline."""

    baseline: str
    experiment: str
    grid: str
    gpu: str
    gt4py_grids: tuple[str, ...]
    gt4py_gpus: tuple[str, ...]
    backends: tuple[BackendReport, ...]
    unmapped: tuple[tuple[str, float, str], ...]
    forced: tuple[str, ...]
    #: :meth:`GpuScaling.as_dict` when GT4Py ran on another GPU than the baseline (estimate)
    gpu_scaling: dict[str, Any] | None = None
    #: the experiment compared against (its file), when one was given
    experiment_file: str = ""


@dataclasses.dataclass(frozen=True)
class MeasuredCalls:
    """Program calls GT4Py really issued, counted in a whole-granule run.

    Keys are ``(program, static_args)`` with ``static_args`` a tuple of ``(name, value)``
    pairs of the call's switches. ``per_step``: calls per ICON time step (the
    ``integrate_nh`` sequence); ``per_granule``: calls per call of a granule named as the
    mapping's ``granule`` (``diffusion``).

    >>> calls = MeasuredCalls(per_step={("p", (("at_first_substep", True),)): 1.0})
    >>> calls.matching(ProgramRef("p"), calls.per_step, {})
    1.0
    """

    per_step: Mapping[tuple[str, tuple[tuple[str, Any], ...]], float] = dataclasses.field(
        default_factory=dict
    )
    per_granule: Mapping[str, Mapping[tuple[str, tuple[tuple[str, Any], ...]], float]] = (
        dataclasses.field(default_factory=dict)
    )

    @staticmethod
    def matching(
        ref: ProgramRef,
        counts: Mapping[tuple[str, tuple[tuple[str, Any], ...]], float],
        pins: Mapping[str, Any],
    ) -> float | None:
        """Calls of the variants ``ref`` (and the pins) match; None if the program never ran."""
        found = [
            n
            for (program, static), n in counts.items()
            if ref.matches(program, dict(static)) and all(pins.get(k, v) == v for k, v in static)
        ]
        if not any(program == ref.program for program, _ in counts):
            return None
        return float(sum(found))

    def calls_for(
        self,
        ref: ProgramRef,
        entry: TimerMapping,
        timer: Timer,
        timesteps: int,
        pins: Mapping[str, Any],
    ) -> float | None:
        """Measured calls of ``ref`` per call of ``timer``; None where nothing was measured."""
        if entry.granule and entry.granule in self.per_granule:
            return self.matching(ref, self.per_granule[entry.granule], pins)
        if not self.per_step or entry.granule:
            return None
        per_step = self.matching(ref, self.per_step, pins)
        timer_per_step = timer.calls / timesteps if timesteps else 0.0
        if per_step is None or timer_per_step <= 0:
            return None
        return per_step / timer_per_step


def check_comparable(
    baseline: Baseline,
    timings: Sequence[GT4PyTiming],
    force: bool,
    grid: tuple[str, GridCounts] | None = None,
) -> list[str]:
    """Refuse timings from another grid or GPU than the baseline's, unless ``force``.

    ``grid``: the experiment's grid (preset name and counts); timings are then compared by the
    counts of the grid they were measured on, so a renamed preset cannot pass for another
    grid. Without it, grid names are compared as slugs (``A100`` == ``a100``). Returns the
    forced mismatches, which the report prints, so a forced comparison can never pass for a
    like-for-like one.
    """
    mismatches = []
    if grid is not None:
        name, counts = grid
        others = sorted(
            {(t.grid, t.grid_counts) for t in timings if t.grid_counts != counts},
            key=lambda item: item[0],
        )
        mismatches += [
            f"grid differs: the experiment's {name!r} has {counts}, GT4Py timings on {g!r} "
            f"have {c if c else 'unknown counts'}"
            for g, c in others
        ]
    checks = [("GPU", baseline.machine.gpu, {t.gpu for t in timings})]
    if grid is None:
        checks.insert(0, ("grid", baseline.experiment.grid, {t.grid for t in timings}))
    for what, ours, theirs in checks:
        other = sorted(x for x in theirs if slug(x) != slug(ours))
        if other:
            mismatches.append(
                f"{what} differs: baseline {baseline.name} has {ours!r}, "
                f"GT4Py timings have {', '.join(repr(o) for o in other)}"
            )
    if mismatches and not force:
        raise IconbenchError(
            f"{'; '.join(mismatches)}; speed-ups across grids or GPUs are meaningless - "
            "measure on the baseline's grid and GPU (select it with --grid/--gpu), "
            "or pass --force to compare anyway"
        )
    return mismatches


def pinned(timing: GT4PyTiming, pins: Mapping[str, Any]) -> bool:
    """Whether every static argument of ``timing`` that is pinned has the pinned value.

    Pins state the experiment's configuration (``rayleigh_type=2``) once for all programs,
    where the mapping names only the arguments that tell ICON's timers apart.
    """
    return all(pins.get(k, v) == v for k, v in timing.static_args)


def _find(
    ref: ProgramRef,
    backend: str,
    timings: Sequence[GT4PyTiming],
    timer: str,
    pins: Mapping[str, Any],
) -> GT4PyTiming | None:
    found = [
        t
        for t in timings
        if t.backend == backend and ref.matches(t.program, dict(t.static_args)) and pinned(t, pins)
    ]
    if len(found) > 1:
        variants = ", ".join(repr(t.variant) for t in found[:4])
        more = f" and {len(found) - 4} more" if len(found) > 4 else ""
        raise IconbenchError(
            f"mapping timer {timer!r}: program {ref.program!r} matches several variants in the "
            f"results ({variants}{more}); pin the experiment's configuration with "
            "--static KEY=VALUE (e.g. --static rayleigh_type=2) or add static_args to the mapping"
        )
    return found[0] if found else None


def _bootstrap(
    statistic: Callable[..., np.ndarray], samples: Sequence[tuple[float, ...]]
) -> tuple[float, float] | None:
    """Percentile bootstrap CI of ``statistic(*medians)``; None with < 2 samples anywhere."""
    if not samples or min(len(s) for s in samples) < 2:
        return None
    from scipy import stats  # seconds to import: only when an interval is asked for

    def vectorised(*xs: np.ndarray, axis: int = -1) -> np.ndarray:
        return statistic(*(np.median(x, axis=axis) for x in xs))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # degenerate (all-equal) samples: interval collapses
        result = stats.bootstrap(
            tuple(np.asarray(s) for s in samples),
            vectorised,
            paired=False,
            vectorized=True,
            confidence_level=CONFIDENCE,
            n_resamples=N_RESAMPLES,
            method="percentile",
            rng=np.random.default_rng(0),
        )
    low, high = result.confidence_interval
    return float(low), float(high)


def _step_time(baseline: Baseline, mapping: TimerProgramMapping) -> tuple[float, str]:
    for name in mapping.reference_timers:
        if (timer := baseline.timer(name)) is not None:
            return timer.time_s, name
    parts = [t.time_s for t in baseline.timers if t.name not in mapping.enclosing]
    return sum(parts), (
        f"no {' / '.join(mapping.reference_timers)} timer in this baseline: share of the "
        "baseline's own timers, not of the whole step"
    )


def _row(
    timer: Timer,
    entry: TimerMapping,
    *,
    baseline: Baseline,
    backend: str,
    timings: Sequence[GT4PyTiming],
    step_s: float,
    pins: Mapping[str, Any],
    measured_calls: MeasuredCalls | None = None,
) -> tuple[Row, list[tuple[ProgramRef, GT4PyTiming]]]:
    common = dict(
        timer=timer.name,
        programs=tuple(r.label for r in entry.programs),
        calls=timer.calls,
        calls_per_step=timer.calls / baseline.timesteps,
        openacc_s=timer.t_avg_s,
        openacc_min_s=timer.t_min_s,
        openacc_max_s=timer.t_max_s,
        share=timer.time_s / step_s if step_s else 0.0,
    )
    found = [(r, _find(r, backend, timings, timer.name, pins)) for r in entry.programs]
    missing = tuple(r.label for r, t in found if t is None)
    if any(t is None and not r.optional for r, t in found):
        return Row(**common, status="not measured", missing=missing), []
    measured = [(r, t) for r, t in found if t is not None]
    replaced = []
    if measured_calls is not None:
        swapped = []
        for assumed, t in measured:
            calls = measured_calls.calls_for(assumed, entry, timer, baseline.timesteps, pins)
            used_ref = assumed
            if calls is not None and not np.isclose(calls, assumed.calls):
                replaced.append((assumed.label, float(assumed.calls), calls))
                used_ref = dataclasses.replace(assumed, calls=calls)  # type: ignore[arg-type]
            swapped.append((used_ref, t))
        measured = swapped
    refs, samples = [r for r, _ in measured], [t.samples_s for _, t in measured]
    weights = np.array([r.calls for r in refs], dtype=float)
    gt4py = float(weights @ np.array([np.median(s) for s in samples]))
    enclosed = any(baseline.timer(name) is not None for name in entry.encloses)
    row = Row(
        **common,
        status="enclosed" if enclosed else ("partial" if missing else "ok"),
        missing=missing,
        gt4py_s=gt4py,
        speedup=timer.t_avg_s / gt4py if gt4py > 0 else float("inf"),
        ci=_bootstrap(
            lambda *m: timer.t_avg_s / sum(w * x for w, x in zip(weights, m, strict=True)), samples
        ),
        metric="/".join(sorted({t.metric for _, t in measured})),
        calls_replaced=tuple(replaced),
    )
    return row, measured


def _estimate(
    baseline: Baseline,
    rows: Sequence[Row],
    used: dict[str, list[tuple[ProgramRef, GT4PyTiming]]],
    step: tuple[float, str],
) -> Estimate | None:
    counted = [r for r in rows if r.counted]
    if not counted:
        return None
    # Every distinct timing is resampled once and reused by every timer that maps to it.
    distinct: dict[int, GT4PyTiming] = {}
    for row in counted:
        for _, t in used[row.timer]:
            distinct.setdefault(id(t), t)
    index = {key: i for i, key in enumerate(distinct)}
    openacc = sum(r.calls * r.openacc_s for r in counted)
    terms = [  # (OpenACC calls, program weight, index of the program's timing)
        (r.calls, ref.calls, index[id(t)]) for r in counted for ref, t in used[r.timer]
    ]

    def estimate(*medians: np.ndarray) -> np.ndarray:
        return openacc / sum(n * c * medians[i] for n, c, i in terms)

    gt4py = sum(r.calls * (r.gt4py_s or 0.0) for r in counted)
    return Estimate(
        value=openacc / gt4py,
        ci=_bootstrap(estimate, [t.samples_s for t in distinct.values()]),
        coverage=openacc / step[0] if step[0] else 0.0,
        reference=step[1],
        openacc_s=openacc,
        gt4py_s=gt4py,
    )


def _granules(
    rows: Sequence[Row],
    mapping: TimerProgramMapping,
    backend: str,
    timings: Sequence[GT4PyTiming],
) -> list[Granule]:
    """Granule timers for which a benchmark timed the whole granule call.

    Such a benchmark is a timing whose program is the mapping's ``granule`` name
    (``diffusion``), or that name with ``_granule`` or ``.run`` appended.
    """
    result = []
    for row in rows:
        granule = mapping.timers[row.timer].granule
        if not granule or row.gt4py_s is None:
            continue
        names = {granule, f"{granule}_granule", f"{granule}.run"}
        direct = [t for t in timings if t.backend == backend and t.program in names]
        if not direct:
            continue
        samples = direct[0].samples_s
        median = float(np.median(samples))
        result.append(
            Granule(
                timer=row.timer,
                benchmark=direct[0].program,
                openacc_s=row.openacc_s,
                direct_s=median,
                direct_speedup=row.openacc_s / median,
                direct_ci=_bootstrap(lambda m, a=row.openacc_s: a / m, [samples]),
                programs_s=row.gt4py_s,
                overhead_s=median - row.gt4py_s,
            )
        )
    return result


def compare(
    baseline: Baseline,
    mapping: TimerProgramMapping,
    timings: Sequence[GT4PyTiming],
    *,
    force: bool = False,
    backends: Sequence[str] | None = None,
    pins: Mapping[str, Any] | None = None,
    grid: tuple[str, GridCounts] | None = None,
    gpu_scaling: Any = None,
    experiment_file: str = "",
    measured_calls: MeasuredCalls | None = None,
) -> Report:
    """The full report: refuses other grids/GPUs unless ``force`` (then says so).

    ``pins`` fixes static arguments for every program (see :func:`pinned`); ``grid`` is the
    experiment's grid (see :func:`check_comparable`). ``gpu_scaling``
    (:class:`iconbench.baselines.gpu_scaling.GpuScaling`) adds, when the GPUs differ, the
    speed-ups restated for the baseline's GPU by memory bandwidth, marked as estimates.
    ``measured_calls`` replaces the mapping's assumed call counts (see :class:`MeasuredCalls`).
    """
    if not timings:
        raise IconbenchError("no GT4Py timings to compare; check the RESULTS input")
    forced = check_comparable(baseline, timings, force, grid)
    gpus_differ = any(slug(t.gpu) != slug(baseline.machine.gpu) for t in timings)
    factor = gpu_scaling.factor if gpu_scaling is not None and gpus_differ else None
    step = _step_time(baseline, mapping)
    present = sorted({t.backend for t in timings})
    chosen = list(backends) if backends else present
    if unknown := sorted(set(chosen) - set(present)):
        raise IconbenchError(
            f"backend(s) {unknown} not in the results; choose from: {', '.join(present)}"
        )
    reports = []
    for backend in chosen:
        rows, used = [], {}
        for timer in baseline.timers:
            if (entry := mapping.timers.get(timer.name)) is None:
                continue
            row, measured = _row(
                timer,
                entry,
                baseline=baseline,
                backend=backend,
                timings=timings,
                step_s=step[0],
                pins=pins or {},
                measured_calls=measured_calls,
            )
            rows.append(row)
            used[timer.name] = measured
        rows.sort(key=lambda r: r.share, reverse=True)
        estimate = _estimate(baseline, rows, used, step)
        if factor is not None:
            rows = [
                dataclasses.replace(r, speedup_bandwidth_scaled=r.speedup * factor)
                if r.speedup is not None
                else r
                for r in rows
            ]
            if estimate is not None:
                estimate = dataclasses.replace(
                    estimate, value_bandwidth_scaled=estimate.value * factor
                )
        reports.append(
            BackendReport(
                backend=backend,
                rows=tuple(rows),
                estimate=estimate,
                granules=tuple(_granules(rows, mapping, backend, timings)),
            )
        )
    unmapped = tuple(
        sorted(
            (
                (t.name, t.time_s / step[0] if step[0] else 0.0, mapping.reason_unmapped(t.name))
                for t in baseline.timers
                if t.name not in mapping.timers and t.name not in mapping.enclosing
            ),
            key=lambda item: item[1],
            reverse=True,
        )
    )
    return Report(
        baseline=baseline.name,
        experiment=baseline.experiment.name,
        grid=baseline.experiment.grid,
        gpu=baseline.machine.gpu,
        gt4py_grids=tuple(sorted({t.grid for t in timings})),
        gt4py_gpus=tuple(sorted({t.gpu for t in timings})),
        backends=tuple(reports),
        unmapped=unmapped,
        forced=tuple(forced),
        gpu_scaling=gpu_scaling.as_dict() if factor is not None else None,
        experiment_file=experiment_file,
    )

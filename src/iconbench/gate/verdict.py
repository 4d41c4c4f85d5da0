"""Two result sets → one verdict per benchmark and one for the run (the gate itself).

Per benchmark (``case|backend|metric``, see :mod:`iconbench.records.resultset`):

- only on head: **new**; only on base: **gone**;
- not selected by a side's run, or a metric the backend does not have (``embedded`` has no
  device time): **not run** (never failed; the note says which side and why);
- an error on a side (did not compile or run): **failed** (``error`` says which side);
- not gated (compile time, an override) or fewer than 5 samples: the ratio is reported,
  the verdict is described by the ratio alone and never fails the run;
- far-out samples (Tukey's far-out fences on log times, :func:`iconbench.gate.stats.far_out`)
  are set aside on each side before modes and tests: a cluster of 2x outliers is neither
  a second code path nor evidence of a change;
- otherwise the interval test of :mod:`iconbench.gate.stats` against the threshold (widened
  by base's history), Benjamini-Hochberg over all gated benchmarks compared at once, then
  the one decision rule of every road (:mod:`iconbench.gate.decision`): **regression** /
  **improvement** when the change beyond the tolerance margin is a discovery at the FDR
  (``below the 5 % threshold`` where its interval stays within it), **unchanged** when the
  interval lies within ±threshold and reaches into the margin, **inconclusive** otherwise.

Notes explain what the numbers cannot: ``code generation differs`` (fingerprints differ: the
change may be the generated code, not the commit; check with ``iconbench rebuild-check``),
``timing is bimodal`` (two modes on both sides: the faster modes are compared, a changed
mix of modes is not a regression; on one side only: its larger mode is compared, and a
change that only moves the mix is inconclusive), ``history is noisy``,
``device clock differs``, ``same samples on both sides``.

Two separate runs (one process a side, ``groups`` empty) are judged against each
benchmark's own run-to-run noise: the margin covers the band of its history's changes
(rustc-perf's Q3 + 3 IQR, :func:`iconbench.gate.stats.noise_band`), and a metric whose
processes of unchanged code scatter beyond its threshold on that device (host overhead;
device time on a CPU: ``history_only``)
is not gated at all without that band. A change flagged between separate runs is a
candidate: the nightly measures it again interleaved before it reports it.

Machine shift: where both sides record codegen fingerprints, the benchmarks whose code is
identical estimate the runner's common shift per metric (:mod:`iconbench.gate.shift`);
every benchmark of that metric is then judged relative to it (head's samples divided by the
shift), and a device-time shift whose whole interval lies beyond ``max_machine_shift`` makes
the run **not comparable** (exit 2, no per-benchmark verdicts fail it). Without enough
controls the verdicts are absolute.

The run fails (exit 1) on a gated regression or a benchmark that fails on head but not on
base.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import math
import statistics
from collections.abc import Callable, Sequence

from iconbench import __version__
from iconbench.gate import decision, processes, stats
from iconbench.gate import shift as machine_shift
from iconbench.gate.config import GateConfig
from iconbench.programs.backends import on_gpu
from iconbench.programs.catalog import split_case
from iconbench.records.resultset import Entry, ResultSet, check_comparable
from iconbench.records.summary import (
    NOT_COMPARABLE,
    VERDICTS,
    BenchmarkResult,
    MachineShift,
    OpenACC,
    Side,
    SideNumbers,
    Summary,
)
from iconbench.stacks.reproducibility import draw_note


@dataclasses.dataclass
class _Pending:
    """A gated benchmark waiting for the FDR step."""

    index: int
    comparison: stats.Comparison
    threshold: float
    #: a side's typical time sits within the other side's two modes: a change is only a
    #: moved mix of modes, never a regression or improvement
    mix_only: bool
    #: its result so far (verdict ``inconclusive`` until :func:`decide`)
    result: BenchmarkResult
    #: too few processes a side to flag a change of its metric
    #: (:data:`iconbench.gate.processes.FLAG_PROCESSES`): never a regression or improvement
    held: bool = False


def _numbers(entry: Entry | None, confidence: float) -> SideNumbers | None:
    if entry is None:
        return None
    if entry.error:
        return SideNumbers(fingerprint=entry.fingerprint, error=entry.error)
    ci = None
    if len(entry.samples) >= stats.MIN_SAMPLES:
        ci = median_interval(entry.samples, confidence)
    return SideNumbers(entry.median, len(entry.samples), ci, entry.fingerprint)


def median_interval(samples: Sequence[float], confidence: float) -> tuple[float, float]:
    """Distribution-free interval of the median from order statistics (binomial).

    >>> median_interval([float(i) for i in range(1, 101)], 0.95)
    (40.0, 60.0)
    """
    values = sorted(samples)
    n = len(values)
    lo = _median_rank(n, confidence)
    hi = min(n - 1, n - 1 - lo)
    return values[max(lo - 1, 0)], values[hi]


@functools.cache
def _median_rank(n: int, confidence: float) -> int:
    from scipy import stats as scipy_stats

    return int(scipy_stats.binom.ppf((1 - confidence) / 2, n, 0.5))


def _side(rs: ResultSet) -> Side:
    return Side(
        label=rs.label,
        commit=rs.commit,
        component=rs.component,
        date=rs.date,
        stack=rs.stack,
        machine=rs.machine,
        grid=rs.grid,
        source=rs.source,
    )


def _described(ratio: float | None, threshold: float) -> str:
    if ratio is None:
        return "inconclusive"
    if ratio > 1 + threshold:
        return "regression"
    if ratio < 1 / (1 + threshold):
        return "improvement"
    return "unchanged"


def history_medians(history: Sequence[ResultSet], key: str) -> list[float]:
    """Median of ``key`` in each earlier result set that has it."""
    medians = []
    for rs in history:
        entry = rs.entries.get(key)
        if entry is not None and not entry.error and entry.median:
            medians.append(entry.median)
    return medians


#: A side with at least this share of its samples set aside as far out gets a note.
OUTLIER_NOTE_SHARE = 0.05

AsvDecision = Callable[[Sequence[float], Sequence[float]], str]


def compare(
    base: ResultSet,
    head: ResultSet,
    config: GateConfig | None = None,
    *,
    history: Sequence[ResultSet] = (),
    select: Callable[[str], bool] = lambda _key: True,
    asv_decision: AsvDecision | None = None,
    openacc: OpenACC | None = None,
    across_cuda: bool = False,
) -> Summary:
    """The summary of head against base (grids must match: see ``check_comparable``).

    The steps, each a function below: the runner's common shift (:func:`common_shifts`);
    per benchmark, what cannot be judged (:func:`unjudged`: new, gone, not run, failed), the
    notes on the two sides (:func:`side_notes`), the samples that describe each side
    (:func:`typical_samples`: far-out samples set aside, modes), the threshold widened by the
    benchmark's run-to-run noise band (:func:`iconbench.gate.stats.history_threshold` over
    base's branch, base last), then the comparison of the road the sides were measured on
    (:func:`judge`: processes as the unit, or two separate runs); last, the false discovery
    rate over everything judged (:func:`decide`).
    """
    config = config or GateConfig.default()
    check_comparable(base, head, across_cuda=across_cuda)
    keys = sorted(k for k in set(base.entries) | set(head.entries) if select(k))
    shifts = common_shifts(base, head, keys, config)
    factor = {s.metric: s.ratio for s in shifts if s.corrected}
    built_with = (base.stack.get("gt4py"), head.stack.get("gt4py"))
    # base's branch oldest first, base last: each benchmark's run-to-run band is learned from it
    runs = [*_oldest_first(history), base]
    results: list[BenchmarkResult] = []
    pending: list[_Pending] = []
    for key in keys:
        b, h = base.entries.get(key), head.entries.get(key)
        threshold, gated, reason = config.rule(key)
        common = _common(key, b, h, config)
        notes: list[str] = [f"threshold from {reason}"] if reason else []
        done = unjudged(common, b, h, gated=gated, threshold=threshold, notes=notes)
        if done is not None:
            results.append(done)
            continue
        assert b is not None  # unjudged() took the one-sided ones
        assert h is not None
        notes += side_notes(b, h, built_with)
        machine = factor.get(b.metric, 1.0)
        if machine != 1.0 and round(machine, 3) != 1.0:
            # judged relative to the runner's common shift (gate.shift): what is left is the
            # change's own effect
            notes.append(f"relative to the runner's shift x{machine:.3f}")
        typical = typical_samples(b, h, machine, threshold)
        notes += typical.notes
        widened, band = stats.history_threshold(threshold, history_medians(runs, key))
        if band is not None and widened > threshold:
            notes.append(f"history is noisy (run-to-run band {band:.1%}, Q3 + 3 IQR of changes)")
        judged = judge(common, b, h, typical, machine=machine, config=config, gated=gated,
                       threshold=widened, band_known=band is not None,
                       asv_decision=asv_decision, notes=notes)  # fmt: skip
        if isinstance(judged, BenchmarkResult):
            results.append(judged)
            continue
        judged.index = len(results)
        pending.append(judged)
        results.append(judged.result)
    decide(results, pending, config)
    return assemble(base, head, config, results, openacc=openacc, shifts=shifts)


def _common(key: str, b: Entry | None, h: Entry | None, config: GateConfig) -> dict:
    """The fields every benchmark's result has, whatever its verdict."""
    case, backend, metric = key.split("|")
    program, variant = split_case(case)
    return {
        "id": key,
        "program": program,
        "variant": variant,
        "backend": backend,
        "metric": metric,
        "unit": (b or h).unit,  # type: ignore[union-attr]
        "base": _numbers(b, config.confidence),
        "head": _numbers(h, config.confidence),
    }


_EMPTY = {"ratio": None, "ratio_ci": None, "p_value": None, "q_value": None}


def unjudged(
    common: dict,
    b: Entry | None,
    h: Entry | None,
    *,
    gated: bool,
    threshold: float,
    notes: Sequence[str],
) -> BenchmarkResult | None:
    """The result of a benchmark without numbers to compare (new, gone, not run, failed)."""
    if b is None or h is None:
        verdict = "new" if b is None else "gone"
        return BenchmarkResult(**common, gated=gated, threshold=threshold, **_EMPTY,
                               verdict=verdict)  # fmt: skip
    absent = [(name, e.not_run) for name, e in (("base", b), ("head", h)) if e.not_run]
    if absent and not (h.error and not h.not_run):
        reason = "; ".join(f"{why} ({name})" for name, why in absent)
        return BenchmarkResult(**common, gated=False, threshold=threshold, **_EMPTY,
                               verdict="not run", notes=(*notes, reason))  # fmt: skip
    if b.error or h.error:
        sides = [f"{name}: {e.error}" for name, e in (("base", b), ("head", h)) if e.error]
        fixed = ("fixed on head",) if b.error and not h.error else ()
        return BenchmarkResult(**common, gated=gated, threshold=threshold, **_EMPTY,
                               verdict="failed", notes=(*notes, *fixed),
                               error="; ".join(sides))  # fmt: skip
    return None


def side_notes(b: Entry, h: Entry, built_with: tuple[str | None, str | None]) -> list[str]:
    """What differs between the sides besides the timing: generated code, clock, samples."""
    notes = []
    if b.fingerprint and h.fingerprint and b.fingerprint != h.fingerprint:
        notes.append("code generation differs")
        if note := draw_note(b.backend, built_with):
            notes.append(note)
    if b.device_source and h.device_source and b.device_source != h.device_source:
        notes.append(f"device clock differs ({b.device_source} -> {h.device_source})")
    if b.samples == h.samples and len(b.samples) > 1:
        notes.append("same samples on both sides (not measured again)")
    return notes


@dataclasses.dataclass(frozen=True)
class Typical:
    """Each side's samples that describe its typical time, and how they were chosen."""

    base: list[float]
    head: list[float]
    modes_base: stats.Modes | None
    modes_head: stats.Modes | None
    notes: tuple[str, ...]

    @property
    def one_sided_modes(self) -> bool:
        """Two modes on one side only."""
        return bool(self.modes_base) != bool(self.modes_head)

    @property
    def bimodal(self) -> bool:
        """Two modes on either side."""
        return bool(self.modes_base or self.modes_head)


def typical_samples(b: Entry, h: Entry, machine: float, threshold: float) -> Typical:
    """Far-out samples set aside on each side, then the modes that are compared.

    Head's samples are divided by the runner's shift ``machine`` first.
    """
    notes = []
    base_samples, set_aside_b = stats.far_out(list(b.samples), threshold)
    head_samples, set_aside_h = stats.far_out([v / machine for v in h.samples], threshold)
    for side, count, total in (
        ("base", set_aside_b, len(b.samples)),
        ("head", set_aside_h, len(h.samples)),
    ):
        if count >= OUTLIER_NOTE_SHARE * total:
            notes.append(f"{count} of {total} {side} samples far out (set aside)")
    modes_b, modes_h = stats.bimodality(base_samples), stats.bimodality(head_samples)
    if modes_b and modes_h and stats.same_modes(modes_b, modes_h, threshold / 2):
        notes.append("timing is bimodal")
        base_samples = stats.low_mode(base_samples, modes_b)
        head_samples = stats.low_mode(head_samples, modes_h)
    elif modes_b and modes_h:
        # the sides split at different gaps (a cluster of outliers on one, a second code
        # path on the other): the larger cluster of each side is its typical time
        notes.append("timing is bimodal (different modes on the two sides)")
        base_samples = stats.majority_mode(base_samples, modes_b)
        head_samples = stats.majority_mode(head_samples, modes_h)
    elif modes_b or modes_h:
        # one side shows two modes, the other one: the mix moved, or the second mode is
        # rare on one side; a median of a mixture against one mode is not a comparison
        notes.append(f"timing is bimodal ({'base' if modes_b else 'head'} only)")
        cluster = stats.same_cluster(base_samples, head_samples, modes_b or modes_h)  # type: ignore[arg-type]
        if cluster is not None:
            base_samples, head_samples = cluster
        elif modes_b:
            base_samples = stats.majority_mode(base_samples, modes_b)
        else:
            head_samples = stats.majority_mode(head_samples, modes_h)  # type: ignore[arg-type]
    return Typical(base_samples, head_samples, modes_b, modes_h, tuple(notes))


def _oldest_first(history: Sequence[ResultSet]) -> list[ResultSet]:
    """The history in the order it was measured (undated sets keep their place, first)."""
    return sorted(history, key=lambda rs: rs.date or "")


def judge(
    common: dict,
    b: Entry,
    h: Entry,
    typical: Typical,
    *,
    machine: float,
    config: GateConfig,
    gated: bool,
    threshold: float,
    band_known: bool,
    asv_decision: AsvDecision | None,
    notes: list[str],
) -> BenchmarkResult | _Pending:
    """The comparison on the road the sides were measured on; pending the FDR step if gated.

    - several processes a side (an interleaved check): the process is the unit
      (:mod:`iconbench.gate.processes`);
    - fewer than :data:`processes.MIN_PROCESSES` on a side of an interleaved check: cut
      short, inconclusive;
    - one process a side (two separate runs): the samples' interval test, with the margin
      widened to the benchmark's run-to-run band; a metric whose processes scatter beyond
      its threshold on the backend's device (``history_only``: host overhead, device time on
      a CPU) is gated only where the history gives that band.
    """
    interleaved = bool(b.groups or h.groups)
    by_process = processes.usable(b.groups) and processes.usable(h.groups)
    too_few_processes = interleaved and not by_process
    across_runs = not interleaved
    enough = min(len(typical.base), len(typical.head)) >= stats.MIN_SAMPLES
    if too_few_processes:
        # an interleaved check cut short: one process's samples cannot say how much the
        # next process would differ, so no verdict rests on them: inconclusive
        enough = False
        notes.append(
            f"{len(b.groups)}+{len(h.groups)} processes, fewer than "
            f"{processes.MIN_PROCESSES} a side: inconclusive"
        )
    history_only = across_runs and config.needs_history(b.metric, b.backend) and not band_known
    if gated and history_only:
        device = "a GPU" if on_gpu(b.backend) else "a CPU"
        notes.append(
            f"one process a side and no run-to-run history: {b.metric} of unchanged code "
            f"on {device} moves beyond its threshold between processes, so two separate runs "
            "do not judge it (pass --history, or measure interleaved)"
        )
    positive = min(b.median or 0.0, h.median or 0.0) > 0
    if not gated or not enough or not positive or history_only:
        ratio = (h.median / b.median / machine) if positive else None  # type: ignore[operator]
        if gated and not enough and not too_few_processes:
            notes.append(f"fewer than {stats.MIN_SAMPLES} samples: not gated")
        elif gated and not positive:
            notes.append("median not positive: not gated")
        if history_only:
            verdict = "inconclusive"
        elif gated and too_few_processes:
            verdict = "inconclusive"  # cut short: gated, open until more processes measured it
        else:
            verdict = _described(ratio, threshold)
        return BenchmarkResult(**common, gated=gated and too_few_processes, threshold=threshold,
                               ratio=_round(ratio), ratio_ci=None, p_value=None, q_value=None,
                               verdict=verdict, notes=tuple(notes))  # fmt: skip
    if by_process:
        head_groups = [tuple(v / machine for v in g) for g in h.groups]
        references = (*b.group_reference_s, *h.group_reference_s)
        aligned = (len(b.group_reference_s), len(h.group_reference_s)) == (
            len(b.groups), len(h.groups))  # fmt: skip
        covariate = aligned and all(math.isfinite(r) and r > 0 for r in references)
        comparison = processes.compare(
            b.groups, head_groups, margin=threshold / 2, confidence=config.confidence,
            reference_s=(b.group_reference_s, h.group_reference_s) if covariate else None,
        )  # fmt: skip
        notes.append(f"{len(b.groups)}+{len(h.groups)} processes: the spread between them counts")
    else:
        comparison = stats.compare(
            typical.base, typical.head, margin=threshold / 2, confidence=config.confidence
        )
    if asv_decision is not None:
        notes.append(f"asv: {asv_decision(b.samples, h.samples)}")
    if comparison.medians_outside_interval and not typical.bimodal:
        low, high = comparison.ratio_ci
        notes.append(
            f"ratio of medians outside the interval [{low:.3f}, {high:.3f}]: the samples "
            f"changed shape, typical shift {comparison.shift:.3f} (Hodges-Lehmann)"
        )
    mix_only = _mix_only(b, h, typical, machine, threshold)
    result = BenchmarkResult(
        **estimated(common, comparison, machine),
        gated=True,
        threshold=threshold,
        ratio=_round(comparison.ratio),
        ratio_ci=(_round(comparison.ratio_ci[0]), _round(comparison.ratio_ci[1])),  # type: ignore[arg-type]
        p_value=comparison.p_value,
        q_value=None,
        verdict="inconclusive",
        notes=tuple(notes),
    )
    held = by_process and not processes.can_flag(b.metric, len(b.groups), len(h.groups))
    return _Pending(-1, comparison, threshold, mix_only, result, held=held)


def estimated(common: dict, comparison: stats.Comparison, machine: float) -> dict:
    """``common`` with each side's number the one the ratio is of (the one estimate shown).

    Pooled medians beside a ratio of the processes' medians disagreed (base 730.1 µs, head
    737.7 µs beside 0.901x); the samples the test compared (far-out ones set aside, the
    modes compared) and the processes' typical medians give base x ratio = head. Head's
    number is as measured: a ratio relative to the runner's shift says so in a note.
    """
    numbers = dict(common)
    for side, value in (("base", comparison.base), ("head", comparison.head)):
        if value is not None and numbers[side] is not None:
            scale = machine if side == "head" else 1.0
            numbers[side] = dataclasses.replace(numbers[side], median=value * scale)
    return numbers


def _mix_only(b: Entry, h: Entry, typical: Typical, machine: float, threshold: float) -> bool:
    """A side sits at one of the other side's modes: only the mix of modes can have moved."""
    modes_b, modes_h = typical.modes_base, typical.modes_head
    if typical.one_sided_modes:
        modes = modes_b or modes_h
        other = h.median / machine if modes_b else b.median  # type: ignore[operator]
        return _at_mode(modes, other, threshold / 2)  # type: ignore[arg-type]
    if modes_b and modes_h and not stats.same_modes(modes_b, modes_h, threshold / 2):
        return _at_mode(modes_b, statistics.median(typical.head), threshold / 2) and (
            _at_mode(modes_h, statistics.median(typical.base) * machine, threshold / 2)
        )
    return False


def decide(results: list[BenchmarkResult], pending: Sequence[_Pending], config: GateConfig) -> None:
    """Benjamini-Hochberg over every judged benchmark, then each one's verdict (in place).

    The verdict is :func:`iconbench.gate.decision.decide`'s, the rule every road shares: a
    discovery at the FDR beyond the margin is a regression or improvement (noted where it is
    smaller than the threshold); an interval within ``±threshold`` that reaches into the
    margin is unchanged; anything else inconclusive. A side that sits at one of the other's
    modes moved only the mix of modes, and a change of a metric measured in fewer processes a
    side than it is flagged on (:data:`iconbench.gate.processes.FLAG_PROCESSES`) is not
    decided yet: inconclusive, never a change.
    """
    q_values = stats.benjamini_hochberg([p.comparison.p_value for p in pending])
    for item, q in zip(pending, q_values, strict=True):
        c = item.comparison
        decided = decision.decide(c.ratio_ci, q=q, p_regression=c.p_regression,
                                  p_improvement=c.p_improvement, threshold=item.threshold,
                                  fdr=config.fdr)  # fmt: skip
        verdict = decided.verdict
        not_yet = ()
        if item.held and verdict in ("regression", "improvement"):
            metric = item.result.metric
            least = processes.FLAG_PROCESSES[metric]
            not_yet = (f"not flagged yet: a change of {metric} is flagged on {least} processes a "
                    "side or more (they fall into clusters that fewer cannot tell from a "
                    "shift); more processes decide it",)  # fmt: skip
        if (item.mix_only or not_yet) and verdict in ("regression", "improvement"):
            verdict = "inconclusive"
            decided = decision.Decision(verdict)
        result = results[item.index]
        results[item.index] = dataclasses.replace(
            result, q_value=q, verdict=verdict,
            notes=(*result.notes, *decided.notes(item.threshold), *not_yet),
        )  # fmt: skip


def common_shifts(
    base: ResultSet, head: ResultSet, keys: Sequence[str], config: GateConfig
) -> tuple[MachineShift, ...]:
    """The runner's shift per gated metric, from the benchmarks with equal fingerprints.

    Benchmarks measured interleaved (base and head in alternating processes on one runner,
    each side's processes kept as ``groups``) are no controls: the alternation already puts
    the runner's drift on both sides, and what is left between their processes is counted by
    the process-level test. As controls they would let a change that moves every benchmark
    alike without changing generated code (gt4py's call path) pass as the runner's shift.
    """
    controls: dict[str, dict[str, tuple[float, float]]] = {}
    changed: dict[str, int] = {}
    #: per metric: a control on a device where it needs a history (its shift never decides)
    scatters: dict[str, bool] = {}
    for key in keys:
        b, h = base.entries.get(key), head.entries.get(key)
        if b is None or h is None or not b.fingerprint or not h.fingerprint:
            continue
        if len(b.groups) > 1 and len(h.groups) > 1:
            continue
        if not b.median or not h.median or b.error or h.error:
            continue
        metric = b.metric
        if not config.gated.get(metric) or len(b.samples) < stats.MIN_SAMPLES:
            continue
        if b.fingerprint != h.fingerprint:
            changed[metric] = changed.get(metric, 0) + 1
        else:
            controls.setdefault(metric, {})[key] = (b.median, h.median)
            scatters[metric] = scatters.get(metric, False) or config.needs_history(
                metric, b.backend
            )
    found = []
    for metric in sorted(controls):
        estimate = machine_shift.estimate(
            metric,
            controls[metric],
            changed.get(metric, 0),
            limit=config.max_machine_shift,
            confidence=config.confidence,
            decides=not scatters[metric],
        )
        if estimate is not None:
            found.append(estimate)
    return tuple(found)


def _at_mode(modes: stats.Modes, median: float, margin: float) -> bool:
    """Whether ``median`` sits at one of ``modes`` (within the tolerance ``margin``).

    Then a change is the mix of the two modes moving, not a change of either. Anywhere
    between the modes is not enough: a 2x cluster of outliers makes a "mode" above every
    regression worth catching (+5 % sits between 1x and 2x).
    """
    tolerance = math.log1p(margin)
    return any(
        abs(math.log(median / m)) <= tolerance for m in (modes.low_median, modes.high_median)
    )


def _round(value: float | None) -> float | None:
    return None if value is None or math.isnan(value) else round(value, 6)


def fails_run(result: BenchmarkResult) -> bool:
    """Whether this benchmark fails the run: a gated regression, or broken on head only."""
    if not result.gated and result.verdict != "failed":
        return False
    if result.verdict == "regression":
        return True
    return (
        result.verdict == "failed"
        and result.head is not None
        and result.head.error is not None
        and (result.base is None or result.base.error is None)
    )


def assemble(
    base: ResultSet,
    head: ResultSet,
    config: GateConfig,
    results: Sequence[BenchmarkResult],
    *,
    openacc: OpenACC | None = None,
    decides: Callable[[BenchmarkResult], bool] = fails_run,
    shifts: Sequence[MachineShift] = (),
) -> Summary:
    """The summary document: counts over gated benchmarks, run verdict and exit code.

    The run itself failed (verdict ``error``, exit 2, ``error`` says why) when head has
    benchmarks and none of them has numbers: a crashed runner is no verdict on the change.
    """
    counts = counted(results)
    failing = any(decides(r) for r in results)
    error = run_error(results)
    verdict, exit_code = ("error", 2) if error else ("regression", 1) if failing else ("pass", 0)
    if not error and any(not s.comparable for s in shifts):  # only a deciding metric's
        verdict, exit_code = NOT_COMPARABLE, 2
    return Summary(
        created=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        verdict=verdict,
        exit_code=exit_code,
        base=_side(base),
        head=_side(head),
        settings=config.settings(),
        counts=counts,
        benchmarks=tuple(results),
        openacc=openacc,
        error=error,
        generated_by=f"iconbench {__version__} compare",
        machine_shift=tuple(shifts),
    )


def counted(results: Sequence[BenchmarkResult]) -> dict[str, int]:
    """The summary's counts: every gated verdict, and what failed, was not run, came or went."""
    counts = dict.fromkeys(VERDICTS, 0)
    for r in results:
        if r.gated or r.verdict in ("failed", "not run", "new", "gone"):
            counts[r.verdict] += 1
    return counts


def run_error(results: Sequence[BenchmarkResult]) -> str | None:
    """Why the head run failed as a whole (no head benchmark has numbers), else ``None``."""
    on_head = [r.head for r in results if r.head is not None]
    if not on_head or any(h.error is None for h in on_head):
        return None
    first = next(h.error for h in on_head)
    return f"all {len(on_head)} benchmarks of head failed (first: {first})"

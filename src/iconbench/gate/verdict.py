"""Two result sets → one verdict per benchmark and one for the run (the gate itself).

Per benchmark (``case|backend|metric``, see :mod:`iconbench.gate.resultset`):

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
  by base's history), Benjamini-Hochberg over all gated benchmarks compared at once:
  **regression** / **improvement** when the change beyond the tolerance margin is a
  discovery at the FDR, **unchanged** when the interval of the ratio lies within
  ±threshold, **inconclusive** otherwise.

Notes explain what the numbers cannot: ``code generation differs`` (fingerprints differ: the
change may be the generated code, not the commit; check with ``iconbench rebuild-check``),
``timing is bimodal`` (two modes on both sides: the faster modes are compared, a changed
mix of modes is not a regression; on one side only: its larger mode is compared, and a
change that only moves the mix is inconclusive), ``history is noisy``,
``device clock differs``, ``same samples on both sides``.

Machine shift: where both sides record codegen fingerprints, the benchmarks whose code is
identical estimate the runner's common shift per metric (:mod:`iconbench.gate.shift`);
every benchmark of that metric is then judged relative to it (head's samples divided by the
shift), and a shift beyond ``max_machine_shift`` makes the run **not comparable** (exit 2,
no per-benchmark verdicts fail it). Without enough controls the verdicts are absolute.

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
from iconbench.gate import processes, stats
from iconbench.gate import shift as machine_shift
from iconbench.gate.config import GateConfig
from iconbench.gate.resultset import Entry, ResultSet, check_comparable
from iconbench.gate.summary import (
    NOT_COMPARABLE,
    VERDICTS,
    BenchmarkResult,
    OpenACC,
    Settings,
    Side,
    SideNumbers,
    Summary,
)
from iconbench.stacks.reproducibility import draw_note
from iconbench.suite import split_case


@dataclasses.dataclass
class _Pending:
    """A gated benchmark waiting for the FDR step."""

    index: int
    comparison: stats.Comparison
    threshold: float
    #: a side's typical time sits within the other side's two modes: a change is only a
    #: moved mix of modes, never a regression or improvement
    mix_only: bool = False


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
) -> Summary:
    """The summary of head against base (grids must match: see ``check_comparable``)."""
    config = config or GateConfig.default()
    check_comparable(base, head)
    keys = sorted(k for k in set(base.entries) | set(head.entries) if select(k))
    shifts = common_shifts(base, head, keys, config)
    factor = {s.metric: s.ratio for s in shifts if s.comparable}
    built_with = (base.stack.get("gt4py"), head.stack.get("gt4py"))
    results: list[BenchmarkResult] = []
    pending: list[_Pending] = []
    for key in keys:
        b, h = base.entries.get(key), head.entries.get(key)
        case, backend, metric = key.split("|")
        program, variant = split_case(case)
        threshold, gated, reason = config.rule(key)
        notes: list[str] = [f"threshold from {reason}"] if reason else []
        common = {
            "id": key,
            "program": program,
            "variant": variant,
            "backend": backend,
            "metric": metric,
            "unit": (b or h).unit,  # type: ignore[union-attr]
            "base": _numbers(b, config.confidence),
            "head": _numbers(h, config.confidence),
        }
        empty = {"ratio": None, "ratio_ci": None, "p_value": None, "q_value": None}
        if b is None or h is None:
            verdict = "new" if b is None else "gone"
            results.append(
                BenchmarkResult(
                    **common, gated=gated, threshold=threshold, **empty, verdict=verdict
                )
            )
            continue
        absent = [(name, e.not_run) for name, e in (("base", b), ("head", h)) if e.not_run]
        if absent and not (h.error and not h.not_run):
            reason = "; ".join(f"{why} ({name})" for name, why in absent)
            results.append(
                BenchmarkResult(
                    **common,
                    gated=False,
                    threshold=threshold,
                    **empty,
                    verdict="not run",
                    notes=(*notes, reason),
                )
            )
            continue
        if b.error or h.error:
            sides = [f"{name}: {e.error}" for name, e in (("base", b), ("head", h)) if e.error]
            if b.error and not h.error:
                notes.append("fixed on head")
            results.append(
                BenchmarkResult(
                    **common,
                    gated=gated,
                    threshold=threshold,
                    **empty,
                    verdict="failed",
                    notes=tuple(notes),
                    error="; ".join(sides),
                )
            )
            continue
        if b.fingerprint and h.fingerprint and b.fingerprint != h.fingerprint:
            notes.append("code generation differs")
            if note := draw_note(backend, built_with):
                notes.append(note)
        if b.device_source and h.device_source and b.device_source != h.device_source:
            notes.append(f"device clock differs ({b.device_source} -> {h.device_source})")
        if b.samples == h.samples and len(b.samples) > 1:
            notes.append("same samples on both sides (not measured again)")
        base_samples, head_samples = list(b.samples), list(h.samples)
        machine = factor.get(metric, 1.0)
        if machine != 1.0:
            # judged relative to the runner's common shift (gate.shift): what is left is the
            # change's own effect
            head_samples = [v / machine for v in head_samples]
            if round(machine, 3) != 1.0:
                notes.append(f"relative to the runner's shift x{machine:.3f}")
        base_samples, set_aside_b = stats.far_out(base_samples, threshold)
        head_samples, set_aside_h = stats.far_out(head_samples, threshold)
        for side, count, total in (
            ("base", set_aside_b, len(b.samples)),
            ("head", set_aside_h, len(h.samples)),
        ):
            if count >= OUTLIER_NOTE_SHARE * total:
                notes.append(f"{count} of {total} {side} samples far out (set aside)")
        modes_b, modes_h = stats.bimodality(base_samples), stats.bimodality(head_samples)
        one_sided_modes = bool(modes_b) != bool(modes_h)
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
        elif one_sided_modes:
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
        widened, spread = stats.history_threshold(threshold, history_medians(history, key))
        if widened > threshold:
            notes.append(f"history is noisy (run-to-run spread {spread:.1%})")
        interleaved = bool(b.groups or h.groups)
        too_few_processes = interleaved and not (
            processes.usable(b.groups) and processes.usable(h.groups)
        )
        enough = min(len(base_samples), len(head_samples)) >= stats.MIN_SAMPLES
        if too_few_processes:
            # an interleaved check cut short: one process's samples cannot say how much the
            # next process would differ, so no verdict rests on them: inconclusive
            enough = False
            notes.append(
                f"{len(b.groups)}+{len(h.groups)} processes, fewer than "
                f"{processes.MIN_PROCESSES} a side: inconclusive"
            )
        positive = min(b.median or 0.0, h.median or 0.0) > 0
        if not gated or not enough or not positive:
            ratio = (h.median / b.median / machine) if positive else None
            if gated and not enough and not too_few_processes:
                notes.append(f"fewer than {stats.MIN_SAMPLES} samples: not gated")
            elif gated and not positive:
                notes.append("median not positive: not gated")
            results.append(
                BenchmarkResult(
                    **common,
                    gated=gated and too_few_processes,
                    threshold=widened,
                    ratio=_round(ratio),
                    ratio_ci=None,
                    p_value=None,
                    q_value=None,
                    # cut short: gated, and open until more processes have measured it
                    verdict="inconclusive"
                    if gated and too_few_processes
                    else _described(ratio, widened),
                    notes=tuple(notes),
                )
            )
            continue
        by_process = processes.usable(b.groups) and processes.usable(h.groups)
        if by_process:
            # an interleaved check: each side in several processes, the process the unit
            head_groups = [tuple(v / machine for v in g) for g in h.groups]
            comparison = processes.compare(
                b.groups, head_groups, margin=widened / 2, confidence=config.confidence
            )
            notes.append(
                f"{len(b.groups)}+{len(h.groups)} processes: the spread between them counts"
            )
        else:
            comparison = stats.compare(
                base_samples, head_samples, margin=widened / 2, confidence=config.confidence
            )
        if asv_decision is not None:
            notes.append(f"asv: {asv_decision(b.samples, h.samples)}")
        if comparison.medians_outside_interval and not (modes_b or modes_h):
            low, high = comparison.ratio_ci
            notes.append(
                f"ratio of medians outside the interval [{low:.3f}, {high:.3f}]: the samples "
                f"changed shape, typical shift {comparison.shift:.3f} (Hodges-Lehmann)"
            )
        mix_only = False
        if one_sided_modes:
            modes = modes_b or modes_h
            other = h.median / machine if modes_b else b.median
            mix_only = _at_mode(modes, other, widened / 2)  # type: ignore[arg-type]
        elif modes_b and modes_h and not stats.same_modes(modes_b, modes_h, threshold / 2):
            mix_only = _at_mode(modes_b, statistics.median(head_samples), widened / 2) and (
                _at_mode(modes_h, statistics.median(base_samples) * machine, widened / 2)
            )
        pending.append(_Pending(len(results), comparison, widened, mix_only))
        results.append(
            BenchmarkResult(
                **common,
                gated=True,
                threshold=widened,
                # bimodal: the modes compared give the ratio shown; by process: the processes'
                # (pooled medians can lie outside that interval when processes differ)
                ratio=_round(
                    comparison.ratio
                    if (modes_b or modes_h or by_process)
                    else h.median / b.median / machine
                ),
                ratio_ci=(_round(comparison.ratio_ci[0]), _round(comparison.ratio_ci[1])),  # type: ignore[arg-type]
                p_value=comparison.p_value,
                q_value=None,
                verdict="inconclusive",
                notes=tuple(notes),
            )
        )
    q_values = stats.benjamini_hochberg([p.comparison.p_value for p in pending])
    for item, q in zip(pending, q_values, strict=True):
        c = item.comparison
        if q <= config.fdr:
            verdict = "regression" if c.p_regression < c.p_improvement else "improvement"
        elif 1 / (1 + item.threshold) <= c.ratio_ci[0] and c.ratio_ci[1] <= 1 + item.threshold:
            verdict = "unchanged"
        else:
            verdict = "inconclusive"
        if item.mix_only and verdict in ("regression", "improvement"):
            # a side sits at one of the other side's modes: the mix of modes moved, which is
            # not a change of either mode
            verdict = "inconclusive"
        results[item.index] = dataclasses.replace(results[item.index], q_value=q, verdict=verdict)
    return assemble(base, head, config, results, openacc=openacc, shifts=shifts)


def common_shifts(
    base: ResultSet, head: ResultSet, keys: Sequence[str], config: GateConfig
) -> tuple[machine_shift.MachineShift, ...]:
    """The runner's shift per gated metric, from the benchmarks with equal fingerprints.

    Benchmarks measured interleaved (base and head in alternating processes on one runner,
    each side's processes kept as ``groups``) are no controls: the alternation already puts
    the runner's drift on both sides, and what is left between their processes is counted by
    the process-level test. As controls they would let a change that moves every benchmark
    alike without changing generated code (gt4py's call path) pass as the runner's shift.
    """
    controls: dict[str, dict[str, tuple[float, float]]] = {}
    changed: dict[str, int] = {}
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
    found = []
    for metric in sorted(controls):
        estimate = machine_shift.estimate(
            metric,
            controls[metric],
            changed.get(metric, 0),
            limit=config.max_machine_shift,
            confidence=config.confidence,
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
    shifts: Sequence[machine_shift.MachineShift] = (),
) -> Summary:
    """The summary document: counts over gated benchmarks, run verdict and exit code.

    The run itself failed (verdict ``error``, exit 2, ``error`` says why) when head has
    benchmarks and none of them has numbers: a crashed runner is no verdict on the change.
    """
    counts = dict.fromkeys(VERDICTS, 0)
    for r in results:
        if r.gated or r.verdict in ("failed", "not run", "new", "gone"):
            counts[r.verdict] += 1
    failing = any(decides(r) for r in results)
    error = run_error(results)
    verdict, exit_code = ("error", 2) if error else ("regression", 1) if failing else ("pass", 0)
    if not error and any(not s.comparable for s in shifts):
        verdict, exit_code = NOT_COMPARABLE, 2
    return Summary(
        created=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        verdict=verdict,
        exit_code=exit_code,
        base=_side(base),
        head=_side(head),
        settings=Settings(
            config.fdr,
            config.confidence,
            {m: t for m, t in config.thresholds.items() if config.gated.get(m)},
        ),
        counts=counts,
        benchmarks=tuple(results),
        openacc=openacc,
        error=error,
        generated_by=f"iconbench {__version__} compare",
        machine_shift=tuple(shifts),
    )


def run_error(results: Sequence[BenchmarkResult]) -> str | None:
    """Why the head run failed as a whole (no head benchmark has numbers), else ``None``."""
    on_head = [r.head for r in results if r.head is not None]
    if not on_head or any(h.error is None for h in on_head):
        return None
    first = next(h.error for h in on_head)
    return f"all {len(on_head)} benchmarks of head failed (first: {first})"

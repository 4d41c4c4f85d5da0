r"""The gate's statistics: ratio of medians, its interval, the interval test, FDR, bimodality.

Modelled on asv's ``asv/_stats.py`` (Mann-Whitney U on the raw samples), with three changes
that the gate needs and asv does not have (docs/gate.md says why):

1. **An interval test against the threshold, not a test against "no change".** asv marks a
   change when the ratio passes a factor *and* Mann-Whitney rejects "no difference"; with
   thousands of samples any 0.1 % clock drift is "significant". Here the question is whether
   the change is larger than what we tolerate. Times are compared on the log scale
   (:math:`\Delta = \log(\text{head}) - \log(\text{base})`, a ratio becomes a shift, and
   noise that scales with the time is the same at every size). With threshold :math:`t`
   (5 % for device time) the gate separates

   * *tolerated*: :math:`|\Delta| \le \log(1 + t/2)` (the **margin**, half the threshold), from
   * *a change that matters*: :math:`|\Delta| \ge \log(1 + t)`.

   Between the two is an indifference zone (Bechhofer's formulation of selection problems):
   a change of 3 % under a 5 % threshold fails once the evidence shows it beyond the margin,
   named a change *below the threshold* (:mod:`iconbench.gate.decision`, the one rule of
   every road).
   This is what lets a 5 % regression at 2 % noise be caught ≥ 95 % of the time: a test
   against :math:`\log(1+t)` itself could only catch a change of exactly :math:`t` half of
   the time.

   *Regression* when the one-sided test of :math:`H_0: \Delta \le \log(1+t/2)` rejects
   (Mann-Whitney U of :math:`\log y - \log(1+t/2)` against :math:`\log x`), after
   Benjamini-Hochberg over all gated benchmarks; *improvement* symmetrically; *unchanged*
   when the confidence interval of the ratio lies inside :math:`[1/(1+t), 1+t]` (the data
   rule out a change that matters) and reaches into the margin; *inconclusive* otherwise.

2. **The interval of the ratio is distribution-free.** The Hodges-Lehmann estimate of the
   shift is the median of all :math:`m n` pairwise differences :math:`\log y_j - \log x_i`;
   its confidence interval (Moses; Bauer 1972) is the :math:`k`-th smallest and
   :math:`k`-th largest of those differences, with :math:`k` the lower critical value of
   Mann-Whitney's U, here from its normal approximation

   .. math:: k = \lfloor m n / 2 - z_{1-\alpha/2} \sqrt{m n (m + n + 1) / 12} \rfloor.

   It is exact for a pure shift (any noise distribution, outliers included) and is the
   interval that inverts the same Mann-Whitney test used for the decision, so the interval
   and the verdict cannot disagree. The reported point value is the plain ratio of medians
   (what people read). For a pure shift it lies inside the interval; when the samples change
   shape as well (one side's median carried by a few samples, outliers on one side), it can
   fall outside, and the gate then also reports the Hodges-Lehmann estimate
   :math:`\exp(\operatorname{median}(\log y_j - \log x_i))`, which always lies inside.

3. **False discovery rate over all benchmarks compared at once** (Benjamini-Hochberg,
   :func:`benjamini_hochberg`). asv uses p < 0.002 per benchmark; with 400 benchmarks that
   is 0.8 expected false alarms per run from the test alone. BH keeps the expected share of
   false regressions among all flagged ones at ``fdr`` (5 %), whatever the number compared.

Run-to-run variation that one run's samples cannot see (GPU clocks, a neighbour on the
machine, a rebuild) enters through history (:func:`noise_band`, rustc-perf's significance
threshold, and :func:`history_threshold`): a benchmark whose medians move between runs of the
same branch needs a change beyond its own band to fail.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Sequence

import numpy as np

#: Fewer samples than this on a side: no interval, no test (reported, not gated).
MIN_SAMPLES = 5


@dataclasses.dataclass(frozen=True)
class Comparison:
    """The statistics of one benchmark: head against base.

    Attributes:
        ratio: median(head) / median(base).
        ratio_ci: the Hodges-Lehmann confidence interval of the ratio.
        shift: the Hodges-Lehmann estimate of the ratio (median of the pairwise ratios),
            the point the interval is built around.
        p_regression: one-sided p-value of "head is slower than base by more than the margin".
        p_improvement: one-sided p-value of "head is faster than base by more than the margin".
        base, head: each side's typical time whose quotient is ``ratio`` (the samples'
            medians; the processes' typical medians for :mod:`iconbench.gate.processes`):
            what a table shows beside the ratio, so the three numbers agree.

    """

    ratio: float
    ratio_ci: tuple[float, float]
    p_regression: float
    p_improvement: float
    shift: float
    base: float | None = None
    head: float | None = None

    @property
    def medians_outside_interval(self) -> bool:
        """The ratio of medians is not among the shifts the data support.

        A pure shift keeps it inside; it falls outside when the samples changed shape (a
        side's median moved with a few samples, outliers on one side, a second mode), as in
        a 1.446 ratio of medians against an interval of [1.252, 1.351].
        """
        low, high = self.ratio_ci
        return not low <= self.ratio <= high

    @property
    def p_value(self) -> float:
        """Two-sided p-value of a change beyond the margin (the smaller side, doubled)."""
        return min(1.0, 2.0 * min(self.p_regression, self.p_improvement))


def _log(samples: Sequence[float]) -> np.ndarray:
    values = np.asarray(samples, dtype=float)
    values = values[np.isfinite(values) & (values > 0)]
    return np.log(values)


def _pairwise(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """All ``m n`` differences ``y_j - x_i``, sorted (the basis of U, its test and interval)."""
    return np.sort((y[:, None] - x[None, :]).ravel())


def _interval(diffs: np.ndarray, m: int, n: int, confidence: float) -> tuple[float, float]:
    z = statistics.NormalDist().inv_cdf(0.5 + confidence / 2)
    k = math.floor(m * n / 2 - z * math.sqrt(m * n * (m + n + 1) / 12))
    k = min(max(k, 0), len(diffs) - 1)
    return float(math.exp(diffs[k])), float(math.exp(diffs[len(diffs) - 1 - k]))


def hodges_lehmann_interval(
    base: Sequence[float], head: Sequence[float], confidence: float = 0.95
) -> tuple[float, float]:
    """Distribution-free interval of head/base from all pairwise log differences.

    >>> lo, hi = hodges_lehmann_interval([1.0, 1.01, 0.99, 1.02, 0.98] * 4,
    ...                                  [1.1, 1.111, 1.089, 1.122, 1.078] * 4)
    >>> round(lo, 3) <= 1.1 <= round(hi, 3)
    True
    """
    x, y = _log(base), _log(head)
    return _interval(_pairwise(x, y), len(x), len(y), confidence)


def mann_whitney_greater(diffs: np.ndarray, shift: float, m: int, n: int, ties: float) -> float:
    r"""One-sided p-value of Mann-Whitney U for "``y - shift`` tends to exceed ``x``".

    :math:`U = \#\{y_j - x_i > s\} + \tfrac12 \#\{y_j - x_i = s\}` counted on the sorted
    pairwise differences (two binary searches), normal approximation with continuity and
    tie correction, :math:`\sigma^2 = \tfrac{mn}{12}\big(m+n+1 - \tfrac{T}{(m+n)(m+n-1)}\big)`,
    :math:`T = \sum (t^3 - t)` over tied groups: scipy's ``mannwhitneyu(method="asymptotic")``,
    without its per-call overhead (the simulation study makes a million of these).

    >>> from scipy import stats as scipy_stats
    >>> rng = np.random.default_rng(1)
    >>> x, y = rng.normal(0, 1, 40), rng.normal(0.3, 1, 30)
    >>> ours = mann_whitney_greater(_pairwise(x, y), 0.0, 40, 30, 0.0)
    >>> theirs = scipy_stats.mannwhitneyu(y, x, alternative="greater", method="asymptotic").pvalue
    >>> bool(abs(ours - theirs) < 1e-12)
    True
    """
    above = len(diffs) - np.searchsorted(diffs, shift, side="right")
    equal = np.searchsorted(diffs, shift, side="right") - np.searchsorted(diffs, shift, side="left")
    u = above + 0.5 * equal
    mean = m * n / 2
    var = m * n / 12 * ((m + n + 1) - ties / ((m + n) * (m + n - 1)))
    if var <= 0:
        return 1.0 if u <= mean else 0.0
    z = (u - mean - 0.5) / math.sqrt(var)
    return 0.5 * math.erfc(z / math.sqrt(2))


def _tie_term(values: np.ndarray) -> float:
    _, counts = np.unique(values, return_counts=True)
    return float(np.sum(counts.astype(float) ** 3 - counts))


def compare(
    base: Sequence[float], head: Sequence[float], *, margin: float, confidence: float = 0.95
) -> Comparison:
    """Ratio, its interval and the two one-sided p-values against the tolerance ``margin``.

    ``margin`` is relative (0.025 for ±2.5 %). With identical samples nothing is significant:

    >>> c = compare([1.0, 1.01, 0.99, 1.0, 1.02] * 10, [1.0, 1.01, 0.99, 1.0, 1.02] * 10,
    ...             margin=0.025)
    >>> c.ratio, c.p_regression > 0.5, c.p_improvement > 0.5
    (1.0, True, True)

    A 10 % slower head with 1 % noise is far beyond a 2.5 % margin:

    >>> rng = np.random.default_rng(0)
    >>> b = np.exp(rng.normal(0, 0.01, 50)); h = 1.1 * np.exp(rng.normal(0, 0.01, 50))
    >>> c = compare(b, h, margin=0.025)
    >>> round(c.ratio, 2), c.p_regression < 1e-10, c.ratio_ci[0] > 1.05
    (1.1, True, True)
    """
    x, y = _log(base), _log(head)
    m, n = len(x), len(y)
    if m < MIN_SAMPLES or n < MIN_SAMPLES:
        raise ValueError(f"need at least {MIN_SAMPLES} samples on each side")
    shift = math.log1p(margin)
    diffs = _pairwise(x, y)
    p_reg = mann_whitney_greater(diffs, shift, m, n, _tie_term(np.concatenate([y - shift, x])))
    # "y + shift tends to be below x" is "x - (-shift) ... ": count differences below -shift
    p_imp = mann_whitney_greater(
        -diffs[::-1], shift, m, n, _tie_term(np.concatenate([y + shift, x]))
    )
    centre_x, centre_y = float(np.median(x)), float(np.median(y))
    return Comparison(
        ratio=float(np.exp(centre_y - centre_x)),
        ratio_ci=_interval(diffs, m, n, confidence),
        p_regression=p_reg,
        p_improvement=p_imp,
        shift=float(np.exp(np.median(diffs))),
        base=float(np.exp(centre_x)),
        head=float(np.exp(centre_y)),
    )


def benjamini_hochberg(p_values: Sequence[float]) -> list[float]:
    r"""Benjamini-Hochberg adjusted p-values (q-values), in the input order.

    Sorted ascending, :math:`q_{(i)} = \min_{j \ge i} p_{(j)} \cdot m / j`. A benchmark is a
    discovery at false discovery rate :math:`\alpha` when :math:`q \le \alpha`; the expected
    share of false discoveries among all discoveries is then at most :math:`\alpha`
    (independent or positively dependent tests, which timings of one run on one machine are).

    >>> [round(q, 3) for q in benjamini_hochberg([0.01, 0.04, 0.03, 0.5])]
    [0.04, 0.053, 0.053, 0.5]
    """
    p = np.asarray(p_values, dtype=float)
    if p.size == 0:
        return []
    order = np.argsort(p)
    m = p.size
    scaled = p[order] * m / np.arange(1, m + 1)
    adjusted = np.minimum.accumulate(scaled[::-1])[::-1]
    q = np.empty(m)
    q[order] = np.minimum(adjusted, 1.0)
    return [float(v) for v in q]


#: Tukey's far-out fence: this many interquartile ranges beyond the quartiles.
FAR_OUT_IQR = 3.0
#: The fence lies at least this many thresholds beyond the quartiles (a timer that rounds
#: most samples to one value has an interquartile range of 0).
FAR_OUT_THRESHOLDS = 4.0


def far_out(samples: Sequence[float], threshold: float) -> tuple[list[float], int]:
    r"""The samples inside Tukey's far-out fences on the log scale, and how many were outside.

    With quartiles :math:`Q_1, Q_3` of the log times and
    :math:`w = \max(3 (Q_3 - Q_1),\ \log(1 + 4t))` (:math:`t` the threshold), samples
    outside :math:`[Q_1 - w, Q_3 + w]` are set aside. Both sides are fenced by their own
    quartiles, so a pure shift moves the fences with the samples (a regression is kept
    whole) and two runs of the same code lose the same share. What goes is what neither the
    median nor a mode describes: 10 % of samples at 2x (another tenant, a clock dip), which
    at 15 % or more would otherwise pass as a second mode (:func:`bimodality`) and on one
    side only move what is compared. A change that only adds a far tail is not a change of
    the typical time, which is what the gate judges.

    >>> kept, dropped = far_out([1.0, 1.01, 0.99, 1.0, 1.02] * 18 + [2.0] * 10, 0.05)
    >>> len(kept), dropped, max(kept)
    (90, 10, 1.02)
    >>> far_out([1.0, 1.05, 1.1, 1.2], 0.05)[1]
    0
    """
    values = list(samples)
    x = _log(values)
    if len(x) < 4:
        return values, 0
    q1, q3 = np.percentile(x, [25, 75])
    width = max(FAR_OUT_IQR * (q3 - q1), math.log1p(FAR_OUT_THRESHOLDS * threshold))
    low, high = math.exp(q1 - width), math.exp(q3 + width)
    kept = [v for v in values if low <= v <= high]
    return kept, len(values) - len(kept)


@dataclasses.dataclass(frozen=True)
class Modes:
    """Two clusters of samples split at the widest gap (see :func:`bimodality`)."""

    low_median: float
    high_median: float
    low_share: float
    gap: float


#: Each cluster must hold at least this share of the samples (fewer are outliers, which the
#: median and the rank tests absorb).
MIN_MODE_SHARE = 0.15
#: Relative gap between the clusters that counts as two modes (below it: one noisy mode).
MIN_MODE_GAP = 0.02


def bimodality(samples: Sequence[float]) -> Modes | None:
    """Two modes when the samples split into two clusters with a clear gap, else ``None``.

    The two-cluster gap rule: sort the log samples and take the widest gap between
    neighbours that leaves at least :data:`MIN_MODE_SHARE` of the samples on each side. The
    samples are bimodal when that gap is at least :data:`MIN_MODE_GAP` (2 %) and at least
    four times the larger robust spread (1.4826 MAD) within the two clusters: then the
    clusters are further apart than either is wide, which one skewed mode with a tail never
    is. (Hartigan's dip test answers the same question but needs many more samples for the
    same power at the 50-100 samples per case we record.) GPU cases with two
    code paths, or tiny kernels whose event timer rounds to two values, are bimodal; a few
    outliers of 1.2-2.4x the median (other tenants, clocks) are not.

    >>> bimodality([1.0, 1.001, 0.999, 1.0005] * 10 + [1.2, 1.201, 1.199, 1.2005] * 5)
    Modes(low_median=1.00025, high_median=1.20025, low_share=0.667, gap=0.18)
    >>> bimodality([1.0, 1.001, 0.999, 1.0005] * 10 + [2.0, 2.4])  # outliers, one mode
    """
    x = np.sort(_log(samples))
    n = len(x)
    lowest = max(3, math.ceil(MIN_MODE_SHARE * n))
    if n < 2 * lowest:
        return None
    gaps = np.diff(x)[lowest - 1 : n - lowest]
    if gaps.size == 0:
        return None
    split = int(np.argmax(gaps)) + lowest  # first index of the high cluster
    gap = float(gaps.max())
    low, high = x[:split], x[split:]

    def spread(part: np.ndarray) -> float:
        return 1.4826 * float(np.median(np.abs(part - np.median(part))))

    if gap < math.log1p(MIN_MODE_GAP) or gap < 4 * max(spread(low), spread(high)):
        return None
    return Modes(
        low_median=float(f"{np.exp(np.median(low)):.6g}"),
        high_median=float(f"{np.exp(np.median(high)):.6g}"),
        low_share=round(split / n, 3),
        gap=round(gap, 3),
    )


def same_modes(first: Modes, second: Modes, margin: float) -> bool:
    """Whether two sides split at the same gap (the log mode ratios agree).

    Agree: within ``margin`` or a quarter of the larger ratio (modes 17x apart on a loaded
    CPU vary by ~10 % between runs).

    Two sides that show the same two code paths have the same ratio of slow to fast mode;
    a side whose second "mode" is a cluster of outliers (10 % of samples at 2x) has another.
    Comparing faster modes of different splits would compare different things.

    >>> same_modes(Modes(1.0, 1.2, 0.6, 0.18), Modes(1.05, 1.26, 0.5, 0.18), 0.025)
    True
    >>> same_modes(Modes(4.19, 4.38, 0.23, 0.03), Modes(4.38, 8.8, 0.85, 0.7), 0.025)
    False
    """
    gap_first = math.log(first.high_median / first.low_median)
    gap_second = math.log(second.high_median / second.low_median)
    tolerance = max(math.log1p(margin), 0.25 * max(gap_first, gap_second))
    return abs(gap_first - gap_second) <= tolerance


def low_mode(samples: Sequence[float], modes: Modes) -> list[float]:
    """The samples of the faster cluster (what a bimodal case is compared on).

    >>> low_mode([1.0, 1.0, 1.0, 2.0], Modes(1.0, 2.0, 0.75, 0.69))
    [1.0, 1.0, 1.0]
    """
    cut = math.sqrt(modes.low_median * modes.high_median)
    return [s for s in samples if s < cut]


def same_cluster(
    base: Sequence[float], head: Sequence[float], modes: Modes
) -> tuple[list[float], list[float]] | None:
    """Both sides cut where one side's modes split, each keeping that side's larger cluster.

    When only one side shows two modes, the other is often the same mixture with a gap the
    rule did not see (host overhead spreads over tens of percent): its median then lies
    between the modes, and the larger mode of one side against the whole other side reads
    as a change of 20-30 %. Cutting both sides at the same place compares like with like.
    ``None`` when either side keeps fewer than :data:`MIN_SAMPLES` (the other side sits at
    the other mode: the mix moved).

    >>> m = Modes(0.7, 1.0, 0.33, 0.36)
    >>> b, h = same_cluster([0.68, 0.7, 0.72, 0.8, 0.9, 0.98, 1.0, 1.02, 1.04, 1.1, 1.2],
    ...                     [0.7, 0.71, 1.0, 1.01, 1.02, 1.03, 1.05], m)
    >>> min(b), min(h)
    (0.9, 1.0)
    >>> same_cluster([0.7] * 10, [0.7, 0.71, 1.0, 1.01, 1.02, 1.03, 1.05], m) is None
    True
    """
    cut = math.sqrt(modes.low_median * modes.high_median)
    low = modes.low_share >= 0.5
    kept_base = [s for s in base if (s < cut) == low]
    kept_head = [s for s in head if (s < cut) == low]
    if min(len(kept_base), len(kept_head)) < MIN_SAMPLES:
        return None
    return kept_base, kept_head


def majority_mode(samples: Sequence[float], modes: Modes) -> list[float]:
    """The samples of the larger cluster (a bimodal side compared with a one-mode side).

    >>> majority_mode([1.0, 2.0, 2.0, 2.0], Modes(1.0, 2.0, 0.25, 0.69))
    [2.0, 2.0, 2.0]
    """
    cut = math.sqrt(modes.low_median * modes.high_median)
    low = [s for s in samples if s < cut]
    return low if modes.low_share >= 0.5 else [s for s in samples if s >= cut]


#: Fewer past run-to-run changes than this: the band is not known; the threshold stays.
MIN_CHANGES = 4
#: rustc-perf's significance fence: this many interquartile ranges above the third quartile.
NOISE_IQR = 3.0


@dataclasses.dataclass(frozen=True)
class NoiseBand:
    """A benchmark's run-to-run noise, learned from its history of medians.

    Attributes:
        band: relative change that unchanged code stays within between runs (0.02: 2 %).
        changes: how many consecutive changes of the history it was learned from.

    """

    band: float
    changes: int


def _hinges(values: np.ndarray) -> tuple[float, float]:
    """Q1 and Q3 as rustc-perf takes them: the medians of the lower and the upper half."""
    ordered = np.sort(values)
    half = len(ordered) // 2
    return float(np.median(ordered[:half])), float(np.median(ordered[len(ordered) - half :]))


def noise_band(medians: Sequence[float]) -> NoiseBand | None:
    r"""rustc-perf's significance threshold over a benchmark's past run-to-run changes.

    ``medians`` are the benchmark's medians in the runs of its branch, oldest first (the
    compared base last). The changes between consecutive runs,
    :math:`c_i = |\log(m_{i+1} / m_i)|`, are what unchanged code does from one run to the
    next (a clock, a neighbour, a rebuild, a process's placement); a change counts only
    beyond Tukey's far-out fence of them (rustc-perf, ``docs/comparison-analysis.md``),

    .. math:: F = Q_3 + 3\,(Q_3 - Q_1),

    reported as the ratio :math:`e^F - 1`. Only the upper fence matters: the changes are
    absolute. A few real steps in the history move :math:`Q_3` little, so the band stays
    the noise's. ``None`` with fewer than :data:`MIN_CHANGES` changes.

    >>> band = noise_band([1.0, 1.01, 0.99, 1.0, 1.02, 1.0])
    >>> round(band.band, 3), band.changes
    (0.051, 5)
    >>> round(noise_band([1.0, 1.001, 0.999, 1.0, 1.002]).band, 4)  # a quiet GPU kernel
    0.005
    >>> noise_band([1.0, 1.5, 1.0]) is None
    True
    """
    x = _log(medians)
    changes = np.abs(np.diff(x))
    if len(changes) < MIN_CHANGES:
        return None
    q1, q3 = _hinges(changes)
    return NoiseBand(math.expm1(q3 + NOISE_IQR * (q3 - q1)), len(changes))


def history_threshold(threshold: float, medians: Sequence[float]) -> tuple[float, float | None]:
    r"""The threshold widened by the run-to-run noise band of base's history; and that band.

    A run's own samples see the noise *within* the run; the medians of earlier runs of the
    same branch see the changes *between* runs, which the within-run interval cannot. The
    tolerance margin must cover the band :math:`b` (:func:`noise_band`), so it becomes
    :math:`\max(t/2, b)` and the threshold twice that:

    .. math:: t' = \max(t,\; 2 b).

    The interval test then calls a change a regression only when it lies beyond the band
    with the within-run confidence: a relative change counts only beyond
    :math:`Q_3 + 3\,\mathrm{IQR}` of the benchmark's past changes. A quiet history (GPU
    programs move ~0.3 % between runs) leaves 5 % alone; a benchmark whose medians move by
    2-3 % between runs has a band of 15 % and needs a 30 % change to fail.

    >>> history_threshold(0.05, [1.0, 1.001, 0.999, 1.002, 1.0])[0]
    0.05
    >>> round(history_threshold(0.05, [1.0, 1.02, 0.98, 1.0, 1.03, 0.97])[0], 3)
    0.301
    """
    found = noise_band(medians)
    if found is None:
        return threshold, None
    return max(threshold, 2 * found.band), found.band

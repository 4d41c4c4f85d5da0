r"""The comparison of two sides measured in several processes each: the spread between them counts.

One process's samples show only the noise *within* that process. A second process of the same
code can sit elsewhere: on the H100 the per-call host overhead of separate runs moved by
0.4–1.7x while each run's own samples were tight, so an interval built from one process's
samples (:func:`iconbench.gate.stats.compare`) called that a change. pyperf starts 20 worker
processes, and asv's ``processes`` attribute exists, for the same reason. An interleaved
check (:mod:`iconbench.check`) measures base and head in alternating fresh processes, and this
module takes the **process** as the unit of replication, a two-level model

.. math:: \log t_{pij} = \mu_p + \beta_{pi} + \varepsilon_{pij},

side :math:`p`, process :math:`i`, sample :math:`j`, with a process effect :math:`\beta` of
variance :math:`\sigma_b^2` and within-process noise :math:`\varepsilon`. Each process gives
one number, the log of its median :math:`m_{pi}` (robust to the outliers inside a process);
the shift :math:`\Delta = \mu_\text{head} - \mu_\text{base}` is estimated by the difference of
the sides' means of :math:`m_{pi}`, and its standard error by Welch's

.. math:: \mathrm{SE}^2 = s_\text{base}^2 / k_\text{base} + s_\text{head}^2 / k_\text{head},

:math:`s^2` the variance of a side's process medians (it holds both :math:`\sigma_b^2` and the
within-process noise of a median), with Welch-Satterthwaite's degrees of freedom. A process
that something disturbed (a neighbour's burst) would widen that interval for everyone, so the
means and variances are Yuen's (1974): the means 20 % trimmed (of eight processes the
slowest and the fastest are set aside), the variance winsorized,
:math:`d = (k - 1) s_w^2 / (h (h - 1))` with :math:`h` the processes kept, and
:math:`\mathrm{SE}^2 = d_\text{base} + d_\text{head}`; with fewer than five processes
nothing is trimmed and this is Welch's test. The test and interval are Student's:
*regression* when :math:`H_0: \Delta \le \log(1 + t/2)` is rejected, as in
:mod:`iconbench.gate.stats` (the same margin, the same FDR over benchmarks afterwards). A side
whose processes agree to the last digit (a quantised clock) would give :math:`s = 0`; the
variance of each process median from its own samples
(:math:`(1.2533 \cdot 1.4826\,\mathrm{MAD})^2 / n`, the large-sample variance of a median) is
then the floor.

Alternation (ABBA …) keeps slow drift (temperature, clocks) out of :math:`\Delta`; what is left
between processes is what this interval counts.

**The CPU speed of a process, as a covariate.** Host overhead arrives scaled by how fast its
process's CPU ran Python (:mod:`iconbench.records.resultset`: the overhead
times :math:`R / r_{pi}`, :math:`r_{pi}` the process's median reference-work time), which
takes most of the spread between processes away (on four H200 checks the log process medians
of one benchmark scattered by 0.21-0.30 raw, 0.05-0.08 scaled). The scaling assumes the
overhead moves exactly as the reference work does; it does not. On a shared H200 host the
reference work took about 30 µs on some cores and 60-74 µs on others, and across the 21
benchmarks of a backend the host overhead moved 0.64-0.93 times as far on the log scale on
gtfn_gpu, 0.80-1.12 times on dace_gpu (one plus the slope of the scaled shift on the sides'
difference of :math:`\log r`, four checks). Where by chance one side's processes ran mostly
on slow cores and the other's on fast ones, the scaled :math:`\Delta` kept a bias of up to
18 % for the same code (a gtfn_gpu host overhead of one both-builds check flagged at 1.183,
its four base processes at 59-74 µs, its four head processes at 30-33 µs). So
:math:`x_{pi} = \log r_{pi}` enters as a covariate (analysis of covariance): the pooled slope
within the sides

.. math:: \hat\lambda = \frac{\sum_{p,i} (x_{pi} - \bar x_p)(m_{pi} - \bar m_p)}
          {S_{xx}}, \quad S_{xx} = \sum_{p,i} (x_{pi} - \bar x_p)^2,

adjusts each process median to :math:`m_{pi} - \hat\lambda x_{pi}`, and its uncertainty
enters where the sides' speeds differ,

.. math:: d_\lambda = (\bar x_\text{head} - \bar x_\text{base})^2 \,
          \frac{s^2_{m|x}}{S_{xx}}, \quad
          \mathrm{SE}^2 = d_\text{base} + d_\text{head} + d_\lambda,

:math:`s^2_{m|x}` the residual variance about the sides' lines on :math:`k_\text{base} +
k_\text{head} - 3` degrees of freedom, which join Welch-Satterthwaite's as a third term.
Sides that ran at the same speed keep their interval (:math:`d_\lambda \approx 0`); sides
whose speeds differ and whose processes cannot tell how the overhead follows the speed
(:math:`S_{xx}` small) get an interval as wide as that ignorance, inconclusive rather than a
verdict on the cores the processes happened to get.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np
from scipy import stats as scipy_stats

from iconbench.gate.stats import Comparison

#: Fewer processes than this on a side: the spread between processes is not known.
MIN_PROCESSES = 3

#: Per metric, the processes a side below which a change is not flagged (inconclusive: an
#: interleaved check measures on). A process's host overhead does not scatter normally about
#: its side's: on a shared H200 host one benchmark's 8 processes of the same code sat in two
#: clusters, 69-71 and 79-85 µs, four a side, which 4 + 4 processes cannot tell from a 15 %
#: shift (``pr-check-h200/icon4py-1405-mainafter-5098a2d-1139``, an improvement at
#: q = 0.042). From 5 processes Yuen's trimming sets one a side aside, and a split as clean by
#: chance is 2 in 252 at 5 + 5, 2 in 12 870 at 8 + 8, against 2 in 70 at 4 + 4.
FLAG_PROCESSES = {"host_overhead": 5}


def can_flag(metric: str, base: int, head: int) -> bool:
    """Whether ``base`` + ``head`` processes are enough to flag a change of ``metric``.

    >>> can_flag("host_overhead", 4, 4), can_flag("host_overhead", 8, 8)
    (False, True)
    >>> can_flag("device_time", 4, 4)
    True
    """
    return min(base, head) >= FLAG_PROCESSES.get(metric, MIN_PROCESSES)


def _process_medians(
    groups: Sequence[Sequence[float]],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Log median of each process, the variance of that log median from its samples.

    The third array holds the indices of the processes that had samples (a covariate's
    values are aligned with them).
    """
    medians, variances, kept = [], [], []
    for index, group in enumerate(groups):
        values = np.asarray(group, dtype=float)
        logs = np.log(values[np.isfinite(values) & (values > 0)])
        if len(logs) == 0:
            continue
        centre = float(np.median(logs))
        mad = float(np.median(np.abs(logs - centre)))
        medians.append(centre)
        variances.append((1.2533 * 1.4826 * mad) ** 2 / len(logs))
        kept.append(index)
    return np.asarray(medians), np.asarray(variances), np.asarray(kept, dtype=int)


#: The variance of the covariate's slope where the processes cannot estimate it (every
#: process of each side at one speed): a slope anywhere within ±1 of the scaling's.
UNKNOWN_SLOPE_VARIANCE = 1.0


@dataclasses.dataclass(frozen=True)
class Adjustment:
    """The covariate's part (module doc): the slope, the variance it adds, its degrees of freedom.

    Base's four processes on slow cores (60-73 µs of reference work), head's on fast ones
    (30-33 µs), log medians 3 % apart within a side: the sides' speeds differ by 0.77 on the
    log scale, and the slope's uncertainty adds a standard error of 0.11 (11 %) to the shift.
    The same processes at mixed speeds add nothing worth counting:

    >>> noise = np.array([0.03, -0.02, 0.0, -0.01])
    >>> slow, fast = np.log([60.0, 70.0, 66.0, 73.0]), np.log([30.0, 31.0, 30.5, 33.0])
    >>> a = Adjustment.fit(slow, 0.2 + noise, fast, noise[::-1])
    >>> round(a.apart, 2), round(float(np.sqrt(a.variance)), 2)
    (-0.77, 0.11)
    >>> mixed = np.log([30.0, 60.0, 31.0, 70.0]), np.log([62.0, 31.0, 72.0, 30.0])
    >>> Adjustment.fit(mixed[0], noise, mixed[1], 0.1 + noise[::-1]).variance < 1e-6
    True
    """

    slope: float
    variance: float
    df: float
    #: the sides' difference of the mean covariate (head - base)
    apart: float

    @classmethod
    def fit(
        cls,
        base_speed: np.ndarray,
        base_medians: np.ndarray,
        head_speed: np.ndarray,
        head_medians: np.ndarray,
    ) -> Adjustment:
        """The pooled slope within the sides of the log medians on the covariate."""
        dx, du = base_speed - base_speed.mean(), head_speed - head_speed.mean()
        dy, dv = base_medians - base_medians.mean(), head_medians - head_medians.mean()
        sxx = float(dx @ dx + du @ du)
        apart = float(head_speed.mean() - base_speed.mean())
        df = float(len(dx) + len(du) - 3)
        if sxx <= 1e-12 or df < 1:
            return cls(0.0, apart**2 * UNKNOWN_SLOPE_VARIANCE, max(df, 1.0), apart)
        slope = float(dx @ dy + du @ dv) / sxx
        residual = float(np.sum((dy - slope * dx) ** 2) + np.sum((dv - slope * du) ** 2)) / df
        return cls(slope, apart**2 * residual / sxx, df, apart)


#: Share of processes trimmed from each end (Yuen's 20 %).
TRIM = 0.2


def _trimmed(values: np.ndarray, floor: float) -> tuple[float, float, int]:
    """Yuen's trimmed mean, the squared standard error ``d`` and the count kept ``h``.

    >>> mean, d, h = _trimmed(np.log([1.0, 1.01, 0.99, 1.0, 1.02, 0.98, 1.01, 1.9]), 0.0)
    >>> round(float(np.exp(mean)), 3), h  # the disturbed process (1.9) is set aside
    (1.005, 6)
    """
    k = len(values)
    g = int(TRIM * k) if k >= 5 else 0
    ordered = np.sort(values)
    kept = ordered[g : k - g]
    winsorized = np.concatenate([[kept[0]] * g, kept, [kept[-1]] * g])
    h = len(kept)
    d = (k - 1) * float(np.var(winsorized, ddof=1)) / (h * (h - 1))
    return float(np.mean(kept)), max(d, floor / k), h


def usable(groups: Sequence[Sequence[float]]) -> bool:
    """Whether a side has enough processes for :func:`compare`."""
    return sum(1 for g in groups if len(g)) >= MIN_PROCESSES


def compare(
    base: Sequence[Sequence[float]],
    head: Sequence[Sequence[float]],
    *,
    margin: float,
    confidence: float = 0.95,
    reference_s: tuple[Sequence[float], Sequence[float]] | None = None,
) -> Comparison:
    """Ratio, its interval and the one-sided p-values, processes as the unit (module doc).

    ``reference_s``: each process's median reference-work time, base's and head's, aligned
    with the groups, where the samples were scaled by it (host overhead): the covariate.

    Four processes a side whose medians differ by ±3 % (the spread one process cannot see),
    each with 1 % noise inside; head 20 % slower is a regression beyond a 5 % margin, the same
    code is not, and the interval is as wide as the processes disagree:

    >>> rng = np.random.default_rng(1)
    >>> def side(scale):
    ...     return [scale * m * np.exp(rng.normal(0, 0.01, 50)) for m in (0.97, 1.0, 1.02, 1.03)]
    >>> same = compare(side(1.0), side(1.0), margin=0.05)
    >>> same.p_regression > 0.05, same.p_improvement > 0.05, 0.93 < same.ratio_ci[0] < 1.0
    (True, True, True)
    >>> slower = compare(side(1.0), side(1.2), margin=0.05)
    >>> round(slower.ratio, 2), slower.p_regression < 0.01
    (1.2, True)
    """
    x, vx, kept_x = _process_medians(base)
    y, vy, kept_y = _process_medians(head)
    k, n = len(x), len(y)
    if k < MIN_PROCESSES or n < MIN_PROCESSES:
        raise ValueError(f"need at least {MIN_PROCESSES} processes on each side")
    adjustment = None
    if reference_s is not None:
        base_speed, head_speed = (np.log(np.asarray(r, dtype=float)) for r in reference_s)
        if len(base_speed) != len(base) or len(head_speed) != len(head):
            raise ValueError("one reference time per process on each side")
        adjustment = Adjustment.fit(base_speed[kept_x], x, head_speed[kept_y], y)
        x = x - adjustment.slope * base_speed[kept_x]
        y = y - adjustment.slope * head_speed[kept_y]
    mean_x, d_x, h_x = _trimmed(x, float(np.mean(vx)))
    mean_y, d_y, h_y = _trimmed(y, float(np.mean(vy)))
    d_s = adjustment.variance if adjustment else 0.0
    se = math.sqrt(d_x + d_y + d_s) or 1e-12  # every sample of every process identical
    delta = mean_y - mean_x
    df = (d_x + d_y + d_s) ** 2 / (
        (d_x**2 / (h_x - 1) if d_x else 0.0)
        + (d_y**2 / (h_y - 1) if d_y else 0.0)
        + (d_s**2 / adjustment.df if adjustment and d_s else 0.0)
        or 1e-300
    )
    df = max(1.0, min(df, float(h_x + h_y - 2)))
    half = float(scipy_stats.t.ppf(0.5 + confidence / 2, df)) * se
    shift = math.log1p(margin)
    return Comparison(
        ratio=math.exp(delta),  # the estimate the interval is about (not the pooled medians')
        ratio_ci=(math.exp(delta - half), math.exp(delta + half)),
        p_regression=float(scipy_stats.t.sf((delta - shift) / se, df)),
        p_improvement=float(scipy_stats.t.cdf((delta + shift) / se, df)),
        shift=math.exp(delta),
        base=math.exp(mean_x),  # each side's typical process median: base x ratio = head
        head=math.exp(mean_y),
    )

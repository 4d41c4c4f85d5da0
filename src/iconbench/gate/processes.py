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
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy import stats as scipy_stats

from iconbench.gate.stats import Comparison

#: Fewer processes than this on a side: the spread between processes is not known.
MIN_PROCESSES = 3


def _process_medians(groups: Sequence[Sequence[float]]) -> tuple[np.ndarray, np.ndarray]:
    """Log median of each process, and the variance of that log median from its samples."""
    medians, variances = [], []
    for group in groups:
        values = np.asarray(group, dtype=float)
        logs = np.log(values[np.isfinite(values) & (values > 0)])
        if len(logs) == 0:
            continue
        centre = float(np.median(logs))
        mad = float(np.median(np.abs(logs - centre)))
        medians.append(centre)
        variances.append((1.2533 * 1.4826 * mad) ** 2 / len(logs))
    return np.asarray(medians), np.asarray(variances)


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
) -> Comparison:
    """Ratio, its interval and the one-sided p-values, processes as the unit (module doc).

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
    x, vx = _process_medians(base)
    y, vy = _process_medians(head)
    k, n = len(x), len(y)
    if k < MIN_PROCESSES or n < MIN_PROCESSES:
        raise ValueError(f"need at least {MIN_PROCESSES} processes on each side")
    mean_x, d_x, h_x = _trimmed(x, float(np.mean(vx)))
    mean_y, d_y, h_y = _trimmed(y, float(np.mean(vy)))
    se = math.sqrt(d_x + d_y) or 1e-12  # every sample of every process identical
    delta = mean_y - mean_x
    df = (d_x + d_y) ** 2 / (
        (d_x**2 / (h_x - 1) if d_x else 0.0) + (d_y**2 / (h_y - 1) if d_y else 0.0) or 1e-300
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

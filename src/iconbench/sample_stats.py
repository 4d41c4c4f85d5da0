"""Statistics of timing samples: what the records keep of them and what measuring asks.

Timings are skewed to the right (interrupts, clock boosts, other tenants only ever make a call
slower), so the *median* is the central value and the spread is reported both as the
coefficient of variation (``std / mean``, the number the issue's 1 % goal is about) and as the
interquartile range, which outliers cannot inflate.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Sequence


@dataclasses.dataclass(frozen=True)
class SampleStats:
    """Summary of a list of samples (seconds, or whatever unit the samples have).

    >>> s = summarize([1.0, 2.0, 3.0, 4.0])
    >>> s.median, s.n, round(s.cv, 4)
    (2.5, 4, 0.5164)
    """

    n: int
    median: float
    mean: float
    std: float
    minimum: float
    maximum: float
    q25: float
    q75: float

    @property
    def cv(self) -> float:
        """Coefficient of variation ``std / mean`` (sample std, ``ddof=1``); 0 for one sample."""
        return self.std / self.mean if self.mean else math.nan

    @property
    def iqr_relative(self) -> float:
        """Interquartile range relative to the median: a spread that ignores outliers."""
        return (self.q75 - self.q25) / self.median if self.median else math.nan


#: Programs faster than this are dominated by launch jitter; their CV is not held to 1 %.
CV_THRESHOLD_S = 100e-6


def summarize(samples: Sequence[float]) -> SampleStats:
    """Summarise ``samples``; raises ``ValueError`` when there are none.

    >>> summarize([3.0]).std
    0.0
    """
    if not samples:
        raise ValueError("no samples to summarize")
    values = sorted(float(v) for v in samples)
    if len(values) >= 2:
        q25, _, q75 = statistics.quantiles(values, n=4, method="inclusive")
        std = statistics.stdev(values)
    else:
        q25 = q75 = values[0]
        std = 0.0
    return SampleStats(
        n=len(values),
        median=statistics.median(values),
        mean=statistics.fmean(values),
        std=std,
        minimum=values[0],
        maximum=values[-1],
        q25=q25,
        q75=q75,
    )

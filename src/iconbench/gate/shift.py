r"""The runner's common shift, estimated from the benchmarks whose generated code is unchanged.

A result set measured on a slower runner (clocks, a neighbour, another node of the same
kind) is slower in *every* benchmark. Judged one by one, a 3 % slowdown of the machine
becomes hundreds of separate regressions. The benchmarks whose code generation fingerprint
(:mod:`iconbench.timing.codegen`) is equal on both sides are **controls**: the code that ran
is the same, so what moved them is the machine, not the change.

Per metric, with :math:`d_i = \log(\operatorname{median} \text{head}_i /
\operatorname{median} \text{base}_i)` for the :math:`N` controls, the shift is the one-sample
Hodges-Lehmann estimate, the median of the :math:`N(N+1)/2` Walsh averages

.. math:: \hat\delta = \operatorname{median}_{i \le j} \tfrac12 (d_i + d_j),

and its interval the Walsh averages of rank :math:`k` and :math:`W - k + 1` (:math:`W` of
them), :math:`k` the lower critical value of Wilcoxon's signed-rank statistic,

.. math:: k = \lfloor N(N+1)/4 - z_{1-\alpha/2}\sqrt{N(N+1)(2N+1)/24} \rfloor

(normal approximation; Hollander & Wolfe, ch. 3). It needs only a symmetric spread of the
:math:`d_i` around the common shift, is unmoved by a few controls that drifted on their own
(bimodal kernels whose mix of modes changed), and is reported as a ratio
:math:`e^{\hat\delta}`. The gate then judges each benchmark of that metric against
:math:`e^{\hat\delta}` instead of 1 (see :mod:`iconbench.gate.verdict`), and a shift whose
whole interval lies beyond ``max_machine_shift`` (``gate.toml``) makes the run *not
comparable*: no verdict on the change, measure again (or measure base and head interleaved on
one runner). An estimate whose interval reaches back inside the limit is not beyond it (a
10 % [-14.5, 32.3] shift of host overhead holds 0: it says the controls scatter, not that the
machine moved), and a metric whose processes of unchanged code scatter beyond the limit
(host overhead, ``history_only`` in ``gate.toml``) is corrected for but never decides.

>>> import numpy as np
>>> rng = np.random.default_rng(3)
>>> d = np.log(1.03) + rng.normal(0, 0.004, 400)
>>> s = walsh_estimate(d, 0.95)
>>> round(s[0], 3), s[1] < 1.03 < s[2]
(1.03, True)
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Mapping, Sequence

import numpy as np

#: Fewer control benchmarks than this: no estimate (verdicts stay absolute).
MIN_CONTROLS = 10


@dataclasses.dataclass(frozen=True)
class MachineShift:
    """The common shift of one metric, from the benchmarks whose code did not change.

    Attributes:
        metric: ``device_time``, ``host_overhead``.
        ratio: head/base of the runner (1.029: head's runner 2.9 % slower).
        ratio_ci: its confidence interval.
        controls: how many benchmarks with equal fingerprints it was estimated from.
        changed: how many compared benchmarks had different fingerprints.
        limit: the largest shift the gate corrects for (``max_machine_shift``).
        decides: whether a shift beyond the limit makes the run not comparable (``False``
            for a metric whose processes scatter beyond the limit on unchanged code).

    """

    metric: str
    ratio: float
    ratio_ci: tuple[float, float]
    controls: int
    changed: int
    limit: float
    decides: bool = True

    @property
    def beyond_limit(self) -> bool:
        """The whole interval lies beyond ``±limit``: the runner itself moved that far.

        >>> MachineShift("device_time", 1.08, (1.07, 1.09), 400, 0, 0.05).beyond_limit
        True
        >>> MachineShift("host_overhead", 0.907, (0.873, 1.17), 20, 0, 0.05).beyond_limit
        False
        """
        bound = math.log1p(self.limit)
        low, high = (math.log(r) for r in self.ratio_ci)
        return low > bound or high < -bound

    @property
    def comparable(self) -> bool:
        """The run stays comparable: within the limit, or a metric that does not decide."""
        return not (self.decides and self.beyond_limit)

    @property
    def corrected(self) -> bool:
        """Benchmarks of this metric are judged relative to the shift (not beyond the limit)."""
        return not self.beyond_limit

    def line(self) -> str:
        """The summary's one line.

        >>> MachineShift("device_time", 1.029, (1.025, 1.033), 400, 12, 0.05).line()
        'device_time: the runner was 2.9 % [2.5, 3.3] slower on the 400 benchmarks whose code did not change'
        """  # noqa: E501
        change = self.ratio - 1
        word, sign = ("slower", 1) if change >= 0 else ("faster", -1)
        low, high = (
            f"{v:.1f}".replace("-0.0", "0.0")
            for v in sorted(sign * (r - 1) * 100 for r in self.ratio_ci)
        )
        text = (
            f"{self.metric}: the runner was {abs(change) * 100:.1f} % [{low}, {high}] "
            f"{word} on the {self.controls} benchmarks whose code did not change"
        )
        if self.beyond_limit and self.decides:
            text += f", beyond the {self.limit * 100:.0f} % limit: not comparable"
        elif self.beyond_limit:
            text += f", beyond the {self.limit * 100:.0f} % limit (not corrected; this metric "
            text += "does not decide whether runs are comparable)"
        return text


def walsh_estimate(
    d: Sequence[float] | np.ndarray, confidence: float
) -> tuple[float, float, float]:
    """``(ratio, low, high)``: the Hodges-Lehmann centre of log ratios ``d`` and its interval."""
    x = np.asarray(d, dtype=float)
    n = len(x)
    i, j = np.triu_indices(n)
    walsh = np.sort((x[i] + x[j]) / 2)
    z = statistics.NormalDist().inv_cdf(0.5 + confidence / 2)
    k = math.floor(n * (n + 1) / 4 - z * math.sqrt(n * (n + 1) * (2 * n + 1) / 24))
    k = min(max(k, 0), len(walsh) - 1)
    return (
        float(math.exp(np.median(walsh))),
        float(math.exp(walsh[k])),
        float(math.exp(walsh[len(walsh) - 1 - k])),
    )


def estimate(
    metric: str,
    medians: Mapping[str, tuple[float, float]],
    changed: int,
    *,
    limit: float,
    confidence: float,
    decides: bool = True,
) -> MachineShift | None:
    """The shift of ``metric`` from the (base, head) medians of its control benchmarks.

    ``None`` with fewer than :data:`MIN_CONTROLS` controls (no fingerprints recorded, or the
    code changed almost everywhere): the verdicts are then absolute (docs/gate.md).
    """
    d = [math.log(h / b) for b, h in medians.values() if b > 0 and h > 0]
    if len(d) < MIN_CONTROLS:
        return None
    ratio, low, high = walsh_estimate(d, confidence)
    return MachineShift(
        metric=metric,
        ratio=round(ratio, 6),
        ratio_ci=(round(low, 6), round(high, 6)),
        controls=len(d),
        changed=changed,
        limit=limit,
        decides=decides,
    )

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

from iconbench.records.summary import MachineShift
>>> rng = np.random.default_rng(3)
>>> d = np.log(1.03) + rng.normal(0, 0.004, 400)
>>> s = walsh_estimate(d, 0.95)
>>> round(s[0], 3), s[1] < 1.03 < s[2]
(1.03, True)
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence

import numpy as np

from iconbench.records.summary import MachineShift

#: Fewer control benchmarks than this: no estimate (verdicts stay absolute).
MIN_CONTROLS = 10


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

r"""When the interleaved measurement of a check stops: decided, or no block would decide more.

After each block the gate judges every gated benchmark on the processes measured so far
(:mod:`iconbench.gate.processes`). The check stops when none is *inconclusive*. A benchmark
can also stay inconclusive for good: the host overhead of unchanged code spreads 10-20 %
between fresh processes, so its interval holds the margin's edge however many blocks follow.
Measuring on until ``max_blocks`` then buys nothing but minutes.

So the check also stops when **no** open benchmark could be decided by the blocks still
allowed. The interval of a process-level comparison shrinks like :math:`1/\sqrt{k}` with
:math:`k` processes a side (the t-quantile shrinks too, which this ignores: the projection is
on the cautious side). With the interval :math:`[\ell, u]` of the log ratio now, centre
:math:`c` and half-width :math:`h`, after :math:`K` processes a side it would be
:math:`c \pm h\sqrt{k/K}`, and the benchmark could then be decided when that projection lies
inside the tolerance :math:`\pm\log(1 + t/2)` (unchanged), or wholly above or below it
(regression, improvement). If it could not for any open benchmark, the check stops with
those left inconclusive: an inconclusive benchmark does not fail a check.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from iconbench.gate.summary import BenchmarkResult


def decidable(result: BenchmarkResult, processes: int, most: int) -> bool:
    """Whether ``result``, inconclusive on ``processes`` a side, could be decided at ``most``.

    A host overhead 1.02x [0.85, 1.22] on 4 processes a side under a 5 % threshold stays
    open at 8 (the projection ±13 % is wider than the ±2.5 % margin); a device time 1.07x
    [1.02, 1.12] on 4 could be a regression at 8:

    >>> def open_(ci, threshold=0.05):
    ...     return BenchmarkResult("k", "p", "v", "b", "m", "s", True, threshold, None, None,
    ...                            1.0, ci, None, None, "inconclusive")
    >>> decidable(open_((0.85, 1.22)), 4, 8), decidable(open_((1.02, 1.12)), 4, 8)
    (False, True)
    >>> decidable(open_((0.85, 1.22)), 8, 8)  # no processes left to add
    False
    """
    if result.ratio_ci is None or result.threshold is None or processes >= most:
        return False
    low, high = (math.log(x) for x in result.ratio_ci)
    centre, half = (low + high) / 2, (high - low) / 2
    projected = half * math.sqrt(processes / most)
    margin = math.log1p(result.threshold / 2)
    unchanged = abs(centre) + projected <= margin
    changed = centre - projected > margin or centre + projected < -margin
    return unchanged or changed


def open_benchmarks(results: Iterable[BenchmarkResult]) -> list[BenchmarkResult]:
    """The gated benchmarks the gate cannot decide yet."""
    return [r for r in results if r.gated and r.verdict == "inconclusive"]


def reason_to_stop(results: Sequence[BenchmarkResult], processes: int, most: int) -> str | None:
    """Why the check stops measuring now (``None``: measure another block).

    >>> reason_to_stop([], 4, 8)
    'decided: no gated benchmark left open'
    """
    left = open_benchmarks(results)
    if not left:
        return "decided: no gated benchmark left open"
    if not any(decidable(r, processes, most) for r in left):
        return (
            f"{len(left)} benchmark(s) left open that {most} processes a side would not "
            "decide either"
        )
    return None

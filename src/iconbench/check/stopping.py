r"""When the interleaved measurement of a check stops: decided, or no block would decide more.

After each block the gate judges every gated benchmark on the processes measured so far
(:mod:`iconbench.gate.processes`). The check stops when none is *inconclusive*, and none
called *unchanged* could still become a regression in the blocks left (:func:`unsettled`: one
verdict on every road, docs/gate.md). A benchmark
can also stay inconclusive for good: the host overhead of unchanged code spreads 10-20 %
between fresh processes, so its interval holds the margin's edge however many blocks follow.
Measuring on until ``max_blocks`` then buys nothing but minutes.

So the check also stops when **no** open benchmark could turn into a *regression* within the
blocks still allowed: that is the one verdict that changes the check's result (an open
benchmark, an unchanged one and an improvement all pass). The interval of a process-level
comparison shrinks like :math:`1/\sqrt{k}` with :math:`k` processes a side (the t-quantile
shrinks too, which this ignores: the projection is on the cautious side). With the interval
:math:`[\ell, u]` of the log ratio now, centre :math:`c` and half-width :math:`h`, after
:math:`K` processes a side it would be :math:`c \pm h\sqrt{k/K}`; the benchmark could then be
a regression when that projection lies wholly above the tolerance :math:`\log(1 + t/2)`. If
none could, the check stops. Measuring on to settle an "unchanged" or an improvement cost a
check of unchanged icon4py code on the H100 two more blocks (136 s of measuring instead of
64 s) and decided nothing: host overhead that looked 15 % faster on 4 processes a side was
open again on 8.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from iconbench.records.summary import BenchmarkResult

if TYPE_CHECKING:
    from iconbench.grids.grid import Grid
    from iconbench.records.summary import Summary
    from iconbench.stacks.sides import Side


def could_regress(result: BenchmarkResult, processes: int, most: int) -> bool:
    """Whether ``result``, inconclusive on ``processes`` a side, could be a regression at ``most``.

    A host overhead 1.02x [0.85, 1.22] on 4 processes a side under a 5 % threshold could not
    at 8 (the projection ±13 % is wider than the ±2.5 % margin); a device time 1.07x
    [1.02, 1.12] on 4 could; one 0.90x [0.80, 1.01] could only become an improvement, which
    passes as an open one does:

    >>> def open_(ci, threshold=0.05):
    ...     return BenchmarkResult("k", "p", "v", "b", "m", "s", True, threshold, None, None,
    ...                            1.0, ci, None, None, "inconclusive")
    >>> could_regress(open_((0.85, 1.22)), 4, 8), could_regress(open_((1.02, 1.12)), 4, 8)
    (False, True)
    >>> could_regress(open_((0.80, 1.01)), 4, 8), could_regress(open_((1.02, 1.12)), 8, 8)
    (False, False)
    """
    if result.ratio_ci is None or result.threshold is None or processes >= most:
        return False
    low, high = (math.log(x) for x in result.ratio_ci)
    centre, half = (low + high) / 2, (high - low) / 2
    projected = half * math.sqrt(processes / most)
    return centre - projected > math.log1p(result.threshold / 2)


def open_benchmarks(results: Iterable[BenchmarkResult]) -> list[BenchmarkResult]:
    """The gated benchmarks the gate cannot decide yet."""
    return [r for r in results if r.gated and r.verdict == "inconclusive"]


def unsettled(
    results: Iterable[BenchmarkResult], processes: int, most: int
) -> list[BenchmarkResult]:
    """The gated benchmarks called unchanged now that the blocks left could make regressions.

    An interval that reaches into the margin only because it is still wide (1.033x [1.021,
    1.046] on 4 processes a side) is unchanged today and could be a regression below the
    threshold on 16: the check does not stop on a verdict that more processes would change.

    >>> def unchanged(ci):
    ...     return BenchmarkResult("k", "p", "v", "b", "m", "s", True, 0.05, None, None,
    ...                            1.0, ci, None, None, "unchanged")
    >>> len(unsettled([unchanged((1.021, 1.046))], 4, 16)), len(unsettled(
    ...     [unchanged((0.99, 1.02))], 4, 16))
    (1, 0)
    """
    called = (r for r in results if r.gated and r.verdict == "unchanged")
    return [r for r in called if could_regress(r, processes, most)]


def reason_to_stop(results: Sequence[BenchmarkResult], processes: int, most: int) -> str | None:
    """Why the check stops measuring now (``None``: measure another block).

    >>> reason_to_stop([], 4, 8)
    'decided: no gated benchmark left open'
    """
    left = open_benchmarks(results) + unsettled(results, processes, most)
    if not left:
        return "decided: no gated benchmark left open"
    if not keeping_on(results, processes, most):
        return (
            f"{len(left)} benchmark(s) left open, none of which {most} processes a side "
            "could turn into a regression"
        )
    return None


def keeping_on(
    results: Sequence[BenchmarkResult], processes: int, most: int
) -> list[BenchmarkResult]:
    """The benchmarks another block is measured for: open or unsettled, and could regress.

    Only their cases need measuring again (:func:`iconbench.check.rounds.measure`): the
    others are decided, or stay open whatever the blocks left add.

    >>> def open_(ci, verdict="inconclusive"):
    ...     return BenchmarkResult("k", "p", "v", "b", "m", "s", True, 0.05, None, None,
    ...                            1.0, ci, None, None, verdict)
    >>> [r.ratio_ci for r in keeping_on([open_((1.02, 1.12)), open_((0.85, 1.22)),
    ...                                  open_((1.021, 1.046), "unchanged")], 4, 16)]
    [(1.02, 1.12), (1.021, 1.046)]
    """
    left = open_benchmarks(results) + unsettled(results, processes, most)
    return [r for r in left if could_regress(r, processes, most)]


def ledger_verdict(base: Side, head: Side, grid: Grid) -> Summary:
    """The gate's verdict on what both sides' ledgers hold now, while the check measures."""
    from iconbench.gate import verdict
    from iconbench.records import resultset

    return verdict.compare(
        resultset.ledger_set(base.out, label="base", commit=base.commit, grid=grid),
        resultset.ledger_set(head.out, label="head", commit=head.commit, grid=grid),
    )

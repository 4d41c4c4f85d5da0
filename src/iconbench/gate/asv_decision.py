"""asv's own decision (``asv continuous``/``asv compare``), computed with asv's functions.

asv marks head worse when ``head > base * factor`` (factor 1.1) and, with samples, its
Mann-Whitney U test (``asv._stats.is_different``, p < 0.002) says the two differ; without
enough samples it falls back to non-overlapping 99 % intervals of ``asv_runner``'s
``compute_stats``. This module calls exactly those functions, so ``iconbench compare
--method asv`` and the simulation study show what ``asv continuous`` would have said.

>>> decide([1.0] * 20, [1.5] * 10 + [1.6] * 10)
'regression'
>>> decide([1.0, 1.01] * 10, [1.05, 1.06] * 10)
'unchanged'
"""

from __future__ import annotations

from collections.abc import Sequence

FACTOR = 1.1


def decide(base: Sequence[float], head: Sequence[float], factor: float = FACTOR) -> str:
    """``regression`` | ``improvement`` | ``unchanged`` as asv's compare marks ``+``/``-``/`` ``."""
    import statistics

    from asv.commands.compare import _is_result_better
    from asv_runner.statistics import compute_stats

    if not base or not head:
        return "unchanged"
    a = statistics.median(base)
    b = statistics.median(head)
    # asv tests significance first and the factor second; both must hold, so when the factor
    # is not passed the answer is "unchanged" either way (this saves the slow part)
    if not (b < a / factor or a < b / factor):
        return "unchanged"
    _, base_stats = compute_stats(list(base), 1)
    _, head_stats = compute_stats(list(head), 1)
    base_ss = (base_stats, list(base))
    head_ss = (head_stats, list(head))
    if _is_result_better(b, a, head_ss, base_ss, factor):
        return "improvement"
    if _is_result_better(a, b, base_ss, head_ss, factor):
        return "regression"
    return "unchanged"

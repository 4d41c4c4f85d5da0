r"""The one rule that turns a comparison into a word, the same on every road.

The check, ``iconbench continuous``, ``compare``, ``confirm``, ``bisect``, the backfill and a
change point's confirmation all judge a benchmark by this function, so one change gets one
verdict wherever it is measured. Its inputs are the comparison's interval of the ratio
head/base :math:`[\ell, u]`, its q-value (Benjamini-Hochberg over the benchmarks compared
together) and the threshold :math:`t` of the metric, whose half :math:`t/2` is the tolerance
margin:

=========================== ============================================================
verdict                     when
=========================== ============================================================
regression / improvement    "head is more than :math:`t/2` slower" (faster) is a discovery
                            at the false discovery rate: :math:`q \le` ``fdr``
  … below the threshold     the same, and the interval lies within :math:`\pm t`
                            (:math:`u < 1 + t`): the same verdict and treatment (it fails a
                            check, the nightly reports and bisects it), with the note
                            ``below the 5 % threshold`` everywhere it is shown
unchanged                   no discovery, the interval lies within :math:`\pm t` and reaches
                            into the margin (:math:`\ell \le 1 + t/2` and
                            :math:`u \ge 1/(1 + t/2)`)
inconclusive                anything else: an interval across :math:`\pm t`, or one wholly
                            beyond the margin that is not yet a discovery at the FDR (an
                            interleaved measurement measures on: more processes decide it)
=========================== ============================================================

Before, an interval wholly between :math:`1 + t/2` and :math:`1 + t` was *unchanged* where
the FDR over many benchmarks left it short of a discovery (a check of 10 benchmarks) and a
*regression* where it did not (an A/B of that one benchmark): a dace release's 3.5 % was a
PASS on one road and a confirmed regression on the other. Such an interval shows a change
beyond the tolerance, so it is never *unchanged*.

>>> decide((1.029, 1.040), q=0.068, p_regression=0.0068, p_improvement=1.0, threshold=0.05)
Decision(verdict='inconclusive', below_threshold=True)
>>> decide((1.031, 1.041), q=0.0055, p_regression=0.0027, p_improvement=1.0, threshold=0.05)
Decision(verdict='regression', below_threshold=True)
>>> decide((0.99, 1.03), q=1.0, p_regression=0.6, p_improvement=0.9, threshold=0.05).verdict
'unchanged'
"""

from __future__ import annotations

import dataclasses

from iconbench.records.summary import below_threshold, percent, threshold_words


@dataclasses.dataclass(frozen=True)
class Decision:
    """A benchmark's verdict and whether its interval lies within the threshold."""

    verdict: str
    #: the interval lies beyond the margin and within the threshold: a change smaller than
    #: the threshold (a regression or improvement, or one not yet a discovery)
    below_threshold: bool = False

    def notes(self, threshold: float) -> tuple[str, ...]:
        """The words every report shows beside the verdict.

        The comment, the job summary, the history and the site all show a benchmark's notes.

        >>> Decision("regression", True).notes(0.05)
        ('below the 5 % threshold, beyond its 2.5 % margin',)
        >>> Decision("inconclusive", True).notes(0.05)[0][:52]
        'beyond the 2.5 % margin, not yet a discovery at the '
        """
        if not self.below_threshold:
            return ()
        margin = percent(threshold / 2)
        if self.verdict in ("regression", "improvement"):
            return (f"{threshold_words(threshold)}, beyond its {margin} margin",)
        return (
            f"beyond the {margin} margin, not yet a discovery at the false discovery rate: "
            "more processes decide it",
        )


def decide(
    ratio_ci: tuple[float, float],
    *,
    q: float,
    p_regression: float,
    p_improvement: float,
    threshold: float,
    fdr: float = 0.05,
) -> Decision:
    """The verdict of one comparison (module doc): interval, q-value, threshold."""
    low, high = ratio_ci
    limit, margin = 1 + threshold, 1 + threshold / 2
    within = 1 / limit <= low and high <= limit
    beyond_margin = low > margin or high < 1 / margin
    if q <= fdr:
        verdict = "regression" if p_regression < p_improvement else "improvement"
        return Decision(verdict, below_threshold(verdict, ratio_ci, threshold))
    if within and not beyond_margin:
        return Decision("unchanged")
    return Decision("inconclusive", within and beyond_margin)

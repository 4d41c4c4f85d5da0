"""The commit status on the measured head commit: state, one-line description, link, context.

GitHub shows it next to the commit and in the pull request's checks: ``success`` when the
gate passed, ``failure`` on a regression, ``error`` when the run itself failed. The context
``iconbench/<grid>`` keeps the statuses of different runners (a CPU grid, a GPU grid) apart,
each replaced by its own next run.

>>> s = commit_status(Summary.example(), target_url=None)
>>> s.state, s.context
('failure', 'iconbench/icon_benchmark_regional')
>>> s.description
'1 regression: compute_theta_rho_face_values +6.5 % (gtfn_gpu device time)'
"""

from __future__ import annotations

import dataclasses

from iconbench.bot import escape
from iconbench.bot.render import format_change
from iconbench.records.summary import Summary

#: GitHub truncates longer descriptions (and older servers refuse them).
MAX_DESCRIPTION = 140
STATES = {"pass": "success", "regression": "failure", "error": "error"}


@dataclasses.dataclass(frozen=True)
class CommitStatus:
    """What GitHub is told about the head commit."""

    state: str
    description: str
    target_url: str | None
    context: str


def _fit(text: str) -> str:
    """One line of at most :data:`MAX_DESCRIPTION` characters (cut at a word, with …)."""
    line = escape.one_line(text)  # the head's names: no control or bidirectional character
    if len(line) <= MAX_DESCRIPTION:
        return line
    return line[: MAX_DESCRIPTION - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def describe(summary: Summary) -> str:
    """What happened, for the status line: the worst regression, or the counts."""
    counts = summary.counts
    if summary.verdict == "error":
        failed = counts.get("failed", 0)
        reason = summary.error or (f"{failed} benchmarks failed" if failed else "no results")
        return _fit(f"benchmark run failed: {reason}")
    if summary.verdict == "regression":
        worst = max(
            (b for b in summary.benchmarks if b.verdict == "regression" and b.gated),
            key=lambda b: b.ratio or 0,
            default=None,
        )
        n = counts.get("regression", 0)
        text = f"{n} regression{'s' if n != 1 else ''}"
        if worst is not None:
            metric = worst.metric.replace("_", " ")
            text += f": {worst.program} {format_change(worst.ratio)} ({worst.backend} {metric})"
        return _fit(text)
    improvements = counts.get("improvement", 0)
    unchanged = counts.get("unchanged", 0)
    if improvements:
        return _fit(f"no regression: {improvements} faster, {unchanged} unchanged")
    return _fit(f"no change: {unchanged} benchmarks unchanged")


def commit_status(
    summary: Summary, target_url: str | None, context: str | None = None
) -> CommitStatus:
    """The status of ``summary``: state from its verdict, context ``iconbench/<grid>``."""
    return CommitStatus(
        state=STATES[summary.verdict],
        description=describe(summary),
        target_url=target_url,
        context=context or f"iconbench/{summary.grid_name}",
    )

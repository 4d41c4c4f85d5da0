"""Narrow a regression between two commits of one repository to the first bad commit.

:mod:`~iconbench.bisection.interleaved` (the default) measures each step's commit against the
good one by an interleaved A/B, the check's road, and calls it bad when the A/B shows the
regression; :mod:`~iconbench.bisection.find` drives ``asv find`` (asv's bisection on one
benchmark, one sample per commit, saving every result it measures). Either gives a
:class:`~iconbench.bisection.find.Record`; :mod:`~iconbench.bisection.record` attaches records
to a gate summary (its ``bisect`` key, docs/gate-summary.md) so that the site and the bot name
the commit.
"""

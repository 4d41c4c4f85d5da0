"""Narrow a regression between two commits of one repository to the first bad commit.

:mod:`~iconbench.bisection.find` drives ``asv find`` (asv's bisection on one benchmark,
saving every result it measures) and reads the verdict back into a :class:`Record`;
:mod:`~iconbench.bisection.record` attaches records to a gate summary (its ``bisect`` key,
docs/gate-summary.md) so that the site and the bot name the commit.
"""

"""The durable history of result sets: append-only, safe under concurrent writers.

:mod:`iconbench.history.store` keeps every result set (asv result files, a runner's
summary, gate summaries) as content-addressed files plus one manifest per entry, so that two
writers, or two git clones of the results branch, only ever add distinct files;
:mod:`iconbench.history.retention` is the pruning policy (mains forever, pull requests 90
days); :mod:`iconbench.history.export` rebuilds an asv results directory (and so the site)
from it. Layout and the git results branch: docs/history.md.
"""

from iconbench.history.store import Entry, HistoryStore

__all__ = ["Entry", "HistoryStore"]

"""The retention policy of the history: mains forever, pull-request checks for 90 days.

Every result of a repository's main branch (nightly runs, manual runs) is kept: it is the
history the site plots and the base every pull request is compared with. A pull request's
result sets only serve its review; after ``pr_days`` they are dropped by an explicit
``iconbench history prune`` (never automatically), together with the files no other entry
shares. Pruning takes the store's lock, so it never interleaves with an append.
"""

from __future__ import annotations

import dataclasses
import datetime

from iconbench.history.store import Entry, HistoryStore

#: Days a pull request's result sets are kept.
PR_DAYS = 90


@dataclasses.dataclass(frozen=True)
class Policy:
    """What :func:`prune` removes: entries of kind ``pr`` older than ``pr_days``.

    >>> import datetime as dt
    >>> now = dt.datetime(2026, 11, 23, tzinfo=dt.UTC)
    >>> def entry(kind, days):
    ...     created = (now - dt.timedelta(days=days)).isoformat()
    ...     return Entry("x", created, kind, "gt4py", "", "", "c", "", "", 1, ())
    >>> policy = Policy()
    >>> policy.expired(entry("pr", 91), now), policy.expired(entry("pr", 89), now)
    (True, False)
    >>> policy.expired(entry("main", 4000), now)
    False
    """

    pr_days: int = PR_DAYS

    def expired(self, entry: Entry, now: datetime.datetime) -> bool:
        """Whether ``entry`` is past its retention at ``now`` (never for mains)."""
        if entry.kind != "pr":
            return False
        return now - entry.created_at > datetime.timedelta(days=self.pr_days)


def prune(
    store: HistoryStore,
    *,
    policy: Policy = Policy(),
    now: datetime.datetime | None = None,
    dry_run: bool = False,
) -> list[Entry]:
    """Remove the expired entries and the blobs only they used; returns the expired entries."""
    when = now or datetime.datetime.now(datetime.UTC)
    with store.locked():
        entries = store.entries()
        expired = [e for e in entries if policy.expired(e, when)]
        if dry_run or not expired:
            return expired
        kept_blobs = {f.sha256 for e in entries if e not in expired for f in e.files}
        manifests = store._manifests()
        for entry in expired:
            manifests[entry.id].unlink()
        for entry in expired:
            for ref in entry.files:
                blob = store.blob(ref.sha256)
                if ref.sha256 not in kept_blobs and blob.exists():
                    blob.unlink()
    return expired

r"""One living comment per pull request: find it by its hidden marker, edit it, never duplicate it.

The comment body starts with an HTML comment GitHub does not show::

    <!-- iconbench-pr-summary v1 run=2026-11-23T20:00:00+00:00 -->

``run`` is the gate summary's ``created`` time, so a run that finishes late never replaces a
newer report with an older one.

Two runs that finish at once (a re-run next to a push, two runners of a matrix) may both list
the comments, both find none and both create one. GitHub has no conditional create, so
:func:`upsert` *converges* instead of locking: after creating, it lists again; when there is
more than one marked comment, the oldest (lowest id, which every run agrees on) is kept, it is
given the body of the newest run, and every other marked comment is deleted. Whichever run
lists last sees both comments and removes the extra one, so the pull request ends with exactly
one. (A lock comment would need the same list-after-create check, plus a way to expire the
lock of a crashed run.)

>>> stamp_of(marker("2026-11-23T20:00:00+00:00") + "\\n### iconbench")
'2026-11-23T20:00:00+00:00'
>>> stamp_of("> <!-- iconbench-pr-summary v1 run=x -->") is None   # quoted by a person: not ours
True
"""

from __future__ import annotations

import dataclasses
import logging
import re
from typing import Protocol

from iconbench.bot.client import Comment
from iconbench.errors import IconbenchError

LOG = logging.getLogger(__name__)
PREFIX = "<!-- iconbench-pr-summary v1"
_MARKER = re.compile(r"\A<!-- iconbench-pr-summary v1 run=(?P<run>\S*) -->")


class Comments(Protocol):
    """The client operations :func:`upsert` needs (the real one: ``GitHubClient``)."""

    def comments(self) -> list[Comment]: ...
    def create_comment(self, body: str) -> Comment: ...
    def edit_comment(self, comment_id: int, body: str) -> bool: ...
    def delete_comment(self, comment_id: int) -> bool: ...


def marker(run: str) -> str:
    """The first line of the bot's comment."""
    return f"{PREFIX} run={run.replace(' ', 'T') or 'unknown'} -->"


def stamp_of(body: str) -> str | None:
    """The run stamp of a marked body; None for any other comment."""
    found = _MARKER.match(body)
    return found.group("run") if found else None


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What :func:`upsert` did."""

    #: "created", "edited", "unchanged" or "newer" (a newer run's report is already there)
    action: str
    comment_id: int
    url: str
    #: ids of duplicate comments removed
    removed: tuple[int, ...] = ()


def _marked(comments: list[Comment]) -> list[Comment]:
    return sorted((c for c in comments if stamp_of(c.body) is not None), key=lambda c: c.id)


def _converge(client: Comments, ours: Comment | None, body: str) -> Outcome | None:
    """Keep the oldest marked comment with the newest body; delete the others.

    Returns None when the comment to keep vanished meanwhile (deleted by a person): the
    caller starts over.
    """
    found = _marked(client.comments())
    if ours is not None and all(c.id != ours.id for c in found):
        found = _marked([*found, ours])  # listing lags behind the create: count ours anyway
    if not found:
        return None
    keep = found[0]
    candidates = [*found, Comment(-1, "", body, "", "")]
    # The newest run wins; on a tie this run's body (a re-render of the same summary).
    newest = max(candidates, key=lambda c: (stamp_of(c.body) or "", c.id == -1))
    removed = []
    for other in found[1:]:
        if client.delete_comment(other.id):
            removed.append(other.id)
    if keep.body == newest.body:
        action = "created" if ours is not None and keep.id == ours.id else "unchanged"
    elif not client.edit_comment(keep.id, newest.body):
        return None
    else:
        action = "edited" if newest.id == -1 else "newer"
    if newest.id != -1 and newest.body != body:
        action = "newer"
    return Outcome(action=action, comment_id=keep.id, url=keep.url, removed=tuple(removed))


def upsert(client: Comments, body: str, tries: int = 3) -> Outcome:
    """Create the pull request's comment or edit it in place; see the module docstring."""
    for _ in range(tries):
        existing = _marked(client.comments())
        created = None if existing else client.create_comment(body)
        outcome = _converge(client, created, body)
        if outcome is not None:
            LOG.info("comment %s: %s", outcome.comment_id, outcome.action)
            return outcome
    raise IconbenchError(
        f"the iconbench comment kept disappearing while it was updated ({tries} tries); "
        "someone deletes it as it is written: run the command again"
    )

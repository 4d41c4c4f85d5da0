"""One comment per pull request and check context, written only by the bot, settling on one.

The bot considers only comments **it wrote** (``user.login`` is its own login) whose header
(:mod:`iconbench.bot.marker`) names **its context**. Anyone can type the header into a comment
of their own, so another user's comment is never edited, deleted, or taken as a report; and a
CPU runner's report (``iconbench/tiny``) never replaces a GPU runner's (``iconbench/ch1_medium``).

Within a context, GitHub offers no conditional create, no lock, and lists a new comment up
to a few seconds after it was created. Two runs that finish together may both find no
comment and both create one, or both edit the same one. :func:`upsert` **settles** instead
of locking, in rounds:

1. list the comments (every page), plus the ones the listing may not show yet: the comment
   this run created and the one a state file remembers (read one by one, which is not late);
2. keep the oldest comment of the context (lowest id: every run agrees on it), give it the
   body of the newest run (the summary's ``created`` time; a run never puts an older report
   over a newer one) and delete the other comments of the context;
3. after any write, wait ``settle_s`` (longer than the listing's lag) and go to 1; a round
   that writes nothing ends it.

The run that created the later comment sees the earlier one once it waited longer than the
listing lags, so it deletes its own: the pull request ends with one comment per context.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Iterable
from typing import Protocol

from iconbench.bot.client import Comment
from iconbench.bot.marker import Header, instant, newer, parse
from iconbench.errors import IconbenchError

LOG = logging.getLogger(__name__)


class Comments(Protocol):
    """The client operations :func:`upsert` needs (the real one: ``GitHubClient``)."""

    def comments(self) -> list[Comment]: ...
    def comment(self, comment_id: int) -> Comment | None: ...
    def create_comment(self, body: str) -> Comment: ...
    def edit_comment(self, comment_id: int, body: str) -> bool: ...
    def delete_comment(self, comment_id: int) -> bool: ...


@dataclasses.dataclass(frozen=True)
class Report:
    """One of the bot's own comments, with its header."""

    comment: Comment
    header: Header


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What :func:`upsert` left on the pull request."""

    #: "created", "edited", "unchanged", or "newer" (a newer run's report is there)
    action: str
    comment_id: int
    url: str
    #: the header of the report the comment holds now (this run's, or a newer run's)
    newest: Header
    #: ids of duplicate and first-version comments of the bot that were removed
    removed: tuple[int, ...] = ()
    #: another run's report of the context appeared while this one ran (runs at once)
    contended: bool = False


def own(comment: Comment, login: str) -> bool:
    """Whether ``comment`` was written by ``login`` (GitHub logins ignore case)."""
    return bool(comment.author) and comment.author.lower() == login.lower()


def reports(comments: Iterable[Comment], login: str, context: str) -> list[Report]:
    """The bot's own comments of ``context``, oldest first."""
    found = []
    for comment in comments:
        header = parse(comment.body) if own(comment, login) else None
        if header is not None and header.context == context:
            found.append(Report(comment, header))
    return sorted(found, key=lambda r: r.comment.id)


def newest(found: Iterable[Report]) -> Report | None:
    """The report of the latest run (on a tie, the older comment)."""
    return max(found, key=lambda r: (instant(r.header.run), -r.comment.id), default=None)


def upsert(
    client: Comments,
    login: str,
    ours: Header,
    body: str,
    *,
    first: list[Comment] | None = None,
    known: Iterable[int] = (),
    settle_s: float = 5.0,
    sleep: Callable[[float], None] = time.sleep,
    rounds: int = 4,
) -> Outcome:
    """Create or edit this context's comment and settle on one; see the module docstring.

    ``first``: a listing the caller already made (the first round uses it); ``known``: ids
    of comments an earlier run created (from a state file).
    """
    context = ours.context or ""
    listing = client.comments() if first is None else first
    baseline = {(r.comment.id, r.header.run) for r in reports(listing, login, context)}
    created: int | None = None
    wrote_ours = False
    contended = False
    removed: list[int] = []
    keep: Report | None = None
    vanished = False
    for number in range(rounds):
        vanished = False
        if number:
            listing = client.comments()
        mine = reports(listing, login, context)
        listed = {r.comment.id for r in mine}
        for cid in {created, *known} - {None, *listed}:
            found = client.comment(cid) if cid is not None else None
            if found is not None:
                mine.extend(reports([found], login, context))
        mine.sort(key=lambda r: r.comment.id)
        if any(
            (r.comment.id, r.header.run) not in baseline and r.comment.body != body for r in mine
        ):
            contended = True
        if number == 0:
            for legacy in listing:
                header = parse(legacy.body)
                first_version = header is not None and header.context is None
                if own(legacy, login) and first_version and client.delete_comment(legacy.id):
                    removed.append(legacy.id)
        if not mine:
            if created is not None:
                LOG.warning("comment %s was deleted as it was written; writing it again", created)
            made = client.create_comment(body)
            created, wrote_ours = made.id, True
            keep = Report(made, ours)
            sleep(settle_s)
            continue
        keep = mine[0]
        latest = newest(mine)
        assert latest is not None
        # this run's report goes in unless a newer run's is there; on a tie (the same summary
        # posted again) once, so that two runs of one summary do not take turns
        put_ours = not newer(latest.header.run, ours.run) and (
            newer(ours.run, latest.header.run) or not wrote_ours
        )
        text = body if put_ours else latest.comment.body
        wrote = False
        for other in mine[1:]:
            wrote = True
            if client.delete_comment(other.comment.id):
                removed.append(other.comment.id)
        if keep.comment.body != text:
            wrote = True
            if not client.edit_comment(keep.comment.id, text):
                vanished = True
                continue  # deleted meanwhile: list again
            header = ours if put_ours else latest.header
            keep = Report(dataclasses.replace(keep.comment, body=text), header)
            wrote_ours = wrote_ours or put_ours
        if not wrote:
            break
        sleep(settle_s)
    else:
        if keep is None or vanished:
            raise IconbenchError(
                f"the iconbench comment of {context} kept disappearing while it was written "
                f"({rounds} rounds); someone deletes it as it is written: run the command again"
            )
        LOG.warning(
            "the comment of %s was still being changed by another run after %d rounds; "
            "that run settles it",
            context,
            rounds,
        )
    assert keep is not None
    if keep.comment.body == body:
        action = (
            "created" if keep.comment.id == created else "edited" if wrote_ours else "unchanged"
        )
    else:
        action = "newer"
    LOG.info("comment %s of %s: %s", keep.comment.id, context, action)
    return Outcome(
        action=action,
        comment_id=keep.comment.id,
        url=keep.comment.url,
        newest=keep.header,
        removed=tuple(removed),
        contended=contended,
    )

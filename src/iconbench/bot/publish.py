"""One run of the bot: the commit status first, then the context's comment, then settle.

1. read the pull request (its head now) and find out who the bot is (``--bot-login``, else
   the token's login); when the pull request cannot be read, only the status is set (on the
   measured commit, when it is the repository's), no comment;
2. list the comments and take the bot's own report of this context, if any;
3. **set the commit status** from the gate's verdict, unless a newer run's report of the same
   context is already posted. This comes before the comment: a comment GitHub refuses (too
   long, no permission, an outage) never leaves the pull request without its gating status;
4. create or edit the context's comment and settle on one (:mod:`iconbench.bot.upsert`);
5. set a status once more when runs of the context met: this run's when its report is the
   newest, a newer run's (from that report's header) when this run set its own in step 3, so
   the newest verdict is the last status set whichever run finishes last.

Each step that fails is recorded as one line (:attr:`Posted.problems`) and the next steps
still run where they can: the command exits 2 when there is any.

The status goes on the commit that was measured when it belongs to the pull request's
repository (the gate's head side is a commit of that component); otherwise (iconbench's own
suite measured for a pull request of another repository) on the pull request's head.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import time
from collections.abc import Callable, Iterable
from typing import TypeVar

from iconbench.bot import render
from iconbench.bot.client import GitHubClient, one_line
from iconbench.bot.links import Site
from iconbench.bot.marker import Header, StatusRecord, newer
from iconbench.bot.status import CommitStatus, commit_status
from iconbench.bot.target import PullRequest
from iconbench.bot.upsert import Outcome, newest, reports, upsert
from iconbench.errors import IconbenchError
from iconbench.records.summary import Summary

LOG = logging.getLogger(__name__)
T = TypeVar("T")
_FULL_SHA = re.compile(r"^[0-9a-f]{40}$")


@dataclasses.dataclass(frozen=True)
class Posted:
    """What one run did on GitHub."""

    #: this run's status (as computed from the summary)
    status: CommitStatus
    #: the commit it goes on; None when it could not be told (the pull request unreadable)
    sha: str | None
    #: this run's status is set (and no newer run's replaced it)
    status_sent: bool
    #: the comment, None when it could not be written
    comment: Outcome | None
    #: a newer run's status this run set again (see step 5)
    restored: StatusRecord | None = None
    #: one line per step that failed
    problems: tuple[str, ...] = ()


def status_commit(summary: Summary, pr: PullRequest, head_now: str | None) -> str | None:
    """The commit that gets the status (see the module docstring).

    >>> import dataclasses
    >>> s = Summary.example()
    >>> s = dataclasses.replace(s, head=dataclasses.replace(s.head, commit="1" * 40))
    >>> status_commit(s, PullRequest.parse("GridTools/gt4py", 1), "f" * 40) == "1" * 40
    True
    >>> status_commit(s, PullRequest.parse("C2SM/icon4py", 1), "f" * 40) == "f" * 40
    True
    """
    head = summary.head
    if pr.holds(head.component) and _FULL_SHA.match(head.commit):
        return head.commit
    return head_now


def header(summary: Summary, status: CommitStatus, sha: str | None) -> Header:
    """The hidden header of this run's comment: context, run stamp, the status it sets."""
    record = None
    if sha is not None:
        record = StatusRecord(sha, status.state, status.description, status.target_url)
    return Header(context=status.context, run=summary.created, status=record)


def body(
    summary: Summary,
    pr: PullRequest,
    site: Site | None,
    head_now: str | None = None,
    *,
    context: str | None = None,
) -> str:
    """The comment as it is posted (header first); ``--dry-run`` prints this."""
    status = commit_status(summary, target_url=_site_target(summary, site), context=context)
    top = header(summary, status, status_commit(summary, pr, head_now))
    return render.render(summary, pr, site, marker=top.render(), head_now=head_now)


def _site_target(summary: Summary, site: Site | None) -> str | None:
    return site.report(summary.base.commit, summary.head.commit) if site else None


class _Steps:
    """Runs the steps, keeping one line per failure instead of stopping."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def attempt(self, what: str, step: Callable[[], T]) -> T | None:
        try:
            return step()
        except IconbenchError as error:
            problem = str(error)
        except Exception as error:  # a bug or an answer no one foresaw: said, not raised
            LOG.debug("%s failed", what, exc_info=True)
            problem = f"unexpected {type(error).__name__} while {what}: {one_line(error, 160)}"
        if problem not in self.problems:
            self.problems.append(problem)
        return None


def publish(
    summary: Summary,
    pr: PullRequest,
    client: GitHubClient,
    *,
    site: Site | None = None,
    context: str | None = None,
    login: str | None = None,
    send_status: bool = True,
    known: Iterable[int] = (),
    settle_s: float = 5.0,
    sleep: Callable[[float], None] = time.sleep,
) -> Posted:
    """Status, comment, settle (see the module docstring); never raises for GitHub's answers."""
    steps = _Steps()
    head_now = steps.attempt("reading the pull request", client.head_sha)
    status = commit_status(summary, target_url=_site_target(summary, site), context=context)
    sha = status_commit(summary, pr, head_now)
    top = header(summary, status, sha if send_status else None)  # the status it really sets
    # the comment only goes on what GitHub confirmed to be a pull request
    me = (login or steps.attempt("finding out who the bot is", client.login)) if head_now else None
    listing = steps.attempt("listing the comments", client.comments) if me else None
    before = newest(reports(listing, me, status.context)) if listing is not None and me else None
    newer_posted = before is not None and newer(before.header.run, summary.created)

    def send(record: StatusRecord, fallback_url: str) -> bool:
        """Set ``record`` (its target: the site, else ``fallback_url``); True when set."""

        def call() -> bool:
            client.create_status(
                record.sha,
                record.state,
                record.description,
                record.target_url or fallback_url,
                status.context,
            )
            return True

        return bool(steps.attempt("setting the commit status", call))

    sent = False
    if send_status and top.status is not None and not newer_posted:
        # the comment, when there is one already, else the pull request (the comment's page)
        sent = send(top.status, before.comment.url if before else pr.url)
    outcome = None
    if me and listing is not None:

        def write() -> Outcome:
            text = render.render(summary, pr, site, marker=top.render(), head_now=head_now)
            return upsert(
                client, me, top, text, first=listing, known=known, settle_s=settle_s, sleep=sleep
            )

        outcome = steps.attempt("writing the comment", write)
    restored = None
    if send_status and outcome is not None and top.status is not None:
        final = outcome.newest.status
        if outcome.action != "newer" and (not sent or outcome.contended):
            sent = send(top.status, outcome.url) or sent
        elif outcome.action == "newer" and sent and final is not None and send(final, outcome.url):
            restored, sent = final, False
    return Posted(
        status=status,
        sha=sha,
        status_sent=sent,
        comment=outcome,
        restored=restored,
        problems=tuple(steps.problems),
    )

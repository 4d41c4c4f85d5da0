"""One run of the bot: render the summary, upsert the comment, set the commit status.

The status goes on the commit that was measured when it belongs to the pull request's
repository (the gate's head side is a commit of that component); otherwise (iconbench's own
suite measured for a pull request of another repository) on the pull request's head. When a
newer run's report is already posted, neither the comment nor the status is replaced.
"""

from __future__ import annotations

import dataclasses
import re

from iconbench.bot import marker, render
from iconbench.bot.client import GitHubClient
from iconbench.bot.links import Site
from iconbench.bot.status import CommitStatus, commit_status
from iconbench.bot.summary import Summary
from iconbench.bot.target import PullRequest

_FULL_SHA = re.compile(r"^[0-9a-f]{40}$")


@dataclasses.dataclass(frozen=True)
class Posted:
    """What one run did on GitHub."""

    comment: marker.Outcome
    status: CommitStatus
    sha: str
    status_sent: bool


def status_commit(summary: Summary, pr: PullRequest, head_now: str) -> str:
    """The commit that gets the status (see the module docstring).

    >>> from iconbench.bot.summary import EXAMPLE, from_json
    >>> s = from_json(json.dumps(EXAMPLE))
    >>> status_commit(s, PullRequest.parse("GridTools/gt4py", 1), "f" * 40) == "1" * 40
    True
    >>> status_commit(s, PullRequest.parse("C2SM/icon4py", 1), "f" * 40) == "f" * 40
    True
    """
    head = summary.head
    if head.component.lower() == pr.name.lower() and _FULL_SHA.match(head.commit):
        return head.commit
    return head_now


def body(summary: Summary, pr: PullRequest, site: Site | None, head_now: str | None = None) -> str:
    """The comment as it is posted (marker first); ``--dry-run`` prints this."""
    return render.render(
        summary, pr, site, marker=marker.marker(summary.created), head_now=head_now
    )


def publish(
    summary: Summary,
    pr: PullRequest,
    client: GitHubClient,
    *,
    site: Site | None = None,
    context: str | None = None,
) -> Posted:
    """Render, create or edit the comment, then set the status (unless a newer run won)."""
    head_now = client.head_sha()
    outcome = marker.upsert(client, body(summary, pr, site, head_now))
    target = site.report(summary.base.commit, summary.head.commit) if site else outcome.url
    status = commit_status(summary, target_url=target or None, context=context)
    sha = status_commit(summary, pr, head_now)
    send = outcome.action != "newer"
    if send:
        client.create_status(
            sha, status.state, status.description, status.target_url, status.context
        )
    return Posted(comment=outcome, status=status, sha=sha, status_sent=send)


import json  # noqa: E402,F401  (doctest)

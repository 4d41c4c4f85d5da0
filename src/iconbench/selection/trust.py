"""Whether a check's request is trusted: decided once, here, from the GitHub event.

A trusted check may write what later checks read (the shared build cache, the history, the
stacks); an untrusted one runs the head read-only beside them, and its results reach the pull
request only through the publishing workflow, which reads them as data (docs/security.md).

- ``pull_request``: trusted when the head is a branch of the repository itself, not a fork's.
- ``issue_comment`` (``/benchmark``): trusted when its author may write to the repository:
  ``author_association`` OWNER, MEMBER or COLLABORATOR, else the collaborators API says so
  (``may_write``). An untrusted comment starts nothing; :attr:`Trust.answer` is the bot's one
  line on how a maintainer starts the check.
- ``workflow_dispatch``: GitHub lets only accounts with write access start one: trusted.
- ``repository_dispatch`` of ``benchmark-pr``: only from :data:`REPOSITORIES`; the payload
  names who asked (``sender``) and whether the head is a fork's (``fork``; missing: a fork).
  Trusted when the head is not a fork's: the sending workflow sends a fork's head only on a
  trusted comment, and says so with ``approved_by``.

>>> of_event("pull_request", {"pull_request": {"user": {"login": "x"},
...     "head": {"repo": {"full_name": "x/iconbench"}},
...     "base": {"repo": {"full_name": "C2SM/iconbench"}}}}, "C2SM/iconbench")
Trust(trusted=False, sender='x', fork=True, reason="the head is a fork's (x/iconbench)", answer='')
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from typing import Any

from iconbench.errors import IconbenchError

#: The repositories whose pull requests are checked (by ``repository_dispatch``), and their
#: component.
REPOSITORIES = {
    "GridTools/gt4py": "gt4py",
    "spcl/dace": "dace",
    "C2SM/icon4py": "icon4py",
}
#: ``author_association`` values of accounts that may write to the repository.
WRITERS = frozenset({"OWNER", "MEMBER", "COLLABORATOR"})
_LOGIN = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?$")


@dataclasses.dataclass(frozen=True)
class Trust:
    """Who asked, whether the head is a fork's, and whether the check is trusted (and why)."""

    trusted: bool
    sender: str
    fork: bool
    reason: str
    #: the bot's one-line answer to an untrusted ``/benchmark`` comment (else empty)
    answer: str = ""


def login(value: Any, what: str) -> str:
    """A GitHub login, or one line saying what is wrong with it."""
    text = str(value or "")
    if not _LOGIN.match(text):
        raise IconbenchError(f"{what} {text[:60]!r} is not a GitHub login")
    return text


def answer_to(author: str) -> str:
    """The bot's one line to an author whose ``/benchmark`` does not start a check."""
    return (
        f"@{author}: a `/benchmark` comment starts the check only from an account with write "
        "access to this repository; a maintainer can start it with `/benchmark` after reading "
        "the change."
    )


def of_event(
    name: str,
    event: Mapping[str, Any],
    repository: str,
    may_write: Callable[[str], bool] | None = None,
) -> Trust:
    """The trust of one event of the workflow running in ``repository`` (owner/name).

    ``may_write(login)``: the collaborators API, asked only for a comment whose
    ``author_association`` does not already say the author may write.
    """
    if name == "pull_request":
        pr = event["pull_request"]
        head_repo = ((pr.get("head") or {}).get("repo") or {}).get("full_name") or ""
        base_repo = ((pr.get("base") or {}).get("repo") or {}).get("full_name") or repository
        sender = login((pr.get("user") or {}).get("login"), "pull request author")
        if head_repo == base_repo:
            return Trust(True, sender, False, f"the head is a branch of {base_repo}")
        return Trust(False, sender, True, f"the head is a fork's ({head_repo or 'deleted'})")
    if name == "issue_comment":
        comment = event.get("comment") or {}
        author = login((comment.get("user") or {}).get("login"), "comment author")
        association = str(comment.get("author_association") or "NONE")
        if association in WRITERS:
            return Trust(True, author, False, f"{author} is the repository's {association}")
        if may_write is not None and may_write(author):
            return Trust(True, author, False, f"{author} may write (collaborators API)")
        return Trust(
            False,
            author,
            False,
            f"{author} ({association}) may not write to {repository}",
            answer_to(author),
        )
    if name == "workflow_dispatch":
        sender = login((event.get("sender") or {}).get("login"), "workflow_dispatch sender")
        return Trust(True, sender, False, f"{sender} started the workflow (write access)")
    if name == "repository_dispatch":
        payload = event.get("client_payload") or {}
        origin = str(payload.get("repository", ""))
        if origin not in REPOSITORIES:
            raise IconbenchError(
                f"repository_dispatch from {origin[:80]!r}: not one of {', '.join(REPOSITORIES)}"
            )
        sender = login(payload.get("sender"), "repository_dispatch client_payload.sender")
        fork = payload.get("fork") is not False  # a payload that does not say: a fork's
        approved = str(payload.get("approved_by") or "")
        if not fork:
            return Trust(True, sender, False, f"the head is a branch of {origin}")
        if approved:
            who = login(approved, "repository_dispatch client_payload.approved_by")
            return Trust(True, sender, True, f"a fork's head, started by {who} of {origin}")
        return Trust(False, sender, True, f"the head is a fork's of {origin}")
    raise IconbenchError(f"event {name!r} does not start a benchmark check")


def collaborator_may_write(
    repository: str, author: str, token: str, api_url: str | None = None
) -> bool:
    """Whether the collaborators API lists ``author`` with push, maintain or admin rights.

    ``api_url``: a GitHub Enterprise web address (``https://github.example.org``); its API is
    under ``/api/v3``.
    """
    import github3

    owner, _, name = repository.partition("/")
    github = (
        github3.enterprise_login(token=token, url=api_url)
        if api_url
        else github3.login(token=token)
    )
    repo = github.repository(owner, name)
    for collaborator in repo.collaborators():
        if collaborator.login.lower() == author.lower():
            rights = collaborator.permissions or {}
            return any(rights.get(key) for key in ("push", "maintain", "admin"))
    return False

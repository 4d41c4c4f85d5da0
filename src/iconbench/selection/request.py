"""What a GitHub event asks the pull-request check to do.

Events that start a check (``.github/workflows/benchmark-pr.yml``, docs/ci.md):

- ``pull_request`` on iconbench itself: component ``iconbench``, base and head of the PR;
- ``workflow_dispatch`` with inputs ``pr``, ``base``, ``head`` (``full``): what a trusted
  ``/benchmark`` comment starts (``.github/workflows/benchmark-comment.yml``);
- ``repository_dispatch`` of type ``benchmark-pr`` sent by gt4py, dace or icon4py (their own
  small workflow, docs/ci.md) with ``client_payload`` ``{"repository": "GridTools/gt4py",
  "pr": 1234, "base": "<sha>", "head": "<sha>", "full": false, "sender": "<login>",
  "fork": false}``.

An ``issue_comment`` starting with ``/benchmark`` on a pull request (``/benchmark full`` runs
everything) is a request too: the comment workflow reads it, never the code, and starts the
check by ``workflow_dispatch`` only when it is trusted; the PR's refs are looked up then
(``gh pr view``). Whether a request is trusted is :mod:`iconbench.selection.trust`'s to say.

``python -m iconbench.selection.request EVENT_NAME EVENT_FILE REPOSITORY`` prints
``key=value`` lines for ``$GITHUB_OUTPUT``; with ``GH_TOKEN`` (or ``GITHUB_TOKEN``) in its
environment it asks the collaborators API about a comment's author whose association does
not say they may write.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import sys
from collections.abc import Callable, Mapping
from typing import Any

from iconbench.errors import IconbenchError
from iconbench.selection.trust import REPOSITORIES, Trust, collaborator_may_write, of_event

_SHA_OR_REF = re.compile(r"^[A-Za-z0-9._/-]{1,200}$")


@dataclasses.dataclass(frozen=True)
class Request:
    """One check to run (``run`` false: the event asks for none, e.g. another comment)."""

    run: bool
    component: str = ""
    repository: str = ""
    pr: int = 0
    base: str = ""
    head: str = ""
    full: bool = False
    #: may this check write what later checks read (iconbench.selection.trust)
    trusted: bool = False
    #: who asked, and whether the head is a fork's
    sender: str = ""
    fork: bool = False
    #: the bot's one line to an untrusted ``/benchmark`` comment
    answer: str = ""

    def outputs(self) -> str:
        """``key=value`` lines for ``$GITHUB_OUTPUT``.

        >>> print(Request(True, "gt4py", "GridTools/gt4py", 7, "a", "b").outputs())
        run=true
        component=gt4py
        repository=GridTools/gt4py
        pr=7
        base=a
        head=b
        full=false
        trusted=false
        sender=
        fork=false
        answer=
        """
        values = dataclasses.asdict(self)
        return "\n".join(
            f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in values.items()
        )


def _ref(value: Any, what: str) -> str:
    text = str(value or "")
    if not _SHA_OR_REF.match(text):
        raise IconbenchError(f"{what} {text!r} is not a commit or branch name")
    return text


def _number(value: Any, what: str) -> int:
    try:
        number = int(str(value or 0))
    except ValueError:
        raise IconbenchError(f"{what} {str(value)[:40]!r} is not a pull request number") from None
    if not 0 <= number < 10**9:
        raise IconbenchError(f"{what} {number} is not a pull request number")
    return number


def from_event(
    name: str,
    event: Mapping[str, Any],
    repository: str,
    may_write: Callable[[str], bool] | None = None,
) -> Request:
    """The request of one event of the workflow running in ``repository`` (owner/name).

    >>> member = {"user": {"login": "m"}, "author_association": "MEMBER"}
    >>> r = from_event("issue_comment", {"issue": {"number": 5, "pull_request": {}},
    ...                "comment": {"body": "/benchmark full", **member}}, "C2SM/iconbench")
    >>> r.full, r.trusted
    (True, True)
    >>> from_event("issue_comment", {"issue": {"number": 5}, "comment": {"body": "lgtm"}},
    ...            "C2SM/iconbench").run
    False
    >>> r = from_event("repository_dispatch", {"client_payload": {"repository": "spcl/dace",
    ...                "pr": 9, "base": "main", "head": "abc123", "sender": "a", "fork": False}},
    ...                "C2SM/iconbench")
    >>> r.component, r.pr, r.head, r.trusted
    ('dace', 9, 'abc123', True)
    """
    if name == "issue_comment":
        body = ((event.get("comment") or {}).get("body") or "").strip()
        issue = event.get("issue") or {}
        if "pull_request" not in issue or not body.startswith("/benchmark"):
            return Request(False)
        trust = of_event(name, event, repository, may_write)
        words = body.split()
        return _request(
            trust.trusted,
            "iconbench",
            repository,
            _number(issue.get("number"), "issue"),
            "",
            "",
            full=len(words) > 1 and words[1] == "full",
            trust=trust,
        )
    trust = of_event(name, event, repository, may_write)
    if name == "pull_request":
        pr = event["pull_request"]
        return _request(
            True,
            "iconbench",
            repository,
            _number(pr.get("number"), "pull request"),
            _ref(pr["base"]["sha"], "base"),
            _ref(pr["head"]["sha"], "head"),
            trust=trust,
        )
    if name == "workflow_dispatch":
        inputs = event.get("inputs") or {}
        return _request(
            True,
            "iconbench",
            repository,
            _number(inputs.get("pr"), "inputs.pr"),
            _ref(inputs.get("base"), "base"),
            _ref(inputs.get("head"), "head"),
            full=str(inputs.get("full", "false")).lower() == "true",
            trust=trust,
        )
    payload = event.get("client_payload") or {}  # repository_dispatch (of_event checked it)
    origin = str(payload["repository"])
    return _request(
        True,
        REPOSITORIES[origin],
        origin,
        _number(payload.get("pr"), "client_payload.pr"),
        _ref(payload.get("base"), "base"),
        _ref(payload.get("head"), "head"),
        full=payload.get("full") is True,
        trust=trust,
    )


def _request(  # noqa: PLR0917
    run: bool,
    component: str,
    repository: str,
    pr: int,
    base: str,
    head: str,
    *,
    full: bool = False,
    trust: Trust,
) -> Request:
    return Request(
        run, component, repository, pr, base, head, full,
        trusted=trust.trusted, sender=trust.sender, fork=trust.fork, answer=trust.answer,
    )  # fmt: skip


def _may_write(repository: str) -> Callable[[str], bool] | None:
    """The collaborators API with the workflow's token, when it has one."""
    token = os.environ.get("GH_TOKEN") or os.environ.get("GITHUB_TOKEN")
    if not token:
        return None
    server = os.environ.get("GITHUB_SERVER_URL", "https://github.com")
    enterprise = None if server.rstrip("/") == "https://github.com" else server
    return lambda author: collaborator_may_write(repository, author, token, enterprise)


if __name__ == "__main__":
    try:
        with open(sys.argv[2], encoding="utf-8") as handle:
            event = json.load(handle)
        print(from_event(sys.argv[1], event, sys.argv[3], _may_write(sys.argv[3])).outputs())
    except (IconbenchError, OSError, ValueError, KeyError, IndexError, TypeError) as error:
        print(f"request: {error}", file=sys.stderr)
        sys.exit(2)

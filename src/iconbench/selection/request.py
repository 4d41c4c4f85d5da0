"""What a GitHub event asks the pull-request check to do.

Events that start a check (``.github/workflows/benchmark-pr.yml``, docs/ci-pull-requests.md):

- ``pull_request`` on iconbench itself: component ``iconbench``, base and head of the PR;
- ``workflow_dispatch`` with inputs ``pr``, ``base``, ``head`` (``full``): what a trusted
  ``/benchmark`` comment starts (``.github/workflows/benchmark-comment.yml``);
- ``repository_dispatch`` of type ``benchmark-pr`` sent by gt4py, dace or icon4py (their own
  small workflow, docs/ci-pull-requests.md) with ``client_payload``
  ``{"repository": "GridTools/gt4py", "pr": 1234, "base": "<sha>", "head": "<sha>",
  "full": false, "sender": "<login>", "fork": false}``.

An ``issue_comment`` starting with ``/benchmark`` on a pull request (``/benchmark full`` runs
everything) is a request too: the comment workflow reads it, never the code, and starts the
check by ``workflow_dispatch`` only when it is trusted; the PR's refs are looked up then
(``gh pr view``). Whether a request is trusted is :mod:`iconbench.selection.trust`'s to say.

``python -m iconbench.selection.request workflow_run EVENT_FILE REPOSITORY REQUEST_FILE``
is the publishing job's: what a finished run measured, and its trust (:func:`from_workflow_run`).
``python -m iconbench.selection.request EVENT_NAME EVENT_FILE REPOSITORY`` prints
``key=value`` lines for ``$GITHUB_OUTPUT``; with ``GH_TOKEN`` (or ``GITHUB_TOKEN``) in its
environment it asks the collaborators API about a comment's author whose association does
not say they may write.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
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


_COMPONENTS = frozenset({"iconbench", *REPOSITORIES.values()})


def parse_outputs(text: str) -> dict[str, str]:
    """The ``key=value`` lines of :meth:`Request.outputs` (the request artifact), checked."""
    fields = {f.name for f in dataclasses.fields(Request)}
    values = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if not sep or key not in fields or key in values:
            raise IconbenchError(f"request artifact: line {line[:60]!r} is not one of its fields")
        values[key] = value
    return values


def from_workflow_run(
    event: Mapping[str, Any],
    recorded: str,
    repository: str,
    pull_head: Callable[[int], str] | None = None,
) -> Request:
    """What the publishing job posts for a finished measuring run, and whether it is trusted.

    ``event``: the ``workflow_run`` event (GitHub's own account of the run: which event
    started it, its head commit, the head's repository); ``recorded``: the request the run's
    ``request`` job recorded. A run started by ``pull_request`` ran the head's own workflow
    file, so its record is data: its trust comes from the event alone (a fork's head: not
    trusted), its head must be the event's, and ``pull_head(pr)`` (the pull request's head as
    GitHub has it) must be that head too. A dispatched run ran the default branch's workflow,
    whose ``request`` job read the dispatch before any code under test ran: its record holds.
    """
    run = event.get("workflow_run") or {}
    values = parse_outputs(recorded)
    if values.get("run") != "true":
        return Request(False)
    component = values.get("component", "")
    origin = values.get("repository", "")
    if component not in _COMPONENTS or origin not in {repository, *REPOSITORIES}:
        raise IconbenchError(f"request artifact: {component!r} of {origin!r} is not checked here")
    pr = _number(values.get("pr"), "request artifact: pr")
    head = _ref(values.get("head"), "head")
    base = _ref(values.get("base"), "base")
    started_by = str(run.get("event", ""))
    if started_by == "pull_request":
        head_sha = str(run.get("head_sha", ""))
        own = (run.get("repository") or {}).get("full_name") or repository
        fork_of = (run.get("head_repository") or {}).get("full_name") or ""
        if origin != repository or head != head_sha:
            raise IconbenchError(
                f"request artifact: {origin}@{head[:12]} is not the run's head "
                f"{repository}@{head_sha[:12]}"
            )
        if pull_head is None or pull_head(pr) != head_sha:
            raise IconbenchError(f"pull request #{pr}'s head is not {head_sha[:12]}: not posted")
        return Request(
            True, component, origin, pr, base, head, values.get("full") == "true",
            trusted=fork_of == own, sender=values.get("sender", ""), fork=fork_of != own,
        )  # fmt: skip
    if started_by in {"workflow_dispatch", "repository_dispatch"}:
        return Request(
            True, component, origin, pr, base, head, values.get("full") == "true",
            trusted=values.get("trusted") == "true", sender=values.get("sender", ""),
            fork=values.get("fork") == "true",
        )  # fmt: skip
    raise IconbenchError(f"a run started by {started_by!r} is not a benchmark check")


def _pull_head(repository: str) -> Callable[[int], str] | None:
    """A pull request's head commit as GitHub has it, with the workflow's token."""
    token = os.environ.get("GH_TOKEN") or os.environ.get("GITHUB_TOKEN")
    if not token:
        return None
    server = os.environ.get("GITHUB_SERVER_URL", "https://github.com").rstrip("/")

    def head(pr: int) -> str:
        import github3

        github = (
            github3.login(token=token)
            if server == "https://github.com"
            else github3.enterprise_login(token=token, url=server)
        )
        owner, _, name = repository.partition("/")
        return str(github.pull_request(owner, name, pr).head.sha)

    return head


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
        if sys.argv[1] == "workflow_run":  # ... EVENT_FILE REPOSITORY REQUEST_FILE
            recorded = pathlib.Path(sys.argv[4]).read_text(encoding="utf-8")[:10_000]
            found = from_workflow_run(event, recorded, sys.argv[3], _pull_head(sys.argv[3]))
        else:
            found = from_event(sys.argv[1], event, sys.argv[3], _may_write(sys.argv[3]))
        print(found.outputs())
    except (IconbenchError, OSError, ValueError, KeyError, IndexError, TypeError) as error:
        print(f"request: {error}", file=sys.stderr)
        sys.exit(2)

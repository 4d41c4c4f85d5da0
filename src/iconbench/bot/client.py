"""The GitHub REST calls the bot makes, over github3.py, with bounded retries and one-line errors.

The operations, all on one pull request: who the token belongs to, read the pull request
(its head commit), list the issue comments (every page), read, create, edit and delete a
comment, and create a commit status. Each goes through :meth:`GitHubClient._call`, which
retries rate limits, 5xx answers and dropped connections as
:class:`~iconbench.bot.retry.RetryPolicy` allows (each retry is logged as a warning: CI logs
show it) and turns any final failure into an :class:`~iconbench.errors.IconbenchError` that
names the repository, the pull request and what the bot was doing, e.g.::

    GitHub answered 404 Not Found for GridTools/gt4py#1234 while reading the pull request: ...

What GitHub said is cut to one short line (:func:`one_line`: an HTML error page becomes its
title). A TLS certificate the runner does not trust is said as such and not retried.

Comments are read as plain JSON, not as github3.py objects: a comment of a deleted account has
``"user": null``, which is a comment like any other here (it is nobody's, so never the bot's).
The token is handed to github3.py once and is masked in every message (``token.Redaction``).
"""

from __future__ import annotations

import dataclasses
import html
import logging
import re
import time
from collections.abc import Callable
from typing import Any, TypeVar

from iconbench.bot.retry import RetryPolicy, rate_limited, reset_time
from iconbench.bot.target import PullRequest
from iconbench.bot.token import ENVIRONMENT, Redaction, Token
from iconbench.errors import IconbenchError

LOG = logging.getLogger(__name__)
T = TypeVar("T")

#: Loggers that see requests; the token is masked in all of them while a client lives.
_LOGGERS = ("github3", "urllib3", "requests", "iconbench")
#: The most characters of what GitHub said that an error line quotes.
SAID_LIMIT = 120
_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_SCRIPTS = re.compile(r"<(script|style)[^>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]*>")


def one_line(text: object, limit: int = SAID_LIMIT) -> str:
    r"""What a server said, as one short line: an HTML page becomes its title (or its text).

    >>> one_line(b"<html><head><title>502 Bad Gateway</title></head><body>...</body></html>")
    '502 Bad Gateway'
    >>> one_line("<p>Unicorn!\n  <b>No server</b> is currently available</p>")
    'Unicorn! No server is currently available'
    >>> one_line("x" * 200, limit=10)
    'xxxxxxxxx…'
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    line = str(text)
    if "<" in line and ">" in line:
        title = _TITLE.search(line)
        line = title.group(1) if title else _TAG.sub(" ", _SCRIPTS.sub(" ", line))
        line = html.unescape(line)
    line = " ".join(line.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


@dataclasses.dataclass(frozen=True)
class Comment:
    """An issue comment as the bot needs it: id (creation order), author, body."""

    id: int
    #: the author's login; empty for a deleted account (GitHub's ``"user": null``)
    author: str
    body: str
    created_at: str
    url: str

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> Comment:
        """From GitHub's JSON, whatever the author (``user`` may be null)."""
        user = raw.get("user")
        return cls(
            id=int(raw["id"]),
            author=str(user.get("login") or "") if isinstance(user, dict) else "",
            body=str(raw.get("body") or ""),
            created_at=str(raw.get("created_at") or ""),
            url=str(raw.get("html_url") or ""),
        )


class GitHubClient:
    """github3.py bound to one pull request, with retries and errors that name it."""

    def __init__(
        self,
        pr: PullRequest,
        token: Token,
        *,
        policy: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        timeout_s: float = 30.0,
    ) -> None:
        import github3

        self.pr = pr
        self.policy = policy or RetryPolicy()
        self._sleep = sleep
        self._redaction = Redaction(token)
        for name in _LOGGERS:
            logging.getLogger(name).addFilter(self._redaction)
        if pr.enterprise:
            self._github = github3.enterprise_login(token=token.reveal(), url=pr.web_url)
        else:
            self._github = github3.login(token=token.reveal())
        session = self._github.session
        session.default_connect_timeout = session.default_read_timeout = timeout_s
        self._repository: Any = None
        self._issue: Any = None
        self._raw: dict[int, dict[str, Any]] = {}
        #: Every (method, attempt, outcome) the client made, for the caller's log line.
        self.attempts: list[str] = []

    def close(self) -> None:
        self._github.session.close()
        for name in _LOGGERS:
            logging.getLogger(name).removeFilter(self._redaction)

    def __enter__(self) -> GitHubClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"GitHubClient({self.pr!r}, api={self.pr.api_url!r})"

    # -- the operations --------------------------------------------------------------------

    def login(self) -> str:
        """The login of the token's account (``GET /user``), whose comments are the bot's.

        A GitHub App's installation token (also Actions' ``GITHUB_TOKEN``) may not read
        ``/user``: then the caller has to name the app's account (``--bot-login``).
        """
        try:
            me = self._call("finding out whose token it is (GET /user)", self._github.me)
        except IconbenchError as error:
            if "GitHub answered 403" not in str(error):
                raise
            raise IconbenchError(
                "GitHub does not say whose token it is (GET /user: 403): pass --bot-login "
                "'github-actions[bot]' (Actions' GITHUB_TOKEN) or '<app-slug>[bot]' (a GitHub "
                "App's token), or set ICONBENCH_BOT_LOGIN"
            ) from None
        login = getattr(me, "login", None)
        if not isinstance(login, str) or not login:
            raise IconbenchError(
                f"GET /user on {self.pr.api_url} named no account: pass --bot-login"
            )
        return str(login)

    def head_sha(self) -> str:
        """The pull request's current head commit (also checks that it is a pull request)."""
        pull = self._call(
            "reading the pull request",
            lambda: self._github.pull_request(self.pr.owner, self.pr.name, self.pr.number),
        )
        if pull is None:
            raise self._not_found("reading the pull request")
        return str(pull.head.sha)

    def comments(self) -> list[Comment]:
        """All comments of the pull request, oldest first (every page)."""
        from github3.structs import GitHubIterator

        issue = self._the_issue()

        def listing() -> list[dict[str, Any]]:
            pages = GitHubIterator(-1, issue.comments_url, dict, issue)
            return [raw for raw in pages if isinstance(raw, dict) and "id" in raw]

        found = self._call("listing the comments", listing)
        self._raw.update({int(raw["id"]): raw for raw in found})
        return sorted((Comment.from_json(raw) for raw in found), key=lambda c: c.id)

    def comment(self, comment_id: int) -> Comment | None:
        """One comment, read directly (GitHub lists a new comment late; this is not late)."""
        import github3

        repository = self._the_repository()
        url = f"{repository.url}/issues/comments/{comment_id}"
        try:
            raw = self._call(
                f"reading comment {comment_id}",
                lambda: repository._json(repository._get(url), 200),
                raw=True,
            )
        except github3.exceptions.NotFoundError:
            return None
        if not isinstance(raw, dict) or "id" not in raw:
            return None
        self._raw[int(raw["id"])] = raw
        return Comment.from_json(raw)

    def create_comment(self, body: str) -> Comment:
        issue = self._the_issue()
        created = self._call("creating the comment", lambda: issue.create_comment(body))
        if created is None:
            raise IconbenchError(f"GitHub created no comment on {self.pr!r} (empty answer)")
        raw = created.as_dict()
        self._raw[int(raw["id"])] = raw
        return Comment.from_json(raw)

    def edit_comment(self, comment_id: int, body: str) -> bool:
        """Replace a comment's body; False when it is gone (deleted since it was listed)."""
        import github3

        target = self._object(comment_id)
        try:
            return bool(
                self._call(f"editing comment {comment_id}", lambda: target.edit(body), raw=True)
            )
        except github3.exceptions.NotFoundError:
            return False

    def delete_comment(self, comment_id: int) -> bool:
        """Delete a comment; False when it is already gone (another run deleted it)."""
        target = self._object(comment_id)
        return bool(self._call(f"deleting comment {comment_id}", target.delete))

    def create_status(
        self, sha: str, state: str, description: str, target_url: str | None, context: str
    ) -> None:
        repository = self._the_repository()
        self._call(
            f"setting the commit status {context} on {sha[:12]}",
            lambda: repository.create_status(
                sha, state, target_url=target_url, description=description, context=context
            ),
        )

    # -- plumbing --------------------------------------------------------------------------

    def _the_repository(self) -> Any:
        if self._repository is None:
            self._repository = self._call(
                "reading the repository",
                lambda: self._github.repository(self.pr.owner, self.pr.name),
            )
            if self._repository is None:
                raise self._not_found("reading the repository")
        return self._repository

    def _the_issue(self) -> Any:
        if self._issue is None:
            repository = self._the_repository()
            self._issue = self._call(
                "reading the pull request's conversation", lambda: repository.issue(self.pr.number)
            )
            if self._issue is None:
                raise self._not_found("reading the pull request's conversation")
        return self._issue

    def _object(self, comment_id: int) -> Any:
        """A github3.py comment to edit or delete (only ever one the bot wrote: it has a user)."""
        from github3.issues.comment import IssueComment

        if comment_id not in self._raw:
            self.comment(comment_id)
        raw = self._raw.get(comment_id)
        if raw is None:
            raise IconbenchError(f"comment {comment_id} is not on {self.pr!r} (any more)")
        return IssueComment(raw, self._github)

    def _not_found(self, what: str) -> IconbenchError:
        return IconbenchError(
            f"GitHub found no {self.pr.repo} pull request #{self.pr.number} ({self.pr.api_url}) "
            f"while {what}: check --repo, --pr and --github-url, and that the token may read "
            "the repository (private repositories answer 404 to tokens without access)"
        )

    def _call(self, what: str, operation: Callable[[], T], raw: bool = False) -> T:
        """Run ``operation``; retry what the policy retries; one line for the rest.

        ``raw``: let :class:`github3.exceptions.NotFoundError` through to the caller.
        """
        import github3

        attempt = 0
        while True:
            attempt += 1
            try:
                result = operation()
                self.attempts.append(f"{what}: ok (try {attempt})")
                return result
            except github3.exceptions.NotFoundError:
                if raw:
                    raise
                self.attempts.append(f"{what}: 404")
                raise self._not_found(what) from None
            except github3.exceptions.GitHubError as error:
                status = int(error.code or 0)
                headers = dict(error.response.headers) if error.response is not None else {}
                wait = self.policy.wait(status, headers, attempt)
                self.attempts.append(f"{what}: {status} (try {attempt})")
                if wait is None:
                    raise self._failure(what, error, status, headers, attempt) from None
                said = self._said(error, status)
            except (github3.exceptions.TransportError, OSError) as error:
                cause = getattr(error, "exception", error)
                tls = _tls_problem(cause)
                if tls is not None:
                    self.attempts.append(f"{what}: TLS ({tls})")
                    raise IconbenchError(
                        f"GitHub at {self.pr.api_url} presented a TLS certificate this runner "
                        f"does not accept ({tls}) while {what} for {self.pr!r}: not retried; "
                        "set REQUESTS_CA_BUNDLE to the server's CA bundle (GitHub Enterprise "
                        "with its own CA) or check --github-url"
                    ) from None
                wait = self.policy.wait(599, {}, attempt)
                self.attempts.append(f"{what}: no answer (try {attempt})")
                if wait is None:
                    raise IconbenchError(
                        f"cannot reach GitHub at {self.pr.api_url} for {self.pr!r} while {what} "
                        f"({type(cause).__name__}, {attempt} tries): "
                        "check --github-url and the runner's network"
                    ) from None
                said = f"no answer ({type(cause).__name__})"
            LOG.warning(
                "GitHub: %s while %s on %r; try %d of %d in %.1f s",
                said,
                what,
                self.pr,
                attempt + 1,
                self.policy.attempts,
                wait,
            )
            self._sleep(wait)

    def _said(self, error: Any, status: int) -> str:
        """``STATUS message (details)`` as one short line, token masked."""
        message = one_line(self._redaction.redact(one_line(error.msg or "", 10**6))).rstrip(".")
        message = f"{status} {message.removeprefix(f'{status} ')}"  # a page titled "502 ..."
        details = "; ".join(
            str(e.get("message") or e.get("code") or e)
            for e in (error.errors or [])
            if isinstance(e, dict)
        )
        if details:
            message += f" ({self._redaction.redact(details)})"
        return one_line(message)

    def _failure(
        self, what: str, error: Any, status: int, headers: dict[str, str], attempts: int
    ) -> IconbenchError:
        where = f"{self.pr.repo} pull request #{self.pr.number}"
        said = self._said(error, status)
        if status == 401:
            return IconbenchError(
                f"GitHub refused the token ({said}) for {where} while {what}: set "
                f"{' or '.join(ENVIRONMENT)} to a valid token"
            )
        if status in {403, 429} and (status == 429 or rate_limited(headers)):
            back = reset_time(headers)
            return IconbenchError(
                f"GitHub's rate limit stopped {what} on {where} after {attempts} tries ({said})"
                + (f"; the quota returns at {back}" if back else "")
                + ": run the command again then"
            )
        if status == 403:
            return IconbenchError(
                f"GitHub answered {said} for {where} while {what}: the token may not do that; "
                "give it write access to issues/pull requests and commit statuses"
            )
        if status == 422:
            return IconbenchError(
                f"GitHub rejected {what} on {where} ({said}): check that the commit belongs "
                "to the repository and the text is within GitHub's limits"
            )
        if status >= 500:
            return IconbenchError(
                f"GitHub answered {said} for {where} while {what}, {attempts} tries: "
                "GitHub is having trouble; run the command again later"
            )
        return IconbenchError(f"GitHub answered {said} for {where} while {what}")


def _tls_problem(error: BaseException) -> str | None:
    """The reason of a TLS failure (``certificate verify failed: self-signed ...``), else None."""
    import ssl

    import requests

    seen: set[int] = set()
    stack: list[object] = [error]
    while stack:
        item = stack.pop()
        if not isinstance(item, BaseException) or id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, ssl.SSLCertVerificationError):
            return one_line(f"certificate verify failed: {item.verify_message}", 100)
        stack.extend([item.__cause__, item.__context__, *item.args])
        reason = getattr(item, "reason", None)
        if isinstance(reason, BaseException):
            stack.append(reason)
    if isinstance(error, requests.exceptions.SSLError):
        text = str(error)
        found = re.search(r"CERTIFICATE_VERIFY_FAILED\]\s*([^(')\"]+)", text)
        return one_line(found.group(1) if found else "TLS handshake failed", 100)
    return None

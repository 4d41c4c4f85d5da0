"""The GitHub REST calls the bot makes, over github3.py, with bounded retries and one-line errors.

Six operations, all on one pull request: read the repository and the pull request (its head
commit), list the issue comments (every page), create, edit and delete a comment, and create
a commit status. Each goes through :meth:`GitHubClient._call`, which retries rate limits,
5xx answers and dropped connections as :class:`~iconbench.bot.retry.RetryPolicy` allows and
turns any final failure into an :class:`~iconbench.errors.IconbenchError` that names the
repository, the pull request and what the bot was doing, e.g.::

    GitHub answered 404 Not Found for GridTools/gt4py#1234 while reading the pull request: ...

The token is handed to github3.py once and is masked in every message (``token.Redaction``).
"""

from __future__ import annotations

import dataclasses
import logging
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


@dataclasses.dataclass(frozen=True)
class Comment:
    """An issue comment as the bot needs it: id (creation order), author, body."""

    id: int
    author: str
    body: str
    created_at: str
    url: str


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
        self._objects: dict[int, Any] = {}
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
        issue = self._the_issue()

        def listing() -> list[Any]:
            return list(issue.comments())

        found = self._call("listing the comments", listing)
        self._objects.update({c.id: c for c in found})
        return sorted((self._comment(c) for c in found), key=lambda c: c.id)

    def create_comment(self, body: str) -> Comment:
        issue = self._the_issue()
        created = self._call("creating the comment", lambda: issue.create_comment(body))
        self._objects[created.id] = created
        return self._comment(created)

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
            f"setting the commit status on {sha[:12]}",
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
        if comment_id not in self._objects:
            repository = self._the_repository()
            found = self._call(
                f"reading comment {comment_id}", lambda: repository.issue_comment(comment_id)
            )
            if found is None:
                raise self._not_found(f"reading comment {comment_id}")
            self._objects[comment_id] = found
        return self._objects[comment_id]

    @staticmethod
    def _comment(raw: Any) -> Comment:
        return Comment(
            id=int(raw.id),
            author=str(getattr(raw.user, "login", "") or ""),
            body=raw.body or "",
            created_at=str(raw.created_at or ""),
            url=str(raw.html_url or ""),
        )

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
            except (github3.exceptions.TransportError, OSError) as error:
                wait = self.policy.wait(599, {}, attempt)
                self.attempts.append(f"{what}: no answer (try {attempt})")
                if wait is None:
                    raise IconbenchError(
                        f"cannot reach GitHub at {self.pr.api_url} for {self.pr!r} while {what} "
                        f"({type(getattr(error, 'exception', error)).__name__}, {attempt} tries): "
                        "check --github-url and the runner's network"
                    ) from None
            LOG.info("%s on %r: waiting %.1f s before try %d", what, self.pr, wait, attempt + 1)
            self._sleep(wait)

    def _failure(
        self, what: str, error: Any, status: int, headers: dict[str, str], attempts: int
    ) -> IconbenchError:
        message = self._redaction.redact(str(error.msg or "")).strip().rstrip(".")
        details = "; ".join(
            self._redaction.redact(str(e.get("message") or e.get("code") or e))
            for e in (error.errors or [])
            if isinstance(e, dict)
        )
        where = f"{self.pr.repo} pull request #{self.pr.number}"
        said = f"{status} {message}" + (f" ({details})" if details else "")
        if status == 401:
            return IconbenchError(
                f"GitHub refused the token (401 {message}) for {where} while {what}: set "
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
                f"GitHub answered {said} for {where} while {what}: the token may not write "
                "there; give it write access to issues/pull requests and commit statuses"
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

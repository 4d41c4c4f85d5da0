"""A small GitHub REST server on 127.0.0.1: the endpoints github3.py calls for the bot.

Endpoints (GitHub Enterprise layout, under ``/api/v3``): the token's user (``/user``), the
repository, its collaborators (one page, with their permissions), an issue, a pull request,
the issue's comments (list with ``Link`` pagination, at most 30 per page; create), one
comment (get, edit, delete) and commit statuses (create).
Every answer carries the rate-limit headers. Like GitHub it

* knows whose token it is (:attr:`State.accounts`): a comment is written by the token's
  account (its ``user.login``), and editing or deleting another account's comment is
  answered 403; an app's token (``reads_user=False``) gets 403 from ``/user``;
* refuses a comment body over 65 536 characters and a status description over 140 (422);
* lists a new comment only ``list_lag_s`` seconds after it was created (reading it by id is
  not late), as GitHub's listing lags behind a create;
* may hold comments of deleted accounts (``"user": null``).

Requests are recorded (method, path, Authorization header) so tests can assert that every
request the bot made reached this server and carried the token. ``fail`` queues answers to
give instead of the real one (status, headers, JSON message or an HTML page) for the next
matching requests. ``FakeGitHub(state, tls=context)`` serves HTTPS with that context.
"""

from __future__ import annotations

import dataclasses
import json
import re
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclasses.dataclass
class Failure:
    method: str
    path_regex: str
    status: int
    headers: dict[str, str]
    body: dict[str, Any] | str
    times: int = 1


@dataclasses.dataclass(frozen=True)
class Account:
    """Whose a token is: a user (reads ``/user``) or a GitHub App's bot account (does not)."""

    login: str
    reads_user: bool = True


#: GitHub's limits
BODY_LIMIT = 65536
DESCRIPTION_LIMIT = 140


@dataclasses.dataclass
class State:
    owner: str = "GridTools"
    repo: str = "gt4py"
    number: int = 1234
    head_sha: str = "2db0abe231bc1d9c38138e7cea1b6198285cce02"
    token: str = ""
    #: token -> account; the ``token`` above is ``iconbench-bot``'s unless listed here
    accounts: dict[str, Account] = dataclasses.field(default_factory=dict)
    per_page: int = 30
    #: seconds after its creation that a new comment shows up in the listing
    list_lag_s: float = 0.0
    comments: dict[int, dict[str, Any]] = dataclasses.field(default_factory=dict)
    statuses: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    requests: list[tuple[str, str, str]] = dataclasses.field(default_factory=list)
    failures: list[Failure] = dataclasses.field(default_factory=list)
    next_id: int = 1000
    #: login -> the repository permissions GitHub lists for a collaborator (``/collaborators``)
    collaborators: dict[str, dict[str, bool]] = dataclasses.field(default_factory=dict)
    #: seconds a create takes (lets two runs interleave in the race test)
    create_delay_s: float = 0.0
    lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)

    def account(self, authorization: str | None) -> Account | None:
        """The account of an ``Authorization: token …`` header; None: a bad token."""
        token = (authorization or "").removeprefix("token ")
        if token in self.accounts:
            return self.accounts[token]
        return Account("iconbench-bot") if token and token == self.token else None

    def add_comment(self, body: str, login: str | None, *, listed: bool = True) -> int:
        """A comment as if ``login`` (None: a deleted account) had written it; its id."""
        with self.lock:
            self.next_id += 1
            stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            self.comments[self.next_id] = {
                "id": self.next_id,
                "body": body,
                "login": login,
                "created_at": stamp,
                "updated_at": stamp,
                "listed_from": time.monotonic() + (0 if listed else self.list_lag_s),
            }
            return self.next_id

    def latest_status(self, sha: str, context: str) -> dict[str, Any] | None:
        """The status GitHub shows for ``context`` on ``sha``: the last one set."""
        found = [s for s in self.statuses if s["sha"] == sha and s["context"] == context]
        return found[-1] if found else None


def _user(base: str, login: str = "iconbench-bot") -> dict[str, Any]:
    keys = (  # noqa: SIM905
        "events_url followers_url following_url gists_url organizations_url "
        "received_events_url repos_url starred_url subscriptions_url"
    ).split()
    return {
        "login": login,
        "id": 1,
        "avatar_url": f"{base}/avatars/{login}",
        "gravatar_id": "",
        "html_url": f"{base}/{login}",
        "type": "Bot",
        "url": f"{base}/api/v3/users/{login}",
        **{k: f"{base}/api/v3/users/{login}/{k[:-4]}" for k in keys},
    }


class Handler(BaseHTTPRequestHandler):
    server: FakeGitHub  # type: ignore[assignment]

    def log_message(self, format: str, *args: Any) -> None:
        pass

    # -- helpers -----------------------------------------------------------------------------
    @property
    def state(self) -> State:
        return self.server.state

    @property
    def base(self) -> str:
        return self.server.url

    @property
    def api(self) -> str:
        s = self.state
        return f"{self.base}/api/v3/repos/{s.owner}/{s.repo}"

    def _send(self, status: int, body: Any = None, headers: dict[str, str] | None = None) -> None:
        page = isinstance(body, str)
        data = b"" if body is None else body.encode() if page else json.dumps(body).encode()
        self.send_response(status)
        kind = "text/html" if page else "application/json"
        self.send_header("Content-Type", f"{kind}; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        merged = {
            "X-RateLimit-Limit": "5000",
            "X-RateLimit-Remaining": "4999",
            "X-RateLimit-Reset": str(int(time.time()) + 3600),
            **(headers or {}),
        }
        for key, value in merged.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _comment(self, c: dict[str, Any]) -> dict[str, Any]:
        s = self.state
        return {
            "id": c["id"],
            "url": f"{self.api}/issues/comments/{c['id']}",
            "html_url": f"{self.base}/{s.owner}/{s.repo}/pull/{s.number}#issuecomment-{c['id']}",
            "issue_url": f"{self.api}/issues/{s.number}",
            "body": c["body"],
            "body_html": "",
            "body_text": c["body"],
            "user": None if _author(c) is None else _user(self.base, str(_author(c))),
            "created_at": c["created_at"],
            "updated_at": c["updated_at"],
            "author_association": "NONE",
        }

    def _repository(self) -> dict[str, Any]:
        s = self.state
        names = (  # noqa: SIM905
            "archive assignees blobs branches collaborators comments commits compare contents "
            "contributors deployments downloads events forks git_commits git_refs git_tags hooks "
            "issue_comment issue_events issues keys labels languages merges milestones "
            "notifications pulls releases stargazers statuses subscribers subscription tags "
            "teams trees"
        ).split()
        repo = {f"{n}_url": f"{self.api}/{n}" for n in names}
        repo.update(
            id=42,
            name=s.repo,
            full_name=f"{s.owner}/{s.repo}",
            owner=_user(self.base, s.owner),
            private=False,
            fork=False,
            description="fake",
            html_url=f"{self.base}/{s.owner}/{s.repo}",
            url=self.api,
            archived=False,
            clone_url="",
            created_at="2020-01-01T00:00:00Z",
            updated_at="2020-01-01T00:00:00Z",
            pushed_at="2020-01-01T00:00:00Z",
            default_branch="main",
            forks_count=0,
            git_url="",
            has_downloads=False,
            has_issues=True,
            has_pages=False,
            has_projects=False,
            has_wiki=False,
            homepage="",
            language="Python",
            mirror_url=None,
            network_count=0,
            open_issues_count=1,
            size=1,
            ssh_url="",
            stargazers_count=0,
            subscribers_count=0,
            svn_url="",
            watchers_count=0,
        )
        return repo

    def _issue(self) -> dict[str, Any]:
        s = self.state
        return {
            "id": 7,
            "number": s.number,
            "url": f"{self.api}/issues/{s.number}",
            "html_url": f"{self.base}/{s.owner}/{s.repo}/pull/{s.number}",
            "comments_url": f"{self.api}/issues/{s.number}/comments",
            "events_url": f"{self.api}/issues/{s.number}/events",
            "labels_url": f"{self.api}/issues/{s.number}/labels{{/name}}",
            "title": "A pull request",
            "body": "",
            "body_html": "",
            "body_text": "",
            "user": _user(self.base, "author"),
            "labels": [],
            "assignee": None,
            "assignees": [],
            "milestone": None,
            "locked": False,
            "state": "open",
            "comments": len(s.comments),
            "created_at": "2026-11-23T10:00:00Z",
            "updated_at": "2026-11-23T10:00:00Z",
            "closed_at": None,
            "closed_by": None,
            "pull_request": {"url": f"{self.api}/pulls/{s.number}"},
        }

    def _pull(self) -> dict[str, Any]:
        s = self.state
        side = {
            "label": f"{s.owner}:topic",
            "ref": "topic",
            "sha": s.head_sha,
            "user": _user(self.base, s.owner),
            "repo": self._repository(),
        }
        return {
            **{k: v for k, v in self._issue().items() if k not in {"labels_url", "events_url"}},
            "issue_url": f"{self.api}/issues/{s.number}",
            "commits_url": f"{self.api}/pulls/{s.number}/commits",
            "review_comments_url": f"{self.api}/pulls/{s.number}/comments",
            "review_comment_url": f"{self.api}/pulls/comments{{/number}}",
            "statuses_url": f"{self.api}/statuses/{s.head_sha}",
            "diff_url": "",
            "patch_url": "",
            "head": side,
            "base": {**side, "ref": "main", "sha": "0" * 40},
            "_links": {},
            "active_lock_reason": None,
            "merge_commit_sha": None,
            "merged_at": None,
            "requested_reviewers": [],
            "requested_teams": [],
            "additions": 10,
            "deletions": 2,
            "author_association": "CONTRIBUTOR",
            "commits": 1,
            "review_comments": 0,
            "draft": False,
            "mergeable": True,
            "mergeable_state": "clean",
            "merged": False,
            "merged_by": None,
        }

    # -- dispatch ----------------------------------------------------------------------------
    def _handle(self, method: str) -> None:
        s = self.state
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        with s.lock:
            s.requests.append((method, self.path, self.headers.get("Authorization", "")))
            for failure in s.failures:
                if (
                    failure.times
                    and failure.method == method
                    and re.search(failure.path_regex, self.path)
                ):
                    failure.times -= 1
                    self._send(failure.status, failure.body, failure.headers)
                    return
        account = s.account(self.headers.get("Authorization"))
        if account is None:
            self._send(401, {"message": "Bad credentials"})
            return
        path, _, query = self.path.partition("?")
        params = dict(p.split("=", 1) for p in query.split("&") if "=" in p)
        if method == "GET" and path == "/api/v3/user":
            if not account.reads_user:
                self._send(403, {"message": "Resource not accessible by integration"})
            else:
                self._send(200, self._me(account.login))
            return
        prefix = f"/api/v3/repos/{s.owner}/{s.repo}"
        if not path.startswith(prefix):
            self._send(404, {"message": "Not Found"})
            return
        rest = path[len(prefix) :]
        if method == "GET" and rest == "":
            self._send(200, self._repository())
        elif method == "GET" and rest == "/collaborators":
            self._send(200, [
                {**_user(self.base, login), "permissions": permissions}
                for login, permissions in sorted(s.collaborators.items())
            ])  # fmt: skip
        elif method == "GET" and rest == f"/issues/{s.number}":
            self._send(200, self._issue())
        elif method == "GET" and rest == f"/pulls/{s.number}":
            self._send(200, self._pull())
        elif rest == f"/issues/{s.number}/comments" and method == "GET":
            self._list(params)
        elif rest == f"/issues/{s.number}/comments" and method == "POST":
            self._create(json.loads(raw), account)
        elif (m := re.fullmatch(r"/issues/comments/(\d+)", rest)) is not None:
            self._one(method, int(m.group(1)), json.loads(raw) if raw else {}, account)
        elif (m := re.fullmatch(r"/statuses/([0-9a-f]{40})", rest)) and method == "POST":
            data = json.loads(raw)
            if data.get("state") not in {"success", "failure", "error", "pending"}:
                self._send(422, {"message": "Validation Failed", "errors": [{"field": "state"}]})
                return
            if len(data.get("description") or "") > DESCRIPTION_LIMIT:
                self._send(422, _too_long("Status", "description", DESCRIPTION_LIMIT))
                return
            with s.lock:
                status = {**data, "sha": m.group(1), "id": len(s.statuses) + 1}
                s.statuses.append(status)
            self._send(
                201,
                {
                    "id": status["id"],
                    "url": f"{self.api}/statuses/{m.group(1)}",
                    "state": data["state"],
                    "description": data.get("description"),
                    "target_url": data.get("target_url"),
                    "context": data.get("context"),
                    "created_at": "2026-11-23T20:00:00Z",
                    "updated_at": "2026-11-23T20:00:00Z",
                    "creator": _user(self.base),
                },
            )
        else:
            self._send(404, {"message": "Not Found"})

    def _list(self, params: dict[str, str]) -> None:
        s = self.state
        per_page = min(int(params.get("per_page", s.per_page)), s.per_page)
        page = int(params.get("page", 1))
        now = time.monotonic()
        with s.lock:
            ordered = [
                s.comments[k]
                for k in sorted(s.comments)
                if s.comments[k].get("listed_from", 0) <= now
            ]
        chunk = ordered[(page - 1) * per_page : page * per_page]
        headers = {}
        last = max(1, -(-len(ordered) // per_page))
        if page < last:
            url = f"{self.api}/issues/{s.number}/comments?per_page={per_page}&page={page + 1}"
            headers["Link"] = f'<{url}>; rel="next"'
        self._send(200, [self._comment(c) for c in chunk], headers)

    def _create(self, data: dict[str, Any], account: Account) -> None:
        s = self.state
        if len(data.get("body", "")) > BODY_LIMIT:
            self._send(422, _too_long("IssueComment", "body", BODY_LIMIT))
            return
        time.sleep(s.create_delay_s)
        cid = s.add_comment(data["body"], account.login, listed=False)
        self._send(201, self._comment(s.comments[cid]))

    def _one(self, method: str, cid: int, data: dict[str, Any], account: Account) -> None:
        s = self.state
        with s.lock:
            c = s.comments.get(cid)
            if c is None:
                self._send(404, {"message": "Not Found"})
                return
            if method == "GET":
                self._send(200, self._comment(c))
                return
            if method in {"PATCH", "DELETE"} and _author(c) != account.login:
                self._send(403, {"message": "Must have admin rights to Repository."})
                return
            if method == "PATCH":
                if len(data.get("body", "")) > BODY_LIMIT:
                    self._send(422, _too_long("IssueComment", "body", BODY_LIMIT))
                    return
                c["body"] = data["body"]
                c["updated_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
                self._send(200, self._comment(c))
            elif method == "DELETE":
                del s.comments[cid]
                self.send_response(204)
                self.send_header("Content-Length", "0")
                self.end_headers()
            else:
                self._send(405, {"message": "Method Not Allowed"})

    def _me(self, login: str) -> dict[str, Any]:
        return {
            **_user(self.base, login),
            **dict.fromkeys(("bio", "blog", "company", "email", "hireable", "location"), None),
            "name": login,
            "followers": 0,
            "following": 0,
            "public_gists": 0,
            "public_repos": 0,
            "created_at": "2020-01-01T00:00:00Z",
            "updated_at": "2020-01-01T00:00:00Z",
        }

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def do_PATCH(self) -> None:
        self._handle("PATCH")

    def do_DELETE(self) -> None:
        self._handle("DELETE")


def _author(comment: dict[str, Any]) -> str | None:
    """A stored comment's author (None: a deleted account); the bot when not given."""
    return comment.get("login", "iconbench-bot")


def _too_long(resource: str, field: str, limit: int) -> dict[str, Any]:
    return {
        "message": "Validation Failed",
        "errors": [
            {
                "resource": resource,
                "code": "custom",
                "field": field,
                "message": f"{field} is too long (maximum is {limit} characters)",
            }
        ],
    }


class FakeGitHub(ThreadingHTTPServer):
    """The server; ``with FakeGitHub(state) as gh:`` serves on a free port of 127.0.0.1."""

    daemon_threads = True

    def __init__(self, state: State, tls: ssl.SSLContext | None = None) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        if tls is not None:
            self.socket = tls.wrap_socket(self.socket, server_side=True)
        self.state = state
        scheme = "https" if tls is not None else "http"
        self.url = f"{scheme}://127.0.0.1:{self.server_address[1]}"
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)

    def __enter__(self) -> FakeGitHub:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()
        self._thread.join(timeout=5)

    def fail(  # noqa: PLR0917
        self,
        method: str,
        path_regex: str,
        status: int,
        headers: dict[str, str] | None = None,
        message: str = "",
        times: int = 1,
        page: str | None = None,
    ) -> None:
        """Answer the next ``times`` matching requests so (``page``: an HTML page instead)."""
        body: dict[str, Any] | str = page if page is not None else {"message": message}
        self.state.failures.append(Failure(method, path_regex, status, headers or {}, body, times))

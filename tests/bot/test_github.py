"""The bot against a real HTTP server speaking GitHub's REST API (github3.py, Enterprise URL)."""

from __future__ import annotations

import json
import logging
import pathlib
import threading
import time

import pytest
from tests.bot.conftest import TOKEN

from iconbench.bot import marker, publish, target, token
from iconbench.bot.client import GitHubClient
from iconbench.bot.retry import RetryPolicy
from iconbench.cli import main
from iconbench.errors import IconbenchError
from iconbench.records.summary import Summary

DATA = pathlib.Path(__file__).parent / "data"
H100 = DATA.parents[2] / "docs/examples/summary-h100-7212540-fd920c0.json"


def _pr(server, number: int = 1234) -> target.PullRequest:
    return target.PullRequest.parse("GridTools/gt4py", number, github_url=server.url)


def _client(server, sleeps: list[float] | None = None, attempts: int = 4, **kw) -> GitHubClient:
    record = sleeps if sleeps is not None else []
    return GitHubClient(
        _pr(server, **kw),
        token.Token(TOKEN),
        policy=RetryPolicy(attempts=attempts, base_s=0.01, max_wait_s=5),
        sleep=record.append,
    )


def _cli(server, *extra: str, summary: pathlib.Path = H100) -> int:
    return main(
        [
            "comment",
            "--repo",
            "GridTools/gt4py",
            "--pr",
            "1234",
            str(summary),
            "--github-url",
            server.url,
            "--backoff",
            "0.001",
            "--settle",
            "0.01",
            *extra,
        ]
    )


def _publish(gate: Summary, server, client: GitHubClient, **kw) -> publish.Posted:
    return publish.publish(gate, _pr(server), client, settle_s=0.01, **kw)


def _marked(server) -> list[dict]:
    return [c for c in server.state.comments.values() if marker.parse(c["body"])]


def test_first_run_creates_second_edits_the_same_comment(github, capsys):
    assert _cli(github) == 0
    first = _marked(github)
    assert len(first) == 1
    assert "58 regressions**, 53 improvements" in first[0]["body"]
    assert len(github.state.statuses) == 1
    status = github.state.statuses[0]
    # iconbench's own commits are not gt4py's: the status goes on the pull request's head
    assert status["sha"] == github.state.head_sha
    assert status["state"] == "failure"
    assert status["context"] == "iconbench/ch1_medium"
    assert len(status["description"]) <= 140
    # no site: the status links to the pull request, where the comment is
    assert status["target_url"] == f"{github.url}/GridTools/gt4py/pull/1234"
    out = capsys.readouterr().out
    assert f"comment {first[0]['id']} created" in out

    # a person comments in between, then the next run of a newer summary
    reviewer = github.state.add_comment("LGTM", "reviewer")
    newer = json.loads(H100.read_text())
    newer["created"] = "2026-11-24T08:00:00+00:00"
    path = DATA.parent / "newer.json"
    try:
        path.write_text(json.dumps(newer))
        code = main(
            [
                "comment",
                "--repo",
                "GridTools/gt4py",
                "--pr",
                "1234",
                str(path),
                "--github-url",
                github.url,
                "--site-url",
                "https://c2sm.github.io/iconbench",
                "--settle",
                "0",
            ]
        )
    finally:
        path.unlink()
    assert code == 0
    second = _marked(github)
    assert [c["id"] for c in second] == [first[0]["id"]]
    assert "run=2026-11-24T08:00:00+00:00" in second[0]["body"]
    assert "https://c2sm.github.io/iconbench/gates.html#" in second[0]["body"]
    assert github.state.comments[reviewer]["body"] == "LGTM"
    assert len(github.state.statuses) == 2
    assert github.state.statuses[1]["target_url"].startswith("https://c2sm.github.io/iconbench/")
    assert "edited" in capsys.readouterr().out


def test_an_older_summary_does_not_replace_a_newer_report(github):
    gate = Summary.read(H100)
    with _client(github) as client:
        _publish(gate, github, client)
    body = _marked(github)[0]["body"]
    older = Summary.from_json(H100.read_text().replace(gate.created, "2020-01-01T00:00:00+00:00"))
    with _client(github) as client:
        posted = _publish(older, github, client)
    assert posted.comment.action == "newer"
    assert not posted.status_sent
    assert _marked(github)[0]["body"] == body
    assert len(github.state.statuses) == 1


def test_comment_found_on_a_later_page(github):
    github.state.per_page = 10
    for i in range(25):
        github.state.add_comment(f"comment {i}", "someone")
    gate = Summary.read(H100)
    with _client(github) as client:
        _publish(gate, github, client)
    with _client(github) as client:
        posted = _publish(gate, github, client)
    assert posted.comment.action == "unchanged"
    assert len(_marked(github)) == 1
    pages = [p for m, p, _ in github.state.requests if m == "GET" and "/comments" in p]
    assert any("page=3" in p for p in pages)


@pytest.mark.parametrize("runs", [2, 3])
def test_runs_at_once_leave_one_comment(github, runs):
    github.state.create_delay_s = 0.2  # every run lists before any create has landed
    gate = Summary.read(H100)
    barrier = threading.Barrier(runs)
    errors: list[BaseException] = []

    def one() -> None:
        try:
            with _client(github) as client:
                barrier.wait()
                posted = _publish(gate, github, client)
                assert not posted.problems
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=one) for _ in range(runs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors
    posts = [p for m, p, _ in github.state.requests if m == "POST" and p.endswith("/comments")]
    assert len(posts) == runs  # they really raced: every run created one
    left = _marked(github)
    assert len(left) == 1
    assert left[0]["id"] == min(github.state.next_id - i for i in range(runs))  # the oldest kept


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (
            401,
            "GitHub refused the token (401 Bad credentials) for GridTools/gt4py pull request #1234",
        ),
        (
            403,
            "GitHub answered 403 Resource not accessible by integration for GridTools/gt4py "
            "pull request #1234",
        ),
        (404, "GitHub found no GridTools/gt4py pull request #1234"),
        (
            422,
            "GitHub rejected setting the commit status iconbench/ch1_medium on 2db0abe231bc on "
            "GridTools/gt4py pull request #1234 (422 Validation Failed",
        ),
    ],
)
def test_client_errors_give_one_line(github, capsys, status, expected):
    messages = {
        401: "Bad credentials",
        403: "Resource not accessible by integration",
        404: "Not Found",
        422: "Validation Failed",
    }
    path = r"/statuses/" if status == 422 else r"/pulls/1234$"
    github.fail("POST" if status == 422 else "GET", path, status, message=messages[status], times=9)
    assert _cli(github) == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    # the status cannot go anywhere: the measured commit is iconbench's, the PR unreadable
    assert not github.state.statuses
    assert lines[0].startswith("iconbench: error: status iconbench/ch1_medium NOT set; ")
    assert expected in lines[0]
    assert len(lines[0]) <= 300
    assert TOKEN not in err
    retried = [r for r in github.state.requests if r[0] != "GET" or "/pulls/" in r[1]]
    assert len([r for r in retried if "/pulls/" in r[1]]) == 1  # final answers are not retried


def test_wrong_token_and_unknown_pull_request(github, capsys, monkeypatch):
    monkeypatch.setenv("ICONBENCH_GITHUB_TOKEN", "ghp_wrong")
    assert _cli(github) == 2
    assert "401 Bad credentials" in capsys.readouterr().err
    monkeypatch.setenv("ICONBENCH_GITHUB_TOKEN", TOKEN)
    assert (
        main(
            [
                "comment",
                "--repo",
                "GridTools/gt4py",
                "--pr",
                "99",
                str(H100),
                "--github-url",
                github.url,
            ]
        )
        == 2
    )
    assert "no GridTools/gt4py pull request #99" in capsys.readouterr().err
    assert not github.state.comments


def test_rate_limits_and_5xx_are_retried_with_bounded_backoff(github):
    reset = str(int(time.time()) + 2)
    github.fail("GET", r"/pulls/1234$", 502, message="Bad Gateway", times=2)
    github.fail("GET", r"/issues/1234/comments", 429, {"Retry-After": "1"}, "slow down")
    github.fail(
        "POST",
        r"/issues/1234/comments$",
        403,
        {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset},
        "API rate limit exceeded",
    )
    github.fail("POST", r"/statuses/", 503, message="Service Unavailable")
    sleeps: list[float] = []
    with _client(github, sleeps) as client:
        posted = _publish(Summary.read(H100), github, client, sleep=lambda s: None)
    assert not posted.problems
    assert posted.comment.action == "created"
    assert len(github.state.statuses) == 1
    assert sleeps[:2] == [0.01, 0.02]  # 502 twice: exponential from the base
    assert 1.0 in sleeps  # Retry-After
    assert any(0 < s <= 2.0 for s in sleeps[3:])  # until X-RateLimit-Reset
    assert max(sleeps) <= 5


def test_retries_give_up_with_one_line(github):
    github.fail("GET", r"/pulls/1234$", 503, message="Service Unavailable", times=10)
    sleeps: list[float] = []
    with pytest.raises(IconbenchError) as info, _client(github, sleeps, attempts=3) as client:
        client.head_sha()
    assert str(info.value) == (
        "GitHub answered 503 Service Unavailable for GridTools/gt4py pull request #1234 while "
        "reading the pull request, 3 tries: GitHub is having trouble; run the command again later"
    )
    assert sleeps == [0.01, 0.02]
    # a quota that returns later than the longest wait is not waited for
    github.state.failures.clear()
    github.fail(
        "GET",
        r"/pulls/1234$",
        403,
        {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(time.time()) + 3600)},
        "API rate limit exceeded",
    )
    with (
        pytest.raises(
            IconbenchError,
            match=r"rate limit stopped reading the pull request on "
            r"GridTools/gt4py pull request #1234 after 1 tries.*quota returns at",
        ),
        _client(github) as client,
    ):
        client.head_sha()


def test_token_appears_in_no_output(github, capsys, caplog, monkeypatch):
    caplog.set_level(logging.DEBUG)
    assert _cli(github, "--json") == 0
    github.fail("GET", r"/pulls/1234$", 500, message=f"echo {TOKEN}", times=99)
    assert _cli(github, "--retries", "2") == 2
    with _client(github) as client:
        shown = repr(client) + str(client.__dict__) + repr(token.Token(TOKEN))
    monkeypatch.delenv("ICONBENCH_GITHUB_TOKEN")
    assert _cli(github) == 2  # no token: one line naming the variables
    captured = capsys.readouterr()
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "ICONBENCH_GITHUB_TOKEN or GITHUB_TOKEN" in captured.err
    assert "GET" in logged  # github3.py and urllib3 logged the requests at DEBUG
    for text in (captured.out, captured.err, logged, shown):
        assert TOKEN not in text
    # every request carried the token to the fake server only
    assert {auth for _, _, auth in github.state.requests} == {f"token {TOKEN}"}


def test_every_request_reached_the_fake_server(github, only_loopback):
    seen: list[str] = []
    with _client(github) as client:
        client._github.session.hooks["response"].append(lambda r, *a, **k: seen.append(r.url))
        _publish(Summary.read(H100), github, client)
    assert seen
    assert len(seen) == len(github.state.requests)
    assert all(url.startswith(github.url + "/api/v3/") for url in seen)
    assert only_loopback == []


def test_github_com_is_never_reached_from_tests(only_loopback, monkeypatch):
    pr = target.PullRequest.parse("GridTools/gt4py", 1)
    with (
        pytest.raises(
            IconbenchError,
            match=r"cannot reach GitHub at https://api.github.com "
            r"for GridTools/gt4py#1 while reading the pull request",
        ),
        GitHubClient(
            pr,
            token.Token(TOKEN),
            policy=RetryPolicy(attempts=2, base_s=0.001),
            sleep=lambda s: None,
        ) as client,
    ):
        client.head_sha()
    assert only_loopback
    assert all(a[0] == "api.github.com" for a in only_loopback)


def test_dry_run_sends_nothing_and_needs_no_token(github, capsys, monkeypatch):
    monkeypatch.delenv("ICONBENCH_GITHUB_TOKEN")
    assert _cli(github, "--dry-run") == 0
    out = capsys.readouterr()
    assert out.out.startswith("<!-- iconbench-pr-summary v2 context=iconbench/ch1_medium run=")
    assert "dry run: nothing sent to GridTools/gt4py#1234" in out.err
    assert github.state.requests == []

"""Whose comments the bot trusts, one report per check context, failures, listing lag.

Against the fake GitHub on 127.0.0.1, which behaves like GitHub where it matters here: a
comment is its author's (editing or deleting another's is 403), 30 comments per page, a
65 536-character body and a 140-character status description, and new comments listed late.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import pathlib
import ssl
import threading

import pytest
from tests.bot.conftest import TOKEN
from tests.bot.fake_github import Account, FakeGitHub, State

from iconbench.bot import marker, publish, render, target, token
from iconbench.bot.client import GitHubClient
from iconbench.bot.retry import RetryPolicy
from iconbench.cli import main
from iconbench.errors import IconbenchError
from iconbench.records.summary import Summary

DATA = pathlib.Path(__file__).parent / "data"
EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "docs" / "examples"
GPU = Summary.read(EXAMPLES / "summary-h100-7212540-fd920c0.json")  # context iconbench/ch1_medium
CPU = Summary.read(EXAMPLES / "summary-cpu-embedded-tiny.json")  # context iconbench/tiny
HEAD = State().head_sha  # iconbench's commits are not gt4py's: statuses go on the PR's head


def _at(summary: Summary, created: str, verdict: str | None = None) -> Summary:
    """The summary as if written at ``created`` (with another verdict)."""
    return dataclasses.replace(summary, created=created, verdict=verdict or summary.verdict)


def _pr(server) -> target.PullRequest:
    return target.PullRequest.parse("GridTools/gt4py", 1234, github_url=server.url)


def _client(server, secret: str = TOKEN, sleeps: list[float] | None = None) -> GitHubClient:
    return GitHubClient(
        _pr(server),
        token.Token(secret),
        policy=RetryPolicy(attempts=3, base_s=0.01, max_wait_s=1),
        sleep=(sleeps if sleeps is not None else []).append,
    )


def _post(server, summary: Summary, settle_s: float = 0.01, **kw) -> publish.Posted:
    with _client(server) as client:
        return publish.publish(summary, _pr(server), client, settle_s=settle_s, **kw)


def _cli(server, summary: Summary, tmp_path: pathlib.Path, *extra: str) -> int:
    path = summary.write(tmp_path / f"summary-{summary.created[:19].replace(':', '')}.json")
    return main(
        [
            "comment",
            *("--repo", "GridTools/gt4py", "--pr", "1234", str(path)),
            *("--github-url", server.url, "--backoff", "0.001", "--settle", "0.01"),
            *extra,
        ]
    )


def _reports(server, login: str = "iconbench-bot") -> dict[str, marker.Header]:
    """The bot's reports on the pull request, by context."""
    found: dict[str, marker.Header] = {}
    for c in server.state.comments.values():
        header = marker.parse(c["body"])
        if header is not None and c.get("login", "iconbench-bot") == login:
            assert header.context not in found, "two comments of one context"
            found[str(header.context)] = header
    return found


def _error_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("iconbench: error:")]


# -- contexts ---------------------------------------------------------------------------------


def test_a_cpu_and_a_gpu_runner_keep_both_reports_and_both_statuses(github):
    cpu_1 = _at(CPU, "2026-11-24T10:00:00+00:00")
    gpu = _at(GPU, "2026-11-24T10:30:00+00:00")
    cpu_2 = _at(CPU, "2026-11-24T10:20:00+00:00", verdict="pass")  # older than gpu's run
    for summary in (cpu_1, gpu, cpu_2):
        posted = _post(github, summary)
        assert not posted.problems
        assert posted.status_sent
    reports = _reports(github)
    assert sorted(reports) == ["iconbench/ch1_medium", "iconbench/tiny"]
    assert reports["iconbench/tiny"].run == cpu_2.created  # CPU's second run is not "older"
    assert reports["iconbench/ch1_medium"].run == gpu.created
    tiny = github.state.latest_status(HEAD, "iconbench/tiny")
    medium = github.state.latest_status(HEAD, "iconbench/ch1_medium")
    assert (tiny["state"], medium["state"]) == ("success", "failure")
    assert tiny["description"].startswith("no regression")
    assert medium["description"].startswith("58 regressions")
    bodies = {str(marker.parse(c["body"]).context): c["body"] for c in _marked(github)}
    assert "### iconbench · tiny · ✅" in bodies["iconbench/tiny"]
    assert "### iconbench · ch1_medium · ❌ **58 regressions**" in bodies["iconbench/ch1_medium"]


def test_within_a_context_an_older_run_changes_nothing(github):
    _post(github, _at(CPU, "2026-11-24T10:20:00+00:00", verdict="pass"))
    posted = _post(github, _at(CPU, "2026-11-24T10:00:00+00:00"))  # finished late
    assert posted.comment.action == "newer"
    assert not posted.status_sent
    assert not posted.problems
    assert _reports(github)["iconbench/tiny"].run == "2026-11-24T10:20:00+00:00"
    assert [s["state"] for s in github.state.statuses] == ["success"]


# -- whose comments -----------------------------------------------------------------------------


@pytest.mark.parametrize("stamp", ["2099-01-01T00:00:00+00:00", "2000-01-01T00:00:00+00:00"])
def test_another_users_marked_comment_is_left_alone(github, stamp):
    """A later stamp silenced the bot (no report, no status); an earlier one got overwritten."""
    forged = marker.Header("iconbench/ch1_medium", stamp).render() + "\n### iconbench · forged"
    mallory = github.state.add_comment(forged, "mallory")
    ghost = github.state.add_comment(forged, None)  # a deleted account: "user": null
    posted = _post(github, GPU)
    assert not posted.problems
    assert posted.comment.action == "created"
    assert posted.status_sent
    assert github.state.comments[mallory]["body"] == forged
    assert github.state.comments[ghost]["body"] == forged
    assert _reports(github)["iconbench/ch1_medium"].run == GPU.created
    assert github.state.latest_status(HEAD, "iconbench/ch1_medium")["state"] == "failure"
    # no edit or delete was even tried on the others' comments
    touched = [p for m, p, _ in github.state.requests if m in {"PATCH", "DELETE"}]
    assert not [p for p in touched if p.endswith((f"/{mallory}", f"/{ghost}"))]


def test_the_fake_refuses_to_edit_or_delete_another_users_comment(github):
    other = github.state.add_comment("LGTM", "reviewer")
    with _client(github) as client:
        client.comments()
        with pytest.raises(IconbenchError, match=r"403 Must have admin rights"):
            client.edit_comment(other, "changed")
        with pytest.raises(IconbenchError, match=r"403 Must have admin rights"):
            client.delete_comment(other)
    assert github.state.comments[other]["body"] == "LGTM"


def test_the_bot_removes_only_its_own_first_version_comment(github):
    legacy = "<!-- iconbench-pr-summary v1 run=2026-11-20T10:00:00+00:00 -->\n### old"
    own = github.state.add_comment(legacy, "iconbench-bot")
    quoted = github.state.add_comment(legacy, "reviewer")
    posted = _post(github, GPU)
    assert posted.comment.removed == (own,)
    assert own not in github.state.comments
    assert github.state.comments[quoted]["body"] == legacy


def test_an_apps_token_needs_bot_login_and_still_sets_the_status(github, tmp_path, capsys):
    github.state.accounts["ghs_app"] = Account("iconbench-app[bot]", reads_user=False)
    with pytest.MonkeyPatch.context() as env:
        env.setenv("ICONBENCH_GITHUB_TOKEN", "ghs_app")
        assert _cli(github, GPU, tmp_path) == 2
        (line,) = _error_lines(capsys.readouterr().err)
        assert "status iconbench/ch1_medium set on 2db0abe231bc: failure" in line
        assert line.endswith("or set ICONBENCH_BOT_LOGIN")
        assert not github.state.comments
        assert len(github.state.statuses) == 1
        assert _cli(github, GPU, tmp_path, "--bot-login", "iconbench-app[bot]") == 0
    assert list(_reports(github, "iconbench-app[bot]")) == ["iconbench/ch1_medium"]


# -- failures: the status still gates, one line, exit 2 --------------------------------------


@pytest.mark.parametrize(
    ("status", "message", "said"),
    [
        (422, "Validation Failed", "body is too long (maximum is 65536 characters)"),
        (403, "Resource not accessible by integration", "the token may not do that"),
    ],
)
def test_a_refused_comment_still_sets_the_status(  # noqa: PLR0917
    github, tmp_path, capsys, status, message, said
):
    if status == 422:  # what GitHub answers a body over 65 536 characters
        github.fail("POST", r"/issues/1234/comments$", 422, message="x", times=9)
        github.state.failures[-1].body = {
            "message": message,
            "errors": [{"field": "body", "message": said}],
        }
    else:
        github.fail("POST", r"/issues/1234/comments$", 403, message=message, times=9)
    assert _cli(github, GPU, tmp_path) == 2
    err = capsys.readouterr().err
    (line,) = err.splitlines()
    assert line.startswith(
        "iconbench: error: status iconbench/ch1_medium set on 2db0abe231bc: failure; GitHub"
    )
    assert f"{status} {message}" in line
    assert said in line
    assert len(line) <= 300
    assert github.state.latest_status(HEAD, "iconbench/ch1_medium")["state"] == "failure"
    assert not github.state.comments


def test_the_fake_enforces_githubs_limits(github):
    with _client(github) as client:
        with pytest.raises(IconbenchError, match=r"422 Validation Failed \(body is too long"):
            client.create_comment("x" * 65537)
        with pytest.raises(IconbenchError, match=r"description is too long \(maximum is 140"):
            client.create_status(HEAD, "success", "y" * 141, None, "iconbench/tiny")
    assert [len(s["description"]) for s in github.state.statuses] == []


def test_a_comment_of_a_deleted_account_is_no_problem(github, tmp_path, capsys):
    github.state.add_comment("thanks!", None)  # "user": null in the listing
    assert _cli(github, GPU, tmp_path) == 0
    assert list(_reports(github)) == ["iconbench/ch1_medium"]


def test_an_unexpected_exception_exits_2_with_one_line_and_sets_the_status(
    github, tmp_path, capsys, monkeypatch
):
    def broken(*args, **kwargs):
        raise ValueError("a bug in the renderer")

    monkeypatch.setattr(render, "render", broken)
    assert _cli(github, GPU, tmp_path) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line == (
        "iconbench: error: status iconbench/ch1_medium set on 2db0abe231bc: failure; "
        "unexpected ValueError while writing the comment: a bug in the renderer"
    )
    assert github.state.latest_status(HEAD, "iconbench/ch1_medium")["state"] == "failure"


def test_an_unexpected_exception_before_any_request_exits_2(github, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(publish, "publish", lambda *a, **k: 1 / 0)
    assert _cli(github, GPU, tmp_path) == 2
    assert capsys.readouterr().err.splitlines() == [
        "iconbench: error: unexpected ZeroDivisionError: division by zero"
    ]


def test_an_html_error_page_is_cut_to_its_title_and_retries_are_logged(github, tmp_path, capsys):
    page = (
        "<html><head><title>502 Bad Gateway</title><style>body{color:red}</style></head>"
        "<body>" + "<p>We're having a really bad day.</p>" * 100 + "</body></html>"
    )
    assert len(page) > 3400
    github.fail("GET", r"/pulls/1234$", 502, page=page, times=99)
    assert _cli(github, GPU, tmp_path, "--retries", "3") == 2
    err = capsys.readouterr().err.splitlines()
    retries = [line for line in err if line.startswith("iconbench: GitHub: 502 Bad Gateway")]
    assert [line.split("; ")[-1] for line in retries] == [
        "try 2 of 3 in 0.0 s",
        "try 3 of 3 in 0.0 s",
    ]
    (line,) = _error_lines("\n".join(err))
    assert "GitHub answered 502 Bad Gateway for GridTools/gt4py pull request #1234" in line
    assert "<" not in line
    assert "bad day" not in line
    assert len(line) <= 300


def test_retries_are_logged_at_the_default_level(github, caplog):
    caplog.set_level(logging.WARNING)
    github.fail("GET", r"/pulls/1234$", 503, message="Service Unavailable", times=1)
    with _client(github) as client:
        client.head_sha()
    (record,) = [r for r in caplog.records if r.name == "iconbench.bot.client"]
    assert record.levelno == logging.WARNING
    assert record.getMessage() == (
        "GitHub: 503 Service Unavailable while reading the pull request on "
        "GridTools/gt4py#1234; try 2 of 3 in 0.0 s"
    )


def _self_signed(folder: pathlib.Path) -> ssl.SSLContext:
    """A server context with a fresh self-signed certificate for 127.0.0.1."""
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=1))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    (folder / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (folder / "key.pem").write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(folder / "cert.pem", folder / "key.pem")
    return context


def test_a_certificate_error_is_said_as_such_and_not_retried(tmp_path, monkeypatch):
    monkeypatch.delenv("REQUESTS_CA_BUNDLE", raising=False)
    monkeypatch.delenv("CURL_CA_BUNDLE", raising=False)
    with FakeGitHub(State(token=TOKEN), tls=_self_signed(tmp_path)) as server:
        sleeps: list[float] = []
        with pytest.raises(IconbenchError) as info, _client(server, sleeps=sleeps) as client:
            client.head_sha()
        assert sleeps == []  # not retried
        assert str(info.value).startswith(
            f"GitHub at {server.url}/api/v3 presented a TLS certificate this runner does not "
            "accept (certificate verify failed: self-signed certificate) while reading the "
            "pull request for GridTools/gt4py#1234: not retried; set REQUESTS_CA_BUNDLE"
        )
        # trusting the server's certificate is what the line says to do
        monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(tmp_path / "cert.pem"))
        with _client(server) as client:
            assert client.head_sha() == server.state.head_sha


# -- listing lag and runs at once -------------------------------------------------------------


def _at_once(server, summaries: list[Summary], settle_s: float) -> list[publish.Posted]:
    barrier = threading.Barrier(len(summaries))
    posted: list[publish.Posted] = []
    errors: list[BaseException] = []

    def one(summary: Summary) -> None:
        try:
            with _client(server) as client:
                barrier.wait()
                posted.append(publish.publish(summary, _pr(server), client, settle_s=settle_s))
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=one, args=(s,)) for s in summaries]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors
    return posted


def test_two_runs_at_once_settle_on_one_comment_despite_a_listing_lag(github):
    github.state.list_lag_s = 2.0
    older = _at(GPU, "2026-11-24T10:00:00+00:00")
    newer = _at(GPU, "2026-11-24T10:05:00+00:00", verdict="pass")
    posted = _at_once(github, [older, newer], settle_s=2.5)
    assert all(not p.problems for p in posted)
    creates = [p for m, p, _ in github.state.requests if m == "POST" and p.endswith("/comments")]
    assert len(creates) == 2  # both runs found none and created one
    (comment,) = _marked(github)
    assert marker.parse(comment["body"]).run == newer.created
    assert "### iconbench · ch1_medium · ✅" in comment["body"]
    # the newer verdict's status is the last one set, whichever run finished last
    assert github.state.latest_status(HEAD, "iconbench/ch1_medium")["state"] == "success"


def test_without_settling_the_lag_leaves_two_comments(github):
    """What the settle round is for: the same two runs, not waiting, both keep theirs."""
    github.state.list_lag_s = 2.0
    _at_once(github, [GPU, GPU], settle_s=0.0)
    assert len(_marked(github)) == 2


def test_the_state_file_finds_a_comment_the_listing_does_not_show_yet(github, tmp_path, capsys):
    github.state.list_lag_s = 30.0  # no new comment is listed during this test
    state = tmp_path / "out" / "bot-state.json"
    args = ("--state", str(state), "--json")
    assert _cli(github, _at(GPU, "2026-11-24T10:00:00+00:00"), tmp_path, *args) == 0
    first = json.loads(capsys.readouterr().out)["comment"]
    assert first["action"] == "created"
    assert _cli(github, _at(GPU, "2026-11-24T11:00:00+00:00"), tmp_path, *args) == 0
    second = json.loads(capsys.readouterr().out)["comment"]
    assert (second["id"], second["action"]) == (first["id"], "edited")
    assert len(github.state.comments) == 1
    assert json.loads(state.read_text())["comments"]["GridTools/gt4py#1234"] == {
        "iconbench/ch1_medium": first["id"]
    }


def _marked(server) -> list[dict]:
    return [c for c in server.state.comments.values() if marker.parse(c["body"])]


@pytest.mark.parametrize(
    ("option", "value", "said"),
    [
        ("--bot-login", "not a login", "--bot-login 'not a login': expected a GitHub login"),
        ("--settle", "90", "--settle 90.0: seconds between 0 and 60"),
        ("--context", "a\nb", "--context: expected a name, got 'a\\nb'"),
    ],
)
def test_bad_options_give_one_line_before_any_request(  # noqa: PLR0917
    github, tmp_path, capsys, option, value, said
):
    try:
        code = _cli(github, GPU, tmp_path, option, value)
    except SystemExit as refused:  # a type the parser checks: refused while parsing
        code = refused.code
    assert code == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("iconbench: error: ")
    assert said in line
    assert github.state.requests == []


def test_a_broken_state_file_is_a_warning_not_a_failure(github, tmp_path, capsys):
    state = tmp_path / "bot-state.json"
    state.write_text("{")
    assert _cli(github, GPU, tmp_path, "--state", str(state)) == 0
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"iconbench: warning: {state}: line 1: invalid JSON")
    (comment,) = _marked(github)
    assert json.loads(state.read_text())["comments"] == {
        "GridTools/gt4py#1234": {"iconbench/ch1_medium": comment["id"]}
    }


@pytest.mark.slow
def test_three_staggered_runs_end_with_the_newest_report_and_status():
    """Three runs of one context, started 0-1.5 s apart, listing lag 0.5-2 s, 8 pull requests.

    The newest summary's verdict (error) must be the comment and the last status in each.
    """
    import random
    import time
    from concurrent.futures import ThreadPoolExecutor

    summaries = [
        _at(GPU, f"2026-11-24T10:0{i}:00+00:00", verdict=v)
        for i, v in enumerate(["regression", "pass", "error"])
    ]

    def trial(seed: int) -> tuple[int, str | None, str]:
        rnd = random.Random(seed)
        with FakeGitHub(State(token=TOKEN, list_lag_s=rnd.uniform(0.5, 2.0))) as server:
            starts = [rnd.uniform(0, 1.5) for _ in summaries]

            def one(i: int) -> publish.Posted:
                time.sleep(starts[i])
                with _client(server) as client:
                    return publish.publish(summaries[i], _pr(server), client, settle_s=2.5)

            with ThreadPoolExecutor(3) as runs:
                posted = list(runs.map(one, range(3)))
            assert all(not p.problems for p in posted)
            left = _marked(server)
            run = marker.parse(left[0]["body"]).run if left else None
            last = server.state.latest_status(HEAD, "iconbench/ch1_medium")
            return len(left), run, last["state"]

    with ThreadPoolExecutor(8) as trials:
        results = list(trials.map(trial, range(8)))
    assert results == [(1, summaries[2].created, "error")] * 8

"""Which GitHub events start a check, and a trusted one (``ci/pr-request``, selection.trust).

The events are GitHub's payloads as the workflows get them; the collaborators API is the fake
GitHub on 127.0.0.1. The publishing side (``from_workflow_run``) takes a run's trust from
GitHub's account of the run, never from what the run's artifact says about itself. The
workflows themselves are read too: the jobs that run code under test hold no write right.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest
import yaml
from tests.bot.conftest import TOKEN
from tests.bot.fake_github import FakeGitHub, State

from iconbench.errors import IconbenchError
from iconbench.selection.request import from_workflow_run

REPO = pathlib.Path(__file__).resolve().parents[2]
WORKFLOWS = REPO / ".github" / "workflows"
HEAD = "2db0abe231bc1d9c38138e7cea1b6198285cce02"
BASE = "b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0"


def _request(tmp_path, name: str, event: dict, github: FakeGitHub | None = None):
    path = tmp_path / "event.json"
    path.write_text(json.dumps(event))
    env = {k: v for k, v in os.environ.items() if k not in {"GH_TOKEN", "GITHUB_TOKEN"}}
    env.update(GITHUB_EVENT_NAME=name, GITHUB_EVENT_PATH=str(path),
               GITHUB_REPOSITORY="GridTools/gt4py", PYTHONPATH=str(REPO / "src"))  # fmt: skip
    if github is not None:
        env.update(GH_TOKEN=TOKEN, GITHUB_SERVER_URL=github.url)
    done = subprocess.run(
        [sys.executable, "-m", "iconbench.selection.request", name, str(path), "GridTools/gt4py"],
        env=env, capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    values = dict(line.split("=", 1) for line in done.stdout.splitlines())
    return done, values


def _comment(login: str, association: str, body: str = "/benchmark") -> dict:
    return {
        "issue": {"number": 1234, "pull_request": {"url": "…"}},
        "comment": {"body": body, "user": {"login": login}, "author_association": association},
    }


def _pull_request(head_repo: str) -> dict:
    return {"pull_request": {
        "number": 1234, "user": {"login": "octo"},
        "base": {"sha": BASE, "repo": {"full_name": "GridTools/gt4py"}},
        "head": {"sha": HEAD, "repo": {"full_name": head_repo}},
    }}  # fmt: skip


def _dispatch(**payload: object) -> dict:
    return {"client_payload": {"repository": "GridTools/gt4py", "pr": 1234, "base": BASE,
                               "head": HEAD, "sender": "octo", **payload}}  # fmt: skip


def test_a_forks_pull_request_runs_untrusted(tmp_path):
    done, values = _request(tmp_path, "pull_request", _pull_request("octo/gt4py"))
    assert done.returncode == 0, done.stderr
    assert (values["run"], values["trusted"], values["fork"]) == ("true", "false", "true")
    assert (values["sender"], values["head"]) == ("octo", HEAD)


def test_a_branch_of_the_repository_runs_trusted(tmp_path):
    _, values = _request(tmp_path, "pull_request", _pull_request("GridTools/gt4py"))
    assert (values["run"], values["trusted"], values["fork"]) == ("true", "true", "false")


def test_benchmark_by_a_non_member_starts_nothing_then_a_member_starts_it(tmp_path):
    state = State(token=TOKEN, collaborators={"reader": {"pull": True, "push": False}})
    with FakeGitHub(state) as github:
        done, values = _request(tmp_path, "issue_comment", _comment("reader", "CONTRIBUTOR"),
                                github)  # fmt: skip
        asked = [path for _, path, _ in state.requests if "/collaborators" in path]
        assert done.returncode == 0, done.stderr
        assert values["run"] == "false"
        assert values["trusted"] == "false"
        assert values["answer"].startswith("@reader: a `/benchmark` comment starts the check only")
        assert "\n" not in values["answer"]
        assert asked  # the API was asked, and said no (read rights only)
        done, values = _request(tmp_path, "issue_comment", _comment("maint", "MEMBER"), github)
        assert done.returncode == 0, done.stderr
        assert (values["run"], values["trusted"], values["sender"]) == ("true", "true", "maint")
        assert values["answer"] == ""
        # the member's association said it: the API was not asked again
        assert [p for _, p, _ in state.requests if "/collaborators" in p] == asked


def test_benchmark_by_a_collaborator_the_api_lists_with_push_starts_it(tmp_path):
    state = State(token=TOKEN, collaborators={"writer": {"pull": True, "push": True}})
    with FakeGitHub(state) as github:
        _, values = _request(tmp_path, "issue_comment", _comment("writer", "NONE"), github)
    assert (values["run"], values["trusted"]) == ("true", "true")


def test_another_comment_starts_nothing_and_answers_nothing(tmp_path):
    _, values = _request(tmp_path, "issue_comment", _comment("anyone", "NONE", "lgtm"))
    assert (values["run"], values["answer"]) == ("false", "")


def test_a_dispatch_with_a_forks_head_runs_untrusted(tmp_path):
    _, values = _request(tmp_path, "repository_dispatch", _dispatch(fork=True))
    assert (values["run"], values["trusted"], values["fork"]) == ("true", "false", "true")
    assert (values["component"], values["sender"]) == ("gt4py", "octo")
    # a payload that does not say whose head it is: a fork's
    _, values = _request(tmp_path, "repository_dispatch", _dispatch())
    assert (values["trusted"], values["fork"]) == ("false", "true")
    _, values = _request(tmp_path, "repository_dispatch", _dispatch(fork=False))
    assert (values["trusted"], values["fork"]) == ("true", "false")


@pytest.mark.parametrize(
    ("payload", "line"),
    [
        ({"repository": "evil/gt4py"}, "repository_dispatch from 'evil/gt4py': not one of"),
        ({"sender": "a b"}, "client_payload.sender 'a b' is not a GitHub login"),
        ({"head": "$(id)"}, "head '$(id)' is not a commit or branch name"),
    ],
)
def test_a_bad_dispatch_starts_nothing_in_one_line(tmp_path, payload, line):
    done, values = _request(tmp_path, "repository_dispatch", _dispatch(**payload))
    assert done.returncode == 2
    assert values == {}
    assert done.stderr.strip().splitlines() == [f"request: {done.stderr.strip()[9:]}"]
    assert line in done.stderr


def _run(event: str, head_repo: str) -> dict:
    return {"workflow_run": {"event": event, "head_sha": HEAD,
                             "repository": {"full_name": "C2SM/iconbench"},
                             "head_repository": {"full_name": head_repo}}}  # fmt: skip


RECORD = (
    f"run=true\ncomponent=iconbench\nrepository=C2SM/iconbench\npr=5\nbase={BASE}\n"
    f"head={HEAD}\nfull=false\ntrusted=true\nsender=octo\nfork=false\nanswer=\n"
)


def test_a_forks_run_is_untrusted_whatever_its_artifact_says():
    found = from_workflow_run(_run("pull_request", "octo/iconbench"), RECORD, "C2SM/iconbench",
                              pull_head=lambda pr: HEAD)  # fmt: skip
    assert (found.run, found.trusted, found.fork, found.pr) == (True, False, True, 5)
    own = from_workflow_run(_run("pull_request", "C2SM/iconbench"), RECORD, "C2SM/iconbench",
                            pull_head=lambda pr: HEAD)  # fmt: skip
    assert own.trusted


def test_a_run_whose_pull_request_has_another_head_posts_nothing():
    with pytest.raises(IconbenchError, match="pull request #5's head is not 2db0abe231bc"):
        from_workflow_run(_run("pull_request", "octo/iconbench"), RECORD, "C2SM/iconbench",
                          pull_head=lambda pr: "d" * 40)  # fmt: skip
    with pytest.raises(IconbenchError, match="is not the run's head"):
        from_workflow_run(_run("pull_request", "octo/iconbench"),
                          RECORD.replace(f"head={HEAD}", "head=" + "e" * 40), "C2SM/iconbench",
                          pull_head=lambda pr: HEAD)  # fmt: skip


def _jobs(name: str) -> dict:
    return yaml.safe_load((WORKFLOWS / name).read_text())["jobs"]


def test_the_jobs_that_run_code_under_test_read_only():
    workflow = yaml.safe_load((WORKFLOWS / "benchmark-pr.yml").read_text())
    assert workflow["permissions"] == {}
    for name, job in workflow["jobs"].items():
        assert job["permissions"] == {"contents": "read"}, name
    text = (WORKFLOWS / "benchmark-pr.yml").read_text()
    assert "secrets." not in text
    assert "github.token" not in text


def test_no_job_of_a_comment_or_of_the_publisher_runs_the_pull_requests_code():
    for name in ("benchmark-comment.yml", "benchmark-pr-publish.yml"):
        text = (WORKFLOWS / name).read_text()
        for word in ("pr-fetch", "pr-check", "head.sha", "head_sha", "pull/", "self-hosted"):
            assert word not in text, (name, word)
        for job in _jobs(name).values():
            for step in job["steps"]:
                if "actions/checkout" in step.get("uses", ""):
                    assert "ref" not in step["with"] or "default_branch" in step["with"]["ref"]


def test_every_checkout_keeps_no_credentials():
    for path in sorted(WORKFLOWS.glob("*.yml")):
        for job in yaml.safe_load(path.read_text())["jobs"].values():
            for step in job.get("steps", []):
                if "actions/checkout" in step.get("uses", ""):
                    assert step["with"]["persist-credentials"] is False, path.name

"""A local dry run of the whole pull-request check on the CPU (``ci/pr-check --dry-run``).

A fake icon4py repository holds a copy of the installed dycore package; its pull request edits
``compute_tangential_wind.py``. The check selects the programs that use that module, measures
base and head as two stacks (asv's ``iconbench-checkout`` environments: this Python's stack
with each commit's sources first on the path), gates them (``iconbench compare``), posts the
comment and status to a fake GitHub on 127.0.0.1 (``iconbench comment``) and renders the site
(``iconbench publish``). The last three steps need the gate and the site; until they are in
this checkout that test is skipped (naming the missing commands) and the check runs up to
the measurements.
"""

import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
STENCIL = "model/atmosphere/dycore/src/icon4py/model/atmosphere/dycore/stencils"
TOKEN = "ghp_iconbenchPRFLOW0123456789secret"


def _missing_commands() -> list[str]:
    from iconbench.cli import commands

    return [name for name in ("compare", "comment", "publish") if name not in commands()]


@pytest.fixture(scope="module")
def fake_icon4py(tmp_path_factory, git):
    """main: a copy of the installed dycore; pr: one comment added to a stencil module."""
    from icon4py.model.atmosphere import dycore

    repo = tmp_path_factory.mktemp("pr-flow") / "icon4py"
    target = repo / "model/atmosphere/dycore/src/icon4py/model/atmosphere/dycore"
    shutil.copytree(
        pathlib.Path(dycore.__file__).parent, target, ignore=shutil.ignore_patterns("__pycache__")
    )
    (repo / "pyproject.toml").write_text('[project]\nname = "icon4py"\nversion = "0.4.1"\n')
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    git(repo, "checkout", "-qb", "pr")
    stencil = repo / STENCIL / "compute_tangential_wind.py"
    stencil.write_text(stencil.read_text() + "\n# reviewed\n")
    git(repo, "commit", "-qam", "compute_tangential_wind: a comment")
    return repo, git(repo, "rev-parse", "main"), git(repo, "rev-parse", "pr")


@pytest.fixture(scope="module")
def pr_check(fake_icon4py, tmp_path_factory):
    """Run ``ci/pr-check --dry-run`` once (to the site when the commands exist)."""
    from tests.bot.fake_github import FakeGitHub, State

    repo, base, head = fake_icon4py
    out = tmp_path_factory.mktemp("pr-check")
    until = "measure" if _missing_commands() else "site"
    state = State(owner="C2SM", repo="icon4py", number=7, head_sha=head, token=TOKEN)
    with FakeGitHub(state) as github:
        env = dict(
            os.environ,
            ICONBENCH_PYTHON=sys.executable,
            ICONBENCH_CATALOG="0",
            ICONBENCH_GITHUB_URL=github.url,
            ICONBENCH_GITHUB_TOKEN=TOKEN,
            PYTHONPATH=os.pathsep.join(
                filter(None, [str(REPO / "src"), os.environ.get("PYTHONPATH")])
            ),
        )
        env.pop("GITHUB_TOKEN", None)
        done = subprocess.run(
            [
                "bash",
                str(REPO / "ci" / "pr-check"),
                "--component",
                "icon4py",
                "--repo",
                str(repo),
                "--base",
                "main",
                "--head",
                "pr",
                "--out",
                str(out),
                "--repository",
                "C2SM/icon4py",
                "--pr",
                "7",
                "--dry-run",
                "--until",
                until,
            ],
            env=env,
            check=False,
            capture_output=True,
            text=True,
            timeout=600,
        )
    return done, out, state, base, head


def test_the_check_selects_and_measures_base_and_head_as_two_stacks(pr_check):
    done, out, _, base, head = pr_check
    assert done.returncode in (0, 1), done.stderr[-3000:]
    selection = json.loads((out / "selection.json").read_text())
    assert selection["scope"] == "programs"
    assert "compute_tangential_wind" in selection["programs"]
    assert selection["changed_files"] == [f"{STENCIL}/compute_tangential_wind.py"]
    report = json.loads((out / "continuous.json").read_text())
    assert (report["base_commit"], report["head_commit"]) == (base, head)
    # each side ran with its own commit's sources (exported once per commit)
    assert sorted(p.name for p in (out / "asv" / "env" / "checkouts").iterdir()) == sorted(
        [base, head]
    )
    for commit in (base, head):
        (result,) = (out / "asv" / "results").glob(f"*/{commit[:8]}-*.json")
        row = json.loads(result.read_text())["results"]["programs.Programs.time_device"]
        assert row[0] == [pytest.approx(row[0][0])]  # one case, measured
        assert 0 < row[0][0] < 1.0


@pytest.mark.skipif(
    bool(_missing_commands()),
    reason="the check's gate, bot and site steps need 'iconbench "
    + "', 'iconbench ".join(_missing_commands())
    + "', not in this checkout yet",
)
def test_the_gate_the_bot_and_the_site_follow(pr_check):
    done, out, state, _, head = pr_check
    assert done.returncode in (0, 1), done.stderr[-3000:]
    summary = json.loads((out / "gate-summary.json").read_text())
    assert (summary["schema"], summary["version"]) == ("iconbench-gate-summary", 1)
    assert summary["verdict"] in ("pass", "regression")
    assert done.returncode == summary["exit_code"]
    (comment,) = state.comments.values()
    assert "compute_tangential_wind" in comment["body"]
    (status,) = state.statuses
    assert status["sha"] == head
    assert status["state"] == {"pass": "success", "regression": "failure"}[summary["verdict"]]
    assert (out / "site" / "index.html").exists()

"""``ci/gpu/fork-check`` on its CPU path: a fork's gt4py change, dispatched, both roads.

What a GPU host runs (docs/security.md): the dispatch made untrusted, the measuring job's
command confined, the artifacts zipped and unpacked as actions/upload-artifact and
download-artifact hand them over, the publishing job's command posting to the fake GitHub;
here on the embedded backend and the tiny grid, one program, one block.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import zipfile

import pytest
from tests.ci.installed_repos import main_of

REPO = pathlib.Path(__file__).resolve().parents[2]


@pytest.mark.slow  # 160 s on 2 loaded cores; its roads are tested on their own by default
def test_a_forks_dispatched_gt4py_change_is_measured_untrusted_and_posted(tmp_path, git):
    repos = tmp_path / "repos"
    gt4py_repo = main_of("gt4py", repos / "gt4py", git, "gt4py 1.2.1")
    git(gt4py_repo, "checkout", "-qb", "comment")
    codegen = gt4py_repo / "src/gt4py/next/program_processors/codegens/gtfn/codegen.py"
    codegen.write_text(codegen.read_text() + "\n# reviewed\n")
    git(gt4py_repo, "commit", "-qam", "gtfn codegen: a comment")
    head = git(gt4py_repo, "rev-parse", "comment")

    out = tmp_path / "out"
    env = {
        **os.environ,
        "ICONBENCH_PYTHON": sys.executable,
        "ICONBENCH_GRID": "tiny",
        "ICONBENCH_BACKENDS": "embedded",
        "ICONBENCH_CHECK_ARGS": "--min-blocks 1 --max-blocks 1",
    }
    done = subprocess.run(
        ["bash", str(REPO / "ci" / "gpu" / "fork-check"), str(repos), str(out), "comment"],
        env=env, capture_output=True, text=True, check=False, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    record = json.loads((out / "fork-check.json").read_text())
    assert (record["request"]["trusted"], record["request"]["fork"]) == ("false", "true")
    assert record["request"]["sender"] == "fork-author"
    unprivileged = record["unprivileged"]
    assert unprivileged["exit"] in (0, 1)
    assert unprivileged["verdict"] in ("pass", "regression")
    assert list(unprivileged["phases"]) == [
        "select",
        "environments",
        "measure",
        "gate",
    ]  # nothing to compile on embedded
    assert unprivileged["planted_secret_in_results"] == []
    # the artifact as upload-artifact lays it out: the files relative to results/pr
    with zipfile.ZipFile(out / "artifact" / "results.zip") as handle:
        names = handle.namelist()
    assert {"gate-summary.json", "check.json", "check.md"} <= set(names)
    assert any(name.startswith("head/asv/") for name in names)
    privileged = record["privileged"]
    assert (privileged["exit"], privileged["comments"]) == (0, 1)
    (status,) = privileged["statuses"]
    assert status["sha"] == head
    assert status["state"] == {"pass": "success", "regression": "failure"}[unprivileged["verdict"]]
    comment = (out / "comment.md").read_text()
    assert "compute_tangential_wind" in comment
    assert "fork-check" not in comment
    assert (
        (out / "fork-check.md")
        .read_text()
        .startswith("# A dispatched check of a gt4py change from a fork")
    )

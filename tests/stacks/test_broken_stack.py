"""A stack of newer releases: what Python imports is recorded, and a break is one line.

The overlay is the real gt4py 1.2.3 + dace 2.0.0a10 from the package index
(``iconbench stack build gt4py==1.2.3``), run with the installed icon4py 0.4.1: its
``make_custom_gtfn_backend`` calls ``gtfn.GTFNBackendFactory``, which gt4py 1.2.3 has not.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from iconbench.buildcache import REPO_ROOT

MESSAGE = (
    "iconbench: error: gtfn_cpu: stack gt4py 1.2.3 + dace 2.0.0a10 + icon4py 0.4.1 is broken: "
    "icon4py's code fails on 'GTFNBackendFactory' of gt4py (AttributeError) at "
    "icon4py/model/common/model_backends.py:72"
)


def _env(cache: pathlib.Path, pythonpath: str = "") -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GT4PY_")}
    env["ICONBENCH_CACHE_DIR"] = str(cache)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (pythonpath, str(REPO_ROOT / "src")) if p)
    return env


def _iconbench(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "iconbench", *args], env=env,
                          capture_output=True, text=True, check=False, timeout=900)  # fmt: skip


@pytest.fixture(scope="module")
def newer(tmp_path_factory) -> tuple[pathlib.Path, pathlib.Path]:
    """``(cache, overlay)``: gt4py 1.2.3 with the dace it declares, built by the product."""
    cache = tmp_path_factory.mktemp("cache")
    done = _iconbench("stack", "build", "gt4py==1.2.3", env=_env(cache))
    if done.returncode != 0 and "could not be fetched" in done.stderr:
        pytest.skip(f"the package index is out of reach: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    overlay = cache / "stacks" / "gt4py-1.2.3_dace-2.0.0a10"
    assert done.stdout.strip() == f"gt4py 1.2.3 + dace 2.0.0a10: {overlay}"
    marker = json.loads((overlay / "iconbench-overlay.json").read_text())
    assert marker["added"] == ["distro", "scikit-build"]  # dace a10 needs what 1.2.1 did not
    return cache, overlay


def test_suite_all_on_gt4py_123_ends_in_one_line(newer, tmp_path):
    cache, _overlay = newer
    out = tmp_path / "run"
    done = _iconbench("--overlay", "gt4py-1.2.3_dace-2.0.0a10", "suite", "all", "--backends",
                      "embedded,gtfn_cpu", "--programs", "^compute_tangential_wind$",
                      "--grid", "tiny", "--out", str(out), env=_env(cache))  # fmt: skip
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1] == MESSAGE
    summary = json.loads((out / "summary.json").read_text())
    # a result: the backend that runs is measured, the one that cannot is named with its break
    assert summary["backends"] == ["embedded"]
    assert [c["case"] for c in summary["cases"]] == ["compute_tangential_wind[default]"]
    broken = summary["broken"]["gtfn_cpu"]
    assert (broken["component"], broken["name"], broken["owner"]) == (
        "icon4py",
        "GTFNBackendFactory",
        "gt4py",
    )
    assert summary["provenance"]["packages"]["gt4py"] == "1.2.3"
    assert summary["provenance"]["packages"]["dace"] == "2.0.0a10"


def test_the_asv_step_alone_reads_the_break_its_run_recorded_without_gt4py(newer, tmp_path):
    """A check's sides write their result files in a process of their own (``suite asv``)."""
    cache, _overlay = newer
    out = tmp_path / "run"
    common = ("--backends", "embedded,gtfn_cpu", "--programs", "^compute_tangential_wind$",
              "--grid", "tiny", "--out", str(out))  # fmt: skip
    # the catalog's road (another test module of this worker may switch it off)
    env = {k: v for k, v in _env(cache).items() if k != "ICONBENCH_CATALOG"}
    measured = _iconbench("--overlay", "gt4py-1.2.3_dace-2.0.0a10", "suite", "measure", *common,
                          env=env)  # fmt: skip
    assert measured.returncode == 2, measured.stderr[-2000:]
    env |= {"PYTHONPROFILEIMPORTTIME": "1"}
    written = _iconbench("--overlay", "gt4py-1.2.3_dace-2.0.0a10", "suite", "asv", *common,
                         env=env)  # fmt: skip
    assert written.returncode == 2
    lines = written.stderr.strip().splitlines()
    assert lines[-1] == MESSAGE
    imported = {line.split("|")[-1].strip() for line in lines if line.startswith("import time:")}
    assert "iconbench.records.resultdir" in imported  # the profile is of the step's process
    assert not {"gt4py", "dace"} & imported
    summary = json.loads((out / "summary.json").read_text())
    assert summary["backends"] == ["embedded"]
    assert [c["case"] for c in summary["cases"]] == ["compute_tangential_wind[default]"]
    assert summary["broken"]["gtfn_cpu"]["name"] == "GTFNBackendFactory"


def test_provenance_and_build_cache_name_the_imported_code(newer, tmp_path):
    cache, overlay = newer
    env = _env(cache)
    pinned = json.loads(_iconbench("stack", "show", "--json", env=env).stdout)
    on_overlay = json.loads(
        _iconbench("--overlay", str(overlay), "stack", "show", "--json", env=env).stdout
    )
    assert pinned["components"]["gt4py"]["version"] == "1.2.1"
    assert on_overlay["components"]["gt4py"] == {
        "version": "1.2.3",
        "source": "release",
        "path": str(overlay),
    }
    assert on_overlay["stack_key"] != pinned["stack_key"]

    # sources without metadata first on the path (a checkout's src/, an exported commit)
    tree = tmp_path / "src"
    shutil.copytree(overlay / "dace", tree / "dace")
    done = _iconbench("info", env=_env(cache, str(tree)))
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("dace "))
    assert line.split()[1] == "2.0.0a10"
    assert f"(tree {tree / 'dace'}, content " in line
    shown = json.loads(_iconbench("stack", "show", "--json", env=_env(cache, str(tree))).stdout)
    assert shown["components"]["dace"]["source"] == "tree"
    assert shown["stack_key"] not in (pinned["stack_key"], on_overlay["stack_key"])


def test_unknown_overlay_is_one_line(tmp_path):
    done = _iconbench("--overlay", "gt4py-9_dace-9", "info", env=_env(tmp_path))
    assert done.returncode == 2
    assert done.stderr.startswith(
        "iconbench: error: argument --overlay: --overlay gt4py-9_dace-9: no overlay there"
    )
    assert "iconbench stack build gt4py==VERSION dace==VERSION" in done.stderr


def test_a_night_on_the_broken_stack_is_recorded_as_broken(newer, tmp_path, git):
    """``ci/run-shard`` on gt4py 1.2.3, then ``ci/nightly finish``: history, log, site."""
    from tests.ci.test_nightly import _checkouts, _finish

    cache, overlay = newer
    env = _env(cache, str(overlay)) | {
        "ICONBENCH_PYTHON": sys.executable, "ICONBENCH_BACKENDS": "embedded,gtfn_cpu",
        "ICONBENCH_GRID": "tiny", "ICONBENCH_PROGRAMS": "^compute_tangential_wind$",
    }  # fmt: skip
    merged = tmp_path / "merged"
    shard = subprocess.run(["bash", str(REPO_ROOT / "ci" / "run-shard"), str(merged)], env=env,
                           capture_output=True, text=True, check=False)  # fmt: skip
    assert shard.returncode == 0, shard.stderr[-2000:]  # a broken stack is a result
    assert MESSAGE in shard.stderr
    checkouts, _commits = _checkouts(tmp_path, git)
    remote = tmp_path / "results.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    done = _finish(checkouts, merged, tmp_path / "site", remote, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    line = MESSAGE.removeprefix("iconbench: error: ")
    assert f"broken stack: {line}" in done.stderr
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "-b", "results", str(remote), str(clone))
    stored = subprocess.run([sys.executable, "-m", "iconbench", "history", "cat", "--store",
                             str(clone), "--label", "nightly", "--path", "summary/summary.json"],
                            env=env, capture_output=True, text=True, check=True)  # fmt: skip
    assert json.loads(stored.stdout)["broken"]["gtfn_cpu"]["name"] == "GTFNBackendFactory"
    overview = (tmp_path / "site" / "index.html").read_text()
    assert "broken</span> gtfn_cpu: <code>stack gt4py 1.2.3 + dace 2.0.0a10" in overview


def _release_123_repo(newer, tmp_path: pathlib.Path) -> tuple[pathlib.Path, str]:
    """A gt4py checkout whose branch ``release-1.2.3`` brings gt4py 1.2.3's code; its head."""
    from tests.stacks.test_continuous import _git, committed_gt4py

    repo = committed_gt4py(tmp_path / "gt4py")
    _git(repo, "checkout", "-q", "-b", "release-1.2.3", "main")
    shutil.rmtree(repo / "gt4py")
    shutil.copytree(newer[1] / "gt4py", repo / "gt4py",
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "gt4py 1.2.3")
    return repo, _git(repo, "rev-parse", "HEAD")


@pytest.mark.slow
def test_continuous_onto_a_breaking_gt4py_ends_in_the_heads_line(newer, tmp_path):
    """``iconbench continuous`` from a gt4py checkout whose head is gt4py 1.2.3's code."""
    cache, _ = newer
    repo, head = _release_123_repo(newer, tmp_path)
    done = _iconbench("continuous", "main", "release-1.2.3", "--repo", str(repo), "--backends",
                      "gtfn_cpu", "--programs", r"^compute_tangential_wind\[default\]$",
                      "--out", str(tmp_path / "out"), "--quick", env=_env(cache))  # fmt: skip
    assert done.returncode == 2, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"iconbench: error: head ({head[:12]}): gtfn_cpu: stack gt4py ")
    assert "icon4py's code fails on 'GTFNBackendFactory' of gt4py (AttributeError)" in last


@pytest.mark.slow
def test_bisect_finds_the_commit_that_broke_the_stack(newer, tmp_path):
    """A break is a regression of its own: the first gt4py commit with 1.2.3's code is found."""
    from tests.bisection.test_interleaved import _summary
    from tests.stacks.test_continuous import _git, committed_gt4py

    cache, overlay = newer
    repo = committed_gt4py(tmp_path / "gt4py")
    _git(repo, "checkout", "-q", "main")
    readme = repo / "README"
    for name in ("a", "break", "c"):
        if name == "break":
            shutil.rmtree(repo / "gt4py")
            shutil.copytree(overlay / "gt4py", repo / "gt4py",
                            ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
        else:
            readme.write_text(name)
        _git(repo, "add", "-A")
        _git(repo, "commit", "-qm", name)
    good, bad = _git(repo, "rev-parse", "HEAD~3"), _git(repo, "rev-parse", "HEAD")
    broke = _git(repo, "rev-parse", "HEAD~1")
    summary = _summary(tmp_path / "s.json")
    data = json.loads(summary.read_text())
    bench = data["benchmarks"][0]
    bench |= {"id": "compute_tangential_wind[default]|gtfn_cpu|device_time", "backend": "gtfn_cpu"}
    summary.write_text(json.dumps(data))
    out = tmp_path / "bisected.json"
    done = _iconbench("bisect", "--repo", str(repo), "--component", "gt4py", "--good", good,
                      "--bad", bad, "--summary", str(summary), "--out", str(out), "--quick",
                      env=_env(cache))  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    (record,) = json.loads(out.read_text())["bisect"]
    assert (record["first_bad"], record["subject"]) == (broke, "break")
    broken = [s for s in record["steps"] if s["verdict"] == "broken"]
    assert broken
    assert all(s["bad"] for s in broken)
    assert f"bisect: {bad[:12]} is bad: head ({bad[:12]}): gtfn_cpu: stack gt4py" in done.stderr


@pytest.mark.slow
def test_a_check_onto_a_breaking_gt4py_comments_the_heads_line(newer, tmp_path):
    """``iconbench check`` of a gt4py pull request whose head is gt4py 1.2.3's code: the
    pull request's comment and commit status say the head's stack is broken, in its line."""
    from tests.bot.fake_github import FakeGitHub, State

    cache, _ = newer
    repo, head = _release_123_repo(newer, tmp_path)
    token = "ghp_iconbenchBROKENSTACK0123456789"
    state = State(owner="GridTools", repo="gt4py", number=7, head_sha=head, token=token)
    with FakeGitHub(state) as github:
        env = _env(cache) | {"GITHUB_TOKEN": token}
        done = _iconbench("check", "--component", "gt4py", "--repo", str(repo), "--base", "main",
                          "--head", "release-1.2.3", "--backends", "gtfn_cpu", "--programs",
                          r"^compute_tangential_wind\[default\]$", "--out",
                          str(tmp_path / "out"), "--repository", "GridTools/gt4py", "--pr", "7",
                          f"--comment-arg=--github-url={github.url}",
                          env=env)  # fmt: skip
    assert done.returncode == 2, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    assert len(state.comments) == 1, done.stderr[-3000:]
    (comment,) = state.comments.values()
    assert (
        f"The benchmark run failed** (head ({head[:12]}): gtfn_cpu: stack gt4py 1.2.3"
        in (comment["body"])
    )
    assert "fails on 'GTFNBackendFactory' of gt4py (AttributeError)" in comment["body"]
    assert [s["state"] for s in state.statuses] == ["error"]

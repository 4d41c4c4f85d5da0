"""``iconbench bisect``, each step an interleaved A/B: the fake icon4py's slower commit found.

The repository is :mod:`tests.history.fake_backfill`'s (its commit K makes
``compute_tangential_wind`` several times the work; 13 first-parent commits after c1, K the
6th). Each step measures its commit against c1 on ``embedded`` in alternating fresh
processes (``--quick``: 4 + 4), so the bisection is ``-m slow``; bad input is one line.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest
from tests.history import fake_backfill as fake

from iconbench.buildcache import REPO_ROOT
from iconbench.records.summary import Summary

ENV = dict(
    os.environ,
    PYTHONPATH=os.pathsep.join(
        filter(None, [str(REPO_ROOT / "src"), os.environ.get("PYTHONPATH")])
    ),
)


@pytest.fixture(scope="module")
def fake_icon4py(tmp_path_factory, git):
    from iconbench.stacks import sides

    repo, commits = fake.make_repo(tmp_path_factory.mktemp("interleaved"), git)
    yield repo, commits
    for commit in commits.values():  # the trees the steps ran from, kept in the cache
        shutil.rmtree(sides.exported_trees("icon4py") / commit, ignore_errors=True)


def _summary(path, verdict: str = "regression"):
    """A nightly's gate summary: ``compute_tangential_wind`` on embedded, 2x, ``verdict``."""
    example = Summary.example()
    bench = dataclasses.replace(
        example.benchmarks[0], id=f"{fake.STEPPED}|embedded|device_time",
        program="compute_tangential_wind", variant="default", backend="embedded", ratio=2.0,
        ratio_ci=(1.95, 2.05), verdict=verdict,
    )  # fmt: skip
    grid = dataclasses.replace(example.head.grid, name="tiny")
    side = dataclasses.replace(example.head, grid=grid)
    dataclasses.replace(example, base=side, head=side, benchmarks=(bench,)).write(path)
    return path


def _bisect(repo, *args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "iconbench", "bisect", "--repo", str(repo), "--component",
         "icon4py", *args],
        env=ENV, capture_output=True, text=True, check=False, timeout=1500,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ((), "bisect: give --summary"),
        (("--programs", "^compute_tangential_wind"), "bisect: give --summary"),
        (("--summary", "improvement"), "no regression to bisect"),
        (("--programs", "^compute_", "--backends", "embedded", "--grid", "tiny"),
         "--programs '^compute_' matches "),
    ],
)  # fmt: skip
def test_bad_input_is_one_line(fake_icon4py, tmp_path, given, says):
    repo, c = fake_icon4py
    if "--summary" in given:
        given = ("--summary", str(_summary(tmp_path / "s.json", given[1])))
    done = _bisect(repo, "--good", c["c1"], "--bad", c["c12"], *given, "--out",
                   str(tmp_path / "out.json"))  # fmt: skip
    assert done.returncode == 2, done.stderr[-3000:]
    (line,) = done.stderr.strip().splitlines()
    assert says in line
    assert not (tmp_path / "out.json").exists()
    assert not (tmp_path / "out.steps").exists()


@pytest.mark.slow
def test_each_step_is_an_ab_and_the_slower_commit_is_found(fake_icon4py, tmp_path):
    repo, c = fake_icon4py
    out = tmp_path / "bisected.json"
    done = _bisect(repo, "--good", c["c1"], "--bad", c["c12"], "--summary",
                   str(_summary(tmp_path / "s.json")), "--out", str(out), "--quick")  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    (record,) = json.loads(out.read_text())["bisect"]
    assert (record["first_bad"], record["parent"], record["subject"]) == (c["K"], c["docs"], "K")
    assert (record["method"], record["commits"]) == ("interleaved A/B", 13)
    order = [c[n] for n in ("c2", "c3", "c4", "c5", "docs", "K", "c7", "c8", "c9", "c10",
                            "c11", "pin", "c12")]  # fmt: skip
    steps = record["steps"]
    # the bad end first (nothing measured it yet), then binary search: log2(13) -> 4 steps
    assert steps[0]["commit"] == c["c12"]
    assert 1 + 3 <= len(steps) <= 1 + 4
    for step in steps:
        slower = order.index(step["commit"]) >= order.index(c["K"])
        assert step["bad"] is slower, step
        low, _ = step["ratio_ci"]
        if slower:  # K's work, several times the parent's, beyond the interval's doubt
            assert step["ratio"] > 1.5
            assert low > 1.0
        else:  # the same code as c1
            assert step["ratio"] < 1.5
        base, head = (int(n) for n in step["processes"].split("+"))
        assert base >= 4
        assert head >= 4
        summary = json.loads((tmp_path / "bisected.steps" / pathlib.Path(step["directory"]).name
                              / "gate-summary.json").read_text())  # fmt: skip
        assert (summary["base"]["commit"], summary["head"]["commit"]) == (c["c1"], step["commit"])
    assert c["K"] in [s["commit"] for s in steps]
    assert f"first bad commit: {c['K'][:12]} 'K'" in done.stdout

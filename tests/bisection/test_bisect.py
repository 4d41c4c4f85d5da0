"""Bisection on the CPU: a tiny repository where one commit makes a benchmark 100x slower.

``asv find`` runs in the ``iconbench-checkout`` environment (this Python, the commit's
sources on the path), so each step costs one benchmark process, not an environment build.
"""

import json
import pathlib
import sys

import pytest

from iconbench.bisection import find, record
from iconbench.errors import IconbenchError

SLOW_AT = 5  # the commit (1-based) that makes `run` slow
COMMITS = 8


@pytest.fixture(scope="module")
def fake_component(tmp_path_factory, git):
    """A repository 'fakecomp' of COMMITS commits; commit SLOW_AT raises the loop count 100x.

    A fast commit's call takes about a millisecond, not microseconds: the tests run beside
    others on every core (``ci/test``), and a time slice taken from a 10 µs call made it look
    as slow as the slow commit's. The benchmark counts the process's CPU time (asv's
    ``timer``), not the wall's: beside the other tests a slow commit's wall time moved more
    than 2x, and ``asv find``, which follows the larger of two steps, then stepped past the
    commit that made it slow (commit 6 named instead of 5, once in a fresh clone's run)."""
    root = tmp_path_factory.mktemp("bisect")
    repo = root / "fakecomp"
    package = repo / "src" / "fakecomp"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    git(repo, "init", "-q", "-b", "main")
    shas = []
    for number in range(1, COMMITS + 1):
        count = 10_000_000 if number >= SLOW_AT else 100_000
        (package / "work.py").write_text(f"N = {count}\n\ndef run():\n    return sum(range(N))\n")
        (repo / "NOTES").write_text(f"commit {number}\n")
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", f"change {number}")
        shas.append(git(repo, "rev-parse", "HEAD"))
    benchmarks = root / "benchmarks"
    benchmarks.mkdir()
    (benchmarks / "__init__.py").write_text("")
    (benchmarks / "work.py").write_text(
        "import time\n\nimport fakecomp.work\n\n\nclass Work:\n    number = 5\n    repeat = 3\n"
        "    rounds = 1\n    warmup_time = 0.0\n    timer = time.process_time\n\n"
        "    def time_run(self):\n"
        "        fakecomp.work.run()\n"
    )
    config = root / "asv.conf.json"
    config.write_text(
        json.dumps(
            {
                "version": 1,
                "project": "fakecomp",
                "project_url": "https://example.org/fakecomp",
                "show_commit_url": "https://example.org/fakecomp/commit/",
                "repo": str(repo),
                "dvcs": "git",
                "branches": ["main"],
                "environment_type": "iconbench-checkout",
                "plugins": [".iconbench.stacks.checkout_env"],
                "pythons": [sys.executable],
                "benchmark_dir": "benchmarks",
                "env_dir": "env",
                "results_dir": "results",
                "html_dir": "html",
                "build_command": [],
                "install_command": [],
                "uninstall_command": [],
            }
        )
    )
    return repo, shas, config


def test_asv_find_names_the_commit_that_made_it_slower(fake_component, tmp_path):
    repo, shas, config = fake_component
    found = find.find(
        repo=repo,
        good=shas[0],
        bad=shas[-1],
        bench=r"work\.Work\.time_run",
        config=config,
        component="fakecomp",
    )
    assert found.first_bad == shas[SLOW_AT - 1]
    assert found.parent == shas[SLOW_AT - 2]
    assert found.subject == f"change {SLOW_AT}"
    assert found.url == f"https://example.org/fakecomp/commit/{shas[SLOW_AT - 1]}"
    assert found.commits == COMMITS - 1
    # the saved measurements show the step: 100x the work is far more than 10x the time
    assert found.ratio is not None
    assert found.ratio > 10

    summary = {"schema": "iconbench-gate-summary", "version": 1, "verdict": "regression"}
    bisected = record.attach(summary, [found], "work|cpu|device_time")
    assert bisected["bisect"][0]["first_bad"] == shas[SLOW_AT - 1]
    assert "bisect" not in summary  # the original is left as it was


def test_bisect_refuses_an_empty_range_and_a_foreign_summary(fake_component, tmp_path):
    repo, shas, config = fake_component
    with pytest.raises(IconbenchError, match="no commits between"):
        find.find(
            repo=repo, good=shas[-1], bad=shas[-1], bench="x", config=config, component="fakecomp"
        )
    with pytest.raises(IconbenchError, match="failed"):
        find.find(
            repo=repo,
            good="no-such-ref",
            bad=shas[-1],
            bench="x",
            config=config,
            component="fakecomp",
        )
    with pytest.raises(IconbenchError, match="not an iconbench-gate-summary v1"):
        record.check_summary({"schema": "other"}, "x.json")


def test_the_worst_regression_of_a_summary_is_bisected():
    summary = {
        "benchmarks": [
            {
                "id": "a",
                "verdict": "regression",
                "ratio": 1.2,
                "program": "a",
                "variant": "default",
                "backend": "gtfn_gpu",
                "metric": "device_time",
            },
            {
                "id": "b",
                "verdict": "regression",
                "ratio": 1.6,
                "program": "b",
                "variant": "x=1",
                "backend": "dace_gpu",
                "metric": "host_overhead",
            },
            {"id": "c", "verdict": "unchanged", "ratio": 3.0},
        ]
    }
    worst = record.worst_regression(summary)
    assert worst["id"] == "b"
    bench, variables = record.asv_selection(worst)
    assert bench == r"programs\.Programs\.track_call_overhead"
    assert variables == {"ICONBENCH_PROGRAMS": r"^b\[x=1\]$", "ICONBENCH_BACKENDS": "dace_gpu"}
    assert record.worst_regression({"benchmarks": []}) is None


def test_source_roots_put_the_commits_sources_first(fake_component):
    from iconbench.stacks.trees import source_roots

    repo, _, _ = fake_component
    assert source_roots(repo) == [repo / "src"]
    assert pathlib.Path(repo / "src" / "fakecomp").is_dir()

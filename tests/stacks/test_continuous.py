"""``iconbench continuous`` on a gt4py checkout: both commits interleaved through the runner, gated.

The "gt4py checkout" is the installed gt4py committed to a temporary repository: ``slow`` adds
2 ms to every program call (``Program.__call__``), ``same`` only a comment. Commit dates are
fixed, so the commits are the same on every run and their exported trees (and, on a compiled
backend, their builds) in the iconbench cache are reused.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import time

import gt4py
import pytest

from iconbench.errors import IconbenchError
from iconbench.stacks import component

REPO = pathlib.Path(__file__).resolve().parents[2]
CASE = "compute_tangential_wind[default]"
PROGRAMS = r"^compute_tangential_wind\[default\]$"
#: The start of ``gt4py.next.ffront.decorator.Program.__call__`` in gt4py 1.2.1.
CALL = (
    "        enable_jit = self.compilation_options.enable_jit if enable_jit is None else "
    "enable_jit\n"
)
SLEEP = "        import time\n\n        time.sleep(0.002)\n"
FIXED_DATE = {
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
}


def _git(repo: pathlib.Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        env=dict(os.environ, **FIXED_DATE), check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip


def _branch(repo: pathlib.Path, name: str, added: str) -> None:
    """Branch ``name`` off main: ``added`` after the first line of ``Program.__call__``."""
    decorator = repo / "gt4py" / "next" / "ffront" / "decorator.py"
    _git(repo, "checkout", "-q", "-b", name, "main")
    text = decorator.read_text()
    assert text.count(CALL) == 1, f"gt4py changed: {CALL!r} not found once in {decorator}"
    decorator.write_text(text.replace(CALL, CALL + added))
    _git(repo, "commit", "-qam", name)


def committed_gt4py(repo: pathlib.Path) -> pathlib.Path:
    """The installed gt4py as ``main`` in ``repo``, with branches ``slow`` and ``same``.

    Also the checkout ``perf/check_overhead.py`` times checks on.
    """
    shutil.copytree(pathlib.Path(gt4py.__file__).parent, repo / "gt4py",
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    (repo / "pyproject.toml").write_text('[project]\nname = "gt4py"\nversion = "1.2.1"\n')
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "gt4py 1.2.1")
    _branch(repo, "slow", SLEEP)
    _branch(repo, "same", "        # a comment: no change in speed\n")
    return repo


@pytest.fixture(scope="module")
def gt4py_repo(tmp_path_factory) -> pathlib.Path:
    return committed_gt4py(tmp_path_factory.mktemp("continuous") / "gt4py")


def _continuous(repo: pathlib.Path, head: str, out: pathlib.Path | None, *options: str):
    """``iconbench continuous main HEAD`` run in the checkout, as its developer runs it."""
    env = {k: v for k, v in os.environ.items() if k != "ICONBENCH_CATALOG"}  # the catalog's cases
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "src"), env.get("PYTHONPATH")]))
    where = ["--out", str(out)] if out is not None else []
    return subprocess.run(
        [sys.executable, "-m", "iconbench", "continuous", "main", head, "--programs", PROGRAMS,
         *where, *options],
        env=env, capture_output=True, text=True, check=False, timeout=900, cwd=repo,
    )  # fmt: skip


def _rounds(out: pathlib.Path, side: str) -> list[dict]:
    lines = (out / side / "work" / "session.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def test_the_same_code_on_both_sides_is_said_at_once_and_nothing_measured(gt4py_repo):
    """``same`` adds a comment: its code identity is main's, so nothing is exported twice,
    compiled or measured, and no results directory is made."""
    started = time.monotonic()
    done = _continuous(gt4py_repo, "same", None, "--backends", "embedded")
    took = time.monotonic() - started
    base, head = (_git(gt4py_repo, "rev-parse", ref)[:12] for ref in ("main", "same"))
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == (
        f"gt4py: main ({base}) → same ({head}): the same code on both sides (the sources "
        "differ in comments or layout at most): nothing to measure\n"
    )
    assert took < 10, took
    assert not list(gt4py_repo.glob("iconbench-continuous-*"))


def test_a_slower_commit_is_a_regression_of_interleaved_workers(gt4py_repo):
    """embedded on the tiny grid: nothing to compile, the 2 ms sleep caught in the host time.

    Run in the gt4py checkout without ``--out``: the results are written under it."""
    done = _continuous(gt4py_repo, "slow", None, "--backends", "embedded", "--quick")
    # where it was run, named by both branches and commits, whatever the verdict
    (out,) = gt4py_repo.glob("iconbench-continuous-*")
    base, head = (_git(gt4py_repo, "rev-parse", ref) for ref in ("main", "slow"))
    assert done.stdout.startswith(f"gt4py: main ({base[:12]}) → slow ({head[:12]})\nbase: main")
    assert done.stdout.endswith(f"results: {out} (base/asv, head/asv, gate-summary.json)\n")
    assert "OpenACC" not in done.stdout + done.stderr  # no ICON experiment runs on tiny
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]

    # ABBA BAAB, one fresh worker per round: no side is measured wholly before the other
    rows = {side: _rounds(out, side) for side in ("base", "head")}
    order = sorted((row["started_at"], row["worker"]) for side in rows for row in rows[side])
    assert [worker for _, worker in order] == [
        "r01-base", "r02-head", "r03-head", "r04-base",
        "r05-head", "r06-base", "r07-base", "r08-head",
    ]  # fmt: skip
    # every round ran its own commit's gt4py: a head process is ~2 ms slower per call. One
    # process of a side can be slowed by its loaded 2-core runner (a base process at 3.86 ms
    # among 1.23-1.81 ms, in a full test run), so the sides' middles are compared, and the
    # head is slower in at least three of four pairs of processes.
    medians = {
        side: [statistics.median(row["measurement"]["host_s"]) for row in rows[side]]
        for side in rows
    }
    assert all(row["error"] is None and row["case"] == CASE for side in rows for row in rows[side])
    assert statistics.median(medians["head"]) - statistics.median(medians["base"]) > 1.0e-3, medians
    pairs = zip(sorted(medians["head"]), sorted(medians["base"]), strict=True)
    slower = sum(h - b > 1.0e-3 for h, b in pairs)
    assert slower >= 3, medians

    summary = json.loads((out / "gate-summary.json").read_text())
    (bench,) = [b for b in summary["benchmarks"] if b["gated"]]
    assert (bench["id"], bench["verdict"]) == (f"{CASE}|embedded|device_time", "regression")
    assert bench["ratio"] > 1.8  # ~0.8 ms a call against ~2.8 ms
    assert bench["ratio_ci"][0] > 1.05  # beyond the 5 % threshold
    assert any("4+4 processes" in note for note in bench["notes"])
    assert (summary["verdict"], summary["exit_code"]) == ("regression", 1)
    # in a developer's words: the metric of a CPU backend, the statistics
    assert f"regression   {CASE} embedded time per call" in done.stdout
    assert "measured in 4 fresh processes per commit, alternating" in done.stdout
    assert "How to read it: ratio is head's time over base's" in done.stdout
    assert str(REPO / "docs" / "explanation" / "statistics.md") in done.stdout
    # its rounds keep their logs, not the turn files their workers were driven by (as a check)
    assert list((out / "rounds").glob("r01-*.log"))
    assert not [p.name for p in out.rglob("*") if ".turn" in p.name]
    assert "REGRESSION: 1 regression" in done.stdout

    # asv result files and a summary for each commit; the phases of the comparison
    for side, commit in (("base", base), ("head", head)):
        assert json.loads((out / side / "summary.json").read_text())["commit"] == commit
        assert list((out / side / "asv").glob(f"*/{commit[:8]}-*-tiny.json"))
    check = json.loads((out / "check.json").read_text())
    assert list(check["phases"]) == ["environments", "measure", "gate"]  # embedded: no compile
    assert (check["base"], check["head"], check["rounds"], check["exit"]) == (base, head, 8, 1)


@pytest.mark.slow  # two gtfn_cpu compiles for the checkout's gt4py: 60-120 s on 2 cores
def test_on_a_compiled_backend_a_comment_passes_and_the_sleep_is_host_overhead(
    gt4py_repo, tmp_path
):
    from iconbench.buildcache import cache_root

    same = _continuous(gt4py_repo, "same", tmp_path / "same", "--backends", "gtfn_cpu", "--json")
    assert same.returncode == 0, same.stderr[-3000:]
    assert "the same code on both sides" in same.stdout  # a comment: nothing measured
    assert not (tmp_path / "same").exists()
    done = _continuous(gt4py_repo, "slow", tmp_path / "slow", "--backends", "gtfn_cpu", "--json")
    summary = json.loads(done.stdout)
    assert (done.returncode, summary["exit_code"]) == (1, 1)
    verdicts = {b["metric"]: b["verdict"] for b in summary["benchmarks"] if b["gated"]}
    assert verdicts["host_overhead"] == "regression"
    # slow's gt4py has a build cache of its own, beside main's
    stacks = {side: json.loads((tmp_path / "slow" / side / "summary.json").read_text())["stack"]
              for side in ("base", "head")}  # fmt: skip
    assert stacks["head"] != stacks["base"]
    assert all((cache_root() / "gt4py" / key).is_dir() for key in set(stacks.values()))


def test_the_component_is_read_from_the_checkout(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "something-else"\n')
    with pytest.raises(IconbenchError, match=r"'something-else' is not gt4py.* or --component"):
        component.detect(tmp_path)
    assert component.detect(REPO) is None  # iconbench itself

"""``iconbench history confirm`` on a fake icon4py with a planted slowdown and its backfill.

The repository and the backfill's output: :mod:`tests.history.fake_backfill` (one change
point, at K, whose first parent the backfill did not select; c12's parent on a stack that is
not here). The default tests plan, refuse bad input and resume without measuring; the A/Bs
themselves (gtfn_cpu: each side's program compiled) are ``-m slow``.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest
from tests.history import fake_backfill as fake
from tests.history.test_backfill import OTHER, here

from iconbench.errors import IconbenchError
from iconbench.history import confirm, confirmation
from iconbench.history.store import HistoryStore

REPO = pathlib.Path(__file__).resolve().parents[2]
SAMPLING = ("--samples", "50", "--max-s", "0.5", "--warmup-s", "0.1")


@pytest.fixture(scope="module")
def fake_icon4py(tmp_path_factory, git):
    """The fake repository and its commits by name."""
    return fake.make_repo(tmp_path_factory.mktemp("confirm"), git)


@pytest.fixture
def backfilled(fake_icon4py, tmp_path):
    """A fresh copy of the backfill's output (the tests write into it)."""
    _, commits = fake_icon4py
    return fake.write_backfill(tmp_path / "backfill", commits)


def _confirm(repo: pathlib.Path, out: pathlib.Path, *extra: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [str(REPO / "src"), os.environ.get("PYTHONPATH")])))  # fmt: skip
    return subprocess.run(
        [sys.executable, "-m", "iconbench", "history", "confirm", "--repo", str(repo),
         "--out", str(out), "--stacks", str(out.parent / "stacks"), *SAMPLING, *extra],
        env=env, capture_output=True, text=True, check=False, timeout=900,
    )  # fmt: skip


def _plan(repo: pathlib.Path, out: pathlib.Path, *extra: str) -> dict[str, dict]:
    done = _confirm(repo, out, "--dry-run", "--json", *extra)
    assert done.returncode == 0, done.stderr[-3000:]
    return {step["commit"]: step for step in json.loads(done.stdout)}


def test_the_change_point_is_planned_against_its_first_parent(fake_icon4py, backfilled):
    repo, c = fake_icon4py
    plan = _plan(repo, backfilled)
    assert list(plan) == [c["K"]]  # the one change point; the flat program has none
    step = plan[c["K"]]
    assert (step["parent"], step["parent_in_backfill"]) == (c["docs"], False)
    (bench,) = step["benchmarks"]
    assert (bench["case"], bench["backend"]) == (fake.STEPPED, fake.BACKEND)
    assert bench["step"] == pytest.approx(fake.STEP, rel=0.03)  # the history's step, ±1 % noise
    assert bench["before"] == c["c5"]
    assert bench["confidence"] >= 0.99
    stack = f"gt4py {here()['gt4py']} + dace {here()['dace']}"
    assert (step["head_stack"], step["base_stack"], step["missing"]) == (stack, stack, None)
    assert step["state"] == "to measure"
    assert step["directory"] == str(backfilled / "confirm" / c["K"])


def test_a_named_commit_gets_its_benchmarks_and_its_parent_its_own_stack(fake_icon4py, backfilled):
    repo, c = fake_icon4py
    plan = _plan(repo, backfilled, "--commit", c["c12"][:10], "--commit", c["c7"][:8],
                 "--programs", r"^compute_tangential_wind\[")  # fmt: skip
    assert list(plan) == [c["c7"], c["c12"]]  # history order, not the order named
    c7 = plan[c["c7"]]
    assert (c7["parent"], c7["parent_in_backfill"]) == (c["K"], True)
    (bench,) = c7["benchmarks"]  # --programs leaves one of its two
    assert bench["case"] == fake.STEPPED
    assert bench["step"] == pytest.approx(1.0, abs=0.05)  # no step at c7 in the history
    assert (bench["before"], bench["confidence"]) == (c["K"], None)
    c12 = plan[c["c12"]]
    assert (c12["parent"], c12["parent_in_backfill"]) == (c["pin"], False)
    assert c12["head_stack"] == f"gt4py {here()['gt4py']} + dace {here()['dace']}"
    assert c12["base_stack"] == f"gt4py {OTHER['gt4py']} + dace {OTHER['dace']}"
    assert c12["missing"].startswith(f"{c['pin'][:10]}: its stack gt4py 1.2.0 + dace 2.0.0a5 ")
    assert f"iconbench stack build {c['pin'][:10]} --repo {repo}" in c12["missing"]


def test_a_side_whose_stack_is_missing_is_one_line_and_nothing_is_measured(
    fake_icon4py, backfilled
):
    repo, c = fake_icon4py
    done = _confirm(repo, backfilled, "--commit", c["c12"])
    assert done.returncode == 1, done.stderr[-3000:]
    lines = [line for line in done.stderr.splitlines() if "its stack gt4py 1.2.0" in line]
    assert len(lines) == 1
    assert "confirm: 0 measured, 0 appended" in done.stderr
    assert "precompile" not in done.stderr
    assert not (backfilled / "confirm" / c["c12"]).exists()


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--commit", "nosuch"), "'nosuch' is no commit of"),
        (("--commit", "docs"), "is not a commit of the backfill in"),
        (("--commit", "K", "--programs", "^nosuch"), "'^nosuch' matches none of the"),
        (("--store", "EMPTY"), "no history store there"),
        (("--out", "EMPTY"), "no backfill results there (no <commit>/summary.json)"),
    ],
)
def test_bad_input_is_one_line(fake_icon4py, backfilled, tmp_path, args, says):
    repo, c = fake_icon4py
    (tmp_path / "empty").mkdir()
    given = [str(tmp_path / "empty") if a == "EMPTY" else c.get(a, a) for a in args]
    out = pathlib.Path(given[1]) if args[0] == "--out" else backfilled
    done = _confirm(repo, out, *(given if args[0] != "--out" else ()))
    assert done.returncode == 2, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert says in line
    assert not (backfilled / "confirm").exists()


def _record(c: dict[str, str], verdict: str, ci: tuple[float, float]) -> confirmation.Confirmation:
    """A record of K's A/B as the command writes it (the numbers given)."""
    bench = confirmation.Benchmark(
        fake.STEPPED, fake.BACKEND, "device_time", 2.0, c["c5"], (ci[0] + ci[1]) / 2, ci,
        "regression", verdict, ("4+4 processes: the spread between them counts",), 0.99,
    )  # fmt: skip
    return confirmation.Confirmation(
        c["K"], c["docs"], "none", "tiny", "2026-11-26T12:00:00+00:00", "ci",
        "gt4py 1.2.1 + dace 2.0.0a6", "gt4py 1.2.1 + dace 2.0.0a6", False, 8, "decided", (bench,),
    )  # fmt: skip


def test_a_recorded_commit_is_appended_once_and_never_measured_again(fake_icon4py, backfilled):
    repo, c = fake_icon4py
    record = backfilled / "confirm" / c["K"] / confirm.RECORD
    _record(c, confirmation.CONFIRMED, (1.61, 2.74)).write(record)  # e.g. a store lost or moved
    first = _confirm(repo, backfilled)
    assert first.returncode == 0, first.stderr[-3000:]
    assert "confirm: 0 measured, 1 appended" in first.stderr
    second = _confirm(repo, backfilled)
    assert second.returncode == 0, second.stderr[-3000:]
    assert "confirm: 0 measured, 0 appended" in second.stderr
    assert "1 done before, 0 left" in second.stderr
    assert "precompile" not in first.stderr + second.stderr
    assert sorted(p.name for p in record.parent.iterdir()) == [confirm.RECORD]
    (entry,) = [e for e in HistoryStore.open(backfilled / "history").entries()
                if e.label == confirm.LABEL]  # fmt: skip
    assert (entry.commit, entry.kind) == (c["K"], "main")
    (ref,) = entry.files
    assert ref.role == "confirmation"
    assert HistoryStore.open(backfilled / "history").read(ref) == record.read_bytes()
    with pytest.raises(IconbenchError, match="already recorded there; kept"):
        _record(c, confirmation.NOT_CONFIRMED, (0.9, 1.1)).write(record)


# --------------------------------------------------------------------------- measured (slow)


@pytest.fixture(scope="module")
def measured(fake_icon4py, tmp_path_factory):
    """Three runs into one backfill: every change point, then c7 named, then c7 again."""
    from iconbench.stacks import sides

    repo, c = fake_icon4py
    out = fake.write_backfill(tmp_path_factory.mktemp("confirm-measured") / "backfill", c)
    narrow = ("--commit", c["c7"], "--programs", r"^compute_tangential_wind\[")
    runs = [_confirm(repo, out), _confirm(repo, out, *narrow), _confirm(repo, out, *narrow)]
    yield out, runs
    for name in ("docs", "K", "c7"):  # the trees each side ran from, kept in the cache
        shutil.rmtree(sides.exported_trees("icon4py") / c[name], ignore_errors=True)


def _workers(attempt: pathlib.Path) -> dict[str, list[str]]:
    return {
        side: [json.loads(line)["worker"]
               for line in (attempt / side / "work" / "session.jsonl").read_text().splitlines()]
        for side in ("base", "head")
    }  # fmt: skip


@pytest.mark.slow
def test_the_planted_step_is_confirmed_by_an_interleaved_ab(fake_icon4py, measured):
    _, c = fake_icon4py
    out, (first, _, _) = measured
    assert first.returncode == 0, first.stderr[-3000:]
    record = confirmation.read(out / "confirm" / c["K"] / confirm.RECORD)
    assert (record.commit, record.parent, record.parent_in_backfill) == (c["K"], c["docs"], False)
    (bench,) = record.benchmarks
    assert (bench.case, bench.backend, bench.metric) == (fake.STEPPED, fake.BACKEND, "device_time")
    assert bench.step == pytest.approx(fake.STEP, rel=0.03)
    low, high = bench.ratio_ci
    assert 1.0 < low <= bench.ratio <= high  # slower, its interval wholly above 1
    assert bench.verdict == confirmation.CONFIRMED
    # base and head alternated in fresh processes, ABBA then BAAB: neither measured first
    workers = _workers(out / "confirm" / c["K"] / "1")
    assert workers["base"][:4] == ["r01-base", "r04-base", "r06-base", "r07-base"]
    assert workers["head"][:4] == ["r02-head", "r03-head", "r05-head", "r08-head"]
    assert record.rounds == len(workers["base"]) + len(workers["head"]) >= 8
    summary = json.loads((out / "confirm" / c["K"] / "1" / "gate-summary.json").read_text())
    assert summary["head"]["commit"] == c["K"]
    assert summary["base"]["commit"] == c["docs"]


@pytest.mark.slow
def test_an_unchanged_commit_is_not_confirmed(fake_icon4py, measured):
    _, c = fake_icon4py
    out, (_, second, _) = measured
    assert second.returncode == 0, second.stderr[-3000:]
    assert "confirm: 1 measured, 1 appended" in second.stderr
    record = confirmation.read(out / "confirm" / c["c7"] / confirm.RECORD)
    assert (record.parent, record.parent_in_backfill) == (c["K"], True)
    (bench,) = record.benchmarks
    low, high = bench.ratio_ci
    assert low <= 1.0 <= high  # the same code on both sides
    assert bench.verdict == confirmation.NOT_CONFIRMED


@pytest.mark.slow
def test_a_second_run_measures_nothing_and_the_site_shows_both(fake_icon4py, measured, tmp_path):
    _, c = fake_icon4py
    out, (_, _, third) = measured
    assert third.returncode == 0, third.stderr[-3000:]
    assert "confirm: 0 measured, 0 appended" in third.stderr
    assert "precompile" not in third.stderr
    assert sorted(p.name for p in (out / "confirm" / c["c7"]).iterdir()) == ["1", confirm.RECORD]
    entries = HistoryStore.open(out / "history").entries()
    assert sorted(e.commit for e in entries if e.label == confirm.LABEL) == sorted(
        [c["K"], c["c7"]]
    )
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "iconbench", "history", "publish", "--store", str(out / "history"),
         "--out", str(site)], capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    page = (site / "programs" / "compute_tangential_wind.html").read_text()
    (bench,) = confirmation.read(out / "confirm" / c["K"] / confirm.RECORD).benchmarks
    assert f'data-commit="{c["K"]}" data-status="confirmed"' in page
    assert bench.describe() in page

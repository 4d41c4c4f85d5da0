"""``ci/nightly finish`` confirms before it reports, on the fake icon4py of the backfill tests.

The checkouts hold a fake gt4py and dace (one commit each) and the fake icon4py of
:mod:`tests.history.fake_backfill` (its commit K makes ``compute_tangential_wind`` several times
the work). Each night's merged results are written, not measured: device times of
``compute_tangential_wind[default]`` and ``add_analysis_increments_to_vn[default]`` on
``embedded`` (20 samples, 1 % noise). The confirmation itself measures: an interleaved A/B
of both nights' stacks (``--quick``: 4 + 4 processes), on the CPU.

- Two nights of one stack: nothing flagged, nothing measured, nothing reported or bisected.
- The last nightly at K's parent, tonight at K, with tonight's results 2x slower for the
  program K changed (the code's step) and 1.3x for one it did not (a planted run-to-run
  step, in the results only): the A/B confirms the first, which alone is reported and
  bisected (to K), and not the second, which is listed once as run-to-run noise.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest
from tests.history import fake_backfill as fake

from iconbench.buildcache import REPO_ROOT
from iconbench.history.store import HistoryStore
from iconbench.records import asv as results
from iconbench.records.summary import Summary

BACKEND = "embedded"
ENV = dict(
    os.environ,
    ICONBENCH_PYTHON=sys.executable,
    ICONBENCH_CONFIRM_OPTIONS="--quick",
    ICONBENCH_GATE_CONFIG=str(pathlib.Path(__file__).with_name("cpu-path-gate.toml")),
    PYTHONPATH=os.pathsep.join(
        filter(None, [str(REPO_ROOT / "src"), os.environ.get("PYTHONPATH")])
    ),
)


@pytest.fixture(scope="module")
def checkouts(tmp_path_factory, git):
    """CHECKOUTS of ``ci/nightly``: fake gt4py and dace, the fake icon4py; its commits by name."""
    from iconbench.stacks import sides

    root = tmp_path_factory.mktemp("nightly") / "checkouts"
    for component in ("gt4py", "dace"):
        git(root.parent, "init", "-q", "-b", "main", str(root / component))
        (root / component / "README").write_text(component)
        git(root / component, "add", "-A")
        git(root / component, "commit", "-qm", "main")
    _, commits = fake.make_repo(root, git)
    yield root, commits
    for commit in commits.values():  # the trees the A/Bs ran from, kept in the cache
        shutil.rmtree(sides.exported_trees("icon4py") / commit, ignore_errors=True)


def _night(checkouts: pathlib.Path, icon4py: str, git) -> dict[str, str]:
    """Check out ``icon4py`` and write ``CHECKOUTS/stack.json`` as ``ci/nightly stack`` does."""
    git(checkouts / "icon4py", "checkout", "-q", "--detach", icon4py)
    commits = {c: git(checkouts / c, "rev-parse", "HEAD") for c in ("gt4py", "dace", "icon4py")}
    stack = {"schema": "iconbench-nightly-stack", "commits": commits}
    (checkouts / "stack.json").write_text(json.dumps(stack))
    return commits


def _merged(root: pathlib.Path, commit: str, night: int, steps: dict[str, float]) -> pathlib.Path:
    """A night's merged results: both programs' device times, ``steps`` times their level."""
    rng = np.random.default_rng(night)
    cases = {fake.STEPPED: 700e-6, fake.FLAT: 250e-6}
    benchmarks = results.program_benchmarks(
        REPO_ROOT / "benchmarks", cases=list(cases), backends=[BACKEND], grids=["tiny"]
    )
    values: dict[str, dict] = {"time_device": {}, "time_host": {}}
    for case, level in cases.items():
        samples = [float(v) for v in level * steps.get(case, 1.0) * np.exp(rng.normal(0, 0.01, 20))]
        values["time_device"][case, BACKEND, "tiny"] = (float(np.median(samples)), samples)
        host = [v + 20e-6 for v in samples]
        values["time_host"][case, BACKEND, "tiny"] = (float(np.median(host)), host)
    results.write_asv(root / "asv", benchmarks, values, machine=fake.MACHINE, commit=commit,
                      env_name="existing-py3.12-nightly-tiny", python="3.12",
                      date_ms=1_795_000_000_000 + night * 86_400_000)  # fmt: skip
    return root


def _finish(checkouts, merged, site, remote, step_summary=None) -> subprocess.CompletedProcess:
    env = dict(ENV, GITHUB_STEP_SUMMARY=str(step_summary)) if step_summary else ENV
    return subprocess.run(
        ["bash", str(REPO_ROOT / "ci" / "nightly"), "finish", str(checkouts), str(merged),
         str(site), str(remote), "results"],
        env=env, capture_output=True, text=True, check=False, timeout=900,
    )  # fmt: skip


def _remote(tmp_path, git) -> pathlib.Path:
    remote = tmp_path / "results.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    return remote


def test_two_nights_of_one_stack_report_nothing_and_measure_nothing(checkouts, tmp_path, git):
    root, c = checkouts
    remote = _remote(tmp_path, git)
    logs = []
    for night in (1, 2):
        _night(root, c["c5"], git)
        merged = _merged(tmp_path / f"merged{night}", c["c5"], night, {})
        done = _finish(root, merged, tmp_path / f"site{night}", remote)
        assert done.returncode == 0, done.stderr[-3000:]
        logs.append(done.stderr)
        assert not list(merged.glob("finish-*/confirm")), "an A/B was started"
    assert "no earlier nightly in the history" in logs[0]
    assert "gate against the last nightly: exit 0" in logs[1], logs[1][-3000:]
    assert "changes against the last nightly: 0 changes reported, 0 not confirmed" in logs[1]
    assert "bisecting" not in logs[0] + logs[1]
    assert "precompile" not in logs[1]
    assert "rounds in" not in logs[1]


def test_only_the_confirmed_change_is_reported_and_bisected(checkouts, tmp_path, git):
    root, c = checkouts
    remote = _remote(tmp_path, git)
    last = _night(root, c["docs"], git)
    first = _finish(root, _merged(tmp_path / "merged1", c["docs"], 1, {}), tmp_path / "s1", remote)
    assert first.returncode == 0, first.stderr[-3000:]
    tonight = _night(root, c["K"], git)
    assert {k for k in tonight if tonight[k] != last[k]} == {"icon4py"}
    merged = _merged(tmp_path / "merged2", c["K"], 2, {fake.STEPPED: 2.0, fake.FLAT: 1.3})
    step_summary = tmp_path / "step-summary.md"
    done = _finish(root, merged, tmp_path / "site", remote, step_summary)
    log = done.stderr
    # the job's status is the confirmed gate's: the regression K brought
    assert done.returncode == 1, log[-4000:]
    assert "gate against the last nightly: exit 1" in log  # both flagged between the nights
    assert (f"confirm: 2 flagged benchmarks (2 cases) measured again, icon4py "
            f"{c['docs'][:10]}..{c['K'][:10]}") in log  # fmt: skip
    assert "confirmed against the last nightly: exit 1" in log
    # the report: one change, confirmed, with its A/B's ratio, interval and processes, its
    # bisect range and first bad commit; the planted noise once, not confirmed
    assert "changes against the last nightly: 1 change reported, 1 not confirmed" in log
    (change,) = [ln for ln in log.splitlines() if ln.startswith("- regression ")]
    stepped = f"{fake.STEPPED} {BACKEND} device_time"
    found = re.fullmatch(
        rf"- regression {re.escape(stepped)}: x(\S+) between the runs; A/B confirmed: "
        rf"(\S+)x \[(\S+), (\S+)\], (\d+)\+(\d+) processes; icon4py "
        rf"{c['docs'][:10]}\.\.{c['K'][:10]}: first bad {c['K'][:10]} 'K' \(1 commit, 1 A/B\)",
        change,
    )
    assert found, change
    between, ratio, low, high = (float(found.group(i)) for i in range(1, 5))
    assert between == pytest.approx(2.0, rel=0.03)
    assert 1.0 < low <= ratio <= high  # K's tree measured slower than its parent's
    assert int(found.group(5)) >= 4
    assert int(found.group(6)) >= 4
    (noise,) = [ln for ln in log.splitlines() if ln.startswith("- not confirmed")]
    assert noise.startswith(
        f"- not confirmed (run-to-run noise): {fake.FLAT} {BACKEND} device_time (regression x1.3"
    )
    assert "; A/B not confirmed: " in noise
    # one bisection (icon4py moved), of the confirmed regression only; its bad end is K
    # against its parent, which the confirmation measured: no A/B more
    assert log.count("bisecting ") == 1
    assert f"bisecting icon4py {c['docs'][:12]}" in log
    assert "bisect: step" not in log
    assert list(merged.glob("finish-*/confirm/rounds"))
    # the job summary says the same
    text = step_summary.read_text()
    assert text.startswith("### Changes against the last nightly")
    assert change in text
    assert noise in text
    # the history holds the confirmed summary: counts and verdicts follow the A/B
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "-b", "results", str(remote), str(clone))
    store = HistoryStore.open(clone)
    (gate,) = [f for e in store.entries() for f in e.files if f.role == "gate"]
    summary = Summary.from_json(store.read(gate).decode())
    assert (summary.verdict, summary.counts["regression"]) == ("regression", 1)
    by_case = {b.id.split("|")[0]: b for b in summary.benchmarks}
    assert by_case[fake.STEPPED].confirmation.confirmed
    assert by_case[fake.FLAT].not_confirmed
    assert by_case[fake.FLAT].verdict in ("unchanged", "inconclusive")
    (bisected,) = summary.bisect
    assert (bisected.id, bisected.first_bad, bisected.method) == (
        by_case[fake.STEPPED].id, c["K"], "interleaved A/B"
    )  # fmt: skip
    (known,) = bisected.steps  # K against its parent: the confirmation's A/B
    assert (known.commit, known.bad) == (c["K"], True)
    assert known.ratio == pytest.approx(ratio, abs=5e-4)
    assert known.processes == f"{found.group(5)}+{found.group(6)}"
    assert summary.confirmation_run.base == {"icon4py": c["docs"]}
    # the site's verdict page shows both
    page = (tmp_path / "site" / "gates.html").read_text()
    assert f'data-status="confirmed">{by_case[fake.STEPPED].confirmation.describe()}<' in page
    noise_ab = by_case[fake.FLAT].confirmation.describe()
    assert f'data-status="not confirmed">{noise_ab}</span> (run-to-run noise)' in page
    assert "1 confirmed, 1 not confirmed (run-to-run noise)" in page
    program = (tmp_path / "site" / "programs" / "compute_tangential_wind.html").read_text()
    assert f'data-commit="{c["K"]}" data-status="confirmed"' in program
    assert f"first bad commit <code>{c['K'][:10]}</code> K" in program


def test_the_committed_record_reads_as_the_docs_quote_it():
    """results/nightly-confirm-cpu: its summary's report is the job summary and the docs' lines."""
    from iconbench.gate import confirmation

    record = REPO_ROOT / "results" / "nightly-confirm-cpu"
    summary = Summary.read(record / "gate-summary.confirmed.json")
    report = confirmation.report(summary)
    assert report in (record / "step-summary.md").read_text()
    assert report.split("\n", 1)[1] in (record / "finish.log").read_text()
    (change,) = confirmation.reported(summary)
    (noise,) = confirmation.noise(summary)
    assert (change.confirmation.confirmed, noise.confirmation.confirmed) == (True, False)
    ab = json.loads((record / "ab-check.json").read_text())
    assert ab["verdicts"] == {change.id: "confirmed", noise.id: "not confirmed"}
    assert summary.confirmation_run.rounds == ab["rounds"]
    docs = [
        (REPO_ROOT / "docs" / name).read_text() for name in ("ci-nightly.md", "changepoints.md")
    ]
    for line in report.splitlines()[1:]:
        assert line in docs[0]
    assert report.splitlines()[1] in docs[1]


def _ledger(run: pathlib.Path, gpus: dict[str, str]) -> pathlib.Path:
    """``run/work/session.jsonl`` recording the GPU each case was measured on; ``run``."""
    from iconbench.records.session import CaseResult, SessionLedger

    for case, gpu in gpus.items():
        result = CaseResult(case, BACKEND, "tiny", None, 0, 0.0, None, None, None, None, 0.0, 1.0)
        SessionLedger(run / "work" / "session.jsonl").append(replace(result, device=gpu))
    return run


def test_two_runs_of_one_stack_on_different_gpus_are_measured_each_on_its_gpu(
    checkouts, tmp_path, git
):
    """``iconbench confirm --on-their-gpus``: the A/B of two GPUs, not of two commits.

    One stack, two runs; both programs planted 1.3x slower in the second (flagged). The first
    run measured both on GPU 0, the second ``compute_tangential_wind`` on GPU 2 and the other
    on GPU 0: one A/B a pair of GPUs, each side's processes on its run's GPU (the device each
    A/B process recorded, one block ABBA), and nothing confirmed (one stack, measured again).
    """
    from iconbench.records.session import SessionLedger

    root, c = checkouts
    _night(root, c["c5"], git)
    runs = [_merged(tmp_path / name, c["c5"], night, steps) for name, night, steps in
            (("one", 1, {}), ("four", 2, {fake.STEPPED: 1.3, fake.FLAT: 1.3}))]  # fmt: skip
    ledgers = (_ledger(tmp_path / "one-ledger", {fake.STEPPED: "0", fake.FLAT: "0"}),
               _ledger(tmp_path / "four-ledger", {fake.STEPPED: "2", fake.FLAT: "0"}))  # fmt: skip
    iconbench = [sys.executable, "-m", "iconbench"]
    files = [next(f for f in run.glob("asv/*/*.json") if f.name != "machine.json") for run in runs]
    compared = subprocess.run([*iconbench, "compare", *map(str, files), "--out",
                               str(tmp_path / "agreement.json")],
                              env=ENV, capture_output=True, text=True, check=False)  # fmt: skip
    assert compared.returncode == 1, compared.stdout + compared.stderr
    stack = str(root / "stack.json")
    done = subprocess.run(
        [*iconbench, "confirm", str(tmp_path / "agreement.json"), "--base-stack", stack,
         "--head-stack", stack, "--checkouts", str(root), "--min-blocks", "1",
         "--max-blocks", "1", "--out",
         str(tmp_path / "agreement.confirmed.json"), "--work", str(tmp_path / "ab"),
         "--on-their-gpus", *map(str, ledgers)],
        env=ENV, capture_output=True, text=True, check=False, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    (line,) = [ln for ln in done.stderr.splitlines() if "measured again" in ln]
    assert "measured again, the same stack on both sides; each side on its run's GPU: " in line
    assert "1 on GPUs 0 and 2" in line
    assert "1 on GPU 0," in line
    for pair, case in (("gpu0-gpu2", fake.STEPPED), ("gpu0-gpu0", fake.FLAT)):
        for side, gpu in zip(("base", "head"), pair.replace("gpu", "").split("-"), strict=True):
            ledger = SessionLedger(tmp_path / "ab" / pair / side / "work" / "session.jsonl")
            rounds = ledger.results_since(0)
            assert {(r.case, r.device) for r in rounds} == {(case, gpu)}
            assert len(rounds) == 2  # a process a round, one block (ABBA): 2 a side
        assert json.loads((tmp_path / "ab" / pair / "check.json").read_text())["gpus"] == {
            "base": "0",
            "head": pair[-1],
        }
    confirmed = Summary.read(tmp_path / "agreement.confirmed.json")
    held = {b.id.split("|")[0]: b.confirmation for b in confirmed.benchmarks if b.confirmation}
    assert set(held) >= {fake.STEPPED, fake.FLAT}
    assert not [b for b in held.values() if b.confirmed]
    assert confirmed.exit_code == 0
    for pair, case in (("gpu0-gpu2", fake.STEPPED), ("gpu0-gpu0", fake.FLAT)):
        verdicts = json.loads((tmp_path / "ab" / pair / "check.json").read_text())["verdicts"]
        mine = {b.id: b.confirmation.verdict for b in confirmed.benchmarks
                if b.confirmation and b.id.split("|")[0] == case}  # fmt: skip
        assert mine, pair
        assert verdicts == mine, pair  # each A/B's timeline: its own cases' verdicts

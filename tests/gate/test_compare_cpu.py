"""``iconbench compare`` on real CPU results of two commits (tests/gate/make_cpu_results.py)."""

import dataclasses
import json
import math
import pathlib

import numpy as np
import pytest

from iconbench.cli import main
from iconbench.gate import verdict
from iconbench.gate.config import GateConfig
from iconbench.records import resultset
from iconbench.records.summary import Summary

from .make_cpu_results import BASE, HEAD, ROLES

CONFIG = pathlib.Path(__file__).resolve().parent / "gate.toml"
#: Device time on a CPU judged by its samples between separate runs (not the default).
BY_SAMPLES = GateConfig.from_dict({"history_only": {"device_time": False}})


def _compare(cpu_results, tmp_path, *extra):
    out = tmp_path / "summary.json"
    rc = main(["compare", f"{cpu_results}/asv@{BASE[:8]}", f"{cpu_results}/asv@{HEAD[:8]}",
               "--config", str(CONFIG), "--out", str(out), *extra])  # fmt: skip
    return rc, (Summary.read(out) if out.exists() else None)


def test_every_verdict_and_exit_1(cpu_results, tmp_path, capsys):
    _every_verdict(cpu_results, tmp_path)
    table = capsys.readouterr().out
    assert "+ regression" in table
    assert "REGRESSION:" in table


@pytest.mark.slow
def test_the_script_measures_every_role_again(tmp_path):
    """The committed results (conftest) are what the script measures: measured again here."""
    from .conftest import measure

    _every_verdict(measure(tmp_path / "results"), tmp_path)


def _every_verdict(cpu_results, tmp_path):
    """The comparison of ``cpu_results`` gives each role its verdict (ROLES)."""
    rc, summary = _compare(cpu_results, tmp_path)
    assert rc == 1
    assert summary.exit_code == 1
    assert summary.verdict == "regression"
    by_case = {b.program + f"[{b.variant}]": b for b in summary.benchmarks}
    for case, role in ROLES.items():
        got = by_case[case]
        if role == "bimodal":
            assert "timing is bimodal" in got.notes, got
        else:
            assert got.verdict == role, (case, got)
    regression = by_case["compute_airmass[default]"]
    assert regression.ratio > 1.5
    assert regression.ratio_ci[0] > 1.05
    assert regression.q_value <= 0.05
    improvement = by_case["calculate_nabla4[default]"]
    assert improvement.ratio < 0.75
    failed = by_case["compute_exner_from_rhotheta[default]"]
    assert failed.head.error
    assert "head: failed to run" in failed.error
    assert not failed.base.error
    assert summary.base.commit == BASE
    assert summary.head.commit == HEAD
    assert summary.counts["regression"] == 1
    assert summary.counts["failed"] == 1


def test_exit_0_without_the_regression(cpu_results, tmp_path):
    rc, summary = _compare(
        cpu_results, tmp_path, "--programs", "compute_tangential_wind|calculate_nabla4"
    )
    assert rc == 0
    assert summary.verdict == "pass"
    assert {b.verdict for b in summary.benchmarks} == {"unchanged", "improvement"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["{r}/asv", "{r}/asv@" + HEAD[:8]], "mixes 2 commits"),
        (["{r}/asv@" + BASE[:8], "{r}/asv@deadbeef"], "no results of commit deadbeef"),
        (["{r}/asv@" + BASE[:8], "{r}/nothing"], "no such file or directory"),
        (
            ["{r}/asv@" + BASE[:8], "{r}/asv@" + HEAD[:8], "--programs", "nope"],
            "--programs 'nope' matches none",
        ),
        (["{r}/asv@" + BASE[:8], "{r}/asv@" + HEAD[:8], "--backends", "gtfn_gpu"], "not in"),
        (["{r}/asv@" + BASE[:8], "{r}/broken.json"], "invalid JSON"),
    ],
)
def test_exit_2_on_bad_input(cpu_results, tmp_path, capsys, args, message):
    (cpu_results / "broken.json").exists() or (cpu_results / "broken.json").write_text("{oops")
    out = tmp_path / "summary.json"
    try:
        rc = main(["compare", *(a.format(r=cpu_results) for a in args), "--out", str(out)])
    except SystemExit as stop:  # refused while the arguments are parsed
        rc = stop.code
    err = capsys.readouterr().err
    assert rc == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_method_asv_decides_the_exit_code(cpu_results, tmp_path):
    rc, summary = _compare(cpu_results, tmp_path, "--method", "asv")
    notes = {b.program: b.notes for b in summary.benchmarks}
    assert "asv: regression" in notes["compute_airmass"]
    assert "asv: improvement" in notes["calculate_nabla4"]
    assert rc == 1


def _sides(cpu_results):
    base = resultset.resolve(f"{cpu_results}/asv@{BASE[:8]}")
    head = resultset.resolve(f"{cpu_results}/asv@{HEAD[:8]}")
    return base, head


def test_noisy_history_widens_the_threshold(cpu_results):
    base, head = _sides(cpu_results)
    key = "compute_airmass[default]|embedded|device_time"
    entry = base.entries[key]
    plain = {b.id: b for b in verdict.compare(base, head, BY_SAMPLES).benchmarks}[key]
    # earlier runs of base's branch whose medians swing by a factor 1.6 against a 2x change:
    # noise. The busy wait's measured change is 2-3.5x depending on the machine, so the swing
    # is scaled with it (exponent log(ratio) / log(2); 1 at exactly 2x)
    scale = max(1.0, math.log(plain.ratio) / math.log(2.0))
    history = [
        dataclasses.replace(
            base,
            entries={
                key: dataclasses.replace(entry, samples=tuple(s * f**scale for s in entry.samples))
            },
        )
        for f in (1.0, 1.6, 0.7, 1.3, 0.8)
    ]
    widened = {b.id: b for b in verdict.compare(base, head, history=history).benchmarks}[key]
    assert plain.verdict == "regression"
    assert plain.threshold == 0.05
    assert widened.threshold > 1.0
    assert widened.verdict != "regression"
    assert any(n.startswith("history is noisy") for n in widened.notes)


def test_changed_fingerprint_is_reported(cpu_results):
    base, head = _sides(cpu_results)
    key = "compute_airmass[default]|embedded|device_time"
    with_fp = lambda side, fp: dataclasses.replace(  # noqa: E731
        side, entries={**side.entries, key: dataclasses.replace(side.entries[key], fingerprint=fp)}
    )
    summary = verdict.compare(with_fp(base, "28d4c4bc72bf"), with_fp(head, "93472f6e3267"))
    result = {b.id: b for b in summary.benchmarks}[key]
    assert "code generation differs" in result.notes
    assert result.base.fingerprint == "28d4c4bc72bf"


def test_rerun_adds_samples_within_the_budget(cpu_results):
    from iconbench.gate import rerun

    base, head = _sides(cpu_results)
    key = "extrapolate_at_top[default]|embedded|device_time"
    calls = []

    def measure_again(side, cases, budget_s):
        # the same side's own samples once more: real timings, a second "run"
        calls.append((side.commit, tuple(cases), budget_s))
        return {key: side.entries[key].samples}

    still = lambda b, h: [  # noqa: E731
        r.id for r in verdict.compare(b, h, BY_SAMPLES).benchmarks if r.verdict == "inconclusive"
    ]
    assert key in still(base, head)
    base2, head2, done = rerun.rerun_inconclusive(
        base, head, still, max_s=60, measure_head=measure_again, max_rounds=2
    )
    assert len(head2.entries[key].samples) > len(head.entries[key].samples)
    assert base2 is base
    assert done.added["base"] == 0
    assert done.added["head"] > 0
    assert calls
    assert all(c[0] == HEAD and c[2] <= 60 for c in calls)
    assert ("extrapolate_at_top[default]", "embedded") in calls[0][1]


def test_summary_json_round_trip(cpu_results, tmp_path):
    _, summary = _compare(cpu_results, tmp_path)
    data = json.loads((tmp_path / "summary.json").read_text())
    assert data["schema"] == "iconbench-gate-summary"
    assert data["version"] == 1
    assert set(data["counts"]) == {"regression", "improvement", "unchanged", "inconclusive",
                                   "failed", "not run", "new", "gone"}  # fmt: skip
    assert Summary.from_json(summary.to_json()) == summary
    assert data["openacc"] is None
    assert data["openacc_note"] == (  # what the comment says in its OpenACC section
        "no ICON experiment ran on grid tiny: no OpenACC comparison "
        "(experiments: mch_icon-ch1_medium on mch_icon-ch1_medium)"
    )


def _shape_change(seed: int = 80) -> tuple[np.ndarray, np.ndarray]:
    """A 1.3x slower head whose tail also grew, as load on a shared runner makes it: about 40 %
    of base's and 60 % of head's samples 1.0-1.8x up, 1 % noise. The head's median lands in
    the tail while the bulk moved 1.3x."""
    r = np.random.default_rng(seed)
    base = np.exp(r.normal(0, 0.01, 20)) * np.where(r.random(20) < 0.4, r.uniform(1, 1.8, 20), 1)
    head = np.exp(r.normal(0, 0.01, 20)) * np.where(r.random(20) < 0.6, r.uniform(1, 1.8, 20), 1)
    return base, 1.3 * head


def test_a_ratio_of_medians_outside_its_interval_is_explained(cpu_results):
    from iconbench.gate import stats

    base_samples, head_samples = _shape_change()
    c = stats.compare(base_samples, head_samples, margin=0.025)
    assert c.medians_outside_interval
    assert c.ratio_ci[0] <= c.shift <= c.ratio_ci[1]
    assert 1.25 < c.shift < 1.35 < c.ratio_ci[1] < c.ratio  # 1.304 [1.214, 1.593], 1.61
    base, head = _sides(cpu_results)
    key = "compute_tangential_wind[default]|embedded|device_time"
    with_samples = lambda side, s: dataclasses.replace(  # noqa: E731
        side,
        entries={**side.entries, key: dataclasses.replace(side.entries[key], samples=tuple(s))},
    )
    summary = verdict.compare(
        with_samples(base, base_samples), with_samples(head, head_samples), BY_SAMPLES
    )
    result = {b.id: b for b in summary.benchmarks}[key]
    (note,) = [n for n in result.notes if n.startswith("ratio of medians outside")]
    assert f"typical shift {c.shift:.3f}" in note
    assert result.verdict == "regression"


def test_json_on_stdout_is_the_summary_alone(cpu_results, tmp_path, capsys):
    """With ``--json`` stdout is the document: notes (no OpenACC on a tiny grid) go to stderr."""
    rc, _ = _compare(cpu_results, tmp_path, "--json")
    captured = capsys.readouterr()
    assert rc == 1
    assert json.loads(captured.out)["verdict"] == "regression"
    assert "no ICON experiment ran on grid tiny" in captured.err

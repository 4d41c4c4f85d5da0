"""One measured change gets one verdict on every road (docs/gate.md, "One rule, every road").

The change: dace 2.0.0a7 made ``apply_diffusion_to_theta_and_exner[apply_zdiffusion_t=True]``
on dace_gpu about 3.5 % slower, measured on one H100 (results/upstream-releases-h100, archived):
two separate ``suite all`` runs of the two stacks (one process a side, 100 samples each, as
two nights are) and their interleaved A/B (4 + 4 fresh processes, 20 samples each: the spread
between processes the H100 shows). The same samples go through the check's gate and stopping
rule, ``iconbench continuous``'s table, ``compare`` + ``confirm``, a change point's
confirmation and a bisection step's verdict.
"""

from __future__ import annotations

import re

import pytest
from tests.archived_results import restored

from iconbench.check import stopping
from iconbench.gate import confirmation, decision, table, verdict
from iconbench.history import confirmation as change_point
from iconbench.records import resultset
from iconbench.records.summary import BenchmarkResult, ConfirmationRun

RECORD = "results/upstream-releases-h100"
STEP = "gt4py-1.2.1_dace-2.0.0a6--gt4py-1.2.1_dace-2.0.0a7"
KEY = "apply_diffusion_to_theta_and_exner[apply_zdiffusion_t=True]|dace_gpu|device_time"
WORDS = "regression (below the 5 % threshold)"


@pytest.fixture(scope="module")
def measured():
    record = restored(RECORD)
    ab = [resultset.resolve(str(record / "steps" / STEP / "confirm" / side))
          for side in ("base", "head")]  # fmt: skip
    runs = [resultset.resolve(str(record / "runs" / stack)) for stack in STEP.split("--")]
    return ab, runs


def test_the_samples_are_the_measured_change(measured):
    (ab_base, ab_head), (run_base, run_head) = measured
    assert [len(g) for g in ab_base.entries[KEY].groups] == [20, 20, 20, 20]
    assert [len(g) for g in ab_head.entries[KEY].groups] == [20, 20, 20, 20]
    assert (len(run_base.entries[KEY].samples), len(run_head.entries[KEY].groups)) == (100, 0)
    assert 1.03 < run_head.entries[KEY].median / run_base.entries[KEY].median < 1.04


def test_one_measured_change_gets_one_verdict_on_every_road(measured):
    (ab_base, ab_head), (run_base, run_head) = measured
    # the check and `iconbench continuous`: the gate on the interleaved processes
    checked = verdict.compare(ab_base, ab_head)
    check = {b.id: b for b in checked.benchmarks}[KEY]
    assert (check.verdict, check.verdict_words) == ("regression", WORDS)
    assert checked.exit_code == 1
    # decided: the check stops (only host overhead, which no block could make a regression,
    # is left open)
    assert stopping.reason_to_stop(checked.benchmarks, 4, 8) is not None
    assert KEY not in {b.id for b in stopping.open_benchmarks(checked.benchmarks)}
    (line,) = [x for x in table.render(checked).splitlines() if "dace_gpu device_time" in x]
    assert line.startswith("+ regression")
    assert "below the 5 % threshold" in line
    base_s, head_s, ratio = re.search(r"(\d+\.\d+)us\s+(\d+\.\d+)us (\d\.\d+)", line).groups()
    assert float(head_s) / float(base_s) == pytest.approx(float(ratio), abs=0.002)

    # the nightly's road: two separate runs compared, the flag held to the A/B
    nights = verdict.compare(run_base, run_head)
    night = {b.id: b for b in nights.benchmarks}[KEY]
    assert night.verdict == "regression"
    run = ConfirmationRun("2026-11-28", "confirm", {"dace": "a6"}, {"dace": "a7"}, 8, "decided")
    held = confirmation.apply(nights, checked, {KEY: "4+4"}, run)
    confirmed = {b.id: b for b in held.benchmarks}[KEY]
    assert confirmed.confirmation.confirmed
    assert (confirmed.verdict, confirmed.verdict_words) == ("regression", WORDS)
    assert f"- {WORDS} apply_diffusion" in confirmation.report(held)
    assert held.exit_code == 1

    # a change point of the history at that step, confirmed by the same A/B; a bisection
    # step is bad when the A/B's verdict is the regression's
    assert change_point.judge(night.ratio, check.verdict) == change_point.CONFIRMED
    assert check.verdict == night.verdict


def _open(ratio_ci: tuple[float, float], p: float, q: float) -> BenchmarkResult:
    """The issue's check of the dace release: one of 10 gated benchmarks, after 2 blocks."""
    decided = decision.decide(ratio_ci, q=q, p_regression=p, p_improvement=1.0, threshold=0.05)
    return BenchmarkResult(KEY, "p", "v", "dace_gpu", "device_time", "s", True, 0.05, None,
                           None, 1.0346, ratio_ci, p, q, decided.verdict,
                           decided.notes(0.05))  # fmt: skip


def test_the_zone_between_half_the_threshold_and_the_threshold_is_never_unchanged():
    # 1.0346 [1.029, 1.040], p 0.0068, q 0.068 over 10 gated benchmarks (4 + 4 processes): the
    # check once stopped there with "unchanged"; the interval shows a change beyond the
    # 2.5 % margin, so it stays open and the check measures another block
    result = _open((1.029, 1.040), p=0.0068, q=0.068)
    assert result.verdict == "inconclusive"
    assert result.notes[0].startswith("beyond the 2.5 % margin, not yet a discovery")
    assert stopping.reason_to_stop([result], 4, 8) is None
    # the same interval as a discovery is a regression below the threshold, on every road
    assert _open((1.029, 1.040), p=0.0068, q=0.0068).verdict_words == WORDS
    # an interval that reaches into the margin is unchanged, one across the threshold is open
    assert _open((1.015, 1.040), p=0.2, q=0.9).verdict == "unchanged"
    assert _open((1.030, 1.060), p=0.01, q=0.1).verdict == "inconclusive"


def test_one_gate_toml_is_read_by_every_road(measured, monkeypatch, tmp_path):
    """A project's gate.toml ($ICONBENCH_GATE_CONFIG) sets the threshold for every road: with
    device time's threshold at 10 %, the 3.6 % change is unchanged on both."""
    (ab_base, ab_head), (run_base, run_head) = measured
    config = tmp_path / "gate.toml"
    config.write_text("[thresholds]\ndevice_time = 0.10\n")
    monkeypatch.setenv("ICONBENCH_GATE_CONFIG", str(config))
    check = {b.id: b for b in verdict.compare(ab_base, ab_head).benchmarks}[KEY]
    night = {b.id: b for b in verdict.compare(run_base, run_head).benchmarks}[KEY]
    assert (check.threshold, check.verdict) == (0.10, "unchanged")
    assert (night.threshold, night.verdict) == (0.10, "unchanged")


def test_a_gate_toml_that_is_not_there_is_one_line(monkeypatch, tmp_path, capsys):
    from iconbench.cli import main

    runs = [str(restored(RECORD) / "runs" / stack) for stack in STEP.split("--")]
    monkeypatch.setenv("ICONBENCH_GATE_CONFIG", str(tmp_path / "gate.toml"))
    out = tmp_path / "summary.json"
    assert main(["compare", *runs, "--out", str(out)]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"iconbench: error: $ICONBENCH_GATE_CONFIG={tmp_path / 'gate.toml'}")
    assert "no such file" in line
    assert not out.exists()

"""Control benchmarks, not run, outliers and the simulation on the measured H100 samples.

The source is the 476-benchmark run of ``results/h100-mch_icon-ch1_medium`` (238 cases x
device time and host overhead, 100 samples each, CUDA events on an H100).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from tests.archived_results import restored

from iconbench.gate import simulation, table, verdict
from iconbench.gate.config import GateConfig
from iconbench.records import resultset
from iconbench.records.summary import Summary

RUN = restored("results/h100-mch_icon-ch1_medium")  # raw files from git history


@pytest.fixture(scope="module")
def measured() -> resultset.ResultSet:
    return resultset.resolve(f"{RUN}@432aa3c")


def _scaled(rs: resultset.ResultSet, factor: float, changed: set[str] = frozenset(), extra=1.0):
    entries = {}
    for key, e in rs.entries.items():
        f = factor * (extra if key in changed else 1.0)
        fp = (e.fingerprint or "") + ("-new" if key in changed else "")
        entries[key] = dataclasses.replace(
            e, samples=tuple(s * f for s in e.samples), fingerprint=fp or None
        )
    return dataclasses.replace(rs, entries=entries)


def test_machine_shift_is_one_line_not_hundreds_of_regressions(measured):
    summary = verdict.compare(measured, _scaled(measured, 1.03))
    assert summary.counts["regression"] == 0
    assert summary.verdict == "pass"
    device = next(s for s in summary.machine_shift if s.metric == "device_time")
    assert device.controls == 238
    assert device.ratio_ci[0] <= 1.03 <= device.ratio_ci[1]
    assert device.line().startswith("device_time: the runner was 3.0 % [")
    assert "slower on the 238 benchmarks whose code did not change" in device.line()
    # the document keeps it
    again = Summary.from_json(summary.to_json())
    assert again.machine_shift == summary.machine_shift


def test_changed_code_is_judged_relative_to_the_shift(measured):
    changed = {
        k for k in sorted(measured.entries) if k.endswith("|gtfn_gpu|device_time") and "nabla" in k
    }
    assert changed
    summary = verdict.compare(measured, _scaled(measured, 1.03, changed, extra=1.10))
    flagged = {r.id for r in summary.benchmarks if r.verdict == "regression"}
    assert flagged == changed
    first = next(r for r in summary.benchmarks if r.id in changed)
    assert 1.09 < first.ratio < 1.11  # relative to the 3 % shift, not 1.133
    assert any("relative to the runner's shift x1.030" in n for n in first.notes)


def test_shift_beyond_the_limit_is_not_comparable(measured):
    summary = verdict.compare(measured, _scaled(measured, 1.08))
    assert summary.verdict == "not comparable"
    assert summary.exit_code == 2
    assert "beyond the 5 % limit: not comparable" in summary.machine_shift[0].line()
    looser = GateConfig.from_dict({"max_machine_shift": 0.10})
    assert verdict.compare(measured, _scaled(measured, 1.08), looser).verdict == "pass"


def test_without_fingerprints_verdicts_are_absolute(measured):
    bare = dataclasses.replace(
        measured,
        entries={k: dataclasses.replace(e, fingerprint=None) for k, e in measured.entries.items()},
    )
    summary = verdict.compare(bare, _scaled(bare, 1.03))
    assert summary.machine_shift == ()
    assert summary.counts["regression"] > 100


def test_not_selected_is_not_run_not_failed():
    asv = f"{RUN}/asv@432aa3c"
    summary = verdict.compare(resultset.resolve(asv), resultset.resolve(asv))
    assert summary.counts["failed"] == 0
    assert summary.counts["not run"] == 292
    assert summary.verdict == "pass"
    out = table.render(summary)
    assert "292 not run" in out
    assert "failed" not in out.splitlines()[-1]


def test_embedded_device_time_is_not_measured():
    host = resultset.Entry("p[default]", "embedded", "host_overhead", ())
    device = resultset.Entry(
        "p[default]", "embedded", "device_time", (), not_run=resultset.NO_DEVICE_CLOCK
    )
    timed = resultset.Entry("q[default]", "gtfn_cpu", "device_time", (1e-3,) * 10)
    entries = {e.key: e for e in (host, device, timed)}
    side = resultset.ResultSet(
        "s", "asv", "abc", None, {}, {}, resultset.Grid("tiny"), "test", entries
    )
    summary = verdict.compare(side, side)
    result = next(r for r in summary.benchmarks if r.id == device.key)
    assert result.verdict == "not run"
    assert "no device time on this backend" in result.notes[-1]
    assert summary.counts["failed"] == 0


def test_outliers_at_twice_the_time_raise_no_false_alarm(measured):
    scenario = simulation.Scenario("outliers", outlier_share=0.10)
    entries = simulation.measured_entries(measured)
    runs = [simulation.one_run(measured, entries, scenario, seed) for seed in range(8)]
    assert [r.false_alarms for r in runs] == [()] * 8


def test_simulation_properties_reduced(measured):
    outcomes = {
        o.scenario.name: o
        for o in simulation.simulate(measured, simulation.SCENARIOS[1:3], trials=4)
    }
    shift, planted = outcomes["shift"], outcomes["shift+regressions"]
    assert shift.benchmarks == 476
    assert shift.false_alarm_runs == 0
    assert shift.not_comparable == 0
    assert abs(shift.shift - 1.03) < 0.002
    assert planted.false_alarm_runs == 0
    assert planted.caught >= 0.95 * planted.planted
    assert "| shift+regressions | 4 | 476 |" in simulation.table(list(outcomes.values()))


def test_config_rejects_a_bad_shift_limit():
    from iconbench.errors import IconbenchError

    with pytest.raises(IconbenchError, match="max_machine_shift must be > 0"):
        GateConfig.from_dict({"max_machine_shift": 0})
    assert np.isclose(GateConfig.default().max_machine_shift, 0.05)


def test_bot_comment_shows_the_shift_and_not_run_apart(measured):
    from iconbench.bot import render, target

    summary = verdict.compare(measured, _scaled(measured, 1.03))
    asv = f"{RUN}/asv@432aa3c"
    absent = verdict.compare(resultset.resolve(asv), resultset.resolve(asv))
    pr = target.PullRequest.parse("GridTools/gt4py", 1)
    body = render.render(summary, pr)
    # the line's text is escaped as markdown (its interval's brackets), as all of a summary's text
    assert "> Machine shift: device_time: the runner was 3.0 % \\[3.0, 3.0\\]" in body
    line = render.verdict_line(absent)
    assert "292 not run" in line
    assert "failed" not in line
    beyond = verdict.compare(measured, _scaled(measured, 1.08))
    assert render.verdict_line(beyond).startswith("⚠️ **Not comparable** (device_time: the")


def test_interleaved_processes_are_no_controls(measured):
    """A check's sides (groups per process) get no machine shift: +20 % on every host
    overhead with unchanged code is a change of the call path, not of the runner."""

    def interleaved(rs, factor):
        entries = {}
        for key, e in rs.entries.items():
            samples = tuple(s * factor for s in e.samples)
            groups = tuple(samples[i::4] for i in range(4))
            entries[key] = dataclasses.replace(e, samples=samples, groups=groups)
        return dataclasses.replace(rs, entries=entries)

    summary = verdict.compare(interleaved(measured, 1.0), interleaved(measured, 1.20))
    assert summary.machine_shift == ()
    assert summary.counts["regression"] > 200
    assert summary.verdict == "regression"


def _controls(metric: str, factors: list[float], seed: int = 5) -> tuple:
    """Base and head of benchmarks whose code did not change, head scaled by ``factors``."""
    rng = np.random.default_rng(seed)
    base, head = {}, {}
    for i, factor in enumerate(factors):
        samples = 1e-3 * (1 + i / 10) * np.exp(rng.normal(0, 0.005, 20))
        for side, scale in ((base, 1.0), (head, factor)):
            values = tuple(float(s) for s in samples * scale)
            entry = resultset.Entry(
                f"p{i}[default]", "gtfn_gpu", metric, values, fingerprint=f"fp{i}"
            )
            side[entry.key] = entry
    return tuple(
        resultset.ResultSet(name, "asv", name, None, {}, {}, resultset.Grid("tiny"), "test", e)
        for name, e in (("base", base), ("head", head))
    )


def test_a_shift_whose_interval_holds_no_change_keeps_the_run_comparable():
    """Twelve controls scattered 0.7-1.5x: the estimate is beyond 5 %, its interval holds 1."""
    factors = [0.7, 0.8, 0.9, 0.95, 1.0, 1.05, 1.1, 1.15, 1.2, 1.3, 1.4, 1.5]
    base, head = _controls("device_time", factors)
    summary = verdict.compare(base, head)
    (shift,) = summary.machine_shift
    assert shift.ratio > 1.05
    assert shift.ratio_ci[0] < 1.0 < shift.ratio_ci[1]
    assert not shift.beyond_limit
    assert summary.verdict != "not comparable"
    assert "not comparable" not in shift.line()


def test_a_host_overhead_shift_never_makes_a_run_not_comparable():
    """Every host overhead 30 % higher, tightly: reported, not corrected, the run comparable."""
    base, head = _controls("host_overhead", [1.3] * 12)
    summary = verdict.compare(base, head)
    (shift,) = summary.machine_shift
    assert shift.beyond_limit
    assert shift.ratio_ci[0] > 1.25
    assert summary.verdict == "pass"
    assert summary.exit_code == 0
    assert "does not decide" in shift.line()
    # one process a side, no history: host overhead is shown with its ratio, not gated
    assert {(r.gated, r.verdict) for r in summary.benchmarks} == {(False, "inconclusive")}
    assert all(abs(r.ratio - 1.3) < 0.01 for r in summary.benchmarks)
    # the same 30 % on device time decides: not comparable
    device = verdict.compare(*_controls("device_time", [1.3] * 12))
    assert device.verdict == "not comparable"

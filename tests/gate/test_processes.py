"""The gate with the process as the unit (an interleaved check's rounds)."""

import json

import numpy as np
import pytest
from tests.archived_results import restored

from iconbench import grids
from iconbench.gate import processes, stats, verdict
from iconbench.records import resultset, session
from iconbench.records.session import Measurement


def _side(rng, scale, *, processes_per_side=8, spread=0.10, noise=0.02, samples=50):
    """Per-process samples: each process off by ``spread`` (log-normal), tight inside."""
    return [
        tuple(scale * np.exp(rng.normal(0, spread)) * np.exp(rng.normal(0, noise, samples)))
        for _ in range(processes_per_side)
    ]


def test_unchanged_code_with_process_spread_is_no_regression_where_samples_would_say_so():
    rng = np.random.default_rng(7)
    by_process = by_sample = 0
    for _ in range(200):
        base, head = _side(rng, 1.0), _side(rng, 1.0)
        if processes.compare(base, head, margin=0.05).p_regression < 0.05:
            by_process += 1
        pooled = stats.compare(list(base[0]), list(head[0]), margin=0.05)  # one process each
        if pooled.p_regression < 0.05:
            by_sample += 1
    assert by_process <= 10  # at most the test's 5 %
    assert by_sample >= 60  # one process a side: a process's offset reads as a change


def test_a_change_beyond_the_process_spread_is_caught():
    rng = np.random.default_rng(11)
    caught = sum(
        processes.compare(_side(rng, 1.0), _side(rng, 1.4), margin=0.05).p_regression < 0.01
        for _ in range(100)
    )
    assert caught >= 95


def test_one_disturbed_process_is_trimmed():
    rng = np.random.default_rng(3)
    base = _side(rng, 1.0, spread=0.01)
    head = _side(rng, 1.0, spread=0.01)
    head[3] = tuple(np.asarray(head[3]) * 3.0)  # a neighbour's burst in one process
    comparison = processes.compare(base, head, margin=0.05)
    assert comparison.ratio_ci[1] < 1.05
    assert comparison.p_regression > 0.5


def test_fewer_than_three_processes_a_side_are_refused():
    with pytest.raises(ValueError, match="at least 3 processes"):
        processes.compare([(1.0, 1.1)] * 2, [(1.0, 1.1)] * 3, margin=0.05)


def _round(backend, number, measurement, fingerprint):
    """One process's record of ``p[default]`` in a check's round ``number``."""
    return session.CaseResult(
        "p[default]", backend, "tiny", measurement, 0, 0.0, None, fingerprint, None, None,
        started_at=float(number), duration_s=1.0, worker=f"r{number:02d}",
    )  # fmt: skip


def _ledger(path, side, cpu_speed, overhead_s):
    """A check's session ledger: 4 rounds, host overhead and reference work scaled by the CPU."""
    rng = np.random.default_rng(len(side))
    ledger = session.SessionLedger(path / side / "work" / "session.jsonl")
    for number, slow in enumerate(cpu_speed, start=1):
        device = list(1e-4 * np.exp(rng.normal(0, 0.002, 50)))
        overhead = overhead_s * slow * np.exp(rng.normal(0, 0.02, 50))
        measurement = Measurement(
            host_s=[d + o for d, o in zip(device, overhead, strict=True)],
            device_s=device, device_source="cuda-events-held",
            reference_s=list(30e-6 * slow * np.exp(rng.normal(0, 0.01, 50))),
        )  # fmt: skip
        ledger.append(_round("gtfn_gpu", number, measurement, "ab"))
    return resultset.ledger_set(path / side, label=side, commit=side, grid=grids.resolve("tiny"))


def test_a_slower_cpu_in_some_processes_is_not_a_change_of_host_overhead(tmp_path):
    # head's processes ran on a CPU 1.7x slower (another tenant): the reference work says so
    base = _ledger(tmp_path, "base", [1.0, 1.0, 1.0, 1.0], 60e-6)
    head = _ledger(tmp_path, "head", [1.7, 1.7, 1.0, 1.7], 60e-6)
    (row,) = [r for r in verdict.compare(base, head).benchmarks if r.metric == "host_overhead"]
    assert row.verdict == "unchanged", row
    key = "p[default]|gtfn_gpu|host_overhead"
    assert head.entries[key].median > 1.5 * base.entries[key].median  # the raw medians differ
    # the numbers shown beside the verdict are the ones it judged: base x ratio = head
    assert row.head.median == pytest.approx(row.base.median * row.ratio, rel=1e-5)


def test_more_host_work_per_call_is_a_regression_whatever_the_cpu(tmp_path):
    base = _ledger(tmp_path, "base", [1.0, 1.3, 1.0, 1.3, 1.0, 1.3], 60e-6)
    head = _ledger(tmp_path, "head", [1.3, 1.0, 1.3, 1.0, 1.3, 1.0], 80e-6)  # +20 µs per call
    (row,) = [r for r in verdict.compare(base, head).benchmarks if r.metric == "host_overhead"]
    assert row.verdict == "regression", row
    assert row.notes[-1].startswith("6+6 processes")


def test_a_host_overhead_change_on_four_processes_a_side_is_not_flagged_yet(tmp_path):
    """The same code whose processes sat in two clusters, one a side (the 5098a2d check)."""
    base = _recorded_ledger(tmp_path, "base", [(31, 80.3), (31, 85.2), (31, 79.0), (31, 84.9)])
    head = _recorded_ledger(tmp_path, "head", [(31, 69.4), (31, 71.5), (31, 70.0), (31, 69.4)])
    (row,) = [r for r in verdict.compare(base, head).benchmarks if r.metric == "host_overhead"]
    assert row.verdict == "inconclusive", row
    assert row.q_value <= 0.05  # a discovery at the FDR: the interval alone flagged it
    assert row.notes[-1].startswith("not flagged yet: a change of host_overhead is flagged on 5")
    device = [r for r in verdict.compare(base, head).benchmarks if r.metric == "device_time"]
    assert [r.verdict for r in device] == ["unchanged"]  # device time is flagged on 4


def _embedded_ledger(path, side, host_s):
    """A check's rounds on embedded: host samples only (no device clock), 4 processes."""
    rng = np.random.default_rng(len(side))
    ledger = session.SessionLedger(path / side / "work" / "session.jsonl")
    for number in range(1, 5):
        samples = list(host_s * np.exp(rng.normal(0, 0.03, 50)))
        measurement = Measurement(host_s=samples, device_s=[], device_source="none")
        ledger.append(_round("embedded", number, measurement, None))
    return resultset.ledger_set(path / side, label=side, commit=side, grid=grids.resolve("tiny"))


def _recorded_ledger(path, side, processes_us):
    """A check's ledger of ``(reference work, host overhead)`` per process, in µs, as recorded."""
    rng = np.random.default_rng(len(side))
    ledger = session.SessionLedger(path / side / "work" / "session.jsonl")
    for number, (reference_us, overhead_us) in enumerate(processes_us, start=1):
        device = list(1.2e-4 * np.exp(rng.normal(0, 0.002, 20)))
        overhead = overhead_us * 1e-6 * np.exp(rng.normal(0, 0.02, 20))
        measurement = Measurement(
            host_s=[d + o for d, o in zip(device, overhead, strict=True)],
            device_s=device, device_source="cuda-events-held",
            reference_s=list(reference_us * 1e-6 * np.exp(rng.normal(0, 0.01, 20))),
        )  # fmt: skip
        ledger.append(_round("gtfn_gpu", number, measurement, "ab"))
    return resultset.ledger_set(path / side, label=side, commit=side, grid=grids.resolve("tiny"))


#: One benchmark of a both-builds H200 check (2026-11-29, the same code on both sides):
#: each process's reference work and host overhead, µs. Base's four processes all ran on
#: slow cores, head's on fast ones; the overhead moved less than the reference work.
SLOW_BASE = [(58.79, 139.2), (68.47, 151.9), (71.35, 169.5), (73.61, 174.8)]
FAST_HEAD = [(33.21, 92.0), (31.25, 88.2), (30.32, 82.6), (30.48, 83.1)]


def test_sides_on_cores_of_different_speed_are_no_change_of_host_overhead(tmp_path):
    base = _recorded_ledger(tmp_path, "base", SLOW_BASE)
    head = _recorded_ledger(tmp_path, "head", FAST_HEAD)
    (row,) = [r for r in verdict.compare(base, head).benchmarks if r.metric == "host_overhead"]
    assert row.verdict == "inconclusive", row
    key = "p[default]|gtfn_gpu|host_overhead"
    b, h = base.entries[key], head.entries[key]
    assert len(b.group_reference_s) == len(b.groups) == 4
    # scaled by the reference work alone (the gate before the covariate), a regression
    scaled_only = processes.compare(b.groups, h.groups, margin=0.05)
    assert scaled_only.p_regression < 0.01
    assert scaled_only.ratio > 1.15
    with_covariate = processes.compare(
        b.groups, h.groups, margin=0.05, reference_s=(b.group_reference_s, h.group_reference_s)
    )
    low, high = with_covariate.ratio_ci
    assert with_covariate.p_regression > 0.05
    assert low < 1.0 < high


def test_a_change_is_caught_where_the_speeds_differ_within_the_sides(tmp_path):
    """Processes at several speeds on each side tell how the overhead follows the speed."""
    base = _recorded_ledger(tmp_path, "base", [(30, 80), (60, 135), (33, 86), (70, 150), (31, 83)])
    head = _recorded_ledger(
        tmp_path, "head", [(58, 170), (31, 106), (72, 194), (64, 178), (30, 104)]
    )
    (row,) = [r for r in verdict.compare(base, head).benchmarks if r.metric == "host_overhead"]
    assert row.verdict == "regression", row
    assert 1.2 < row.ratio < 1.45  # head +30 % at any speed


def test_sides_at_one_speed_keep_their_interval():
    rng = np.random.default_rng(3)
    base, head = _side(rng, 1.0, spread=0.03), _side(rng, 1.2, spread=0.03)
    same_speed = [30e-6] * len(base)
    plain = processes.compare(base, head, margin=0.05)
    covariate = processes.compare(base, head, margin=0.05, reference_s=(same_speed, same_speed))
    assert covariate.ratio == pytest.approx(plain.ratio)
    assert covariate.ratio_ci == pytest.approx(plain.ratio_ci)


def test_embedded_is_judged_by_its_host_time_per_process(tmp_path):
    """No device clock: the host time is embedded's time, gated with a process per group."""
    base = _embedded_ledger(tmp_path, "base", 1.0e-3)
    head = _embedded_ledger(tmp_path, "head", 3.0e-3)  # a 2 ms sleep in every call
    entry = base.entries["p[default]|embedded|device_time"]
    assert (len(entry.samples), len(entry.groups), entry.not_run) == (200, 4, None)
    assert "p[default]|embedded|host_overhead" not in base.entries
    (row,) = verdict.compare(base, head).benchmarks
    assert (row.metric, row.gated, row.verdict) == ("device_time", True, "regression")
    assert 2.7 < row.ratio < 3.3
    assert row.notes[-1].startswith("4+4 processes")


def test_a_committed_check_is_judged_again_as_it_was(tmp_path):
    """Its sides read from the session ledgers (4 processes a side, rounds joined by
    ``records.session.rounds``) give the gate summary the H100 check wrote, number for number.

    Host overhead excepted: its processes' CPU speed has since become the gate's covariate
    (:mod:`iconbench.gate.processes`). Its rows flag what they flagged, and decide more.
    """
    check = restored("results/pr-check-h100/icon4py-comment-2026-11-26i")
    base, head = (resultset.resolve(str(check / side)) for side in ("base", "head"))
    entry = head.entries["compute_tangential_wind[default]|gtfn_gpu|host_overhead"]
    assert len(entry.groups) == 4
    assert sum(len(g) for g in entry.groups) == len(entry.samples)
    verdict.compare(base, head).write(tmp_path / "gate-summary.json")
    again = json.loads((tmp_path / "gate-summary.json").read_text())["benchmarks"]
    committed = json.loads((check / "gate-summary.json").read_text())["benchmarks"]

    def without_medians(bench):  # each side's number is now the one the ratio is of
        return {k: ({**v, "median": None} if k in ("base", "head") and v else v)
                for k, v in bench.items()}  # fmt: skip

    def device(rows):
        return [r for r in rows if r["metric"] != "host_overhead"]

    assert [
        without_medians({k: b[k] for k in c})
        for b, c in zip(device(again), device(committed), strict=True)
    ] == [without_medians(c) for c in device(committed)]

    def overhead(rows, verdicts):
        return {
            r["id"] for r in rows if r["metric"] == "host_overhead" and r["verdict"] in verdicts
        }

    flagged = ("regression", "improvement")
    assert overhead(again, flagged) == overhead(committed, flagged)
    assert overhead(again, ("unchanged",)) > overhead(committed, ("unchanged",))
    for b in again:
        if b["ratio"] and b["verdict"] != "not run" and b["gated"]:
            assert b["head"]["median"] == pytest.approx(b["base"]["median"] * b["ratio"], rel=1e-5)
    assert sum("4+4 processes" in " ".join(c["notes"]) for c in committed) == 36

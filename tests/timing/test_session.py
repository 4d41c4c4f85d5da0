"""Which ledger records count as measured: the resumption rules of the one-process runs."""

import dataclasses
import json
import time
import weakref

from iconbench.grids import resolve
from iconbench.programs import backends as registry
from iconbench.records.session import CaseResult, Measurement, SessionLedger
from iconbench.timing import session

TINY = resolve("tiny")

#: Enough of the measurement protocol to time a Python call, quickly.
QUICK = {"samples": 3, "min_samples": 3, "warmup_calls": 1, "warmup_s": 0.0, "gt4py_calls": 0}


@dataclasses.dataclass
class _Prepared:
    """What ``run_cases`` needs of a prepared case, around a real (tiny) Python call."""

    calls: list[str]
    case: str
    bytes_moved: int = 8
    load_s: float = 0.0

    def call_and_sync(self):
        return lambda: self.calls.append(self.case)


def _record(
    case: str, *, source: str | None, error: str | None = None, device=(9e-4,)
) -> CaseResult:
    measurement = None if source is None else Measurement(list(device), list(device), source)
    return CaseResult(
        case, "embedded", "tiny", measurement, 8, 0.0, None, None, None, None, 0.0, 1.0, error
    )


def _run(jobs, ledger, calls, **options):
    """``run_cases`` on the embedded cases of ``jobs``; each call appends its case to ``calls``."""
    return session.run_cases(
        jobs,
        grid=TINY,
        ledger=ledger,
        prepare=lambda case, _backend, _grid: _Prepared(calls, case),
        measure_options=QUICK,
        progress=lambda _: None,
        **options,
    )


def test_stale_clock_and_failed_records(tmp_path):
    ledger = SessionLedger(tmp_path / "session.jsonl")
    ledger.append(_record("current", source="none"))
    ledger.append(_record("old_clock", source="cuda-events"))
    ledger.append(_record("broken", source=None, error="RuntimeError: boom"))
    assert session.measured(ledger) == {("current", "embedded", "tiny")}
    assert ledger.failed() == {("broken", "embedded", "tiny")}

    calls: list[str] = []
    jobs = [(case, "embedded") for case in ("current", "old_clock", "broken")]
    # the old clock's record is measured again; the failure only on request
    assert [r.case for r in _run(jobs, ledger, calls)] == ["old_clock"]
    assert set(calls) == {"old_clock"}
    assert [r.case for r in _run(jobs, ledger, calls, retry_failed=True)] == ["broken"]
    assert session.measured(ledger) == {
        (c, "embedded", "tiny") for c in ("current", "old_clock", "broken")
    }
    # append-only: the stale line is still in the file, the newer one wins
    lines = (tmp_path / "session.jsonl").read_text().splitlines()
    assert len(lines) == 5
    (old_clock,) = [r for r in ledger.results() if r.case == "old_clock"]
    assert old_clock.measurement.device_source == "none"
    assert len(old_clock.measurement.host_s) == 3


def test_noisy_device_times_are_measured_again_on_request(tmp_path):
    ledger = SessionLedger(tmp_path / "session.jsonl")
    steady = [846e-6, 847e-6, 846e-6, 848e-6]
    ledger.append(_record("steady", source="none", device=steady))
    ledger.append(_record("disturbed", source="none", device=[*steady, 1243e-6]))
    assert session.measured(ledger) == {
        ("steady", "embedded", "tiny"),
        ("disturbed", "embedded", "tiny"),
    }
    assert session.measured(ledger, max_cv=0.01) == {("steady", "embedded", "tiny")}
    calls: list[str] = []
    jobs = [("steady", "embedded"), ("disturbed", "embedded")]
    assert _run(jobs, ledger, calls) == []
    assert [r.case for r in _run(jobs, ledger, calls, max_cv=0.01)] == ["disturbed"]
    assert set(calls) == {"disturbed"}


def test_each_case_is_freed_before_the_next_is_prepared(tmp_path):
    """A released case's fields must not live on into the next case: on the H100 they did
    (at 566c841: 29.9 GB of a solver program's inputs still held; at 8c5fb4c: the 30th case ran
    out of device memory)."""
    held: dict[str, _Prepared] = {}  # what suite.prepare keeps until suite.forget
    alive: list[weakref.ref] = []
    alive_when_preparing: list[int] = []

    def prepare(case, _backend, _grid):
        alive_when_preparing.append(sum(ref() is not None for ref in alive))
        prepared = held[case] = _Prepared([], case)
        alive.append(weakref.ref(prepared))
        return prepared

    measured = session.run_cases(
        [(case, "embedded") for case in "abc"],
        grid=TINY,
        ledger=SessionLedger(tmp_path / "session.jsonl"),
        prepare=prepare,
        release=lambda case, _backend, _grid: held.pop(case),
        measure_options=QUICK,
        progress=lambda _: None,
    )
    assert [r.error for r in measured] == [None, None, None]
    assert alive_when_preparing == [0, 0, 0]
    # every ledger line records the grid's counts, so a later preset change cannot relabel it
    lines = (tmp_path / "session.jsonl").read_text().splitlines()
    assert [json.loads(line)["grid_counts"] for line in lines] == 3 * [
        {"cells": 512, "edges": 768, "vertices": 256, "levels": 10}
    ]


def test_a_turns_time_is_split_into_inputs_warm_up_and_the_rest(tmp_path):
    slow = 0.05

    def prepare(case, _backend, _grid):
        time.sleep(slow)  # drawing the inputs
        return _Prepared([], case)

    options = {**QUICK, "warmup_s": 0.03}
    (result,) = session.run_cases(
        [("p[default]", "embedded")], grid=TINY, ledger=SessionLedger(tmp_path / "s.jsonl"),
        prepare=prepare, measure_options=options, progress=lambda _: None,
    )  # fmt: skip
    assert slow <= result.prepare_s < result.duration_s
    assert 0.03 <= result.measurement.warmup_s < result.duration_s - result.prepare_s
    (stored,) = SessionLedger(tmp_path / "s.jsonl").results()
    assert (stored.prepare_s, stored.measurement.warmup_s) == (
        result.prepare_s,
        result.measurement.warmup_s,
    )
    older = {k: v for k, v in stored.as_dict().items() if k != "prepare_s"}
    assert CaseResult.from_dict(older).prepare_s is None  # a line written before


def test_a_workers_later_cases_warm_up_for_warmup_next_s(tmp_path, monkeypatch):
    """The first case of a process warms up ``warmup_s``; each after it ``warmup_next_s``."""
    asked = []
    measure = session.measure

    def recording(call, clock, **options):
        asked.append(options["warmup_s"])
        return measure(call, clock, **options)

    monkeypatch.setattr(session, "measure", recording)
    jobs = [(f"p{i}[default]", "embedded") for i in range(3)]
    results = session.run_cases(
        jobs, grid=TINY, ledger=SessionLedger(tmp_path / "s.jsonl"),
        prepare=lambda case, _b, _g: _Prepared([], case),
        measure_options={**QUICK, "warmup_s": 0.05, "warmup_next_s": 0.01},
        progress=lambda _: None,
    )  # fmt: skip
    assert asked == [0.05, 0.05, 0.05]  # embedded: a CPU case warms up in full wherever it comes
    asked.clear()
    embedded = registry.backend("embedded")
    as_gpu = dataclasses.replace(embedded, device="gpu")
    monkeypatch.setattr(registry, "backend", lambda _name: as_gpu)
    clock = session.clock_for(embedded)
    monkeypatch.setattr(session, "clock_for", lambda _backend: clock)  # a host clock, no device
    results = session.run_cases(
        [(f"q{i}[default]", "gtfn_gpu") for i in range(3)], grid=TINY,
        ledger=SessionLedger(tmp_path / "g.jsonl"),
        prepare=lambda case, _b, _g: _Prepared([], case),
        measure_options={**QUICK, "warmup_s": 0.05, "warmup_next_s": 0.01},
        progress=lambda _: None,
    )  # fmt: skip
    assert asked == [0.05, 0.01, 0.01]
    # each warmed up at least as long as it was asked (the clock, not the options)
    assert [r.measurement.warmup_s >= w for r, w in zip(results, asked, strict=True)] == [True] * 3
    # without warmup_next_s every case warms up alike, as the suite's do
    asked.clear()
    session.run_cases(
        jobs, grid=TINY, ledger=SessionLedger(tmp_path / "t.jsonl"),
        prepare=lambda case, _b, _g: _Prepared([], case),
        measure_options={**QUICK, "warmup_s": 0.05}, progress=lambda _: None,
    )  # fmt: skip
    assert asked == [0.05, 0.05, 0.05]

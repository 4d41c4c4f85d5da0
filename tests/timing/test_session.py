"""Which ledger records count as measured: the resumption rules of the one-process runs."""

import dataclasses

from iconbench.timing import session
from iconbench.timing.measurement import Measurement


@dataclasses.dataclass
class _Prepared:
    """What ``run_cases`` needs of a prepared case, around a real (tiny) Python call."""

    calls: list[str]
    case: str
    bytes_moved: int = 8
    load_s: float = 0.0

    def call_and_sync(self):
        return lambda: self.calls.append(self.case)


def _record(case: str, *, source: str | None, error: str | None = None) -> session.CaseResult:
    measurement = None if source is None else Measurement([1e-3], [9e-4], source)
    return session.CaseResult(
        case, "embedded", "tiny", measurement, 8, 0.0, None, None, None, None, 0.0, 1.0, error
    )


def test_stale_clock_and_failed_records(tmp_path):
    ledger = session.SessionLedger(tmp_path / "session.jsonl")
    ledger.append(_record("current", source="none"))
    ledger.append(_record("old_clock", source="cuda-events"))
    ledger.append(_record("broken", source=None, error="RuntimeError: boom"))
    assert ledger.done() == {("current", "embedded", "tiny")}
    assert ledger.failed() == {("broken", "embedded", "tiny")}

    calls: list[str] = []
    jobs = [(case, "embedded") for case in ("current", "old_clock", "broken")]

    def run(**options):
        return session.run_cases(
            jobs,
            grid="tiny",
            ledger=ledger,
            prepare=lambda case, _backend, _grid: _Prepared(calls, case),
            measure_options={
                "samples": 3,
                "min_samples": 3,
                "warmup_calls": 1,
                "warmup_s": 0.0,
                "gt4py_calls": 0,
            },
            progress=lambda _: None,
            **options,
        )

    # the old clock's record is measured again; the failure only on request
    assert [r.case for r in run()] == ["old_clock"]
    assert set(calls) == {"old_clock"}
    assert [r.case for r in run(retry_failed=True)] == ["broken"]
    assert ledger.done() == {(c, "embedded", "tiny") for c in ("current", "old_clock", "broken")}
    # append-only: the stale line is still in the file, the newer one wins
    lines = (tmp_path / "session.jsonl").read_text().splitlines()
    assert len(lines) == 5
    (old_clock,) = [r for r in ledger.results() if r.case == "old_clock"]
    assert old_clock.measurement.device_source == "none"
    assert len(old_clock.measurement.host_s) == 3


def test_noisy_device_times_are_measured_again_on_request(tmp_path):
    ledger = session.SessionLedger(tmp_path / "session.jsonl")
    steady = [846e-6, 847e-6, 846e-6, 848e-6]
    for case, device in (("steady", steady), ("disturbed", [*steady, 1243e-6])):
        m = Measurement(host_s=device, device_s=device, device_source="none")
        ledger.append(
            session.CaseResult(
                case, "embedded", "tiny", m, 8, 0.0, None, None, None, None, 0.0, 1.0
            )
        )
    assert ledger.done() == {("steady", "embedded", "tiny"), ("disturbed", "embedded", "tiny")}
    assert ledger.done(max_cv=0.01) == {("steady", "embedded", "tiny")}
    calls: list[str] = []
    jobs = [("steady", "embedded"), ("disturbed", "embedded")]
    options = {"samples": 3, "min_samples": 3, "warmup_calls": 1, "warmup_s": 0.0, "gt4py_calls": 0}
    prepare = lambda case, _backend, _grid: _Prepared(calls, case)  # noqa: E731
    assert session.run_cases(jobs, grid="tiny", ledger=ledger, prepare=prepare) == []
    again = session.run_cases(
        jobs,
        grid="tiny",
        ledger=ledger,
        prepare=prepare,
        max_cv=0.01,
        measure_options=options,
        progress=lambda _: None,
    )
    assert [r.case for r in again] == ["disturbed"]
    assert set(calls) == {"disturbed"}

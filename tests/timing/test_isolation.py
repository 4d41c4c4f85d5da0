"""Fresh worker processes for measuring: real subprocesses that fail, die and leak on cue."""

import json
import pathlib
import subprocess
import sys
import textwrap

import pytest

from iconbench.errors import IconbenchError
from iconbench.grids import resolve
from iconbench.records.session import SessionLedger
from iconbench.timing import isolation, session

TINY = resolve("tiny")

#: Enough of the measurement protocol to time a Python call, quickly.
QUICK = {"samples": 3, "min_samples": 3, "warmup_calls": 1, "warmup_s": 0.0, "gt4py_calls": 0}

#: A measure worker: the real ``run_cases`` with the worker options; each case behaves as
#: ``behaviour[case]`` says: ok, "spoilt" (fails or dies unless it is the worker's first
#: case, like a case hit by what earlier cases left behind) or "broken" (always fails).
WORKER = textwrap.dedent(
    """
    import json, os, pathlib, sys
    from iconbench.grids import resolve
    from iconbench.timing import isolation, session
    from iconbench.records.session import SessionLedger

    jobs_file, inflight, ledger_path, behaviour_file = map(pathlib.Path, sys.argv[1:5])
    behaviour = json.loads(behaviour_file.read_text())
    if behaviour.get("startup") == "dies":
        os.abort()
    started = []

    class Prepared:
        bytes_moved, load_s = 8, 0.0
        def call_and_sync(self):
            return lambda: None

    def prepare(case, backend, grid):
        started.append(case)
        kind = behaviour.get(case, "ok")
        first = len(started) == 1
        if kind == "broken" or (kind == "spoilt-fails" and not first):
            raise RuntimeError(f"{case} failed")
        if kind == "spoilt-dies" and not first:
            os.abort()
        return Prepared()

    session.run_cases(
        [tuple(job) for job in json.loads(jobs_file.read_text())],
        grid=resolve("tiny"),
        ledger=SessionLedger(ledger_path),
        prepare=prepare,
        retry_failed=True,
        measure_options=behaviour["quick"],
        progress=lambda line: None,
        stop_after_failure=True,
        starting=lambda job: isolation.write_inflight(inflight, job),
    )
    """
)


def _driver(tmp_path: pathlib.Path, behaviour: dict[str, str]):
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    behaviour_file = tmp_path / "behaviour.json"
    behaviour_file.write_text(json.dumps({**behaviour, "quick": QUICK}))
    ledger = SessionLedger(tmp_path / "session.jsonl")
    given: list[list[str]] = []

    def start_worker(cases, _budget, inflight):
        given.append([case for case, _ in cases])
        jobs_file = tmp_path / "jobs.json"
        jobs_file.write_text(json.dumps(list(cases)))
        command = [sys.executable, str(script), str(jobs_file), str(inflight), str(ledger.path),
                   str(behaviour_file)]  # fmt: skip
        return subprocess.run(command, check=False, capture_output=True).returncode

    def run(jobs):
        return isolation.run_in_workers(
            jobs,
            grid=TINY,
            ledger=ledger,
            start_worker=start_worker,
            inflight=tmp_path / "inflight",
            progress=lambda line: None,
        )

    return run, ledger, given


def test_a_spoilt_case_is_retried_first_in_a_fresh_worker_and_a_broken_one_fails(tmp_path):
    run, ledger, given = _driver(tmp_path, {"b": "spoilt-fails", "d": "spoilt-dies", "e": "broken"})
    jobs = [(case, "embedded") for case in "abcdef"]
    runs = run(jobs)

    assert given == [list("abcdef"), list("bcdef"), list("def"), list("ef"), list("f")]
    assert runs.workers == 5
    assert [(r.case, r.error is None) for r in runs.failed] == [("e", False)]
    latest = {r.case: r for r in ledger.results()}
    assert {case for case, r in latest.items() if r.error is None} == set("abcdf")
    assert latest["e"].error.endswith("RuntimeError: e failed")
    # the history keeps what happened: b's first failure, d's death (SIGABRT), then both done
    history = [(r.case, r.error) for r in ledger.results_since(0)]
    assert ("b", "RuntimeError: b failed") in history
    assert ("d", "measure worker killed by SIGABRT during this case") in history
    assert [case for case, error in history if error is None] == list("abcdf")
    # nothing left: the next run starts no worker
    assert session.to_measure(ledger, jobs, "tiny") == []


def test_a_worker_that_dies_before_its_first_case_stops_the_run_in_one_line(tmp_path):
    run, ledger, given = _driver(tmp_path, {"startup": "dies"})
    with pytest.raises(IconbenchError, match="killed by SIGABRT before its first case"):
        run([("a", "embedded"), ("b", "embedded")])
    assert len(given) == 1
    assert ledger.results() == []


def test_run_cases_stops_when_the_process_is_no_longer_fit(tmp_path):
    """``fit_for_next`` (on a GPU: device memory not given back) ends a worker's run early."""
    ledger = SessionLedger(tmp_path / "session.jsonl")
    answers = iter([None, "12.0 GB of device memory not given back"])
    measured = session.run_cases(
        [(case, "embedded") for case in "abcd"],
        grid=TINY,
        ledger=ledger,
        prepare=lambda *_: type(
            "P", (), {"bytes_moved": 8, "load_s": 0.0, "call_and_sync": lambda self: id}
        )(),
        measure_options=QUICK,
        progress=lambda line: None,
        fit_for_next=lambda: next(answers),
    )
    assert [r.case for r in measured] == ["a", "b"]
    assert session.to_measure(ledger, [(case, "embedded") for case in "abcd"], "tiny") == [
        ("c", "embedded"),
        ("d", "embedded"),
    ]

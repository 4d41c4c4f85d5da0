"""Session → asv result files → typed records, and asv itself accepting them."""

import json
import pathlib
import subprocess
import sys

from iconbench import suite
from iconbench.grids import resolve
from iconbench.records import asv as results
from iconbench.records.session import SessionLedger
from iconbench.timing import session

TINY = resolve("tiny")

REFERENCE = "compute_tangential_wind[default]"

REPO = pathlib.Path(__file__).resolve().parents[2]


def _values(records):
    values = {k: {} for k in (*results.TIME_KINDS, *results.TRACK_KINDS)}
    for r in records:
        key = (r.case, r.backend, r.grid)
        m = r.measurement
        values["time_host"][key] = (m.host_median, m.host_s)
        if m.device_s:
            values["time_device"][key] = (m.device_median, m.device_s)
            values["track_call_overhead"][key] = (m.overhead_median, None)
        values["track_compile_cached"][key] = (r.load_s, None)
    return values


def test_session_to_asv_to_records_and_publish(tmp_path, monkeypatch, gtfn_cpu_case, embedded_case):
    monkeypatch.setenv("ICONBENCH_BACKENDS", "embedded,gtfn_cpu")
    monkeypatch.setenv("ICONBENCH_GRID", "tiny")
    ledger = SessionLedger(tmp_path / "session.jsonl")
    jobs = [(REFERENCE, "embedded"), (REFERENCE, "gtfn_cpu")]
    measured = session.run_cases(
        jobs,
        grid=TINY,
        ledger=ledger,
        prepare=suite.prepare,
        measure_options={"samples": 20, "gt4py_calls": 0},
        progress=lambda _: None,
    )
    assert [r.error for r in measured] == [None, None]
    # resumable: nothing is measured twice
    assert session.run_cases(jobs, grid=TINY, ledger=ledger, prepare=suite.prepare) == []

    # a git repository for asv to find the commit in
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q", "-b", "main", str(repo)], check=True)
    (repo / "f").write_text("x")
    subprocess.run([*git, "-C", str(repo), "add", "f"], check=True)
    subprocess.run([*git, "-C", str(repo), "commit", "-qm", "c"], check=True)
    commit = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()

    benchmarks = results.discover_benchmarks(REPO / "benchmarks")
    names = {b["name"] for b in benchmarks}
    assert "programs.Programs.time_device" in names
    machine = {"machine": "ci", "arch": "x86_64", "cpu": "", "num_cpu": "2", "os": "", "ram": ""}
    out = tmp_path / "results"

    def write() -> object:
        return results.write_asv(
            out,
            benchmarks,
            _values(ledger.results()),
            machine=machine,
            commit=commit,
            env_name="existing-py3.12",
            python="3.12",
        )

    path = write()
    assert path.exists()

    records = results.read(out)
    device = [r for r in records if r.kind == "time_device" and r.value is not None]
    assert {(r.program, r.backend) for r in device} == {(REFERENCE, "gtfn_cpu")}
    record = device[0]
    assert record.variant == "default"
    assert record.grid == "tiny"
    # the grid's counts travel with the result (the gate compares them)
    assert str(record.grid_counts) == "512 cells / 768 edges / 256 vertices / 10 levels"
    assert results.grid_counts(record) == record.grid_counts
    assert len(record.samples) == 20
    assert record.stats.median == record.value  # asv's value for time_ is the median
    assert record.unit == "seconds"
    assert record.commit == commit
    assert record.machine == "ci"
    host = {r.backend: r for r in records if r.kind == "time_host" and r.value is not None}
    assert set(host) == {"embedded", "gtfn_cpu"}

    # append-only: the same commit/env is refused
    import pytest

    from iconbench.errors import IconbenchError

    with pytest.raises(IconbenchError, match="append-only"):
        write()

    # a result outside the suite's parameters is refused, not dropped
    values = _values(ledger.results())
    values["time_host"][("no_such_program[default]", "gtfn_cpu", "tiny")] = (1e-3, [1e-3])
    with pytest.raises(IconbenchError, match=r"1 time_host results .* not parameters"):
        results.write_asv(
            out, benchmarks, values, machine=machine, commit=commit, env_name="other", python="3.12"
        )

    # merge of two shards into one result set
    merged = tmp_path / "merged"
    assert results.merge([out], merged) == 1
    assert len(results.read(merged)) == len(records)

    # asv publish accepts the files
    conf = {
        "version": 1,
        "project": "t",
        "repo": str(repo),
        "branches": ["main"],
        "results_dir": str(out),
        "html_dir": str(tmp_path / "html"),
        "benchmark_dir": str(REPO / "benchmarks"),
        "environment_type": "existing",
    }
    (tmp_path / "asv.conf.json").write_text(json.dumps(conf))
    asv = pathlib.Path(sys.executable).parent / "asv"
    done = subprocess.run(
        [str(asv), "publish", "--config", str(tmp_path / "asv.conf.json")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    graphs = list((tmp_path / "html" / "graphs").rglob("programs.Programs.time_device.json"))
    assert graphs

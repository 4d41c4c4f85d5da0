"""Shard output directories merge into one result set; shards of different runs do not."""

import json

import pytest
from tests.asv_results import write_asv_results

from iconbench.errors import IconbenchError
from iconbench.records import resultset, session
from iconbench.records.resultdir import merge_runs
from iconbench.records.session import Measurement


def _shard(root, values, cases, gpu="NVIDIA H100 80GB HBM3", at=0.0):
    """A shard that measured ``cases`` at ``at`` (seconds) and wrote its results 10 s later."""
    write_asv_results(
        root / "asv", values, commit="c" * 40, machine="h100", date_ms=int((at + 10) * 1000)
    )
    summary = {
        "grid": "ch1_medium",
        "stack": "s",
        "commit": "c" * 40,
        "backends": ["gtfn_gpu"],
        "provenance": {"gpu": {"name": gpu}},
        "phases": [{"phase": "measure", "at": at + 5}],
        "cases": [{"case": c, "backend": "gtfn_gpu"} for c in cases],
    }
    (root / "summary.json").write_text(json.dumps(summary))
    ledger = session.SessionLedger(root / "work" / "session.jsonl")
    measured = Measurement(
        host_s=[1.1e-3] * 10, device_s=[1e-3] * 10, device_source="cuda-events-held"
    )
    for c in cases:
        record = session.CaseResult(
            c, "gtfn_gpu", "ch1_medium", measured, 0, 0.0, None, None, None, None, at, 1.0
        )
        ledger.append(record)
    return root


def test_two_shards_merge_into_one_result_set(tmp_path):
    one = _shard(tmp_path / "s1", [1.0, None], ["a[default]"])
    two = _shard(tmp_path / "s2", [None, 2.0], ["b[x]"])
    done = merge_runs([one, two], tmp_path / "out")
    assert (done.shards, done.asv_files, done.cases) == (2, 1, 2)
    (merged,) = (tmp_path / "out" / "asv" / "h100").glob("cccccccc-*.json")
    assert json.loads(merged.read_text())["results"]["programs.Programs.time_device"][0] == [
        1.0,
        2.0,
    ]
    summary = json.loads(done.summary.read_text())
    assert [c["case"] for c in summary["cases"]] == ["a[default]", "b[x]"]
    assert len(summary["phases"]) == 2
    ledger = (tmp_path / "out" / "work" / "session.jsonl").read_text().splitlines()
    assert len(ledger) == 2
    # merging again keeps the first summary (append-only) and adds no ledger line
    again = merge_runs([one, two], tmp_path / "out")
    assert again.summary.name == "summary.1.json"
    assert (tmp_path / "out" / "work" / "session.jsonl").read_text().splitlines() == ledger


def test_a_case_measured_by_a_later_shard_is_in_the_merged_result_set(tmp_path):
    # shard 2 measured after shard 1 had written its results (array tasks one after another)
    one = _shard(tmp_path / "s1", [1.0, None], ["a[default]"], at=1000.0)
    two = _shard(tmp_path / "s2", [None, 2.0], ["b[x]"], at=2000.0)
    merge_runs([one, two], tmp_path / "out")
    (merged,) = (tmp_path / "out" / "asv" / "h100").glob("cccccccc-*.json")
    assert json.loads(merged.read_text())["date"] == 2010_000  # the newest shard's
    entries = resultset.resolve(str(tmp_path / "out")).entries
    for case in ("a[default]", "b[x]"):
        device = entries[f"{case}|gtfn_gpu|device_time"]
        assert device.error is None, device
        assert len(device.samples) == 10


def test_shards_of_different_gpus_are_refused(tmp_path):
    one = _shard(tmp_path / "s1", [1.0, None], ["a[default]"])
    two = _shard(tmp_path / "s2", [None, 2.0], ["b[x]"], gpu="NVIDIA A100-SXM4-80GB")
    with pytest.raises(IconbenchError, match="shards differ in GPU"):
        merge_runs([one, two], tmp_path / "out")
    assert not (tmp_path / "out").exists()
    with pytest.raises(IconbenchError, match="not a runner output directory"):
        merge_runs([tmp_path], tmp_path / "out")

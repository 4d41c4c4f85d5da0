"""``ci/gpu/nightly-gpus`` on the CPU: the measuring part (4, 2 and 1 "GPUs", the agreement).

On a CPU host the shards run the CPU backend, so this checks the part's order, its own build
cache, the until-merge runs, the compare of the 1-GPU run with the 4-GPU run and the table of
ratios; the GPU figures come from running it on a GPU host (results/nightly-4xh200/README.md).
"""

from __future__ import annotations

import json
import subprocess

import pytest
from tests.ci.test_nightly_host import ENV, REPO

SCRIPT = REPO / "ci" / "gpu" / "nightly-gpus"


def _run(out, *parts: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(SCRIPT), str(out), *parts], env=ENV,
                          capture_output=True, text=True, check=False)  # fmt: skip


@pytest.mark.slow  # a first night, two runs until merge and a compare: ~100 s on 2 cores
def test_the_gpus_part_measures_on_4_2_and_1_with_one_cache_and_compares_1_with_4(tmp_path):
    done = _run(tmp_path, "gpus")
    assert done.returncode == 0, done.stderr[-3000:]
    for gpus in (4, 2, 1):
        phases = json.loads((tmp_path / f"gpus-{gpus}" / "phases.json").read_text())
        assert (phases["gpus"], phases["road"]) == (gpus, "devices")
        # the first is a whole night (the devices road's cold one), the others stop at merge
        assert phases["until"] == ("finish" if gpus == 4 else "merge")
        assert ("finish" in phases["phases_s"]) == (gpus == 4)
    assert (tmp_path / "gpus-cache").is_dir()
    assert not (tmp_path / "nights-cache").exists()  # the nights part keeps a cache of its own
    assert not (tmp_path / "night-1").exists()
    # the 4-GPU run's ledger says which GPU measured each case: the agreement's other side
    ledger = (tmp_path / "gpus-4" / "merged" / "work" / "session.jsonl").read_text()
    assert {json.loads(line)["device"] for line in ledger.splitlines()} <= {"0", "1", "2", "3"}
    agreement = json.loads((tmp_path / "agreement.json").read_text())
    gated = sorted(row["id"] for row in agreement["benchmarks"] if row["gated"])
    assert gated == ["compute_tangential_wind[default]|gtfn_cpu|device_time",
                     "update_theta_and_exner[default]|gtfn_cpu|device_time"]  # fmt: skip
    # its verdict is the GPU host's: here the four shards share two cores, one shard has both
    assert sum(agreement["counts"][v] for v in ("regression", "improvement", "unchanged",
                                                "inconclusive")) == 2  # fmt: skip
    # what it flags, measured again with each side on its run's GPU; nothing flagged, nothing
    # measured: the summary as compared
    confirmed = json.loads((tmp_path / "agreement.confirmed.json").read_text())
    flagged = [r["id"] for r in agreement["benchmarks"]
               if r["gated"] and r["verdict"] in ("regression", "improvement")]  # fmt: skip
    held = [r["id"] for r in confirmed["benchmarks"] if r.get("confirmation")]
    assert held == flagged
    assert (tmp_path / "agreement-ab").is_dir() == bool(flagged)
    table = (tmp_path / "table.txt").read_text().splitlines()
    assert [line.split(":")[0] for line in table] == ["gpus-1", "gpus-2", "gpus-4", "agreement"]
    assert "measure x1.00 of 1 GPU" in table[0]
    counts, again = agreement["counts"], confirmed["counts"]
    assert table[-1] == (
        f"agreement: {counts['regression']} regression(s), {counts['improvement']} "
        f"improvement(s), {counts['unchanged']} unchanged between the runs; measured again: "
        f"{again['regression'] + again['improvement']} confirmed"
    )

    again = _run(tmp_path, "gpus")  # resumable: every run done, nothing measured again
    assert again.returncode == 0
    assert again.stderr.count("done already") == 3


@pytest.mark.slow  # a first night, two runs until merge and a compare: ~100 s on 2 cores
def test_after_the_nights_part_the_gpus_part_measures_with_the_nights_builds(tmp_path):
    """On a host that ran the nights, every case is built in their cache: the 1/2/4-GPU runs
    use it rather than compiling the stack a second time in a cache of their own."""
    night = tmp_path / "night-1"
    night.mkdir()
    record = {"gpus": 4, "road": "shards", "remote": None, "until": "finish",
              "phases_s": {"stack": 1.0, "precompile": 2.0, "measure": 3.0, "merge": 1.0,
                           "finish": 1.0}}  # fmt: skip
    (night / "phases.json").write_text(json.dumps(record))
    done = _run(tmp_path, "gpus")
    assert done.returncode == 0, done.stderr[-3000:]
    assert not (tmp_path / "gpus-cache").exists()
    assert (tmp_path / "nights-cache" / "program-index").exists()
    assert "(cache " + str(tmp_path / "nights-cache") + ")" in done.stderr
    table = (tmp_path / "table.txt").read_text().splitlines()
    assert [line.split(":")[0] for line in table] == [
        "gpus-1", "gpus-2", "gpus-4", "night-1", "agreement"]  # fmt: skip


def test_an_unknown_part_is_one_line(tmp_path):
    done = _run(tmp_path, "weekly")
    assert done.returncode == 2
    assert "nightly-gpus: unknown part weekly (nights, gpus, ahead)" in done.stderr


@pytest.mark.slow  # four runs until merge (the first precompiles) and a compare: ~120 s on 2 cores
def test_the_ahead_part_measures_abba_with_and_without_load_ahead_and_compares(tmp_path):
    """The ahead part: A, B, B, A on the devices road, the B runs with workers loading ahead
    (``--load-ahead``, recorded in phases.json), the A runs without, one build cache; the
    compare of the first A with the first B; the table's ratio of B's measuring to A's."""
    done = subprocess.run(["bash", str(SCRIPT), str(tmp_path), "ahead"],
                          env=dict(ENV, ICONBENCH_LOAD_AHEAD="1"),
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    for name, ahead in (("ahead-a1", None), ("ahead-b1", 1), ("ahead-b2", 1), ("ahead-a2", None)):
        phases = json.loads((tmp_path / name / "phases.json").read_text())
        assert (phases["road"], phases["until"], phases.get("load_ahead")) == (
            "devices",
            "merge",
            ahead,
        )
        # the B runs' workers loaded their programs before their turn on the device
        log = (tmp_path / name / "measure.log").read_text()
        assert ("programs loaded after" in log) == (ahead == 1)
    assert (tmp_path / "ahead-cache").is_dir()
    compared = json.loads((tmp_path / "ahead-compare.json").read_text())
    assert {b["backend"] for b in compared["benchmarks"]} == {"gtfn_cpu"}
    table = (tmp_path / "table.txt").read_text().splitlines()
    assert [line.split(":")[0] for line in table[:4]] == ["ahead-a1", "ahead-a2", "ahead-b1",
                                                          "ahead-b2"]  # fmt: skip
    assert "load-ahead 1," in table[2]
    counts = compared["counts"]
    assert table[4] == (
        f"ahead-compare: {counts['regression']} regression(s), {counts['improvement']} "
        f"improvement(s), {counts['unchanged']} unchanged between the runs"
    )
    assert table[-1].startswith("load-ahead: measure x")

"""``ci/slurm/submit`` on a real single-node Slurm: an array of shards + an ``afterok`` merge.

The templates keep their GPU settings; the test overrides them with sbatch options
(``--gpus-per-task=0 --cpus-per-task=1``) through ``ICONBENCH_SBATCH_ARGS``, runs gtfn_cpu
(the CPU path that has a compute time to gate) on the tiny grid, and checks the merged result
set against one unsharded run of the same selection on as many CPUs, the history append of
the merge job, and a failed shard blocking the merge.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys
import time

import pytest
from tests.ci import slurm_cluster

from iconbench.history.store import HistoryStore

REPO = pathlib.Path(__file__).resolve().parents[2]
PROGRAMS = "^(compute_tangential_wind|compute_airmass)$"
#: CPUs of each shard job; the unsharded run gets as many OpenMP threads
CPUS_PER_TASK = 1

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    if os.geteuid() != 0:
        pytest.skip("a Slurm test cluster needs root (slurmd runs jobs as root here)")
    reason = slurm_cluster.missing_reason()
    if reason:
        pytest.skip(reason)
    running = slurm_cluster.start(tmp_path_factory.mktemp("slurm"))
    yield running
    running.stop()


def _suite_env(cluster, tmp_path: pathlib.Path) -> dict[str, str]:
    return dict(
        cluster.env,
        ICONBENCH_PYTHON=sys.executable,
        ICONBENCH_BACKENDS="gtfn_cpu",
        ICONBENCH_GRID="tiny",
        ICONBENCH_PROGRAMS=PROGRAMS,
        ICONBENCH_ONE_VARIANT="1",
        ICONBENCH_LEDGERS=str(tmp_path / "no-ledgers"),
        ICONBENCH_SBATCH_ARGS=(
            f"--gpus-per-task=0 --cpus-per-task={CPUS_PER_TASK} --exclusive --time=00:20:00"
        ),
        ICONBENCH_SLURM_LOGS=str(tmp_path / "logs"),
        ICONBENCH_RESULTS=str(tmp_path / "slurm"),
        ICONBENCH_HISTORY=str(tmp_path / "history"),
        ICONBENCH_COMMIT="0" * 40,
    )


def _submit(cluster, env: dict[str, str]) -> tuple[str, str]:
    done = subprocess.run(
        ["bash", str(REPO / "ci" / "slurm" / "submit"), "2"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    ids = re.search(r"ARRAY_ID=(\d+) MERGE_ID=(\d+)", done.stdout)
    assert ids, done.stdout
    return ids.group(1), ids.group(2)


def _wait(cluster, job_id: str, done_states: set[str], timeout: float = 900) -> dict[str, str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = cluster.job_state(job_id)
        if state.get("JobState") in done_states:
            return state
        time.sleep(2)
    raise AssertionError(f"job {job_id} still {cluster.job_state(job_id)} after {timeout} s")


def _cases(out: pathlib.Path) -> list[tuple[str, str]]:
    summary = json.loads((out / "summary.json").read_text())
    return sorted((case["case"], case["backend"]) for case in summary["cases"])


def test_array_and_merge_equal_one_unsharded_run(cluster, tmp_path):
    env = _suite_env(cluster, tmp_path)
    # first, so that the array finds the programs compiled: its compile times are no slower;
    # with the OpenMP threads of a shard job (iconbench.sbatch sets them from its CPUs)
    unsharded = tmp_path / "unsharded"
    single = subprocess.run(
        ["bash", str(REPO / "ci" / "run-shard"), str(unsharded)],
        env=dict(env, OMP_NUM_THREADS=str(CPUS_PER_TASK)),
        capture_output=True,
        text=True,
        check=False,
    )
    assert single.returncode == 0, single.stderr[-3000:]
    started = time.monotonic()
    array_id, merge_id = _submit(cluster, env)
    merged_state = _wait(cluster, merge_id, {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT"})
    wall_s = time.monotonic() - started
    logs = sorted((tmp_path / "logs").glob("*.log"))
    assert merged_state["JobState"] == "COMPLETED", [log.read_text()[-2000:] for log in logs]
    assert [log.name for log in logs] == [
        f"iconbench-{array_id}_1.log",
        f"iconbench-{array_id}_2.log",
        f"iconbench-merge-{merge_id}.log",
    ]
    for task in (1, 2):
        log = (tmp_path / "logs" / logs[task - 1].name).read_text()
        assert f"iconbench shard {task}/2 on" in log
        assert f"(no GPU), {CPUS_PER_TASK} CPUs, OMP_NUM_THREADS={CPUS_PER_TASK}\n" in log
    inspected = cluster.run(str(REPO / "ci" / "slurm" / "inspect"), array_id, merge_id)
    assert inspected.returncode == 0, inspected.stdout + inspected.stderr
    print(f"array of 2 shards + merge: {wall_s:.1f} s wall")

    merged = tmp_path / "slurm" / "merged"
    shard_cases = [_cases(tmp_path / "slurm" / f"shard-{i}") for i in (1, 2)]
    assert all(shard_cases), shard_cases  # both shards ran cases
    assert len(_cases(unsharded)) == 2
    assert _cases(merged) == _cases(unsharded)
    assert sorted(shard_cases[0] + shard_cases[1]) == _cases(unsharded)  # none lost or doubled

    # the same cases measured minutes apart on a shared 2-core CPU: the check is that every
    # case is there with samples and none is slower beyond 2.5x (the gate flags a ratio
    # beyond 1 + threshold/2). Other processes on the machine slowed one shard's reference
    # work 2x (89 vs 46 us) and its device time 1.75x; the OpenMP team wider than the job's
    # CPUs (fixed in iconbench.sbatch) made every call 7.8-11.5 ms instead of 14-31 us.
    config = tmp_path / "gate.toml"
    config.write_text("[thresholds]\ndevice_time = 3.0\nhost_overhead = 3.0\ncompile_time = 3.0\n")
    compared = subprocess.run(
        [
            sys.executable,
            "-m",
            "iconbench",
            "compare",
            str(unsharded),
            str(merged),
            "--json",
            "--config",
            str(config),
        ],
        env=dict(env, PYTHONPATH=str(REPO / "src")),
        capture_output=True,
        text=True,
        check=False,
    )
    assert compared.returncode == 0, compared.stdout[-2000:] + compared.stderr[-2000:]
    verdicts = json.loads(compared.stdout)
    counted = [b["verdict"] for b in verdicts["benchmarks"]]
    assert counted.count("regression") == 0, counted
    assert counted.count("failed") == 0, counted
    assert len(counted) >= 6  # 2 cases x device_time, host_overhead, compile_time
    print("compare verdicts:", sorted(counted))

    entries = HistoryStore.open(tmp_path / "history").entries()
    assert [entry.label for entry in entries] == [f"slurm {merge_id}"]
    assert entries[0].commit == "0" * 40


def test_a_failed_shard_blocks_the_merge_and_inspect_names_it(cluster, tmp_path):
    env = _suite_env(cluster, tmp_path)
    # shard 2 cannot create its work directory: a file stands where the directory goes
    (tmp_path / "slurm").mkdir()
    (tmp_path / "slurm" / "shard-2").write_text("not a directory")
    array_id, merge_id = _submit(cluster, env)
    deadline = time.monotonic() + 900
    while time.monotonic() < deadline:
        merge = cluster.job_state(merge_id)
        if merge.get("Reason") == "DependencyNeverSatisfied":
            break
        time.sleep(2)
    assert merge["JobState"] == "PENDING", merge
    assert merge["Reason"] == "DependencyNeverSatisfied", merge
    assert not (tmp_path / "slurm" / "merged").exists()
    # shard 1 still finishes on its own
    _wait(cluster, f"{array_id}_1", {"COMPLETED", "FAILED"})
    inspected = cluster.run(str(REPO / "ci" / "slurm" / "inspect"), array_id, merge_id)
    assert inspected.returncode == 1, inspected.stdout + inspected.stderr
    log = tmp_path / "logs" / f"iconbench-{array_id}_2.log"
    assert f"shard 2 failed: FAILED, exit code 1:0, log {log}" in inspected.stdout
    assert "shard 1: completed" in inspected.stdout
    assert f"merge job {merge_id} will not run: a shard of array {array_id} failed" in (
        inspected.stdout
    )
    assert "not a directory" in log.read_text().lower() or "File exists" in log.read_text()
    assert cluster.run("scancel", merge_id).returncode == 0

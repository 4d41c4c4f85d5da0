"""Several devices of one host: which they are, their shares of the cases, lanes side by side."""

import json
import os
import pathlib
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from iconbench.errors import IconbenchError
from iconbench.grids import resolve
from iconbench.records.session import CaseResult, Measurement, SessionLedger
from iconbench.runner import devices
from iconbench.timing import isolation, session

TINY = resolve("tiny")


def _record(case: str, backend: str, duration_s: float) -> CaseResult:
    measured = Measurement(host_s=[1e-3], device_s=[9e-4], device_source="cuda-events-held")
    return CaseResult(
        case, backend, "ch1_medium", measured, 8, 0.5, None, None, None, None, 0.0, duration_s
    )


def test_the_shares_are_balanced_by_the_ledgers_measuring_time(tmp_path):
    """Longest first onto the least loaded device, from ``work/session.jsonl``'s durations.

    Two solver variants of 60 s and 55 s among 5 s stencils, in the order a run takes them
    (first variants first): dealt by count both solvers land on one device.
    """
    stencils = [f"stencil_{i}[default]" for i in range(1, 7)]
    order = ["solver[a]", stencils[0], "solver[b]", *stencils[1:], "new[default]"]
    seconds = {"solver[a]": 60.0, "solver[b]": 55.0} | dict.fromkeys(stencils, 5.0)
    ledger = SessionLedger(tmp_path / "work" / "session.jsonl")
    for case, duration in seconds.items():
        ledger.append(_record(case, "gtfn_gpu", duration))
    ledger.append(CaseResult.failure("broken[x]", "gtfn_gpu", "ch1_medium", "boom"))
    jobs = [(case, "gtfn_gpu") for case in order]

    known = devices.measuring_seconds(None, tmp_path / "work")
    assert known == {(case, "gtfn_gpu"): s for case, s in seconds.items()}  # a failure: no time
    two = devices.parse("0,1")
    shares = two.shares(jobs, known)
    assert [(i, d.label) for i, d, _ in shares] == [(0, "0"), (1, "1")]
    # every case on exactly one device (both sides of a check's case go with it), in run order
    assert sorted(j for _, _, share in shares for j in share) == sorted(jobs)
    for _, _, share in shares:
        assert share == sorted(share, key=jobs.index)
    # the case no ledger knows counts the median, 5 s: 75 s on each device
    loads = [sum(known.get(job, 5.0) for job in share) for _, _, share in shares]
    assert loads == [75.0, 75.0]
    assert [c for c, _ in shares[0][2]] == ["solver[a]", *stencils[1::2]]
    assert [c for c, _ in shares[1][2]] == [stencils[0], "solver[b]", *stencils[2::2],
                                           "new[default]"]  # fmt: skip
    # without a ledger: equal counts, here 130 s against 20 s
    by_count = two.shares(jobs, {})
    assert [len(share) for _, _, share in by_count] == [5, 4]
    assert [sum(known.get(j, 5.0) for j in share) for _, _, share in by_count] == [130.0, 20.0]
    assert two.describe_shares(shares) == "9 cases on 2 devices (--devices): 0, 1; 4 on 0, 5 on 1"


def test_one_device_keeps_everything_and_the_environment_as_it_was():
    jobs = [("a", "gtfn_gpu"), ("b", "gtfn_gpu")]
    ((index, device, share),) = devices.ONE.shares(jobs, {})
    assert (index, share) == (0, jobs)
    assert device.environment({"CUDA_VISIBLE_DEVICES": "3"}) == {"CUDA_VISIBLE_DEVICES": "3"}
    assert devices.ONE.labels == [None]
    # more devices than cases: the devices without a case get no lane
    three = devices.parse("0,1,2")
    assert [(i, d.label, s) for i, d, s in three.shares(jobs[:1], {})] == [(0, "0", jobs[:1])]


def test_devices_come_from_the_option_then_the_environment_then_nvidia_smi(tmp_path, monkeypatch):
    given = devices.parse("0,1")
    assert devices.resolve(given, on_gpu=False) is given  # asked for: even for a CPU backend
    assert devices.resolve(None, on_gpu=True, environ={"CUDA_VISIBLE_DEVICES": "GPU-a,GPU-b"}) \
        .labels == ["GPU-a", "GPU-b"]  # fmt: skip
    # a runner that gives the job one GPU: as on a one-GPU host, environment untouched
    assert devices.resolve(None, on_gpu=True, environ={"CUDA_VISIBLE_DEVICES": "2"}) is devices.ONE
    # nvidia-smi -L lists the host's GPUs, named by UUID whatever order CUDA counts them in
    tool = tmp_path / "bin" / "nvidia-smi"
    tool.parent.mkdir()
    tool.write_text(
        "#!/bin/sh\n[ \"$1\" = -L ] || exit 9\n"
        "echo 'GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0a)'\n"
        "echo 'GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-1b)'\n"
        "echo '  MIG 3g.40gb     Device  0: (UUID: MIG-3c)'\n"
    )  # fmt: skip
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tool.parent}{os.pathsep}{os.environ['PATH']}")
    assert devices.listed_gpus() == ["GPU-0a", "GPU-1b"]
    found = devices.resolve(None, on_gpu=True, environ={})
    assert (found.labels, found.source) == (["GPU-0a", "GPU-1b"], "nvidia-smi -L")
    assert found.devices[1].environment({}) == {"CUDA_VISIBLE_DEVICES": "GPU-1b"}
    assert devices.resolve(None, on_gpu=False, environ={}) is devices.ONE
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert devices.listed_gpus() is None
    assert devices.resolve(None, on_gpu=True, environ={}) is devices.ONE


@pytest.mark.parametrize("text", ["0,0", "0,", ""])
def test_bad_devices_are_one_line(text):
    with pytest.raises(IconbenchError, match=r"--devices .*: give device ids separated by"):
        devices.parse(text)


def test_lanes_run_side_by_side_and_a_failure_stops_the_others():
    seen: list[tuple[str, float]] = []

    def lane(name: str, fail: bool = False):
        def run(stop: threading.Event) -> str:
            seen.append((name, time.perf_counter()))
            if fail:
                raise IconbenchError(f"{name} failed")
            for _ in range(200):  # the turns of a long block: stops after another lane failed
                if stop.is_set():
                    return f"{name} stopped"
                time.sleep(0.01)
            return f"{name} done"

        return run

    start = time.perf_counter()
    assert devices.side_by_side([lane("a"), lane("b")]) == ["a done", "b done"]
    assert time.perf_counter() - start < 3.5  # two 2 s lanes at once, not one after the other
    assert abs(seen[0][1] - seen[1][1]) < 0.5
    start = time.perf_counter()
    with pytest.raises(IconbenchError, match="b failed"):
        devices.side_by_side([lane("a"), lane("b", fail=True)])
    assert time.perf_counter() - start < 1.5


#: A measure worker that records each of its cases (a result of 200 samples, a line larger
#: than a write buffer) 0.25 s apart, so that two devices' workers append in turns.
RECORDING_WORKER = textwrap.dedent(
    """
    import json, pathlib, sys, time
    from iconbench.records.session import CaseResult, Measurement, SessionLedger

    jobs_file, ledger_path, device = sys.argv[1:4]
    ledger = SessionLedger(pathlib.Path(ledger_path))
    for case, backend in json.loads(pathlib.Path(jobs_file).read_text()):
        m = Measurement(host_s=[1e-3 + i * 1e-9 for i in range(200)], device_s=[9e-4] * 200,
                        device_source="none")
        ledger.append(CaseResult(case, backend, "tiny", m, 8, 0.0, None, None, None,
                                 None, time.time(), 0.1, device=device))
        time.sleep(0.25)
    """
)


def test_each_devices_workers_take_its_share_from_a_shared_ledger(tmp_path):
    """Two devices' isolated workers append to one ledger at once; each lane keeps its own.

    A lane that took the other's records for its own would count them twice, and a line
    torn by two writers would lose a case.
    """
    script = tmp_path / "worker.py"
    script.write_text(RECORDING_WORKER)
    ledger = SessionLedger(tmp_path / "session.jsonl")
    jobs = [(f"case_{i}[default]", "embedded") for i in range(12)]
    shares = devices.parse("a,b").shares(jobs, {})

    def lane(index: int, device: devices.Device, share: list[tuple[str, str]]):
        jobs_file = tmp_path / f"jobs-{index}.json"

        def start_worker(cases, _budget, inflight):
            jobs_file.write_text(json.dumps(list(cases)))
            command = [sys.executable, str(script), str(jobs_file), str(ledger.path), device.label]
            return subprocess.run(command, check=False).returncode

        return lambda stop: isolation.run_in_workers(
            share, grid=TINY, ledger=ledger, start_worker=start_worker,
            inflight=tmp_path / f"inflight-{index}", progress=lambda line: None, stop=stop,
        )  # fmt: skip

    first, second = devices.side_by_side([lane(*share) for share in shares])
    assert (first.workers, second.workers) == (1, 1)
    assert [(r.case, r.device) for r in first.results] == [(c, "a") for c, _ in jobs[::2]]
    assert [(r.case, r.device) for r in second.results] == [(c, "b") for c, _ in jobs[1::2]]
    assert session.to_measure(ledger, jobs, "tiny") == []
    lines = [json.loads(line) for line in pathlib.Path(ledger.path).read_text().splitlines()]
    assert len(lines) == 12
    spans = [[line["started_at"] for line in lines if line["device"] == d] for d in "ab"]
    assert max(s[0] for s in spans) < min(s[-1] for s in spans)  # appending at the same time

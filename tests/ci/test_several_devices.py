"""Measuring on a host with several devices, on the CPU: ``--devices a,b``.

Two fake devices ``a`` and ``b`` (a CPU backend reads no ``CUDA_VISIBLE_DEVICES``), three
cases on the embedded backend and the tiny grid, the first as long to measure as the other
two together (by the ledger the split is balanced by): device ``a`` gets it, ``b`` the others.
``iconbench suite measure`` measures both shares at once, a worker on each device; the check's
rounds run an ABBA block on each device at once, one worker at a time on each, every case's
base and head on the same device.
"""

import itertools
import json
import os
import pathlib
import subprocess
import sys

import pytest

from iconbench.check import rounds
from iconbench.records import session
from iconbench.records.session import Measurement
from iconbench.runner import devices
from iconbench.stacks.sides import Side

REPO = pathlib.Path(__file__).resolve().parents[2]

CASES = (
    "compute_tangential_wind[default]",
    "update_theta_and_exner[default]",
    "compute_perturbation_of_rho_and_theta[default]",
)
PROGRAMS = (
    r"^(compute_tangential_wind|update_theta_and_exner|compute_perturbation_of_rho_and_theta)\["
)


#: What the ledger says each case takes to measure: the first as long as the other two.
SECONDS = {CASES[0]: 30.0, CASES[1]: 15.0, CASES[2]: 15.0}


def _spans(rows: list[dict], key: str) -> dict[str, tuple[float, float]]:
    """Per value of ``key`` (a worker, a device), the first start and last end of its records."""
    spans: dict[str, tuple[float, float]] = {}
    for row in rows:
        start, end = row["started_at"], row["started_at"] + row["duration_s"]
        first, last = spans.get(row[key], (start, end))
        spans[row[key]] = (min(first, start), max(last, end))
    return spans


def _overlap(spans: list[tuple[float, float]]) -> bool:
    """Whether the time spans have a moment in common."""
    return max(start for start, _ in spans) < min(end for _, end in spans)


def _suite_measure(out: pathlib.Path, *options: str) -> subprocess.CompletedProcess:
    """``iconbench suite measure`` of the three cases on embedded and the tiny grid."""
    env = {k: v for k, v in os.environ.items() if k != "ICONBENCH_CATALOG"}  # whole catalog
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "src"), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "iconbench", "suite", "measure", "--out", str(out), "--backends",
         "embedded", "--grid", "tiny", "--programs", PROGRAMS, "--warmup-s", "0.01",
         "--gt4py-calls", "0", *options],
        cwd=REPO, env=env, capture_output=True, text=True, check=False, timeout=600,
    )  # fmt: skip


def test_suite_measure_measures_each_devices_share_at_the_same_time(tmp_path):
    ledgers = tmp_path / "earlier" / "work"  # an earlier run's ledger: what each case takes
    for case, seconds in SECONDS.items():
        m = Measurement(host_s=[2e-3], device_s=[], device_source="none")
        session.SessionLedger(ledgers / "session.jsonl").append(
            session.CaseResult(case, "embedded", "tiny", m, 8, 0.1, None, None, None, None,
                               0.0, seconds)
        )  # fmt: skip
    out = tmp_path / "run"
    done = _suite_measure(out, "--devices", "a,b", "--shard-ledgers", str(ledgers),
                          "--samples", "100000", "--max-s", "2")  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "measure: 3 cases on 2 devices (--devices): a, b; 1 on a, 2 on b" in done.stderr
    assert "(2 workers, 0 failed); 0 left" in done.stderr
    rows = [json.loads(line) for line in (out / "work" / "session.jsonl").open()]
    assert sorted((row["case"], row["device"]) for row in rows) == sorted(
        [(CASES[0], "a"), (CASES[1], "b"), (CASES[2], "b")]
    )
    assert all(row["error"] is None and row["worker"] is None for row in rows)
    assert _overlap(list(_spans(rows, "device").values()))  # both devices measured at once
    (phase,) = [json.loads(line) for line in (out / "work" / "phases.jsonl").open()]
    assert (phase["measured"], phase["workers"], phase["devices"]) == (3, 2, ["a", "b"])


@pytest.mark.slow  # 8 workers start up: 82-100 s on a loaded 2-core machine
def test_each_device_runs_its_own_interleaved_rounds_at_the_same_time(tmp_path, monkeypatch):
    from iconbench.stacks.identity import stack_key

    monkeypatch.delenv("ICONBENCH_CATALOG", raising=False)  # the whole catalog in the workers
    stack = stack_key()
    sides = {
        name: Side(name, name, commit * 40, (), tmp_path / name, stack)
        for name, commit in (("base", "a"), ("head", "b"))
    }
    jobs = [(case, "embedded") for case in CASES]
    shares = devices.parse("a,b").shares(jobs, {(c, "embedded"): s for c, s in SECONDS.items()})
    assert [(d.label, [c for c, _ in share]) for _, d, share in shares] == [
        ("a", [CASES[0]]),
        ("b", [CASES[1], CASES[2]]),
    ]
    asked: list[int] = []
    done = rounds.measure(
        sides,
        shares,
        ["--backends", "embedded", "--grid", "tiny", "--programs", PROGRAMS],
        plan=rounds.Plan(
            samples=5,
            max_s=0.05,
            warmup_s=0.01,
            min_blocks=1,
            max_blocks=1,
            measure_cores=rounds.measuring_cores(False, 2),
        ),
        scratch=tmp_path / "rounds",
        decided=lambda processes: asked.append(processes) or "decided",
    )
    assert (done.rounds, done.blocks, asked) == (4, 1, [2])
    assert [(d["device"], d["cases"]) for d in done.devices] == [("a", 1), ("b", 2)]

    rows = [
        json.loads(line) | {"side": side}
        for side in ("base", "head")
        for line in (tmp_path / side / "work" / "session.jsonl").read_text().splitlines()
    ]
    assert all(row["error"] is None for row in rows)
    # every case: both sides, two rounds each, all on one device
    for case, device in ((CASES[0], "a"), (CASES[1], "b"), (CASES[2], "b")):
        mine = [row for row in rows if row["case"] == case]
        assert sorted((row["side"], row["device"]) for row in mine) == [
            ("base", device), ("base", device), ("head", device), ("head", device)
        ]  # fmt: skip
    spans = _spans(rows, "worker")
    for prefix in ("d0-", "d1-"):  # ABBA on each device, one round after the other
        order = sorted((name for name in spans if name.startswith(prefix)), key=spans.get)
        assert order == [f"{prefix}r01-base", f"{prefix}r02-head", f"{prefix}r03-head",
                         f"{prefix}r04-base"]  # fmt: skip
        assert all(spans[a][1] <= spans[b][0] for a, b in itertools.pairwise(order))
    # the two devices measured at the same time: their blocks overlap
    assert _overlap(list(_spans(rows, "device").values()))


def test_load_ahead_measures_each_case_in_a_fresh_worker_loaded_before_its_turn(tmp_path):
    """``--load-ahead 1``: a worker a case, each started while the one before measured.

    Every case measured once, in its own worker (3 workers for 3 cases), each worker's program
    loaded before it was given the device ("1 programs loaded"), the copy peak measured by the
    first alone, and the records are a suite's (no check round's worker name)."""
    out = tmp_path / "run"
    done = _suite_measure(out, "--load-ahead", "1", "--samples", "20", "--max-s", "1")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "(3 workers, 0 failed); 0 left" in done.stderr
    # the copy peak measured once, by the first worker: the others' turns are their cases
    assert len((out / "work" / "copy-peak.jsonl").read_text().splitlines()) == 1
    assert done.stderr.count("measure worker: 1 programs loaded after") == 3
    rows = [json.loads(line) for line in (out / "work" / "session.jsonl").open()]
    assert sorted(row["case"] for row in rows) == sorted(CASES)
    assert all(row["error"] is None and row["worker"] is None for row in rows)
    starts = sorted(row["started_at"] for row in rows)
    ends = sorted(row["started_at"] + row["duration_s"] for row in rows)
    assert all(end <= start for end, start in zip(ends, starts[1:], strict=False))  # in turn

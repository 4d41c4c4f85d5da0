"""A check's first measuring workers start up while its precompile runs (``meanwhile``).

The workers are stand-ins that follow a measuring worker's protocol (load after
``--load-after`` exists, say ready, wait for the turn), so that the order is seen without
the seconds a real worker's imports take.
"""

from __future__ import annotations

import json
import pathlib
import sys
import time

import pytest

from iconbench.check import rounds
from iconbench.errors import IconbenchError
from iconbench.runner.devices import ONE
from iconbench.stacks.sides import Side

#: A measuring worker's protocol: wait for LOAD_AFTER, "load" (note the time), say ready
#: (iconbench.runner.turn.ready_path), wait for the turn, end.
WORKER = """
import pathlib, sys, time
turn, load_after = pathlib.Path(sys.argv[1]), sys.argv[2]
if load_after:
    while not pathlib.Path(load_after).exists():
        time.sleep(0.01)
turn.with_name(turn.name + ".loaded").write_text(repr(time.time()))
turn.with_name(turn.name + ".ready").write_text("ready")
while not turn.exists():
    time.sleep(0.01)
"""

PLAN = rounds.Plan(samples=1, max_s=0.1, warmup_s=0.0, min_blocks=2, max_blocks=2)


def _stand_in(side, common, lane, name, *, jobs_file, turn, plan, load_after=None):
    return [sys.executable, "-c", WORKER, str(turn), str(load_after or "")]


def _measure(tmp_path: pathlib.Path, meanwhile) -> rounds.Rounds:
    sides = {name: Side(name, name, name[0] * 40, (), tmp_path / name, "s")
             for name in ("base", "head")}  # fmt: skip
    return rounds.measure(
        sides, ONE.shares([("p[default]", "gtfn_cpu")], {}), [], plan=PLAN,
        scratch=tmp_path / "rounds", decided=lambda processes: "decided", meanwhile=meanwhile,
    )  # fmt: skip


def test_the_first_workers_start_during_the_precompile_and_load_after_it(tmp_path, monkeypatch):
    monkeypatch.setattr(rounds, "_worker_command", _stand_in)
    scratch = tmp_path / "rounds"
    seen: dict[str, float | int] = {}

    def precompile() -> None:
        seen["started"] = len(list(scratch.glob("*.log")))  # the workers launched before it
        time.sleep(1.0)
        seen["ended"] = time.time()

    done = _measure(tmp_path, precompile)
    assert seen["started"] == 8  # two blocks of ABBA, all launched first
    loaded = sorted(float(p.read_text()) for p in scratch.glob("*.turn.loaded"))
    assert len(loaded) == 8
    assert loaded[0] >= seen["ended"]  # nothing loaded before the precompile had ended
    assert (done.blocks, done.rounds) == (2, 8)
    assert done.startup_s < 1.0  # the precompile's second is not the workers' start-up
    assert done.seconds < done.startup_s + done.measuring_s + done.deciding_s + 0.5


def test_a_failed_precompile_ends_the_workers_started(tmp_path, monkeypatch):
    monkeypatch.setattr(rounds, "_worker_command", _stand_in)
    started: list = []
    real_popen = rounds.subprocess.Popen

    def popen(*args, **kwargs):
        started.append(real_popen(*args, **kwargs))
        return started[-1]

    monkeypatch.setattr(rounds.subprocess, "Popen", popen)

    def precompile() -> None:
        raise IconbenchError("precompile of head failed")

    with pytest.raises(IconbenchError, match="precompile of head failed"):
        _measure(tmp_path, precompile)
    assert len(started) == 8
    assert all(process.poll() is not None for process in started)
    assert not list((tmp_path / "rounds").glob("*.loaded"))


#: A measuring worker that records which cases it measured and when its turn came.
PART_WORKER = """
import json, pathlib, sys, time
jobs, turn = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
turn.with_name(turn.name + ".ready").write_text("ready")
while not turn.exists():
    time.sleep(0.01)
turn.with_name(turn.name + ".measured").write_text(
    json.dumps({"at": time.time(), "jobs": json.loads(jobs.read_text())}))
"""


def test_a_round_split_into_parts_measures_every_case_once_a_part_at_a_time(tmp_path, monkeypatch):
    def part(side, common, lane, name, *, jobs_file, turn, plan, load_after=None):
        return [sys.executable, "-c", PART_WORKER, str(jobs_file), str(turn)]

    monkeypatch.setattr(rounds, "_worker_command", part)
    jobs = [(f"p{i}[default]", b) for i in range(5) for b in ("gtfn_gpu", "dace_gpu")]
    sides = {name: Side(name, name, name[0] * 40, (), tmp_path / name, "s")
             for name in ("base", "head")}  # fmt: skip
    plan = rounds.Plan(samples=1, max_s=0.1, warmup_s=0.0, min_blocks=2, max_blocks=2, parts=2)
    done = rounds.measure(sides, ONE.shares(jobs, {}), [], plan=plan, scratch=tmp_path / "r",
                          decided=lambda processes: "decided")  # fmt: skip
    assert (done.blocks, done.rounds) == (2, 8)  # rounds, not processes
    measured = {p.name.removesuffix(".turn.measured"): json.loads(p.read_text())
                for p in (tmp_path / "r").glob("*.turn.measured")}  # fmt: skip
    assert len(measured) == 16  # two processes a round
    order = [name for name, _ in sorted(measured.items(), key=lambda item: item[1]["at"])]
    assert order[:4] == ["r01-base-p1", "r01-base-p2", "r02-head-p1", "r02-head-p2"]
    for number in range(1, 9):
        first, second = (measured[n]["jobs"] for n in measured if n[1:3] == f"{number:02d}")
        assert sorted(map(tuple, first + second)) == sorted(jobs)  # each case once a round
        dace = [sum(b == "dace_gpu" for _, b in share) for share in (first, second)]
        assert sorted(dace) == [2, 3]  # the slow loads shared out, not one part's


def test_later_blocks_start_up_together_and_the_gate_still_decides_after_each(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(rounds, "_worker_command", _stand_in)
    scratch = tmp_path / "rounds"
    launched: list[int] = []

    def decided(processes: int) -> str | None:
        launched.append(len(list(scratch.glob("*.log"))))
        return "decided" if processes == 6 else None  # after block 3 of 4

    sides = {name: Side(name, name, name[0] * 40, (), tmp_path / name, "s")
             for name in ("base", "head")}  # fmt: skip
    plan = rounds.Plan(samples=1, max_s=0.1, warmup_s=0.0, min_blocks=2, max_blocks=4)
    done = rounds.measure(sides, ONE.shares([("p[default]", "gtfn_cpu")], {}), [], plan=plan,
                          scratch=scratch, decided=decided)  # fmt: skip
    assert launched == [8, 16]  # blocks 3 and 4 started before block 3 was measured
    assert (done.blocks, done.rounds) == (3, 12)
    turns = sorted(p.name for p in scratch.glob("*.turn") if p.read_text() == "go")
    assert len(turns) == 12  # block 4's workers ended without a turn
    assert not any(name.startswith(("r13", "r14", "r15", "r16")) for name in turns)


def test_a_workers_sampling_stops_at_the_plans_precision(tmp_path):
    """The check's workers get its ``--precision``; a plan without one samples as ever."""
    side = Side("base", "base", "b" * 40, (), tmp_path / "base", "s")
    ((_, device, _),) = ONE.shares([("p[default]", "gtfn_gpu")], {})
    lane = rounds._Lane(device, "", (), 1, (), ())
    plans = (PLAN, rounds.Plan(samples=50, max_s=0.5, warmup_s=0.1, precision=0.005))
    commands = [
        rounds._worker_command(
            side, [], lane, "r", jobs_file=tmp_path / "j", turn=tmp_path / "t", plan=plan
        )
        for plan in plans
    ]
    assert "--precision" not in commands[0]
    assert commands[1][commands[1].index("--precision") + 1] == "0.005"

"""A check's first measuring workers start up while its precompile runs (``meanwhile``).

The workers are stand-ins that follow a measuring worker's protocol (load what may be
loaded, say what is loaded, measure in the turns given: :mod:`iconbench.runner.turn`), so
that the order is seen without the seconds a real worker's imports take.
"""

from __future__ import annotations

import functools
import json
import pathlib
import sys
import time

import pytest

from iconbench.check import rounds
from iconbench.errors import IconbenchError
from iconbench.runner.devices import ONE
from iconbench.stacks.sides import Side

#: A measuring worker's protocol: its programs "loaded" once LOAD_AFTER exists (the time
#: noted in .loadedat), or those BUILT names meanwhile (a file of jobs, one a line, that the
#: test's precompile appends to); the loaded ones said (.loaded), then each turn's cases
#: "measured" (.measured: one line a turn, the time and the cases), until none is left.
WORKER = """
import json, os, pathlib, sys, time
turn, load_after, jobs_file, built = (pathlib.Path(sys.argv[1]), sys.argv[2],
                                      pathlib.Path(sys.argv[3]), sys.argv[4])
busy = sys.argv[5] == "busy"  # always loading something while the precompile runs
jobs = [tuple(j) for j in json.loads(jobs_file.read_text())]

def say(loaded, settled):
    tmp = turn.with_name(turn.name + ".loaded.tmp")
    tmp.write_text(json.dumps({"jobs": sorted(map(list, loaded)), "settled": settled}))
    os.replace(tmp, turn.with_name(turn.name + ".loaded"))

def loadable():
    if not load_after or pathlib.Path(load_after).exists():
        return set(jobs)
    done = pathlib.Path(built).read_text().splitlines() if built else []
    return {job for job in jobs if "|".join(job) in done}

loaded, left, number, said = set(), list(jobs), 1, None
while left:
    path = turn if number == 1 else turn.with_name(f"{turn.name}.{number}")
    while not path.exists():
        now = loadable() - loaded
        if now:
            loaded |= now
            with turn.with_name(turn.name + ".loadedat").open("a") as f:
                f.write(repr(time.time()) + "\\n")
        state = (frozenset(loaded),
                 not (busy and load_after and not pathlib.Path(load_after).exists()))
        if state != said:  # what it has loaded, said when it changes
            say(*state)
            said = state
            if loaded == set(jobs):
                turn.with_name(turn.name + ".ready").write_text("ready")
        time.sleep(0.02)
    text = path.read_text()
    these = left if text == "go" else [tuple(j) for j in json.loads(text)]
    with turn.with_name(turn.name + ".measured").open("a") as f:
        f.write(json.dumps({"at": time.time(), "jobs": sorted(map(list, these))}) + "\\n")
    left = [job for job in left if job not in these]
    path.with_name(path.name + ".done").write_text("done")
    number += 1
"""

PLAN = rounds.Plan(samples=1, max_s=0.1, warmup_s=0.0, min_blocks=2, max_blocks=2)


def _stand_in(side, common, lane, name, *, jobs_file, turn, plan, load_after=None, built="",
              busy=False):  # fmt: skip
    return [sys.executable, "-c", WORKER, str(turn), str(load_after or ""), str(jobs_file),
            str(built), "busy" if busy else ""]  # fmt: skip


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
    loaded = sorted(float(p.read_text()) for p in scratch.glob("*.turn.loadedat"))
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
    assert not list((tmp_path / "rounds").glob("*.loadedat"))


def _measured(scratch: pathlib.Path) -> dict[str, list[dict]]:
    """Per round process, its turns: when each began and the cases it measured."""
    return {p.name.removesuffix(".turn.measured"): [json.loads(line) for line in p.open()]
            for p in scratch.glob("*.turn.measured")}  # fmt: skip


def test_a_round_split_into_parts_measures_every_case_once_a_part_at_a_time(tmp_path, monkeypatch):
    monkeypatch.setattr(rounds, "_worker_command", _stand_in)
    jobs = [(f"p{i}[default]", b) for i in range(5) for b in ("gtfn_gpu", "dace_gpu")]
    sides = {name: Side(name, name, name[0] * 40, (), tmp_path / name, "s")
             for name in ("base", "head")}  # fmt: skip
    plan = rounds.Plan(samples=1, max_s=0.1, warmup_s=0.0, min_blocks=2, max_blocks=2, parts=2)
    done = rounds.measure(sides, ONE.shares(jobs, {}), [], plan=plan, scratch=tmp_path / "r",
                          decided=lambda processes: "decided")  # fmt: skip
    assert (done.blocks, done.rounds) == (2, 8)  # rounds, not processes
    measured = {name: turns[0] for name, turns in _measured(tmp_path / "r").items()}
    assert len(measured) == 16  # two processes a round, one turn each
    order = [name for name, _ in sorted(measured.items(), key=lambda item: item[1]["at"])]
    # a part's four rounds of a block one after another, ABBA
    assert order[:4] == ["r01-base-p1", "r02-head-p1", "r03-head-p1", "r04-base-p1"]
    assert order[4:8] == ["r01-base-p2", "r02-head-p2", "r03-head-p2", "r04-base-p2"]
    for number in range(1, 9):
        first, second = (measured[n]["jobs"] for n in measured if n[1:3] == f"{number:02d}")
        assert sorted(map(tuple, first + second)) == sorted(jobs)  # each case once a round
        dace = [sum(b == "dace_gpu" for _, b in share) for share in (first, second)]
        assert sorted(dace) == [2, 3]  # the slow loads shared out, not one part's


def _while_compiling(tmp_path, monkeypatch, *, overlap: bool, busy: bool = False):
    """Three cases of one part, two built at once and one 1.5 s later: the turns' records.

    ``busy``: the workers never say they have loaded all the cache holds (builds ending one
    after another keep them loading).
    """
    built = tmp_path / "built"
    built.write_text("")
    monkeypatch.setattr(rounds, "_worker_command",
                        functools.partial(_stand_in, built=built, busy=busy))  # fmt: skip
    jobs = [(f"p{i}[default]", "gtfn_gpu") for i in range(3)]
    seen: dict[str, float] = {}

    def precompile() -> None:
        built.write_text("p0[default]|gtfn_gpu\np1[default]|gtfn_gpu\n")
        time.sleep(1.5)  # the longest build
        seen["ended"] = time.time()

    sides = {name: Side(name, name, name[0] * 40, (), tmp_path / name, "s")
             for name in ("base", "head")}  # fmt: skip
    plan = rounds.Plan(samples=1, max_s=0.1, warmup_s=0.0, min_blocks=2, max_blocks=2,
                       parts=1, while_compiling=overlap)  # fmt: skip
    done = rounds.measure(sides, ONE.shares(jobs, {}), [], plan=plan, scratch=tmp_path / "r",
                          decided=lambda processes: "decided", meanwhile=precompile)  # fmt: skip
    return done, _measured(tmp_path / "r"), seen["ended"]


def test_the_cases_built_are_measured_while_the_longest_build_compiles(tmp_path, monkeypatch):
    done, measured, ended = _while_compiling(tmp_path, monkeypatch, overlap=True)
    assert (done.blocks, done.rounds) == (2, 8)
    sides = [side for block in range(2) for side in rounds.block_order(block)]  # ABBA BAAB
    assert sorted(measured) == [f"r{n:02d}-{side}" for n, side in enumerate(sides, start=1)]
    for turns in measured.values():  # two turns a process: what was built, then the rest
        assert [t["jobs"] for t in turns] == [
            [["p0[default]", "gtfn_gpu"], ["p1[default]", "gtfn_gpu"]],
            [["p2[default]", "gtfn_gpu"]],
        ]
        assert turns[0]["at"] < ended <= turns[1]["at"]
    for turn in range(2):  # each turn ABBA BAAB over the eight rounds
        order = sorted(measured, key=lambda name: measured[name][turn]["at"])
        assert order == sorted(measured)
    assert 0 < done.during_precompile_s <= done.measuring_s


def test_cases_ready_are_measured_after_a_wait_while_workers_keep_loading(tmp_path, monkeypatch):
    monkeypatch.setattr(rounds, "READY_WAIT_S", 0.3)
    done, measured, ended = _while_compiling(tmp_path, monkeypatch, overlap=True, busy=True)
    for turns in measured.values():  # not starved until the last build: measured meanwhile
        assert len(turns) == 2
        assert turns[0]["at"] < ended <= turns[1]["at"]
    assert done.during_precompile_s > 0


def test_a_cpu_check_measures_only_once_the_precompile_has_ended(tmp_path, monkeypatch):
    done, measured, ended = _while_compiling(tmp_path, monkeypatch, overlap=False)
    assert (done.blocks, done.rounds) == (2, 8)
    for turns in measured.values():  # one turn a process, every case, after the builds
        assert len(turns) == 1
        assert len(turns[0]["jobs"]) == 3
        assert turns[0]["at"] >= ended
    assert done.during_precompile_s == 0


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
    lane = rounds._Lane(device, "", 1, (), (), tmp_path / "measuring")
    plans = (PLAN, rounds.Plan(samples=50, max_s=0.5, warmup_s=0.1, precision=0.005))
    commands = [
        rounds._worker_command(
            side, [], lane, "r", jobs_file=tmp_path / "j", turn=tmp_path / "t", plan=plan
        )
        for plan in plans
    ]
    assert "--precision" not in commands[0]
    assert commands[1][commands[1].index("--precision") + 1] == "0.005"


def test_later_blocks_measure_only_the_cases_the_gate_left_open(tmp_path, monkeypatch):
    monkeypatch.setattr(rounds, "_worker_command", _stand_in)
    scratch = tmp_path / "rounds"
    jobs = [(f"p{i}[default]", "gtfn_gpu") for i in range(3)]
    open_case = frozenset({jobs[1]})
    asked: list[int] = []

    def decided(processes: int) -> str | frozenset | None:
        asked.append(processes)
        return open_case if processes == 4 else "decided"

    sides = {name: Side(name, name, name[0] * 40, (), tmp_path / name, "s")
             for name in ("base", "head")}  # fmt: skip
    plan = rounds.Plan(samples=1, max_s=0.1, warmup_s=0.0, min_blocks=2, max_blocks=4, parts=1)
    done = rounds.measure(sides, ONE.shares(jobs, {}), [], plan=plan, scratch=scratch,
                          decided=decided)  # fmt: skip
    assert asked == [4, 6]
    assert (done.blocks, done.rounds) == (3, 12)
    measured = _measured(scratch)
    for name, turns in measured.items():
        cases = sorted(tuple(job) for turn in turns for job in turn["jobs"])
        assert cases == (sorted(jobs) if int(name[1:3]) <= 8 else [jobs[1]]), name
    assert sorted(n for n in measured if int(n[1:3]) > 8) == [
        "r09-base",
        "r10-head",
        "r11-head",
        "r12-base",
    ]  # block 3 ABBA; block 4 ended unmeasured


def test_a_worker_broken_by_what_breaks_the_precompile_ends_the_check_with_its_line(
    tmp_path, monkeypatch
):
    """A broken stack ends the workers at once and the precompile a little later: the check's
    line is the precompile's (where the stack breaks), not 'round r01-base ended'."""

    def broken(side, common, lane, name, *, jobs_file, turn, plan, load_after=None):
        return [sys.executable, "-c", "import sys; sys.exit(2)"]

    monkeypatch.setattr(rounds, "_worker_command", broken)

    def precompile() -> None:
        time.sleep(0.5)
        raise IconbenchError("gtfn_cpu: stack gt4py 1.2.3 is broken")

    with pytest.raises(IconbenchError, match=r"stack gt4py 1\.2\.3 is broken"):
        _measure(tmp_path, precompile)


def _listing_builds(tmp_path: pathlib.Path, monkeypatch) -> pathlib.Path:
    """Stand-in workers that load what the returned file lists meanwhile (empty for now)."""
    built = tmp_path / "built"
    built.write_text("")
    monkeypatch.setattr(rounds, "_worker_command", functools.partial(_stand_in, built=built))
    return built


def _open_early(tmp_path, monkeypatch, *, open_after_block_2):
    """Three cases, two built at once, the third a long build; the gate leaves p1 open.

    The precompile waits (at most 20 s) until the later blocks' rounds have measured, so the
    test sees whether they could measure while it ran. ``open_after_block_2``: what the gate
    leaves open at the first decision. Returns the rounds, each round's turns, the gate's
    questions and the precompile's end.
    """
    built = _listing_builds(tmp_path, monkeypatch)
    scratch = tmp_path / "r"
    jobs = [(f"p{i}[default]", "gtfn_gpu") for i in range(3)]
    seen: dict[str, float] = {}
    asked: list[tuple[int, frozenset]] = []

    def precompile() -> None:
        built.write_text("p0[default]|gtfn_gpu\np1[default]|gtfn_gpu\n")
        deadline = time.time() + 20
        while time.time() < deadline and len(list(scratch.glob("r1[0-6]-*.turn.measured"))) < 7:
            time.sleep(0.05)
        seen["ended"] = time.time()

    def open_early(processes: int, measured: frozenset) -> frozenset:
        asked.append((processes, measured))
        return measured & {jobs[1]}

    decisions: list[int] = []

    def decided(processes: int) -> str | frozenset:
        decisions.append(processes)
        return open_after_block_2 if processes == 4 else "decided"

    sides = {name: Side(name, name, name[0] * 40, (), tmp_path / name, "s")
             for name in ("base", "head")}  # fmt: skip
    plan = rounds.Plan(samples=1, max_s=0.1, warmup_s=0.0, min_blocks=2, max_blocks=4,
                       parts=1, while_compiling=True)  # fmt: skip
    done = rounds.measure(sides, ONE.shares(jobs, {}), [], plan=plan, scratch=scratch,
                          decided=decided, meanwhile=precompile,
                          open_early=open_early)  # fmt: skip
    return done, _measured(scratch), (asked, decisions), seen["ended"], jobs


def test_later_blocks_of_a_case_left_open_start_and_measure_while_the_builds_compile(
    tmp_path, monkeypatch
):
    done, measured, (asked, decisions), ended, jobs = _open_early(
        tmp_path, monkeypatch, open_after_block_2=frozenset({("p1[default]", "gtfn_gpu")})
    )
    assert asked[0] == (4, frozenset(jobs[:2]))  # the cases built so far, measured in all 8
    assert done.started_early == 1
    later = {name: turns for name, turns in measured.items() if int(name[1:3]) > 8}
    sides = [side for block in (2, 3) for side in rounds.block_order(block)]  # ABBA BAAB
    assert sorted(later) == [f"r{n:02d}-{side}" for n, side in enumerate(sides, start=9)]
    for turns in later.values():  # only the case left open, before the last build ended
        assert [t["jobs"] for t in turns] == [[["p1[default]", "gtfn_gpu"]]]
        assert turns[0]["at"] < ended
    for name, turns in measured.items():
        if int(name[1:3]) <= 8:
            assert sorted(j for t in turns for j in map(tuple, t["jobs"])) == sorted(jobs)
    assert decisions == [4, 6]  # the gate still decides after each block
    assert (done.blocks, done.rounds) == (4, 16)  # block 4 was measured already


def test_cases_started_early_that_the_gate_then_decided_are_not_waited_for(tmp_path, monkeypatch):
    done, measured, (_, decisions), _, _ = _open_early(
        tmp_path, monkeypatch, open_after_block_2=frozenset({("p2[default]", "gtfn_gpu")})
    )
    early = sorted(name for name in measured if 8 < int(name[1:3]) <= 16)
    assert [measured[name][0]["jobs"] for name in early] == [[["p1[default]", "gtfn_gpu"]]] * 8
    later = sorted(name for name in measured if int(name[1:3]) > 16)
    assert later == ["r17-base-p2", "r18-head-p2", "r19-head-p2", "r20-base-p2"]  # block 3
    assert [measured[name][0]["jobs"] for name in later] == [[["p2[default]", "gtfn_gpu"]]] * 4
    assert decisions == [4, 6]
    assert done.started_early == 1
    assert (done.blocks, done.rounds) == (3, 12)  # p2's block 4 ended unmeasured


def test_a_case_the_gate_names_later_starts_early_in_a_part_of_its_own(tmp_path, monkeypatch):
    built = _listing_builds(tmp_path, monkeypatch)
    scratch = tmp_path / "r"
    jobs = [(f"p{i}[default]", "gtfn_gpu") for i in range(4)]
    seen: dict[str, float] = {}

    def early_rounds_measured(count: int) -> None:
        deadline = time.time() + 20
        while (
            time.time() < deadline
            and len([p for p in scratch.glob("r*.turn.measured") if int(p.name[1:3]) > 8]) < count
        ):
            time.sleep(0.05)

    def precompile() -> None:
        built.write_text("p0[default]|gtfn_gpu\np1[default]|gtfn_gpu\n")
        early_rounds_measured(8)  # p1's blocks 3-4
        with built.open("a") as listed:
            listed.write("p2[default]|gtfn_gpu\n")
        early_rounds_measured(16)  # and p2's
        seen["ended"] = time.time()

    def decided(processes: int) -> str | frozenset:
        return frozenset(jobs[1:3]) if processes == 4 else "decided"

    sides = {name: Side(name, name, name[0] * 40, (), tmp_path / name, "s")
             for name in ("base", "head")}  # fmt: skip
    plan = rounds.Plan(samples=1, max_s=0.1, warmup_s=0.0, min_blocks=2, max_blocks=4,
                       parts=1, while_compiling=True)  # fmt: skip

    def open_early(processes: int, measured: frozenset) -> frozenset:
        return measured & set(jobs[1:3])

    done = rounds.measure(sides, ONE.shares(jobs, {}), [], plan=plan, scratch=scratch,
                          decided=decided, meanwhile=precompile, open_early=open_early)  # fmt: skip
    assert done.started_early == 2
    later = {name: turns for name, turns in _measured(scratch).items() if int(name[1:3]) > 8}
    firsts = sorted(n for n in later if int(n[1:3]) <= 16)
    seconds = sorted(n for n in later if int(n[1:3]) > 16)
    assert len(firsts) == len(seconds) == 8  # blocks 3-4 of each, no round after the decision
    assert all(n.endswith("-p2") for n in seconds)  # the second case's parts, numbered on
    for names, case in ((firsts, "p1[default]"), (seconds, "p2[default]")):
        for name in names:
            assert [t["jobs"] for t in later[name]] == [[[case, "gtfn_gpu"]]]
            assert later[name][0]["at"] < seen["ended"]
    assert (done.blocks, done.rounds) == (4, 16)

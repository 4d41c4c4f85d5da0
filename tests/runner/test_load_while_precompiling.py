"""A check's workers load each program once its build is entered in the compile index, while
the precompile still runs, the rest once it has ended, and measure in the turns given."""

from __future__ import annotations

import dataclasses
import pathlib
import subprocess
import sys
import threading
import time

from iconbench import suite
from iconbench.grids import resolve
from iconbench.programs.backends import backend
from iconbench.records.compilation import CompileRecord
from iconbench.runner import measure
from iconbench.runner import turn as turns
from iconbench.runner.options import RunOptions
from iconbench.timing.compile_index import CompileIndex, Sources

TINY = resolve("tiny")
BUILT, LATE = ("a[default]", "gtfn_cpu"), ("b[default]", "gtfn_cpu")


def _indexed_cache(
    tmp_path: pathlib.Path, monkeypatch
) -> tuple[pathlib.Path, Sources, CompileIndex]:
    """Stack ``stack-s``'s build cache (gt4py's, in effect) and its compile index, empty."""
    directory = tmp_path / "stack-s"
    cache_dir = directory / ".gt4py_cache"
    monkeypatch.setenv("GT4PY_BUILD_CACHE_DIR", str(directory))
    monkeypatch.setattr(suite, "build_cache_dir", lambda: cache_dir)
    sources = Sources((tmp_path / "tree" / "src",), "code-1")
    return cache_dir, sources, CompileIndex(directory, cache_dir, "stack-s", sources)


def test_a_program_loads_once_its_build_is_in_the_index_not_before(tmp_path, monkeypatch):
    cache_dir, sources, index = _indexed_cache(tmp_path, monkeypatch)
    loaded: list[tuple[str, float]] = []
    monkeypatch.setattr(
        suite, "preload", lambda case, b, grid: loaded.append((case, time.monotonic()))
    )
    load_after = tmp_path / "precompiled"
    options = RunOptions(
        out=tmp_path / "out", backends=(backend("gtfn_cpu"),), grid=TINY, stack="stack-s",
        load_after=load_after, sources=sources.roots, sources_identity=sources.identity,
    )  # fmt: skip
    times: dict[str, float] = {}

    def precompile() -> None:
        time.sleep(0.3)
        (cache_dir / "a").mkdir(parents=True)
        (cache_dir / "a" / "lib.so").touch()
        index.record(CompileRecord(*BUILT, "tiny", "stack-s", 30.0, "f1", library="a/lib.so"), TINY)
        times["entered"] = time.monotonic()
        time.sleep(0.8)  # b's compile: still running when the precompile is stopped
        times["ended"] = time.monotonic()
        load_after.write_text("done")

    options = dataclasses.replace(options, turn=tmp_path / "r01-base.turn",
                                  hold_loads=tmp_path / "measuring")  # fmt: skip
    measured: list[tuple[list, float]] = []

    def driver() -> None:  # the check's rounds: a turn for what is loaded, then the rest
        while turns.read_loaded(options.turn).jobs != {BUILT}:
            time.sleep(0.01)
        options.hold_loads.write_text("measuring")
        turns.give(options.turn, [BUILT])
        turns.wait_for(turns.done_path(options.turn))
        times["turn over"] = time.monotonic()
        options.hold_loads.unlink()
        while turns.read_loaded(options.turn).jobs != {BUILT, LATE}:
            time.sleep(0.01)
        turns.give(turns.numbered(options.turn, 2), None)

    threads = [threading.Thread(target=precompile), threading.Thread(target=driver)]
    for thread in threads:
        thread.start()
    measure._in_turns([BUILT, LATE], options, {"gtfn_cpu": backend("gtfn_cpu")},
                      lambda these: measured.append((these, time.monotonic())), who="w",
                      since=time.perf_counter())  # fmt: skip
    for thread in threads:
        thread.join()
    ((first, at_first), (late, at_late)) = loaded
    assert first == "a[default]"  # never loaded before its build is there
    assert times["entered"] <= at_first < times["ended"]  # during the precompile
    assert late == "b[default]"
    assert at_late >= times["ended"]
    assert [these for these, _ in measured] == [[BUILT], [LATE]]  # a turn each
    assert measured[0][1] < times["ended"]  # measured while b still compiled
    assert turns.ready_path(options.turn).exists()  # everything loaded, once


def test_without_the_code_identity_it_loads_only_once_the_precompile_has_ended(tmp_path):
    load_after = tmp_path / "precompiled"
    options = RunOptions(
        out=tmp_path / "out", backends=(backend("gtfn_cpu"),), grid=TINY, stack="s",
        load_after=load_after, sources=(pathlib.Path("/t/src"),),
    )  # fmt: skip
    loadable = measure._loadable(options)
    assert loadable([BUILT]) == []
    load_after.write_text("done")
    assert loadable([BUILT]) == [BUILT]


def test_a_load_waits_while_a_worker_measures(tmp_path):
    """:func:`iconbench.runner.turn.quietly`: not while the hold is there, and the driver's
    :func:`~iconbench.runner.turn.wait_quiet` waits for a load under way."""
    hold, marker = tmp_path / "measuring", tmp_path / "w.turn.loading"
    hold.write_text("measuring")
    ran: list[float] = []

    def load() -> None:
        with turns.quietly(hold, marker):
            ran.append(time.monotonic())
            time.sleep(0.3)

    thread = threading.Thread(target=load)
    thread.start()
    time.sleep(0.3)
    assert not ran  # the device is taken
    released = time.monotonic()
    hold.unlink()
    while not ran:
        time.sleep(0.01)
    assert ran[0] >= released
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(5)"])
    try:
        turns.wait_quiet([(sleeper, tmp_path / "w.turn")])  # waits for the load under way
        assert not marker.exists()
        assert time.monotonic() - ran[0] >= 0.29
    finally:
        sleeper.kill()
        sleeper.wait()
    thread.join()


def test_a_load_waiting_for_the_device_gives_way_to_its_own_turn(tmp_path):
    """The driver holds the device for a turn it gives to a worker that waits to load: the
    worker takes its turn (``False``) instead of waiting for a hold that waits for it."""
    hold, marker, turn = tmp_path / "measuring", tmp_path / "w.turn.loading", tmp_path / "w.turn"
    hold.write_text("measuring")
    answers: list[bool] = []

    def load() -> None:
        with turns.quietly(hold, marker, turn=turn) as free:
            answers.append(free)

    thread = threading.Thread(target=load)
    thread.start()
    time.sleep(0.2)
    turns.give(turn, None)
    thread.join(timeout=5)
    assert not thread.is_alive()
    assert answers == [False]
    assert not marker.exists()


def test_a_worker_loading_a_new_build_does_not_say_it_has_settled(tmp_path, monkeypatch):
    """While it loads a program just built, the driver reads ``settled=False``: a turn taken
    then would hold the load back until the turn is over (results/pr-check-h100/README.md, "After
    head's last build")."""
    cache_dir, sources, index = _indexed_cache(tmp_path, monkeypatch)
    options = RunOptions(
        out=tmp_path / "out", backends=(backend("gtfn_cpu"),), grid=TINY, stack="stack-s",
        load_after=tmp_path / "precompiled", sources=sources.roots,
        sources_identity=sources.identity, turn=tmp_path / "r01-base.turn",
        hold_loads=tmp_path / "measuring",
    )  # fmt: skip
    seen: dict[str, turns.Loaded] = {}

    def preload(case: str, _backend, _grid) -> None:
        seen[case] = turns.read_loaded(options.turn)  # what the driver reads meanwhile
        time.sleep(0.2)

    monkeypatch.setattr(suite, "preload", preload)

    def build(job: tuple[str, str], name: str) -> None:
        (cache_dir / name).mkdir(parents=True)
        (cache_dir / name / "lib.so").touch()
        index.record(CompileRecord(*job, "tiny", "stack-s", 30.0, name, library=f"{name}/lib.so"),
                     TINY)  # fmt: skip

    def precompile() -> None:
        build(BUILT, "a")
        while turns.read_loaded(options.turn) != turns.Loaded(frozenset({BUILT}), True):
            time.sleep(0.01)  # a settled: every build so far loaded
        build(LATE, "b")
        while turns.read_loaded(options.turn).jobs != {BUILT, LATE}:
            time.sleep(0.01)
        options.load_after.write_text("done")
        turns.give(options.turn, None)

    thread = threading.Thread(target=precompile)
    thread.start()
    measure._in_turns([BUILT, LATE], options, {"gtfn_cpu": backend("gtfn_cpu")},
                      lambda these: None, who="w", since=time.perf_counter())  # fmt: skip
    thread.join()
    assert seen["b[default]"] == turns.Loaded(frozenset({BUILT}), settled=False)
    assert turns.read_loaded(options.turn) == turns.Loaded(frozenset({BUILT, LATE}), True)

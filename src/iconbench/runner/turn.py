"""A worker's turn on its device: started ahead and set up, it measures when it is told to.

Workers are started before the device is free so that their imports, grid and program loads
overlap another worker's measurement: a check's rounds (:mod:`iconbench.check.rounds`), a
suite's workers loading ahead (:mod:`iconbench.runner.load_ahead`), and the sides of a flagged
benchmark under Nsight Compute (:func:`iconbench.explain.profile.profile_sides`, which gives
the next turn once a side says it is done with the device, :func:`done_path`). A worker writes
:func:`ready_path` once it is set up and then waits for its ``turn`` file
(:func:`iconbench.runner.measure.worker`); the driver gives one worker of a device its turn
at a time, and ends those that will not get one.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import pathlib
import subprocess
import time
from collections.abc import Iterable, Iterator, Sequence

from iconbench.files.atomic import write_atomic


def ready_path(turn: pathlib.Path) -> pathlib.Path:
    """The file a worker writes when it is set up and waits for ``turn``.

    >>> ready_path(pathlib.Path("/s/r01-base.turn"))
    PosixPath('/s/r01-base.turn.ready')
    """
    return turn.with_name(turn.name + ".ready")


def forget(directory: pathlib.Path) -> int:
    """Remove the turn files under ``directory`` once its workers are gone; how many.

    A turn's files (the turn itself, its numbered turns, ``.ready``, ``.done``, ``.loaded``,
    ``.loading``, ``.inflight``) are the driver's and workers' protocol, not results: a
    finished check keeps its rounds' logs and jobs, not 300-odd files that say ``go`` and
    ``done`` and would each be a line of the results archive's manifest.

    >>> import tempfile
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> for name in ("r01-base.turn", "r01-base.turn.2.done", "r01-base.log", "jobs-p1.json"):
    ...     _ = (root / name).write_text("x")
    >>> forget(root), sorted(p.name for p in root.iterdir())
    (2, ['jobs-p1.json', 'r01-base.log'])
    """
    found = [p for p in directory.rglob("*.turn*")
             if p.is_file() and (p.name.endswith(".turn") or ".turn." in p.name)]  # fmt: skip
    for path in found:
        path.unlink(missing_ok=True)
    return len(found)


def take(turn: pathlib.Path) -> None:
    """In the worker: say it is set up (:func:`say_ready`), then wait for its ``turn`` file.

    The driver ends a worker that will not get its turn, so the wait has no limit of its own.
    """
    say_ready(turn)
    wait_for(turn)


def say_ready(turn: pathlib.Path) -> None:
    """In the worker: it is set up, every program it measures loaded (:func:`ready_path`)."""
    ready_path(turn).write_text(str(os.getpid()), encoding="utf-8")


def wait_for(path: pathlib.Path) -> None:
    """In the worker: wait until ``path`` exists (the driver writes it, or ends the worker)."""
    while not path.exists():
        time.sleep(0.01)


def done_path(turn: pathlib.Path) -> pathlib.Path:
    """The file a worker writes when it no longer uses the device (its process may go on).

    >>> done_path(pathlib.Path("/s/base.turn"))
    PosixPath('/s/base.turn.done')
    """
    return turn.with_name(turn.name + ".done")


def wait_done(process: subprocess.Popen, turn: pathlib.Path) -> None:
    """Wait until the worker says it is done with the device (:func:`done_path`), or has ended."""
    done = done_path(turn)
    while not done.exists() and process.poll() is None:
        time.sleep(0.02)


def wait_ready(process: subprocess.Popen, turn: pathlib.Path) -> bool:
    """Wait until the worker says it is set up (``True``), or until it has ended (``False``)."""
    ready = ready_path(turn)
    while not ready.exists():
        if process.poll() is not None:
            return False
        time.sleep(0.02)
    return True


def end(processes: Iterable[subprocess.Popen]) -> None:
    """End workers that will not get their turn: asked first, killed after 30 s."""
    processes = list(processes)
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# A check's round worker measures in turns (:mod:`iconbench.check.rounds`): while the check's
# precompile runs, it loads each program once its build is in the cache, the driver gives it a
# turn for the cases every worker of its block has loaded, and it waits, set up, for the next
# turn with the cases built later. Nothing loads while a worker measures on the device.

#: What a turn file holds for "every case left" (a worker loaded ahead, or a check's last turn).
EVERY_CASE = "go"


def numbered(turn: pathlib.Path, number: int) -> pathlib.Path:
    """The file of turn ``number`` (1-based) of the worker whose first turn is ``turn``.

    >>> [numbered(pathlib.Path("/s/r01-base.turn"), n).name for n in (1, 2)]
    ['r01-base.turn', 'r01-base.turn.2']
    """
    return turn if number == 1 else turn.with_name(f"{turn.name}.{number}")


def give(turn: pathlib.Path, jobs: Sequence[tuple[str, str]] | None) -> None:
    """In the driver: the worker's turn, for ``jobs`` (``None``: every case it has left).

    >>> import tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "r01-base.turn"
    >>> give(path, [("p[default]", "gtfn_gpu")]); jobs_of(path, [("p[default]", "gtfn_gpu"),
    ...                                                   ("q[default]", "gtfn_gpu")])
    [('p[default]', 'gtfn_gpu')]
    >>> give(path, None); len(jobs_of(path, [("p[default]", "gtfn_gpu"), ("q[default]", "x")]))
    2
    """
    write_atomic(turn, EVERY_CASE if jobs is None else json.dumps([list(job) for job in jobs]))


def jobs_of(turn: pathlib.Path, left: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """In the worker: the cases of ``left`` its turn file names (all: :data:`EVERY_CASE`)."""
    text = turn.read_text(encoding="utf-8").strip()
    if text == EVERY_CASE:
        return list(left)
    named = {(case, backend) for case, backend in json.loads(text)}
    return [job for job in left if job in named]


def loaded_path(turn: pathlib.Path) -> pathlib.Path:
    """The file a worker keeps its loaded cases in, and whether it has more to load now.

    >>> loaded_path(pathlib.Path("/s/r01-base.turn"))
    PosixPath('/s/r01-base.turn.loaded')
    """
    return turn.with_name(turn.name + ".loaded")


@dataclasses.dataclass(frozen=True)
class Loaded:
    """What a waiting worker has loaded; ``settled``: every build the cache has so far."""

    jobs: frozenset[tuple[str, str]] = frozenset()
    settled: bool = False


def write_loaded(turn: pathlib.Path, loaded: Loaded) -> None:
    """In the worker: its :class:`Loaded` state, for the driver.

    >>> import tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "r01-base.turn"
    >>> read_loaded(path)
    Loaded(jobs=frozenset(), settled=False)
    >>> write_loaded(path, Loaded(frozenset({("p[default]", "gtfn_gpu")}), True))
    >>> read_loaded(path)
    Loaded(jobs=frozenset({('p[default]', 'gtfn_gpu')}), settled=True)
    """
    text = json.dumps({"jobs": sorted(list(job) for job in loaded.jobs), "settled": loaded.settled})
    write_atomic(loaded_path(turn), text)


def read_loaded(turn: pathlib.Path) -> Loaded:
    """In the driver: what the worker has loaded (nothing before it has said)."""
    try:
        found = json.loads(loaded_path(turn).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return Loaded()
    return Loaded(frozenset((case, backend) for case, backend in found["jobs"]), found["settled"])


def loading_path(turn: pathlib.Path) -> pathlib.Path:
    """The file a worker holds while it loads (a program, its grid), never during a turn."""
    return turn.with_name(turn.name + ".loading")


@contextlib.contextmanager
def quietly(
    hold: pathlib.Path | None, marker: pathlib.Path | None, turn: pathlib.Path | None = None
) -> Iterator[bool]:
    """In the worker: whether the block (a load) may run now: only while no worker measures.

    The driver writes ``hold`` before a turn and then waits for every worker's ``marker`` to
    go (:func:`wait_quiet`); a worker writes its marker first and then looks for ``hold``, so
    of the two one always sees the other: a load and a measurement never overlap, and a load
    that found the device taken waits until the turns are over. Unless the worker's own
    ``turn`` comes meanwhile: then ``False``, and it measures first (the driver holds the
    device for that turn too, so waiting for the hold to go would wait for itself).
    """
    if hold is None or marker is None:
        yield True
        return
    while True:
        marker.write_text(str(os.getpid()), encoding="utf-8")
        if not hold.exists():
            break
        marker.unlink(missing_ok=True)
        while hold.exists():
            if turn is not None and turn.exists():
                yield False
                return
            time.sleep(0.02)
    try:
        yield True
    finally:
        marker.unlink(missing_ok=True)


def wait_quiet(workers: Iterable[tuple[subprocess.Popen, pathlib.Path]]) -> None:
    """In the driver, after writing the hold: until no running worker is loading."""
    for process, turn in workers:
        marker = loading_path(turn)
        while marker.exists() and process.poll() is None:
            time.sleep(0.01)

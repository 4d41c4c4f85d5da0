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

import os
import pathlib
import subprocess
import time
from collections.abc import Iterable


def ready_path(turn: pathlib.Path) -> pathlib.Path:
    """The file a worker writes when it is set up and waits for ``turn``.

    >>> ready_path(pathlib.Path("/s/r01-base.turn"))
    PosixPath('/s/r01-base.turn.ready')
    """
    return turn.with_name(turn.name + ".ready")


def take(turn: pathlib.Path) -> None:
    """In the worker: say it is set up (:func:`ready_path`), then wait for its ``turn`` file.

    The driver ends a worker that will not get its turn, so the wait has no limit of its own.
    """
    ready_path(turn).write_text(str(os.getpid()), encoding="utf-8")
    wait_for(turn)


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

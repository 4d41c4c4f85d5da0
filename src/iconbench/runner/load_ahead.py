"""The next worker of a device started ahead: it loads its programs while another measures.

A suite's measuring worker loads each case's program from its build before measuring it, one
case after the other. On a GPU host that loading is the larger part of the measuring phase
and one core's work: on four H200 (2026-11-27, ``results/nightly-4xh200-2``) one GPU's 384
cases took 473.4 s, 210.7 s of it loading programs and 192.1 s warming up (docs/nightly-gpu.md,
"Where the measuring phase goes"). With ``--load-ahead N`` a device's cases go to workers of
``N`` cases each, and while one measures, the next one is already started and loads its
``N`` programs on other cores, waiting for its turn: the device measures one worker at a
time, as before, and every case is measured in a fresh process, as before.

:class:`Ahead` is the ``start_worker`` of :func:`iconbench.timing.isolation.run_in_workers`:
that keeps its rules (a crash recorded against the case it hit, a case that failed after
others measured once more first in a fresh worker, a fresh worker for what a stopped one
left). Each call measures the first ``N`` of the cases still to do; the worker started ahead
for the next ``N`` takes its turn when those are what is left, and is ended and replaced
where they are not (a worker stopped early, a case put first again). The turn is the check's
(:mod:`iconbench.runner.turn`: the worker says it is set up, then waits for its turn
file).
"""

from __future__ import annotations

import dataclasses
import pathlib
import subprocess
from collections.abc import Callable, Sequence

from iconbench.runner import turn as turns
from iconbench.runner.devices import Job

#: Starts a worker for ``cases`` that waits for ``turn``: its process.
Spawn = Callable[[list[Job], pathlib.Path], subprocess.Popen]
#: run_in_workers' ``start_worker``: a worker that loads and measures ``cases`` one after the
#: other, naming each in ``inflight`` before it starts it; its exit status.
StartWorker = Callable[[list[Job], float | None, pathlib.Path], int]


@dataclasses.dataclass
class Worker:
    """A worker started for ``cases``, loading them, until it is given ``turn``."""

    cases: list[Job]
    process: subprocess.Popen
    turn: pathlib.Path

    def measure(self) -> int | None:
        """Wait until it is set up, give it the device, wait for it to end: its exit status.

        ``None`` where it ended before it was set up: a program of its cases broke the
        process while loading, and no case says which.
        """
        if not turns.wait_ready(self.process, self.turn):
            return None
        turns.give(self.turn, None)  # every case it has
        return self.process.wait()

    def end(self) -> None:
        """End a worker that will not get its turn."""
        turns.end([self.process])


class Ahead:
    """``start_worker`` for one device: ``size`` cases a worker, the next one started ahead.

    >>> import sys
    >>> from iconbench.runner.turn import ready_path
    >>> started = []
    >>> def spawn(cases, turn):  # a worker that is set up at once and measures nothing
    ...     started.append([c for c, _ in cases])
    ...     ready_path(turn).write_text("1")
    ...     return subprocess.Popen([sys.executable, "-c", "pass"])
    >>> def one_by_one(cases, budget_s, inflight):  # a plain worker, loading as it measures
    ...     print("one by one:", [c for c, _ in cases])
    ...     return 0
    >>> import tempfile
    >>> ahead = Ahead(2, spawn, pathlib.Path(tempfile.mkdtemp()), fallback=one_by_one)
    >>> jobs = [(c, "gtfn_gpu") for c in "abcde"]
    >>> ahead(jobs, None, None), started  # a and b measured, c and d loading meanwhile
    (0, [['a', 'b'], ['c', 'd']])
    >>> ahead(jobs[2:], None, None), started[2:]  # c and d take their turn, e starts
    (0, [['e']])
    >>> ahead([jobs[1], *jobs[4:]], None, None), started[3:]  # b again: e's worker is replaced
    (0, [['b', 'e']])
    >>> ahead.close()

    A worker that ends while loading: its cases go to the fallback (a line on stderr says so),
    loaded and measured one after the other

    >>> def broken(cases, turn):
    ...     return subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    >>> ahead = Ahead(2, broken, pathlib.Path(tempfile.mkdtemp()), fallback=one_by_one)
    >>> ahead(jobs, None, None)
    one by one: ['a', 'b']
    0
    >>> ahead.close()
    """

    def __init__(
        self, size: int, spawn: Spawn, scratch: pathlib.Path, fallback: StartWorker
    ) -> None:
        self.size = size
        self.spawn = spawn
        self.scratch = scratch
        self.fallback = fallback
        self.next: Worker | None = None
        self.started = 0

    def __call__(self, cases: Sequence[Job], budget_s: float | None, inflight: pathlib.Path) -> int:
        """Measure the first ``size`` of ``cases`` in a worker; start the next one's ahead.

        ``budget_s`` and ``inflight`` are run_in_workers' (every worker here writes the
        ``--inflight`` file the spawn gave it, and measures one at a time); a budget is not
        split between workers started ahead: :func:`iconbench.runner.measure` uses this only
        without one. A worker that ended while loading is replaced by ``fallback``, which
        loads and measures the same cases one after the other, so that a case whose program
        breaks the process is named as the one it died on.
        """
        if budget_s is not None:
            raise ValueError("workers loading ahead take no time budget")
        chunk, following = list(cases[: self.size]), list(cases[self.size : 2 * self.size])
        current = self.next if self.next is not None and self.next.cases == chunk else None
        if current is None:
            if self.next is not None:
                self.next.end()
            current = self._start(chunk)
        self.next = self._start(following) if following else None
        status = current.measure()
        if status is not None:
            return status
        from iconbench.runner.progress import log

        log(f"measure: a worker loading ahead ended while loading (exit "
            f"{current.process.returncode}): its {len(chunk)} cases loaded and measured "
            "one after the other")  # fmt: skip
        return self.fallback(chunk, budget_s, inflight)

    def close(self) -> None:
        """End the worker started ahead, if any (the run ended, or another device failed)."""
        if self.next is not None:
            self.next.end()
            self.next = None

    def _start(self, cases: list[Job]) -> Worker:
        self.started += 1
        turn = self.scratch / f"w{self.started:03d}.turn"
        return Worker(cases, self.spawn(cases, turn), turn)

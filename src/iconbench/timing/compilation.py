"""Compile time: what a pool of compiles will take, and timing one compile.

Every compile is recorded in the compile ledger (:mod:`iconbench.records.compilation`); the
time to get the program *from the persistent cache* is measured again in the measuring
process, where the program is loaded but not built.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any


def makespan(seconds: Iterable[float], workers: int) -> float:
    """Wall time of compiles of ``seconds`` on ``workers``, longest first.

    Each compile goes to the worker that frees up first; longest-first keeps the makespan
    within 4/3 of the best possible (Graham's bound), so this is what a pool run should take.

    >>> makespan([190.0, 30.0, 30.0, 30.0], 2)
    190.0
    >>> makespan([30.0] * 6, 4), makespan([], 4)
    (60.0, 0.0)
    """
    import heapq

    free_at = [0.0] * max(1, workers)
    for duration in sorted(seconds, reverse=True):
        heapq.heappush(free_at, heapq.heappop(free_at) + duration)
    return max(free_at)


@dataclasses.dataclass(frozen=True)
class PlannedCompile:
    """A compile in a model of pools: its seconds and the code it builds (one build a code)."""

    seconds: float
    code: str


def pools_makespan(
    pools: Sequence[tuple[int, Sequence[PlannedCompile]]], *, defer: bool, load_s: float
) -> float:
    """Wall time of compile pools side by side, each of ``workers`` taking its queue from the front.

    A compile whose code is built already is found in ``load_s``; one whose code another
    worker is building waits for that build, or, with ``defer``, goes to the back of its
    queue and waits only when nothing else is left (:mod:`iconbench.runner.busy_builds`).
    The model of a check's precompile (``perf/precompile_levers.py``): two pools over the same
    codes in one order wait on each other, in opposite orders or not waiting they do not.

    >>> one = [PlannedCompile(s, c) for s, c in [(100.0, "a"), (60.0, "b"), (40.0, "c")]]
    >>> pools_makespan([(1, one), (1, one)], defer=False, load_s=0.0)  # both wait on a, b, c
    200.0
    >>> pools_makespan([(1, one), (1, one[::-1])], defer=False, load_s=0.0)  # meet in the middle
    100.0
    >>> pools_makespan([(1, one), (1, one)], defer=True, load_s=0.0)
    100.0
    """
    import heapq

    built: dict[str, float] = {}  # code -> when its build ends
    free = [(0.0, index, worker) for index, (workers, _) in enumerate(pools)
            for worker in range(workers)]  # fmt: skip
    heapq.heapify(free)
    queues = [list(jobs) for _, jobs in pools]
    later: list[list[PlannedCompile]] = [[] for _ in pools]
    end = 0.0
    while free:
        now, index, worker = heapq.heappop(free)
        queue = queues[index]
        while defer and queue and built.get(queue[0].code, -1.0) > now:
            later[index].append(queue.pop(0))  # being built elsewhere: not waited on yet
        job = queue.pop(0) if queue else (later[index].pop(0) if later[index] else None)
        if job is None:
            end = max(end, now)
            continue
        if job.code in built:
            finish = max(now, built[job.code]) + load_s
        else:
            finish = built[job.code] = now + job.seconds
        heapq.heappush(free, (finish, index, worker))
    return max([end, *built.values()])


def time_compile(compile_call: Callable[[], Any]) -> float:
    """Wall seconds of ``compile_call()``.

    >>> time_compile(lambda: None) >= 0
    True
    """
    start = time.perf_counter()
    compile_call()
    return time.perf_counter() - start


def jobs_for(cases: Iterable[str], backends: Iterable[str]) -> list[tuple[str, str]]:
    """The (case, backend) cross product, backends outermost.

    >>> jobs_for(["a", "b"], ["x"])
    [('a', 'x'), ('b', 'x')]
    """
    return [(case, backend) for backend in backends for case in cases]

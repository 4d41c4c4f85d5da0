#!/usr/bin/env python3
"""How fast one core runs Python while the host's other cores are busy, side by side.

A check's longest build is one Python process (DaCe's and gt4py's passes), and on the H200
hosts the same builds took 10-20 % longer beside a check's other builds and measuring
workers than alone (docs/pr-check-h100.md), although each build had a core of its own. This
script tells whether a core slows down when the others work: it times
:func:`iconbench.timing.host_speed.python_us` in this process, alone and beside N busy
processes, with each kind of load in turn (ABAB over ``--repeats``, so that drift cancels):

- **python**: each busy process runs the same small Python work in a loop;
- **graph**: each walks a graph of two million Python objects (a build's pointer chasing,
  which shares the caches);

each at niceness 0 and at +10 (as a check's measuring workers start). Run as
``python perf/host_contention.py --busy 7,15`` on a 16-core host.

``--pairs`` asks which cores share one: this process is kept on the first core and one busy
process (graph walks) on each other core in turn, alone and beside it (ABAB). A virtual
machine's cores may be two threads of one physical core although ``lscpu`` shows one thread
a core: the first core then slows beside its sibling and not beside the others.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import time

#: Seconds between starting a load (or ending the last one) and timing this process.
SETTLE_S = 2.0


def _busy(kind: str, niceness: int, stop, core: int | None = None) -> None:
    """Work until ``stop`` is set: small Python work, or walks over a large object graph."""
    os.nice(niceness)
    if core is not None:
        os.sched_setaffinity(0, {core})
    from iconbench.timing.measurement import reference_work

    graph = [{"next": i + 1, "value": i} for i in range(2_000_000)] if kind == "graph" else []
    while not stop.is_set():
        if graph:
            node, total = 0, 0
            for _ in range(200_000):
                entry = graph[(node * 7919) % len(graph)]
                total += entry["value"]
                node = entry["next"]
        else:
            reference_work()


def timed(
    kind: str, busy: int, niceness: int, samples: int, cores: list[int] | None = None
) -> float:
    """``python_us`` here (median of ``samples``) beside ``busy`` processes of ``kind``.

    ``cores``: the core each busy process is kept on (else the scheduler places them).
    """
    from iconbench.timing.host_speed import python_us

    context = multiprocessing.get_context("spawn")
    stop = context.Event()
    places = cores if cores is not None else [None] * busy
    workers = [context.Process(target=_busy, args=(kind, niceness, stop, core))
               for core in places]  # fmt: skip
    for worker in workers:
        worker.start()
    # the busy processes at work (their graph built); alone too, so that the exits of the
    # load before (their memory freed) are over: measured at once, alone read 40-50 µs
    # against 24 µs on an idle H200 host
    time.sleep(SETTLE_S)
    try:
        return statistics.median(python_us(400) for _ in range(samples))
    finally:
        stop.set()
        for worker in workers:
            worker.join()


def main() -> int:
    """Print one row per load: the median ``python_us`` and its ratio to the core alone."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--busy", default=str(max(1, (os.cpu_count() or 2) - 1)))
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--pairs", action="store_true", help="which core slows the first one")
    args = parser.parse_args()
    if args.pairs:
        return pairs(args.repeats, args.samples)
    loads = [("alone", 0, 0)] + [(kind, int(n), nice) for n in args.busy.split(",")
                                 for kind in ("python", "graph") for nice in (0, 10)]  # fmt: skip
    seen: dict[tuple, list[float]] = {load: [] for load in loads}
    for _ in range(args.repeats):
        for load in loads:
            kind, busy, nice = load
            seen[load].append(timed(kind, busy, nice, args.samples))
    alone = statistics.median(seen[loads[0]])
    print(f"{os.cpu_count()} cores; python_us of this process, median of {args.repeats} x "
          f"{args.samples}")  # fmt: skip
    print("| load | busy processes | niceness | python_us | against alone |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for (kind, busy, nice), values in seen.items():
        value = statistics.median(values)
        print(f"| {kind} | {busy} | {nice:+d} | {value:.2f} µs | {value / alone:.2f}x |")
    return 0


def pairs(repeats: int, samples: int) -> int:
    """Print one row per other core: the first core's ``python_us`` beside a busy process there.

    The busy process walks the object graph at niceness 0; the first core's own figure alone
    is taken before each core's (ABAB over ``repeats``).
    """
    cores = sorted(os.sched_getaffinity(0))
    first, others = cores[0], cores[1:]
    os.sched_setaffinity(0, {first})
    alone: list[float] = []
    beside: dict[int, list[float]] = {core: [] for core in others}
    for _ in range(repeats):
        for core in others:
            alone.append(timed("graph", 0, 0, samples))
            beside[core].append(timed("graph", 1, 0, samples, cores=[core]))
    base = statistics.median(alone)
    print(f"core {first} alone: python_us {base:.2f} µs (median of {len(alone)} x {samples})")
    print(f"| busy core | python_us on core {first} | against alone |")
    print("| ---: | ---: | ---: |")
    for core, values in beside.items():
        value = statistics.median(values)
        print(f"| {core} | {value:.2f} µs | {value / base:.2f}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Warm-up and sampling of one already compiled program call.

The protocol, chosen so that the numbers are comparable between backends and commits:

1. *warm-up*: calls until both ``warmup_calls`` calls and ``warmup_s`` seconds have passed, so
   that caches, clocks (GPU boost) and lazy allocations have settled and nothing of the
   compilation or the first-call argument setup leaks into the samples. Each warm-up call of
   a GPU program waits for the device (``call_and_sync``): unsynchronised, the host enqueued
   ~1 200 calls in 0.2 s and the GPU then worked through them for up to 5.8 s per case
   (median 1.4 s, 28 % of the H100 measuring time up to 412cde3) before the first sample;
2. *sampling*: ``samples`` calls (at least ``min_samples``, stopping early after ``max_s``
   seconds, or with ``precision`` once the median is known to that precision:
   :func:`median_decided`), each timed on its own by the backend's
   :class:`~iconbench.timing.clocks.Clock`, which gives paired host/device samples per call;
3. *cross-check*: ``gt4py_calls`` more calls with gt4py's own instrumentation on
   (``GT4PY_COLLECT_METRICS_LEVEL=PERFORMANCE``), keeping its ``compute`` and ``total``
   samples. They run separately because the instrumentation itself adds host work.
"""

from __future__ import annotations

import gc
import math
import statistics
import time
from collections.abc import Sequence

from iconbench.records.session import Measurement
from iconbench.timing.clocks import Call, Clock, drain_gt4py_samples, gt4py_metrics_level

#: gt4py.next.instrumentation.metrics.PERFORMANCE (the level that records ``compute``).
GT4PY_PERFORMANCE_LEVEL = 10


def warm_up(call: Call, *, calls: int = 3, seconds: float = 0.2) -> int:
    """Call until ``calls`` calls *and* ``seconds`` have passed; returns the number of calls.

    >>> warm_up(lambda: None, calls=5, seconds=0.0)
    5
    """
    done = 0
    deadline = time.perf_counter() + seconds
    while done < calls or time.perf_counter() < deadline:
        call()
        done += 1
    return done


def reference_work() -> int:
    """A fixed piece of interpreter work (dicts, tuples, strings, calls), about 30 µs.

    Timed beside each sample, it tells how fast the CPU runs Python in this process at that
    moment. On a shared host the same code's host overhead moved 1.7x within minutes
    (another tenant, the clock of the core), and this work moves with it; a change of
    gt4py's call path does not move it.

    >>> reference_work()  # the length of the numbers 0 to 199 written out
    490
    """
    table = {}
    for number in range(200):
        table[number] = (number, str(number))
    return sum(len(text) for _, text in table.values())


#: The spread of a median from its samples' median absolute deviation: the large-sample
#: standard error of a median (1.2533 sigma / sqrt(n)) with sigma = 1.4826 MAD, as the gate's
#: process-level floor (:mod:`iconbench.gate.processes`).
MEDIAN_SE_PER_MAD = 1.2533 * 1.4826

#: Check whether the median is decided every this many samples (a median of up to a hundred
#: numbers between two samples is microseconds of host work; every sample would be more).
DECIDE_EVERY = 5

#: Samples taken before the median is asked whether it is decided. The host overhead of a
#: process, sampled beside the device time, is far noisier: replayed on two H100 checks
#: (``perf/turn_samples.py``), 20 samples kept every device-time interval and all but 3 of 72
#: host-overhead verdicts as 50 gave them (those 3 went from unchanged to inconclusive).
DECIDE_AFTER = 20


def median_decided(samples: Sequence[float], precision: float) -> bool:
    """Whether the median of ``samples`` is known to within ``precision`` (relative, 95 %).

    The half-width of the interval of the log median, 1.96 * 1.2533 * 1.4826 * MAD / sqrt(n),
    against ``log(1 + precision)``. An interleaved check compares processes by their medians
    (:mod:`iconbench.gate.processes`), and on the H100 the spread between processes' device
    time medians was 0.27 % with 50 samples a process and 0.31 % with the first 20: more
    samples in one process only narrow what the spread between processes already bounds.

    >>> median_decided([1e-3, 1.001e-3, 0.999e-3] * 4, 0.005)  # 0.1 % spread: decided
    True
    >>> median_decided([1e-3, 1.2e-3, 0.8e-3] * 4, 0.005)  # 20 %: not with 12 samples
    False
    >>> median_decided([], 0.005)
    False
    """
    logs = [math.log(s) for s in samples if s > 0]
    if not logs:
        return False
    centre = statistics.median(logs)
    mad = statistics.median(abs(x - centre) for x in logs)
    half = 1.96 * MEDIAN_SE_PER_MAD * mad / math.sqrt(len(logs))
    return half <= math.log1p(precision)


def measure(
    call: Call,
    clock: Clock,
    *,
    samples: int = 100,
    min_samples: int = 10,
    max_s: float = 10.0,
    warmup_calls: int = 3,
    warmup_s: float = 0.2,
    gt4py_calls: int = 10,
    precision: float | None = None,
) -> Measurement:
    """Warm up, then sample ``call`` with ``clock`` (see the module docstring for why).

    ``precision``: stop sampling, after ``min_samples`` and :data:`DECIDE_AFTER` samples, once
    the median of the device time (the host time without a device clock) is known to this
    relative precision (:func:`median_decided`); ``None``: take ``samples`` (or ``max_s``).
    """
    wants_compute_metric = clock.device_source == "gt4py-compute"
    level = GT4PY_PERFORMANCE_LEVEL if wants_compute_metric else 0
    synchronised = call.call_and_sync() if hasattr(call, "call_and_sync") else call
    with gt4py_metrics_level(level):
        began = time.perf_counter()
        warmed = warm_up(synchronised, calls=warmup_calls, seconds=warmup_s)
        warmed_s = time.perf_counter() - began
        drain_gt4py_samples("compute")
        drain_gt4py_samples("total")
        host: list[float] = []
        device: list[float] = []
        reference: list[float] = []
        # no garbage collection inside the samples (as timeit): when a collection runs, and
        # how long it takes, depends on the heap the process happens to have, which differs
        # from process to process and would show up as a change of host overhead
        gc.collect()
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            deadline = time.perf_counter() + max_s
            while len(host) < samples and (
                len(host) < min_samples or time.perf_counter() < deadline
            ):
                timing = clock.time_call(call)
                host.append(timing.host_s)
                if timing.device_s is not None:
                    device.append(timing.device_s)
                before = time.perf_counter()
                reference_work()
                reference.append(time.perf_counter() - before)
                if (
                    precision is not None
                    and len(host) >= max(min_samples, DECIDE_AFTER)
                    and len(host) % DECIDE_EVERY == 0
                    and median_decided(device or host, precision)
                ):
                    break
        finally:
            if was_enabled:
                gc.enable()
    if len(device) != len(host):
        device = []  # a clock that only sometimes knows the device time is not trusted
    compute: list[float] = []
    total: list[float] = []
    # the sampling loop may have recorded gt4py samples of its own (it needs ``compute`` on CPU)
    drain_gt4py_samples("compute")
    drain_gt4py_samples("total")
    if gt4py_calls:
        with gt4py_metrics_level(GT4PY_PERFORMANCE_LEVEL):
            for _ in range(gt4py_calls):
                call()
            compute = drain_gt4py_samples("compute")
            total = drain_gt4py_samples("total")
    return Measurement(
        host_s=host,
        device_s=device,
        device_source=clock.device_source if device else "none",
        gt4py_compute_s=compute,
        gt4py_total_s=total,
        warmup_calls=warmed,
        reference_s=reference,
        warmup_s=warmed_s,
    )

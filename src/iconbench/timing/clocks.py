"""Clocks that time one call of an already compiled program.

Every clock times a call the same way, so host and device samples come in pairs:

- the *host time* is ``perf_counter`` around the call **and** a synchronisation, i.e. what a
  Python driver waits for before it can use the result;
- the *device time* is what the accelerator spent: CUDA events recorded on the default stream
  around the call while the stream is held busy, so host launch time is not counted
  (:class:`CudaEventClock`; gtfn and dace both launch on the default stream), or on CPU
  backends the C++ run time that gt4py's own instrumentation
  reports as the ``compute`` metric (:class:`Gt4pyComputeClock`);
- the *call overhead* is host minus device: the Python work gt4py does per call (argument
  conversion, cache lookup), which decides the speed of whole granules made of small stencils.

cupy is imported lazily so that CPU machines never need it. :func:`clock_for` picks the
clock of a resolved :class:`iconbench.programs.backends.Backend` by its device.
"""

from __future__ import annotations

import abc
import contextlib
import dataclasses
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from iconbench.programs.backends import Backend

Call = Callable[[], Any]


@dataclasses.dataclass(frozen=True)
class CallTiming:
    """Host and (when known) device seconds of one call."""

    host_s: float
    device_s: float | None


class Clock(abc.ABC):
    """Times one call; keeps the running total of device seconds for asv's ``timer``."""

    #: What the device time means, stored with the samples.
    device_source: str = "none"

    def __init__(self) -> None:
        self.device_total_s = 0.0

    @abc.abstractmethod
    def time_call(self, call: Call) -> CallTiming:
        """Run ``call`` once and return its host and device time."""

    def device_counter(self) -> float:
        """Accumulated device seconds: a monotonic counter usable as asv's ``timer``.

        asv computes a sample as ``(timer() after - timer() before) / number``, so a counter
        that only advances by the device time of the timed calls makes asv store device time.
        """
        return self.device_total_s


class HostClock(Clock):
    """Host wall time only (the embedded backend has no separate device time).

    >>> timing = HostClock().time_call(lambda: sum(range(1000)))
    >>> timing.host_s > 0, timing.device_s
    (True, None)
    """

    def time_call(self, call: Call) -> CallTiming:
        start = time.perf_counter()
        call()
        return CallTiming(time.perf_counter() - start, None)


class Gt4pyComputeClock(Clock):
    """Host wall time plus gt4py's ``compute`` metric (C++ run time of gtfn/dace on CPU).

    gt4py records ``compute`` only while ``gt4py.next.config.COLLECT_METRICS_LEVEL`` is at
    least ``PERFORMANCE``; :func:`gt4py_metrics_level` sets that. A call that records no
    ``compute`` sample (embedded, or a dace program compiled without metrics) gets
    ``device_s=None``.
    """

    device_source = "gt4py-compute"

    def time_call(self, call: Call) -> CallTiming:
        start = time.perf_counter()
        call()
        host = time.perf_counter() - start
        samples = drain_gt4py_samples("compute")
        device = sum(samples) if samples else None
        if device is not None:
            self.device_total_s += device
        return CallTiming(host, device)


class CudaEventClock(Clock):
    """CUDA events on the default stream around the call, the stream held busy meanwhile.

    Each sample calls the program twice. The *host* call: ``perf_counter`` around the call and
    a synchronisation, as a Python driver sees it. The *device* call: a one-thread kernel that
    spins for longer than the host needs to enqueue the call (the host time just measured) is
    launched first, then the start event, the call and the end event are queued behind it. The
    start event thus fires when the spin ends, with the program's kernels already queued, and
    the interval holds the kernels and the gaps between them but not the Python time before
    the first launch, which an idle GPU would otherwise count (a 150 µs gap against a 1.5 ms
    kernel, measured on an H100 against Nsight Compute). nvbench holds the stream the same
    way (its "blocking kernel"). Events resolve about 0.5 µs.
    """

    device_source = "cuda-events-held"

    #: The spin is the last host time times this, plus :attr:`HOLD_MARGIN_S`.
    HOLD_FACTOR = 1.5
    HOLD_MARGIN_S = 50e-6

    def __init__(self) -> None:
        super().__init__()
        import cupy

        self._cupy = cupy
        stream = cupy.cuda.Stream.null
        self._start = cupy.cuda.Event()
        self._end = cupy.cuda.Event()
        self._stream = stream
        self._spin = cupy.RawKernel(
            """
            extern "C" __global__ void iconbench_hold(long long cycles) {
                long long start = clock64();
                while (clock64() - start < cycles) { }
            }
            """,
            "iconbench_hold",
        )
        # clock64 counts SM cycles; ClockRate is the (boost) SM clock in kHz.
        self._cycles_per_s = cupy.cuda.Device().attributes["ClockRate"] * 1e3

    def _hold(self, seconds: float) -> None:
        cycles = self._cupy.int64(seconds * self._cycles_per_s)
        self._spin((1,), (1,), (cycles,), stream=self._stream)

    def time_call(self, call: Call) -> CallTiming:
        cupy = self._cupy
        start = time.perf_counter()
        call()
        self._end.record(self._stream)
        self._end.synchronize()
        host = time.perf_counter() - start
        self._hold(host * self.HOLD_FACTOR + self.HOLD_MARGIN_S)
        self._start.record(self._stream)
        call()
        self._end.record(self._stream)
        self._end.synchronize()
        device = cupy.cuda.get_elapsed_time(self._start, self._end) / 1e3
        self.device_total_s += device
        return CallTiming(host, device)


def clock_type_for(backend: Backend) -> type[Clock]:
    """The clock for ``backend``: CUDA events on a GPU, gt4py's metric on CPU, host time embedded.

    Decided by the resolved backend's device, not its name: the GPU variants of
    ``backends.toml`` (``dace_gpu_noauto``, ``dace_gpu_block64x4``) are timed by CUDA events.

    >>> from iconbench.programs.backends import backend
    >>> [clock_type_for(backend(n)).device_source for n in ("dace_gpu_noauto", "dace_cpu")]
    ['cuda-events-held', 'gt4py-compute']
    """
    if backend.on_gpu:
        return CudaEventClock
    if backend.is_embedded:
        return HostClock
    return Gt4pyComputeClock


def clock_for(backend: Backend) -> Clock:
    """A fresh instance of :func:`clock_type_for` ``(backend)``."""
    return clock_type_for(backend)()


def drain_gt4py_samples(metric: str) -> list[float]:
    """Remove and return every sample of ``metric`` gt4py has collected in this process."""
    from gt4py.next.instrumentation import metrics

    found: list[float] = []
    for source in metrics.sources.values():
        if metric in source.metrics:
            samples = source.metrics[metric].samples
            found.extend(samples)
            samples.clear()
    return found


@contextlib.contextmanager
def gt4py_metrics_level(level: int) -> Iterator[None]:
    """Temporarily set gt4py's metrics level (read at every call, so no re-import needed)."""
    from gt4py.next import config

    previous = config.COLLECT_METRICS_LEVEL
    config.COLLECT_METRICS_LEVEL = level
    try:
        yield
    finally:
        config.COLLECT_METRICS_LEVEL = previous

import math
import statistics
import time

from iconbench.programs import backends
from iconbench.timing import clocks, measurement


def test_host_clock_times_real_work():
    work = list(range(20_000))
    m = measurement.measure(
        lambda: sorted(work, reverse=True),
        clocks.HostClock(),
        samples=20,
        warmup_calls=2,
        warmup_s=0.0,
        gt4py_calls=0,
    )
    assert len(m.host_s) == 20
    assert m.device_s == []
    assert m.device_source == "none"
    assert m.overhead_median is None
    assert all(h > 0 for h in m.host_s)
    assert m.warmup_calls == 2


def test_gtfn_cpu_compute_time_lies_inside_the_host_interval(gtfn_cpu_case):
    """gt4py's compute metric is measured inside the call, so device <= host per call."""
    clock = clocks.clock_for(backends.backend("gtfn_cpu"))
    m = measurement.measure(gtfn_cpu_case, clock, samples=40, gt4py_calls=5)
    assert m.device_source == "gt4py-compute"
    assert len(m.device_s) == len(m.host_s) == 40
    assert all(0 < d <= h for d, h in zip(m.device_s, m.host_s, strict=True))
    assert all(o >= 0 for o in m.overhead_s)
    assert m.overhead_median == statistics.median(m.overhead_s)
    # the cross-check pass collected gt4py's own samples too
    assert len(m.gt4py_compute_s) == 5
    assert len(m.gt4py_total_s) == 5
    assert all(t >= c for t, c in zip(m.gt4py_total_s, m.gt4py_compute_s, strict=True))
    # the clock's running total (asv's timer for time_device) advanced by the device samples
    # the counter is a running float sum; summing the list in another order differs by ulps
    assert clock.device_counter() >= math.fsum(m.device_s) * (1 - 1e-12)


def test_embedded_has_host_time_only(embedded_case):
    m = measurement.measure(
        embedded_case.call_and_sync(),
        clocks.clock_for(backends.backend("embedded")),
        samples=10,
        gt4py_calls=2,
    )
    assert len(m.host_s) == 10
    assert m.device_s == []
    assert m.gt4py_compute_s == []


def test_the_call_computes_the_right_result(gtfn_cpu_case):
    """The harness times the real program: its output equals a numpy evaluation."""
    import numpy as np

    gtfn_cpu_case()
    kwargs = gtfn_cpu_case.kwargs
    e2c2e = gtfn_cpu_case.offset_provider["E2C2E"].ndarray
    vn = kwargs["vn"].asnumpy()
    rbf = kwargs["rbf_vec_coeff_e"].asnumpy()
    expected = np.sum(rbf[:, :, None] * vn[e2c2e], axis=1)
    np.testing.assert_allclose(kwargs["vt"].asnumpy(), expected, rtol=1e-12)


class _AsyncDevice:
    """Stands for a GPU program: a call only enqueues work, ``call_and_sync`` also waits."""

    def __init__(self) -> None:
        self.pending = 0

    def __call__(self) -> None:
        self.pending += 1

    def call_and_sync(self):
        def call() -> None:
            self()
            self.pending = 0

        return call


class _QueueClock:
    """Records how much work was still queued when each sample started."""

    device_source = "none"

    def __init__(self, device: _AsyncDevice) -> None:
        self.device = device
        self.backlog: list[int] = []

    def time_call(self, call):
        self.backlog.append(self.device.pending)
        start = time.perf_counter()
        call()
        self.device.pending = 0  # the clock synchronises after the call
        return clocks.CallTiming(time.perf_counter() - start, None)


def test_warm_up_waits_for_the_device_so_no_backlog_reaches_the_samples():
    device = _AsyncDevice()
    clock = _QueueClock(device)
    m = measurement.measure(device, clock, samples=5, warmup_s=0.05, gt4py_calls=0)
    assert m.warmup_calls > 3  # the 0.05 s were spent calling
    assert clock.backlog == [0] * 5


class _DrawnClock:
    """A device clock whose call takes the device seconds ``draw`` gives (a GPU's events)."""

    device_source = "cuda-events-held"

    def __init__(self, draw) -> None:
        self.draw = draw

    def time_call(self, call):
        call()
        device = self.draw()
        return clocks.CallTiming(device + 2e-5, device)


def test_sampling_stops_once_the_device_median_is_decided_and_not_before():
    import random

    steady = random.Random(1)
    tight = _DrawnClock(lambda: 650e-6 * (1 + steady.gauss(0, 0.002)))  # an H100 kernel's spread
    noisy_draw = random.Random(2)
    noisy = _DrawnClock(lambda: 650e-6 * (1 + noisy_draw.gauss(0, 0.2)))
    options = {"samples": 50, "max_s": 5.0, "warmup_s": 0.0, "gt4py_calls": 0}
    decided = measurement.measure(lambda: None, tight, precision=0.005, **options)
    assert len(decided.device_s) == measurement.DECIDE_AFTER  # decided at the first ask
    assert len(measurement.measure(lambda: None, tight, **options).device_s) == 50  # no rule
    undecided = measurement.measure(lambda: None, noisy, precision=0.005, **options)
    assert len(undecided.device_s) == 50  # 20 % spread: never within 0.5 %

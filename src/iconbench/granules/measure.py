"""Timing whole granule calls: wall time, the programs' device times, overhead, call counts.

Each case is measured in three phases in one process, on the same states:

1. warm-up: one call (first-touch, loading compiled programs);
2. ``wall``: ``samples`` calls with gt4py's metrics off, each timed with ``perf_counter``
   around the call and a device synchronisation: what ICON waits for per granule call;
3. ``metered``: ``samples`` calls at gt4py metrics level ``PERFORMANCE`` (10). Every program
   call then records its ``compute`` time (the C++/CUDA run time gtfn and dace report;
   embedded programs only have ``total``, their whole Python call), and gt4py's
   ``program_call_context`` hook counts the calls (:mod:`iconbench.granules.calls`).

The device sum is the per-call sum of the metered programs' times; **overhead = median(wall) -
median(device sum)**: what the granule spends outside its kernels (Python, argument conversion,
launches, allocations). Metrics are off in phase 2 because collecting them synchronises after
every program and would inflate the wall time it is compared with.
"""

from __future__ import annotations

import dataclasses
import statistics
import time
from collections.abc import Callable
from typing import Any

from iconbench.granules.calls import CallCounter, ProgramKey

PERFORMANCE_LEVEL = 10


@dataclasses.dataclass(frozen=True)
class ProgramTimes:
    """Device seconds of one program variant, per granule call (summed over its calls)."""

    key: ProgramKey
    calls_per_call: float
    #: The static arguments gt4py recorded for this compiled variant (empty on embedded).
    static_args: dict[str, Any]
    samples_s: tuple[float, ...]
    metric: str


@dataclasses.dataclass(frozen=True)
class GranuleMeasurement:
    """One granule case on one backend and grid."""

    case: str
    backend: str
    grid: str
    wall_s: tuple[float, ...]
    metered_wall_s: tuple[float, ...]
    device_s: tuple[float, ...]
    #: gt4py metric summed as device time: ``compute`` (kernels) or ``total`` (embedded).
    metric: str
    calls: dict[ProgramKey, float]
    programs: tuple[ProgramTimes, ...]
    #: Per-call program samples as gt4py reports them (``dumps_json`` shape, this case only).
    metrics_dump: dict[str, Any]

    @property
    def wall_median_s(self) -> float:
        return statistics.median(self.wall_s)

    @property
    def device_median_s(self) -> float:
        return statistics.median(self.device_s)

    @property
    def overhead_s(self) -> float:
        """Median wall time minus median device sum (Python and launch overhead per call)."""
        return self.wall_median_s - self.device_median_s

    @property
    def overhead_share(self) -> float:
        """The overhead's share of the wall time (0 when the wall time is 0)."""
        wall = self.wall_median_s
        return self.overhead_s / wall if wall > 0 else 0.0

    @property
    def calls_per_call(self) -> float:
        """Program calls per granule call, all programs together."""
        return sum(self.calls.values())


def synchronizer(on_gpu: bool) -> Callable[[], None]:
    """Waits until the device is idle (no-op on CPU backends)."""
    if not on_gpu:
        return lambda: None
    import cupy

    return cupy.cuda.runtime.deviceSynchronize


def _snapshot() -> dict[str, dict[str, int]]:
    from gt4py.next.instrumentation import metrics

    return {
        key: {name: len(metric.samples) for name, metric in source.metrics.items()}
        for key, source in metrics.sources.items()
    }


def _new_samples(before: dict[str, dict[str, int]]) -> dict[str, dict[str, Any]]:
    """Sources with samples added since ``before``: ``{key: {metadata, metrics}}``."""
    from gt4py.next.instrumentation import metrics

    added: dict[str, dict[str, Any]] = {}
    for key, source in list(metrics.sources.items()):
        seen = before.get(key, {})
        new = {
            name: list(metric.samples[seen.get(name, 0) :])
            for name, metric in source.metrics.items()
            if len(metric.samples) > seen.get(name, 0)
        }
        if new:
            added[key] = {"metadata": _plain(dict(source.metadata)), "metrics": new}
    return added


def _plain(value: Any) -> Any:
    """JSON-safe copy of gt4py's metadata (static args, names; objects as text)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    return str(value)


def _metric_of(samples: dict[str, dict[str, Any]]) -> str:
    has_compute = any("compute" in s["metrics"] for s in samples.values())
    return "compute" if has_compute else "total"


def _program_name(key: str, source: dict[str, Any]) -> str:
    return str(source["metadata"].get("name") or key.split("<", 1)[0])


def measure(
    call: Callable[[], None],
    *,
    case: str,
    backend: str,
    grid: str,
    samples: int,
    on_gpu: bool,
) -> GranuleMeasurement:
    """Measure ``call`` (one granule call) as the module docstring describes."""
    from gt4py.next import config

    sync = synchronizer(on_gpu)
    level = config.COLLECT_METRICS_LEVEL
    counter = CallCounter()
    try:
        config.COLLECT_METRICS_LEVEL = 0
        call()
        sync()
        wall = []
        for _ in range(samples):
            start = time.perf_counter()
            call()
            sync()
            wall.append(time.perf_counter() - start)
        config.COLLECT_METRICS_LEVEL = PERFORMANCE_LEVEL
        metered, device = [], []
        per_call: list[dict[str, dict[str, Any]]] = []
        for _ in range(samples):
            before = _snapshot()
            with counter.counting():
                start = time.perf_counter()
                call()
                sync()
                metered.append(time.perf_counter() - start)
            per_call.append(_new_samples(before))
    finally:
        config.COLLECT_METRICS_LEVEL = level
    metric = _metric_of(per_call[0]) if per_call else "total"
    for added in per_call:
        device.append(sum(sum(s["metrics"].get(metric, ())) for s in added.values()))
    merged: dict[str, dict[str, Any]] = {}
    by_program: dict[tuple[str, str], list[float]] = {}
    static_of: dict[tuple[str, str], dict[str, Any]] = {}
    for added in per_call:
        for key, source in added.items():
            entry = merged.setdefault(key, {"metadata": source["metadata"], "metrics": {}})
            for name, values in source["metrics"].items():
                entry["metrics"].setdefault(name, []).extend(values)
            ident = (_program_name(key, source), key)
            by_program.setdefault(ident, []).append(sum(source["metrics"].get(metric, ())))
            static_of[ident] = dict(source["metadata"].get("static_args") or {})
    calls = counter.per_call(samples)
    programs = tuple(
        ProgramTimes(
            key=ProgramKey(name, ""),
            calls_per_call=sum(n for k, n in calls.items() if k.program == name),
            static_args=static_of[(name, source_key)],
            samples_s=tuple(values),
            metric=metric,
        )
        for (name, source_key), values in sorted(by_program.items())
    )
    return GranuleMeasurement(
        case=case,
        backend=backend,
        grid=grid,
        wall_s=tuple(wall),
        metered_wall_s=tuple(metered),
        device_s=tuple(device),
        metric=metric,
        calls=calls,
        programs=programs,
        metrics_dump=merged,
    )

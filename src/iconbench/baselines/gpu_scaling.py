"""A speed-up measured on one GPU, restated for the baseline's GPU by memory bandwidth.

The dycore's programs are memory bound, so a first-order estimate of a GT4Py time on the
baseline's GPU is the measured time times ``bandwidth(GT4Py's GPU) / bandwidth(baseline's
GPU)``; the speed-up scales by the inverse. It is an estimate, printed next to the raw
speed-up, never instead of it: caches, clocks and latency-bound kernels do not scale so.

Bandwidth per GPU: the device-to-device copy peak measured in the same results where known
(asv ``track_bandwidth`` / ``track_bandwidth_fraction`` gives it back, per case), else the
vendor datasheet (:data:`iconbench.timing.bandwidth.DATASHEET_PEAK_BYTES_PER_S`: H100 SXM5
3.35 TB/s, NVIDIA H100 Tensor Core GPU datasheet; GH200 (96 GB HBM3) 4.0 TB/s, NVIDIA GH200
Grace Hopper Superchip datasheet). The H100 of results/h100 copies at 2.95 TB/s
(results/h100/work/copy-peak.jsonl, median of 8 runs; 88 % of its datasheet).
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Iterable
from typing import Any

from iconbench.timing.bandwidth import DATASHEET_PEAK_BYTES_PER_S


@dataclasses.dataclass(frozen=True)
class Bandwidth:
    """Memory bandwidth of one GPU in bytes/s and what the figure is."""

    gpu: str
    bytes_per_s: float
    kind: str  # "measured copy peak" or "datasheet"

    def __str__(self) -> str:
        return f"{self.gpu} {self.bytes_per_s / 1e12:.3g} TB/s ({self.kind})"


@dataclasses.dataclass(frozen=True)
class GpuScaling:
    """``factor`` = baseline GPU bandwidth / GT4Py GPU bandwidth: multiplies a speed-up."""

    baseline: Bandwidth
    gt4py: Bandwidth

    @property
    def factor(self) -> float:
        return self.baseline.bytes_per_s / self.gt4py.bytes_per_s

    def describe(self) -> str:
        return (
            f"estimate: speed-up x {self.factor:.3f} = {self.baseline} / {self.gt4py} "
            "(memory-bound scaling; not a measurement)"
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "factor": self.factor,
            "baseline": dataclasses.asdict(self.baseline),
            "gt4py": dataclasses.asdict(self.gt4py),
            "estimate": True,
            "method": "speed-up x baseline-GPU bandwidth / GT4Py-GPU bandwidth",
        }


def datasheet(gpu: str) -> float | None:
    """Datasheet bandwidth of a GPU named loosely (``h100``, ``GH200``, ``NVIDIA H100 80GB``).

    >>> datasheet("h100"), datasheet("GH200"), datasheet("unknown")
    (3350000000000.0, 4000000000000.0, None)
    """
    name = gpu.upper()
    matches = [key for key in DATASHEET_PEAK_BYTES_PER_S if key.upper() in name]
    return DATASHEET_PEAK_BYTES_PER_S[max(matches, key=len)] if matches else None


def measured_copy_peak(records: Iterable[Any]) -> float | None:
    """The copy peak recorded with asv results: median of bandwidth / fraction over cases.

    Each case stores its achieved bandwidth (GB/s) and its fraction of the copy peak measured
    in the same process; their ratio gives that peak back (bytes/s).
    """
    bandwidth: dict[tuple[str, str, str], float] = {}
    fraction: dict[tuple[str, str, str], float] = {}
    for r in records:
        key = (r.program, r.backend, r.grid)
        if r.value and r.kind == "track_bandwidth":
            bandwidth[key] = r.value * 1e9
        elif r.value and r.kind == "track_bandwidth_fraction":
            fraction[key] = r.value
    peaks = [bandwidth[k] / fraction[k] for k in bandwidth.keys() & fraction.keys()]
    return statistics.median(peaks) if peaks else None


def bandwidth(gpu: str, measured: float | None = None) -> Bandwidth | None:
    """The bandwidth of ``gpu``: ``measured`` copy peak if given, else its datasheet figure."""
    if measured:
        return Bandwidth(gpu, measured, "measured copy peak")
    figure = datasheet(gpu)
    return Bandwidth(gpu, figure, "datasheet") if figure else None


def scaling(
    baseline_gpu: str, gt4py_gpu: str, gt4py_measured: float | None = None
) -> GpuScaling | None:
    """The scaling from ``gt4py_gpu`` to ``baseline_gpu``; ``None`` if a bandwidth is unknown.

    >>> s = scaling("GH200", "h100", 2.95e12)
    >>> round(s.factor, 3), s.gt4py.kind, s.baseline.kind
    (1.356, 'measured copy peak', 'datasheet')
    """
    ours, theirs = bandwidth(gt4py_gpu, gt4py_measured), bandwidth(baseline_gpu)
    return GpuScaling(theirs, ours) if ours and theirs else None

"""Kernel durations from Nsight Compute (``ncu --csv``): the independent check of device time.

The harness times a program with CUDA events around the whole call (every kernel of it and
the gaps between them). Nsight Compute times each kernel on its own (``gpu__time_duration``).
Profiling only the calls inside an NVTX range (``--nvtx --nvtx-include "<range>/"``) and
dividing the summed kernel time by the number of calls gives a per-call device time measured
by a different tool; the two agree when launch gaps are small against the kernels.

``ncu`` is run with ``--cache-control none --clock-control none``: by default it flushes the
caches before every kernel and locks the clocks to base, which measure a colder, slower GPU
than the timing loop sees.

>>> text = '''==PROF== Connected to process 42
... "ID","Kernel Name","Metric Name","Metric Unit","Metric Value"
... "0","map_0","gpu__time_duration.sum","usecond","1,250.50"
... "1","map_1","gpu__time_duration.sum","nsecond","750"
... "2","map_0","gpu__time_duration.sum","us","1250.5"'''
>>> [round(k.seconds * 1e6, 2) for k in kernel_durations(text)]
[1250.5, 0.75, 1250.5]
>>> round(per_call_seconds(kernel_durations(text), calls=2) * 1e6, 3)
1250.875
"""

from __future__ import annotations

import csv
import dataclasses
import io

from iconbench.errors import IconbenchError

METRIC = "gpu__time_duration.sum"
"""The metric: the kernel's duration on the GPU."""

NVTX_RANGE = "iconbench-timed"
"""The NVTX push/pop range the profiled calls run in (``ncu --nvtx-include``)."""

_UNITS = {
    "second": 1.0,
    "s": 1.0,
    "msecond": 1e-3,
    "ms": 1e-3,
    "usecond": 1e-6,
    "us": 1e-6,
    "nsecond": 1e-9,
    "ns": 1e-9,
}


@dataclasses.dataclass(frozen=True)
class KernelDuration:
    """One profiled kernel launch and its duration in seconds."""

    kernel: str
    seconds: float


def kernel_durations(csv_text: str) -> list[KernelDuration]:
    """Every ``gpu__time_duration.sum`` row of ``ncu --csv`` output, in launch order.

    Lines that are not CSV rows (``==PROF==`` messages, the program's own output) are skipped.
    Raises :class:`IconbenchError` when no row has the metric (nothing was profiled: check the
    NVTX range name and that the program launched kernels inside it).
    """
    rows = [line for line in csv_text.splitlines() if line.startswith('"')]
    reader = csv.DictReader(io.StringIO("\n".join(rows)))
    durations = []
    for row in reader:
        if row.get("Metric Name") != METRIC:
            continue
        unit = row.get("Metric Unit", "")
        if unit not in _UNITS:
            raise IconbenchError(f"ncu reported {METRIC} in unknown unit {unit!r}")
        value = float(row["Metric Value"].replace(",", ""))
        durations.append(KernelDuration(row.get("Kernel Name", "?"), value * _UNITS[unit]))
    if not durations:
        raise IconbenchError(
            f"no {METRIC} rows in the ncu output: no kernel ran inside the NVTX range "
            f"{NVTX_RANGE!r}; run the target by hand under ncu to see what it launched"
        )
    return durations


def per_call_seconds(durations: list[KernelDuration], calls: int) -> float:
    """Summed kernel time per call of the program (``calls`` calls were profiled)."""
    if calls < 1:
        raise IconbenchError(f"calls must be at least 1, not {calls}")
    return sum(d.seconds for d in durations) / calls

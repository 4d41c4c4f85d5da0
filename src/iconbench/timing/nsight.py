"""Nsight Compute (``ncu``): its command line, and the kernels of a program call from its CSV.

The harness times a program with CUDA events around the whole call (every kernel of it and
the gaps between them). Nsight Compute times each kernel on its own (``gpu__time_duration``)
and reads hardware counters per kernel: DRAM bytes, registers per thread, achieved
occupancy. Profiling only the calls inside an NVTX range (``--nvtx --nvtx-include
"<range>/"``) and dividing by the number of calls gives what one call launches, measured by
a different tool: the device time's cross-check (``iconbench suite ncu``) and the kernel
level of a flagged benchmark (:mod:`iconbench.explain`).

``ncu`` is run with ``--cache-control none --clock-control none``: by default it flushes the
caches before every kernel and locks the clocks to base, which measure a colder, slower GPU
than the timing loop sees. Its CSV comes in two layouts, both read here: the raw page
(``--page raw``, one row per launch, one column per metric, a row of units under the
header; what :func:`command` asks for) and the details page (one row per launch and metric,
``Metric Name``/``Metric Unit``/``Metric Value``). Units are converted whatever their scale
(``--print-units base`` prints ``nsecond`` and ``byte``; the default scales to ``usecond``,
``Mbyte``).

>>> text = '''==PROF== Connected to process 42
... "ID","Kernel Name","Metric Name","Metric Unit","Metric Value"
... "0","map_0","gpu__time_duration.sum","usecond","1,250.50"
... "1","map_1","gpu__time_duration.sum","nsecond","750"
... "2","map_0","gpu__time_duration.sum","us","1250.5"'''
>>> [round(k.seconds * 1e6, 2) for k in launches(text)]
[1250.5, 0.75, 1250.5]
>>> round(per_call_seconds(launches(text), calls=2) * 1e6, 3)
1250.875
"""

from __future__ import annotations

import csv
import dataclasses
import io
import pathlib
from collections.abc import Sequence

from iconbench.errors import IconbenchError

METRIC = "gpu__time_duration.sum"
"""The metric: the kernel's duration on the GPU."""
DRAM_BYTES = "dram__bytes.sum"
"""Bytes read from and written to device memory by the kernel."""
REGISTERS = "launch__registers_per_thread"
"""Registers per thread the kernel was compiled to."""
OCCUPANCY = "sm__warps_active.avg.pct_of_peak_sustained_active"
"""Achieved occupancy: active warps per SM over the maximum, in per cent."""
KERNEL_METRICS = (METRIC, DRAM_BYTES, REGISTERS, OCCUPANCY)
"""What the kernel-level comparison of a flagged benchmark reads."""

NVTX_RANGE = "iconbench-timed"
"""The NVTX push/pop range the profiled calls run in (``ncu --nvtx-include``)."""

EXECUTABLE = "ncu"
"""The Nsight Compute command line, looked up on ``PATH``."""

_SCALES = {
    "second": 1.0,
    "s": 1.0,
    "msecond": 1e-3,
    "ms": 1e-3,
    "usecond": 1e-6,
    "us": 1e-6,
    "nsecond": 1e-9,
    "ns": 1e-9,
    "byte": 1.0,
    "Kbyte": 1e3,
    "Mbyte": 1e6,
    "Gbyte": 1e9,
    "Tbyte": 1e12,
    "register/thread": 1.0,
    "%": 0.01,
}


@dataclasses.dataclass(frozen=True)
class KernelLaunch:
    """One profiled kernel launch: its name as ncu printed it, its duration and counters.

    ``occupancy`` is a fraction (0-1); a counter ncu could not read (``n/a``) is ``None``.
    """

    kernel: str
    seconds: float
    dram_bytes: float | None = None
    registers: int | None = None
    occupancy: float | None = None
    #: threads per block as launched (``32×8×1``): what a change of launch configuration moves
    block: str | None = None


def block_size(text: str) -> str | None:
    """The ``Block Size`` column of ncu (``(32, 8, 1)``) as ``32×8×1``; ``None`` if absent.

    >>> block_size("(32, 8, 1)"), block_size(""), block_size("n/a")
    ('32×8×1', None, None)
    """
    parts = [part.strip() for part in text.strip().strip("()").split(",")]
    if not all(part.isdigit() for part in parts):
        return None
    return "×".join(parts)


def command(
    target: Sequence[str], log_file: pathlib.Path, metrics: Sequence[str] = (METRIC,)
) -> list[str]:
    """The ``ncu`` command line that profiles ``target``'s calls inside :data:`NVTX_RANGE`.

    >>> command(["python", "t.py"], pathlib.Path("k.csv"))[-3:]
    ['k.csv', 'python', 't.py']
    """
    return [
        EXECUTABLE, "--nvtx", "--nvtx-include", f"{NVTX_RANGE}/",
        "--metrics", ",".join(metrics), "--cache-control", "none", "--clock-control", "none",
        "--csv", "--page", "raw", "--print-units", "base", "--print-kernel-base", "demangled",
        "--log-file", str(log_file), *target,
    ]  # fmt: skip


def launches(csv_text: str) -> list[KernelLaunch]:
    """Every profiled launch of ``ncu --csv`` output (either layout), in launch order.

    Lines that are not CSV rows (``==PROF==`` messages, the program's own output) are skipped.
    Raises :class:`IconbenchError` when no launch has the duration (nothing was profiled:
    check the NVTX range name and that the program launched kernels inside it), or a value
    has a unit not known here.
    """
    rows = list(csv.reader(io.StringIO("\n".join(_csv_lines(csv_text)))))
    header = rows[0] if rows else []
    if "Metric Name" in header:
        found = _details(header, rows[1:])
    elif METRIC in header:
        found = _raw(header, rows[1:])
    else:
        found = []
    if not found:
        raise IconbenchError(
            f"no {METRIC} in the ncu output: no kernel ran inside the NVTX range "
            f"{NVTX_RANGE!r}; run the target by hand under ncu to see what it launched"
        )
    return found


def _csv_lines(text: str) -> list[str]:
    """The CSV rows of ncu's output: quoted lines, from the first header on."""
    lines = [line for line in text.splitlines() if line.startswith('"')]
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), 0)
    return lines[start:]


def _value(text: str, unit: str, metric: str) -> float | None:
    """A metric's value in base units (seconds, bytes, a fraction); ``None`` for ``n/a``."""
    text = text.strip().replace(",", "")
    if text in ("", "n/a", "N/A"):
        return None
    if unit not in _SCALES and unit != "":
        raise IconbenchError(f"ncu reported {metric} in unknown unit {unit!r}")
    return float(text) * _SCALES.get(unit, 1.0)


def _launch(
    kernel: str, values: dict[str, float | None], block: str | None = None
) -> KernelLaunch | None:
    seconds = values.get(METRIC)
    if seconds is None:
        return None
    registers = values.get(REGISTERS)
    return KernelLaunch(
        kernel=kernel,
        seconds=seconds,
        dram_bytes=values.get(DRAM_BYTES),
        registers=None if registers is None else round(registers),
        occupancy=values.get(OCCUPANCY),
        block=block,
    )


def _raw(header: list[str], rows: list[list[str]]) -> list[KernelLaunch]:
    """The raw page: a units row under the header, then one row per launch."""
    has_units = bool(rows and rows[0] and not rows[0][0])
    units = rows[0] if has_units else [""] * len(header)
    # the raw page holds every metric ncu collected on the way (device attributes, NVTX
    # ranges, names): only those a launch keeps are numbers to read
    metrics = [i for i, name in enumerate(header) if name in KERNEL_METRICS]
    kernel = header.index("Kernel Name") if "Kernel Name" in header else None
    block = header.index("Block Size") if "Block Size" in header else None
    found = []
    for row in rows[1:] if has_units else rows:
        if len(row) != len(header) or not row[0]:
            continue
        values = {header[i]: _value(row[i], units[i], header[i]) for i in metrics}
        launch = _launch(
            row[kernel] if kernel is not None else "?",
            values,
            block_size(row[block]) if block is not None else None,
        )
        if launch is not None:
            found.append(launch)
    return found


def _details(header: list[str], rows: list[list[str]]) -> list[KernelLaunch]:
    """The details page: one row per launch and metric, grouped by the launch ``ID``."""
    column = {name: i for i, name in enumerate(header)}
    by_id: dict[str, tuple[str, dict[str, float | None], str | None]] = {}
    for row in rows:
        if len(row) != len(header):
            continue
        name = row[column["Metric Name"]]
        if name not in KERNEL_METRICS:
            continue
        kernel = row[column["Kernel Name"]] if "Kernel Name" in column else "?"
        block = block_size(row[column["Block Size"]]) if "Block Size" in column else None
        entry = by_id.setdefault(row[column.get("ID", 0)], (kernel, {}, block))
        unit = row[column["Metric Unit"]] if "Metric Unit" in column else ""
        entry[1][name] = _value(row[column["Metric Value"]], unit, name)
    found = [_launch(kernel, values, block) for kernel, values, block in by_id.values()]
    return [launch for launch in found if launch is not None]


def per_call_seconds(found: Sequence[KernelLaunch], calls: int) -> float:
    """Summed kernel time per call of the program (``calls`` calls were profiled)."""
    if calls < 1:
        raise IconbenchError(f"calls must be at least 1, not {calls}")
    return sum(launch.seconds for launch in found) / calls


def function_name(printed: str) -> str:
    """The kernel's function name out of a demangled signature (namespace, templates cut).

    Everything from the first ``<`` or ``(`` on is template arguments or parameters, so
    the name is the last ``::`` part of what stands before them (after the return type). ncu
    shortens anonymous namespaces to an unbalanced ``unnamed>::`` inside gtfn's templates, so
    the brackets after the name cannot be counted.

    >>> function_name("map_100_fieldop_0_0_0(const double *, double *, int)")
    'map_100_fieldop_0_0_0'
    >>> function_name("void gridtools::fn::backend::gpu_impl_::kernel<int, 32, "
    ...               "gridtools::hymap::keys<a, b>::values<int, int>>(int, double *)")
    'kernel'
    >>> function_name("void kernel<list<integral_constant<int, 32>>, unnamed>::E2C_t>, 256>(T3)")
    'kernel'
    >>> function_name("(anonymous namespace)::fill<double>(double *)"), function_name("kernel")
    ('fill', 'kernel')
    """
    text = printed.strip().replace("(anonymous namespace)::", "")
    cut = min((i for i in (text.find("<"), text.find("(")) if i > 0), default=len(text))
    name = text[:cut].rstrip().rpartition(" ")[2].rpartition("::")[2]
    return name or printed

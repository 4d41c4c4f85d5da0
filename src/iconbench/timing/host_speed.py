"""How fast the host runs Python right now: what a check's precompile takes depends on it.

A check's longest build is Python (gt4py's and DaCe's passes,
:mod:`iconbench.timing.compile_stages`), one core each, so its precompile scales with how
fast one core runs the interpreter, and that differs between hosts of one kind: virtual
machines on shared hardware (another tenant, the clock of the core). On one H200 host the
same dace_gpu builds took 149-176 s alone and 172-195 s beside a check
(``results/pr-check-h200``).
``check.json`` records the host (:func:`describe`) at the start of the check, so that a row of
a results table says how fast its host was, and two rows of one check on two hosts can be
told apart by it.
"""

from __future__ import annotations

import os
import pathlib
import statistics
import time

from iconbench.timing.measurement import reference_work


def cpu_model(cpuinfo: pathlib.Path = pathlib.Path("/proc/cpuinfo")) -> str:
    r"""The CPU's model name as the kernel reports it ("" where it does not).

    >>> import tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "cpuinfo"
    >>> _ = p.write_text("processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Processor\n")
    >>> cpu_model(p)
    'Intel(R) Xeon(R) Processor'
    """
    try:
        for line in cpuinfo.read_text(encoding="utf-8", errors="replace").splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name":
                return value.strip()
    except OSError:
        pass
    return ""


def python_us(repeats: int = 2000) -> float:
    """Microseconds of one :func:`~iconbench.timing.measurement.reference_work`, median.

    23.6-25.9 µs on one H200 host (``results/pr-check-h200``): 2000 of them take a twentieth
    of a second.

    >>> 0 < python_us(50) < 10_000
    True
    """
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        reference_work()
        times.append(time.perf_counter() - start)
    return round(statistics.median(times) * 1e6, 2)


def describe() -> dict[str, object]:
    """The host as ``check.json`` records it: CPU model, cores, Python speed, load.

    >>> sorted(describe())
    ['cores', 'cpu', 'load_1min', 'python_us']
    """
    try:
        load = round(os.getloadavg()[0], 2)
    except OSError:
        load = None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {"cpu": cpu_model(), "cores": cores, "python_us": python_us(), "load_1min": load}

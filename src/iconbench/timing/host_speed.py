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

How fast a core runs Python at the start is not how fast it runs while the precompile works:
on an H200 host (16 virtual cores, ``perf/host_contention.py``, 2026-11-29) one core took
24.5 µs alone and 38-52 µs beside 7 or 15 busy processes, and 1.25-1.44x longer beside one
busy process on 9 of its 15 other cores; the cores of a virtual machine share physical
cores and their clocks with each other and with other tenants. So the check also samples the
speed while it precompiles (:func:`sampled`, in a process of its own that the scheduler puts
on whichever core is free), and ``check.json`` keeps the median as ``precompile_python_us``.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator

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


#: Seconds between two samples while a check precompiles; each sample is 400 runs of the
#: reference work (10-20 ms), one core's one per cent.
SAMPLE_EVERY_S = 2.0


@contextlib.contextmanager
def sampled(every_s: float = SAMPLE_EVERY_S) -> Iterator[list[float]]:
    """``python_us`` sampled in a process of its own every ``every_s`` while the block runs.

    The list is filled when the block ends (empty where the sampler could not start: the
    block's own work is never held up by it).

    >>> with sampled(0.05) as samples:
    ...     time.sleep(1.5)
    >>> len(samples) >= 2 and all(0 < value < 10_000 for value in samples)
    True
    """
    samples: list[float] = []
    try:
        handle, name = tempfile.mkstemp(prefix="python-us-", suffix=".txt")
        os.close(handle)
    except OSError:  # no temporary file: the block runs unsampled
        yield samples
        return
    path = pathlib.Path(name)
    command = [sys.executable, "-m", "iconbench.timing.host_speed", str(every_s), name,
               str(os.getpid())]  # fmt: skip
    try:
        quiet = subprocess.DEVNULL
        process = subprocess.Popen(command, stdin=quiet, stdout=quiet, stderr=quiet)
    except OSError:  # no process: the same
        path.unlink(missing_ok=True)
        yield samples
        return
    try:
        yield samples
    finally:
        process.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=10)
        with contextlib.suppress(OSError):
            samples.extend(_read_samples(path))
        path.unlink(missing_ok=True)


def _read_samples(path: pathlib.Path) -> list[float]:
    """The samples a sampler wrote, one a line (a line cut short by its end: left out)."""
    values = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        with contextlib.suppress(ValueError):
            values.append(float(line))
    return values


def summarize(samples: list[float]) -> dict[str, object] | None:
    """What ``check.json`` keeps of :func:`sampled`'s samples: the median, the quartiles, how many.

    >>> summarize([30.0, 24.0, 26.0, 50.0, 28.0])
    {'median': 28.0, 'quartiles': [25.0, 40.0], 'samples': 5}
    >>> summarize([]) is None
    True
    """
    if not samples:
        return None
    if len(samples) == 1:
        return {"median": samples[0], "quartiles": [samples[0]] * 2, "samples": 1}
    low, _, high = statistics.quantiles(samples, n=4)
    return {"median": round(statistics.median(samples), 2),
            "quartiles": [round(low, 2), round(high, 2)], "samples": len(samples)}  # fmt: skip


def _sample_until_stopped(every_s: float, path: pathlib.Path, parent: int) -> None:
    """The sampler's loop: one ``python_us(400)`` a line, flushed, every ``every_s``.

    It ends when stopped, or once ``parent`` is gone (a check killed before it could stop
    the sampler leaves no process behind).
    """
    with path.open("a", encoding="utf-8") as out:
        while os.getppid() == parent:
            out.write(f"{python_us(400)}\n")
            out.flush()
            time.sleep(every_s)


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        _sample_until_stopped(float(sys.argv[1]), pathlib.Path(sys.argv[2]), int(sys.argv[3]))

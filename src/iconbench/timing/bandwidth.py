"""How far a timing is from the memory-bandwidth limit.

Almost every dycore stencil is memory bound, so the useful yardstick is *achieved bandwidth*:
the bytes a program must at least move (every field it reads read once, every field it writes
written once: ``ProgramCall.bytes_moved``) divided by its device time. Real kernels move more
(neighbour re-reads that miss cache, halo rows), so the ratio is a lower bound of the traffic
and an honest measure of distance from the hardware.

Two ceilings are given, because the datasheet figure is never reached:

- :data:`DATASHEET_PEAK_BYTES_PER_S`: the vendor's HBM bandwidth, by GPU name;
- :func:`measure_copy_peak`: a device-to-device copy of a large buffer timed on the same device
  in the same run, counting read + write (``2 * nbytes / t``), the practical ceiling.
"""

from __future__ import annotations

import time

from iconbench.records.copy_peak import CopyPeak

#: Vendor datasheet memory bandwidth in bytes/s, matched by substring of the device name
#: (longest match wins, so "H100 PCIe" beats "H100").
DATASHEET_PEAK_BYTES_PER_S: dict[str, float] = {
    "H100 PCIe": 2.0e12,
    "H100 NVL": 3.9e12,
    "H100": 3.35e12,  # SXM5, HBM3 80 GB
    "GH200": 4.0e12,  # H100 96 GB HBM3 in Grace Hopper
    "H200": 4.8e12,
    "A100-SXM4-80GB": 2.039e12,
    "A100-PCIE-80GB": 1.935e12,
    "A100": 1.555e12,  # 40 GB
    "V100": 0.9e12,
    "MI250X": 3.2768e12,
    "MI300A": 5.3e12,
}


def datasheet_peak(device_name: str | None) -> float | None:
    """Datasheet bandwidth of ``device_name`` in bytes/s, or ``None`` if unknown.

    >>> datasheet_peak("NVIDIA H100 80GB HBM3")
    3350000000000.0
    >>> datasheet_peak("NVIDIA H100 PCIe")
    2000000000000.0
    >>> datasheet_peak("Intel Xeon") is None
    True
    """
    if not device_name:
        return None
    matches = [key for key in DATASHEET_PEAK_BYTES_PER_S if key in device_name]
    if not matches:
        return None
    return DATASHEET_PEAK_BYTES_PER_S[max(matches, key=len)]


def achieved_bandwidth(bytes_moved: int, seconds: float) -> float:
    """Bytes per second of a call that moves ``bytes_moved`` in ``seconds``.

    >>> achieved_bandwidth(2_000_000_000, 0.001) / 1e12  # 2 GB in 1 ms = 2 TB/s
    2.0
    """
    if seconds <= 0:
        raise ValueError(f"non-positive time {seconds!r}")
    return bytes_moved / seconds


def measure_copy_peak(*, on_gpu: bool, nbytes: int | None = None, repeats: int = 20) -> CopyPeak:
    """Time a ``nbytes`` device-to-device (or host memory) copy ``repeats`` times.

    On GPU the copy is ``cupy`` ``dst[...] = src`` timed with CUDA events (buffer far larger
    than L2 so it streams from HBM); on CPU it is ``numpy.copyto`` timed with ``perf_counter``,
    a STREAM-copy-like figure for the host backends.
    """
    if nbytes is None:  # far beyond the last-level cache: 1 GiB on GPU, 256 MiB on CPU
        nbytes = 1 << 30 if on_gpu else 1 << 28
    count = max(1, nbytes // 8)
    if on_gpu:
        import cupy

        src = cupy.ones(count, dtype=cupy.float64)
        dst = cupy.empty_like(src)
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        dst[...] = src  # warm-up: first touch, kernel load
        cupy.cuda.runtime.deviceSynchronize()
        samples = []
        for _ in range(repeats):
            start.record()
            dst[...] = src
            end.record()
            end.synchronize()
            samples.append(cupy.cuda.get_elapsed_time(start, end) / 1e3)
        props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
        name = props["name"]
        device = name.decode() if isinstance(name, bytes) else str(name)
    else:
        import platform

        import numpy as np

        src = np.ones(count, dtype=np.float64)
        dst = np.empty_like(src)
        np.copyto(dst, src)
        samples = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            np.copyto(dst, src)
            samples.append(time.perf_counter() - t0)
        device = platform.processor() or platform.machine()
    return CopyPeak(device=device, nbytes=count * 8, samples_s=samples)

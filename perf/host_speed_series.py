#!/usr/bin/env python3
"""One core's Python speed over time, idle and beside 15 and 7 busy processes, with steal time.

A check records ``python_us`` once at its start and its median while it precompiles
(:mod:`iconbench.timing.host_speed`). This script asks what a single figure at the start can
say: it samples ``python_us(400)`` every 0.1 s for 15 s in each of four windows (idle, 15 busy
processes, 7 busy, idle again) and prints the 10th, 50th and 90th percentiles with the share
of the cores' time the hypervisor reports as stolen (``/proc/stat``). Run from the
repository's root as ``python3 perf/host_speed_series.py`` (``src`` on the path; Linux).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from iconbench.timing.host_speed import python_us


def cpu_times() -> list[int]:
    """The host's cumulative CPU times (``/proc/stat``'s first line: user ... steal)."""
    with open("/proc/stat", encoding="ascii") as stat:
        return [int(field) for field in stat.readline().split()[1:]]


def window(label: str, seconds: float) -> None:
    """Print the percentiles of ``python_us`` over ``seconds`` and the cores' time by kind."""
    before, start, values = cpu_times(), time.time(), []
    while time.time() - start < seconds:
        values.append(python_us(400))
        time.sleep(0.1)
    spent = [after - was for was, after in zip(before, cpu_times(), strict=False)]
    total = sum(spent[:8])
    values.sort()
    n = len(values)
    print(f"{label}: steal {100 * spent[7] / total:.1f}% of all cores' time, user "
          f"{100 * spent[0] / total:.1f}%, idle {100 * spent[3] / total:.1f}%; python_us p10 "
          f"{values[n // 10]:.1f} p50 {values[n // 2]:.1f} p90 {values[9 * n // 10]:.1f} "
          f"(n={n})", flush=True)  # fmt: skip


def beside(busy: int, label: str) -> None:
    """:func:`window` beside ``busy`` processes that spin in Python."""
    spinning = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(busy)]
    try:
        time.sleep(1)
        window(label, 15)
    finally:
        for process in spinning:
            process.kill()
            process.wait()


def main() -> int:
    """The four windows, one line each."""
    window("idle", 15)
    beside(15, "15 busy")
    beside(7, "7 busy")
    time.sleep(1)
    window("idle again", 10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

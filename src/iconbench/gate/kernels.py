r"""Why a GPU benchmark regressed: its kernels on base against head.

A flagged device-time regression says *that* a program got slower; the kernels it launches
say *where*. A profiler run of the flagged benchmark on each side gives per-kernel records
(:mod:`iconbench.records.kernels`: their format and reader). :func:`diff` pairs
kernels by name and orders them by how much of the change each explains: with
:math:`\Delta_i = t^{head}_i - t^{base}_i` and :math:`\Delta = \sum_i \Delta_i`, kernel
:math:`i` explains :math:`\Delta_i / \Delta` of it (a kernel only on one side counts with 0
on the other: generated code that split or fused kernels shows as one gone and one new).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from iconbench.gate.durations import seconds
from iconbench.records.kernels import KernelChange, KernelDiff, KernelRecord


def diff(benchmark: str, base: Sequence[KernelRecord], head: Sequence[KernelRecord]) -> KernelDiff:
    """Pair the kernels by name; largest contribution to the change first.

    >>> b = [KernelRecord("a", 1, 1.0e-4), KernelRecord("b", 1, 2.0e-4)]
    >>> h = [KernelRecord("a", 1, 1.0e-4), KernelRecord("b", 1, 2.3e-4)]
    >>> d = diff("x|gtfn_gpu|device_time", b, h)
    >>> [(c.kernel, round(c.ratio, 2), c.share) for c in d.changes]
    [('b', 1.15, 1.0), ('a', 1.0, 0.0)]
    """
    by_base = {r.kernel: r for r in base}
    by_head = {r.kernel: r for r in head}
    base_s = sum(r.device_s for r in base)
    head_s = sum(r.device_s for r in head)
    total = head_s - base_s
    changes = []
    for name in sorted(set(by_base) | set(by_head)):
        change = KernelChange(name, by_base.get(name), by_head.get(name), None)
        share = round(change.delta_s / total, 4) if total else None
        changes.append(dataclasses.replace(change, share=share))
    changes.sort(key=lambda c: (-abs(c.delta_s), c.kernel))
    return KernelDiff(benchmark, base_s, head_s, tuple(changes))


#: A kernel as a table lists it: its name, and its launches and block on base and on head.
Launched = tuple[str, tuple[int, str | None] | None, tuple[int, str | None] | None]


def structure(kernel_diff: KernelDiff) -> frozenset[Launched]:
    """The kernels of ``kernel_diff`` by name, launches and block on each side, without times.

    Two profiles of variants that launch the same kernels have the same structure, however
    their times differ: one table stands for both.

    >>> b = [KernelRecord("k", 1, 1.0e-4, block="32×8×1")]
    >>> h = [KernelRecord("k", 1, 1.3e-4, block="32×8×1"), KernelRecord("new", 1, 2.0e-5)]
    >>> slower = diff("p[a]|gtfn_gpu|device_time", b, h)
    >>> sorted(structure(slower))
    [('k', (1, '32×8×1'), (1, '32×8×1')), ('new', None, (1, None))]
    >>> faster = diff("p[b]|gtfn_gpu|device_time", b, [KernelRecord("k", 1, 0.9e-4, block="32×8×1"),
    ...                                                KernelRecord("new", 1, 3.0e-5)])
    >>> structure(faster) == structure(slower), structure(faster) == structure(diff("x", b, b))
    (True, False)
    """

    def launched(record: KernelRecord | None) -> tuple[int, str | None] | None:
        return None if record is None else (record.count, record.block)

    return frozenset((c.kernel, launched(c.base), launched(c.head)) for c in kernel_diff.changes)


def render(kernel_diff: KernelDiff, *, limit: int = 10) -> str:
    """The per-kernel table of one benchmark (what the gate's table prints under it)."""
    lines = [
        f"kernels of {kernel_diff.id}: {seconds(kernel_diff.base_s)} -> "
        f"{seconds(kernel_diff.head_s)} per call",
        f"  {'kernel':<40} {'launches':>9} {'base':>10} {'head':>10} {'ratio':>7} "
        f"{'share':>6}  DRAM / registers / occupancy",
    ]
    for c in kernel_diff.changes[:limit]:
        launches = "/".join(str(r.count) if r else "-" for r in (c.base, c.head))
        ratio = "new" if c.base is None else "gone" if c.head is None else f"{c.ratio:.3f}"
        share = "-" if c.share is None else f"{c.share:.0%}"
        lines.append(
            f"  {c.kernel[:40]:<40} {launches:>9} "
            f"{seconds(c.base.device_s if c.base else None):>10} "
            f"{seconds(c.head.device_s if c.head else None):>10} {ratio:>7} {share:>6}  "
            f"{_hardware(c)}".rstrip()
        )
    if len(kernel_diff.changes) > limit:
        lines.append(f"  ({len(kernel_diff.changes) - limit} more kernels)")
    return "\n".join(lines)


def format_bytes(value: float) -> str:
    """Bytes in decimal units, 3 significant digits (the run-to-run noise of DRAM counters).

    >>> format_bytes(3.2e8), format_bytes(402_653_184), format_bytes(512.0)
    ('320 MB', '403 MB', '512 B')
    """
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if abs(value) >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value:.0f} B"


#: The counters of a kernel besides its time, and how each is written.
COUNTERS = {
    "count": str,
    "block": str,
    "dram_bytes": format_bytes,
    "registers": str,
    "occupancy": lambda value: f"{100 * value:.0f} %",
}


def counters(change: KernelChange) -> dict[str, str]:
    """Launches, DRAM bytes, registers, occupancy of a kernel, base against head.

    One value where it stayed, ``a → b`` where it moved (as written: DRAM bytes to 3 digits,
    occupancy to the per cent), ``–`` where neither side has it.

    >>> a = KernelRecord("k", 1, 1e-4, 3.2e8, 56, 0.62, "32×8×1")
    >>> b = KernelRecord("k", 1, 2e-4, 3.2e8, 96, 0.38, "8×4×1")
    >>> counters(KernelChange("k", a, b, 1.0))  # doctest: +NORMALIZE_WHITESPACE
    {'count': '1', 'block': '32×8×1 → 8×4×1', 'dram_bytes': '320 MB', 'registers': '56 → 96',
     'occupancy': '62 % → 38 %'}
    """
    found = {}
    for key, fmt in COUNTERS.items():
        values = [getattr(r, key) if r else None for r in (change.base, change.head)]
        shown = ["–" if v is None else fmt(v) for v in values]
        if values == [None, None]:
            found[key] = "–"
        else:
            found[key] = shown[0] if shown[0] == shown[1] else f"{shown[0]} → {shown[1]}"
    return found


def _hardware(change: KernelChange) -> str:
    """What moved besides time: block, DRAM bytes, registers, occupancy (base -> head)."""
    moved = counters(change)
    names = {"block": "block", "dram_bytes": "DRAM", "registers": "registers",
             "occupancy": "occupancy"}  # fmt: skip
    return "; ".join(f"{name} {moved[key]}" for key, name in names.items() if "→" in moved[key])

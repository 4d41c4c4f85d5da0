r"""Kernel records: a flagged benchmark's kernels on one side, and their diff, base against head.

A profiler (Nsight Compute, ``nsys``) run of the flagged benchmark on each side gives
per-kernel records, read here from JSON (a list of objects, one per kernel)::

    [{"kernel": "map_100_fieldop_0", "count": 1, "device_s": 1.21e-4,
      "dram_bytes": 3.2e8, "registers": 64, "occupancy": 0.62}, ...]

``kernel``, ``count`` (launches per call) and ``device_s`` (device time per call, all
launches) are required; ``dram_bytes``, ``registers``, ``occupancy`` (achieved, 0-1) and
``block`` (threads per block as launched, ``32×8×1``) are optional. The diff of two sides
(:class:`KernelDiff`, made by :func:`iconbench.gate.kernels.diff`) is the gate summary's
``kernels`` entries and each ``why``'s kernels (:mod:`iconbench.records.summary`).
"""

from __future__ import annotations

import dataclasses
import json
import math
import pathlib
from typing import Any

from iconbench.errors import IconbenchError

OPTIONAL = ("dram_bytes", "registers", "occupancy")
#: optional fields that are text: the launch configuration
TEXT = ("block",)


@dataclasses.dataclass(frozen=True)
class KernelRecord:
    """One kernel of one benchmark on one side (per call of the program)."""

    kernel: str
    count: int
    device_s: float
    dram_bytes: float | None = None
    registers: int | None = None
    occupancy: float | None = None
    block: str | None = None


@dataclasses.dataclass(frozen=True)
class KernelChange:
    """One kernel, base against head; ``None`` on the side that does not launch it."""

    kernel: str
    base: KernelRecord | None
    head: KernelRecord | None
    #: share of the benchmark's device-time change this kernel explains
    share: float | None

    @property
    def delta_s(self) -> float:
        """Head minus base device time per call (0 for a missing side)."""
        return (self.head.device_s if self.head else 0.0) - (
            self.base.device_s if self.base else 0.0
        )

    @property
    def ratio(self) -> float | None:
        """Head / base device time (``None`` when a side does not launch it)."""
        if self.base is None or self.head is None or self.base.device_s <= 0:
            return None
        return self.head.device_s / self.base.device_s


@dataclasses.dataclass(frozen=True)
class KernelDiff:
    """The per-kernel diff of one flagged benchmark (the summary's ``kernels`` entries)."""

    id: str
    base_s: float
    head_s: float
    changes: tuple[KernelChange, ...]

    def as_dict(self) -> dict[str, Any]:
        """The JSON object."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> KernelDiff:
        """The typed value of a JSON object written by :meth:`as_dict`."""

        def record(d: dict[str, Any] | None) -> KernelRecord | None:
            return None if d is None else KernelRecord(**d)

        return cls(
            id=str(data["id"]),
            base_s=float(data["base_s"]),
            head_s=float(data["head_s"]),
            changes=tuple(
                KernelChange(c["kernel"], record(c["base"]), record(c["head"]), c["share"])
                for c in data["changes"]
            ),
        )


def read(path: str | pathlib.Path) -> list[KernelRecord]:
    """The kernel records of one side; a bad file or field is one line naming it."""
    path = pathlib.Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise IconbenchError(f"{path}: cannot read kernel records ({error})") from None
    except json.JSONDecodeError as error:
        raise IconbenchError(f"{path}: line {error.lineno}: not JSON ({error.msg})") from None
    if not isinstance(data, list):
        raise IconbenchError(f"{path}: a JSON list of kernel records expected")
    records = []
    for number, item in enumerate(data, 1):
        where = f"{path}: record {number}"
        if not isinstance(item, dict):
            raise IconbenchError(f"{where}: an object expected")
        if extra := sorted(set(item) - {"kernel", "count", "device_s", *OPTIONAL, *TEXT}):
            raise IconbenchError(f"{where}: unknown key(s) {extra}")
        kernel, count, seconds = item.get("kernel"), item.get("count"), item.get("device_s")
        if not isinstance(kernel, str) or not kernel:
            raise IconbenchError(f"{where}: 'kernel' must be the kernel's name")
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise IconbenchError(f"{where}: 'count' must be a positive integer, got {count!r}")
        if not _positive(seconds):
            raise IconbenchError(f"{where}: 'device_s' must be seconds > 0, got {seconds!r}")
        for key in OPTIONAL:
            if item.get(key) is not None and not _positive(item[key], zero=True):
                raise IconbenchError(f"{where}: '{key}' must be a number >= 0")
        for key in TEXT:
            if item.get(key) is not None and not isinstance(item[key], str):
                raise IconbenchError(f"{where}: '{key}' must be text")
        records.append(KernelRecord(**item))
    names = [r.kernel for r in records]
    if len(set(names)) != len(names):
        raise IconbenchError(f"{path}: a kernel is listed twice; merge its launches into one")
    return records


def _positive(value: Any, *, zero: bool = False) -> bool:
    if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
        return False
    return value >= 0 if zero else value > 0

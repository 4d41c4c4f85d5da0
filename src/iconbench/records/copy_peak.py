"""The device's copy peak (``OUT/work/copy-peak.jsonl``): one measured copy ceiling a line.

A measuring worker measures the ceiling a case's achieved bandwidth is a fraction of
(:func:`iconbench.timing.bandwidth.measure_copy_peak`) and appends it here; a check's later
rounds reuse the side's last line instead of copying 20 GiB again in their turn. The ledger
is kept by :mod:`iconbench.files.ledger`'s rule (a torn last line skipped: measured again).
"""

from __future__ import annotations

import dataclasses
import pathlib
import statistics
from typing import Any

from iconbench.files import ledger

#: The ledger's name in a result directory's ``work/``.
FILE = "copy-peak.jsonl"


@dataclasses.dataclass(frozen=True)
class CopyPeak:
    """A measured copy ceiling: ``2 * nbytes / median(t)`` over ``samples_s``."""

    device: str
    nbytes: int
    samples_s: list[float]

    @property
    def bytes_per_s(self) -> float:
        """Read + write bytes per second of the median copy."""
        return 2 * self.nbytes / statistics.median(self.samples_s)

    def as_dict(self) -> dict[str, Any]:
        """JSON form including the derived bandwidth."""
        return {**dataclasses.asdict(self), "bytes_per_s": self.bytes_per_s}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CopyPeak:
        """Inverse of :meth:`as_dict` (the derived bandwidth is recomputed).

        >>> peak = CopyPeak("H100", 1 << 30, [7.3e-4, 7.4e-4])
        >>> CopyPeak.from_dict(peak.as_dict()) == peak
        True
        """
        return cls(str(data["device"]), int(data["nbytes"]), [float(s) for s in data["samples_s"]])


def append(path: pathlib.Path, peak: CopyPeak) -> None:
    """Append ``peak`` to the ledger ``path``."""
    ledger.append(path, peak.as_dict())


def last(path: pathlib.Path) -> CopyPeak | None:
    """The ledger's last peak (``None``: no ledger, or no whole line that is a peak).

    >>> import tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / FILE
    >>> append(path, CopyPeak("H100", 1 << 30, [7.3e-4]))
    >>> _ = path.open("a").write('{"device": "H1')  # a worker killed while writing
    >>> last(path).device, last(path.with_name("none.jsonl"))
    ('H100', None)
    """
    rows = ledger.read(path).rows
    if not rows:
        return None
    try:
        return CopyPeak.from_dict(rows[-1][1])
    except (ValueError, TypeError, KeyError):
        return None  # a line of another format: measured again

"""A run's step times (``OUT/work/phases.jsonl``): one line a step of ``iconbench suite``.

The precompile and the measure append their wall time and counts as they end; the result
directory's ``summary.json`` carries the lines (:func:`iconbench.records.resultdir.write`)
and the report shows them. Kept by :mod:`iconbench.files.ledger`'s rule.
"""

from __future__ import annotations

import pathlib
import time
from typing import Any

from iconbench.files import ledger

#: The ledger's name in a result directory's ``work/``.
FILE = "phases.jsonl"


def append(work: pathlib.Path, name: str, seconds: float, **extra: Any) -> None:
    """Append the wall time of step ``name`` (and ``extra`` counts) to ``work/phases.jsonl``.

    >>> import tempfile
    >>> work = pathlib.Path(tempfile.mkdtemp())
    >>> append(work, "precompile", 12.5, compiled=3)
    >>> [(p["phase"], p["seconds"], p["compiled"]) for p in read(work)]
    [('precompile', 12.5, 3)]
    """
    ledger.append(work / FILE, {"phase": name, "seconds": seconds, "at": time.time(), **extra})


def read(work: pathlib.Path) -> list[dict[str, Any]]:
    """Every step time in ``work/phases.jsonl``, in the order written (a torn last one out)."""
    return [data for _, data in ledger.read(work / FILE).rows]

"""A run's broken backends (``OUT/work/broken.json``): the stack could not run them.

Written by the run's preparation when a backend cannot be resolved on the stack (one
:class:`~iconbench.stacks.breakage.StackBreak` per backend), read back by the result
directory's ``summary.json`` (key ``broken``), by a check whose side ended with exit 2, and by
the history and the site: a broken stack is a result, kept beside the measured ones.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

from iconbench.files.atomic import write_atomic
from iconbench.stacks.breakage import BrokenStackError, StackBreak

#: The record's name in a result directory's ``work/``.
FILE = "broken.json"


def write(work: pathlib.Path, breaks: dict[str, StackBreak]) -> None:
    """Record ``breaks`` (by backend) for this run, in place of the record before.

    >>> import tempfile
    >>> work = pathlib.Path(tempfile.mkdtemp())
    >>> b = StackBreak("icon4py", "X", "gt4py", "AttributeError", "icon4py/m.py:1", "gt4py 9")
    >>> write(work, {"gtfn_cpu": b}); read(work)["gtfn_cpu"] == b
    True
    >>> write(work, {}); read(work)
    {}
    """
    path = work / FILE
    if not breaks:
        path.unlink(missing_ok=True)
        return
    data = {backend: b.as_dict() for backend, b in sorted(breaks.items())}
    write_atomic(path, json.dumps(data, indent=1, sort_keys=True))


def read(work: pathlib.Path) -> dict[str, StackBreak]:
    """The run's broken backends (``{}``: none, or no record)."""
    try:
        data = json.loads((work / FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {backend: StackBreak.from_dict(b) for backend, b in data.items()}


def of_summary(summary: Any) -> dict[str, StackBreak]:
    """A ``summary.json``'s ``broken`` entries, typed (``{}``: none, or not a record).

    >>> b = StackBreak("icon4py", "X", "gt4py", "AttributeError", "icon4py/m.py:1", "gt4py 9")
    >>> of_summary({"broken": {"gtfn_cpu": b.as_dict()}}) == {"gtfn_cpu": b}
    True
    >>> of_summary({"broken": ["no"]}), of_summary([])
    ({}, {})
    """
    recorded = summary.get("broken") if isinstance(summary, dict) else None
    if not isinstance(recorded, dict):
        return {}
    return {str(backend): StackBreak.from_dict(found)
            for backend, found in recorded.items() if isinstance(found, dict)}  # fmt: skip


def error(breaks: dict[str, StackBreak], *, side: str = "", where: str = "") -> BrokenStackError:
    """The exception that ends a run (or a side of a comparison) whose stack broke.

    ``where``: what the line starts with (a check's ``head (1a2b3c4d5e6f)``).
    """
    first = next(iter(sorted(breaks.items())))[1]
    text = f"{where}: {line(breaks)}" if where else line(breaks)
    return BrokenStackError(first, text, side=side)


def line(breaks: dict[str, StackBreak]) -> str:
    """One line for every broken backend: the first break, and the backends it stops.

    >>> b = StackBreak("icon4py", "X", "gt4py", "AttributeError", "icon4py/m.py:1", "gt4py 9")
    >>> line({"gtfn_cpu": b, "gtfn_gpu": b})
    "gtfn_cpu, gtfn_gpu: stack gt4py 9 is broken: icon4py's code fails on 'X' of gt4py \
(AttributeError) at icon4py/m.py:1"
    """
    first = next(iter(sorted(breaks.items())))[1]
    same = [backend for backend, b in sorted(breaks.items()) if b == first]
    more = len(breaks) - len(same)
    tail = f" (and {more} other backend(s) broken otherwise)" if more else ""
    return f"{', '.join(same)}: {first.line()}{tail}"

"""Writing a runner's output directory: atomic, append-only."""

from __future__ import annotations

import os
import pathlib


def write_new_or_suffixed(path: pathlib.Path, text: str) -> pathlib.Path:
    """Write ``text`` to ``path``, or to ``path.N`` if it exists (results are append-only).

    >>> import tempfile
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> [write_new_or_suffixed(root / "summary.json", "{}").name for _ in range(3)]
    ['summary.json', 'summary.1.json', 'summary.2.json']
    """
    target, number = path, 1
    while target.exists():
        target = path.with_name(f"{path.stem}.{number}{path.suffix}")
        number += 1
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, target)
    return target


def newest_summary(out: pathlib.Path) -> pathlib.Path | None:
    """The last ``summary[.N].json`` a runner wrote into ``out`` (``None``: none yet).

    >>> import tempfile
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> for _ in range(11):
    ...     _ = write_new_or_suffixed(root / "summary.json", "{}")
    >>> newest_summary(root).name
    'summary.10.json'
    """

    def number(path: pathlib.Path) -> int:
        middle = path.name.removeprefix("summary").removesuffix(".json").strip(".")
        return int(middle) if middle.isdigit() else 0

    found = sorted(out.glob("summary*.json"), key=number)
    return found[-1] if found else None

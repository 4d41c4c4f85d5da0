"""A ledger: an append-only JSON-lines file, its one writer and its one reading rule.

A run's steps append to ledgers as they go (``work/session.jsonl``, ``work/compile.jsonl``):
one record a line, each line written whole, in one ``write``, by processes that may append
at the same time (the measuring workers of several devices). So the only line that can be
broken is the last one, where a process was killed while writing it (a run stopped at its
time limit). The rule, the same for every ledger and every reader:

- a last line without its newline that is not JSON is *torn*: skipped, and counted
  (:attr:`Lines.torn`); the next :func:`append` cuts it off before it writes, so the next
  record starts a line of its own and the torn record stays the only loss;
- any other line that is not JSON is an error naming the file and the line.

The ledgers' records (:mod:`iconbench.records.session`, :mod:`iconbench.records.compilation`)
are a layer above; they say what a line holds, this module how lines are kept.
"""

from __future__ import annotations

import dataclasses
import fcntl
import json
import os
import pathlib
from typing import Any

from iconbench.files.decode import fail

#: What to do about a ledger that cannot be read.
HINT = "move the ledger aside; the next run starts a new one"


@dataclasses.dataclass(frozen=True)
class Lines:
    """The records of a ledger, each with its line number, and the torn last line's count."""

    rows: tuple[tuple[int, Any], ...]
    torn: int = 0


def read(path: str | os.PathLike[str], *, offset: int = 0, hint: str = HINT) -> Lines:
    r"""Every record of ``path`` from byte ``offset`` (a line's start), under the module's rule.

    A ledger that does not exist has no records.

    >>> import tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "session.jsonl"
    >>> _ = path.write_text('{"a": 1}\n\n{"a": 2}\n{"a": 3, "sam')
    >>> read(path)
    Lines(rows=((1, {'a': 1}), (3, {'a': 2})), torn=1)
    >>> read(path, offset=len('{"a": 1}\n')).rows
    ((3, {'a': 2}),)
    >>> _ = path.write_text('{"a": 1}\n{"a": \n{"a": 2}\n')
    >>> read(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    iconbench.errors.IconbenchError: .../session.jsonl: line 2: invalid JSON (Expecting value); ...
    """
    path = pathlib.Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return Lines(())
    except OSError as error:
        raise fail(path, f"cannot read ({error.strerror or error})", hint) from None
    first = data[:offset].count(b"\n") + 1
    chunks = data[offset:].split(b"\n")
    last = first + len(chunks) - 1  # the line after the last newline ("" when there is one)
    rows: list[tuple[int, Any]] = []
    torn = 0
    for number, chunk in enumerate(chunks, start=first):
        if not chunk.strip():
            continue
        try:
            rows.append((number, json.loads(chunk.decode("utf-8"))))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
            if number == last:  # no newline after it: a write a crash cut short
                torn += 1
                continue
            what = f"invalid JSON ({error.msg})" if isinstance(error, json.JSONDecodeError) else (
                "not a JSON line (binary or not UTF-8)")  # fmt: skip
            raise fail(path, what, hint, number) from None
    return Lines(tuple(rows), torn)


def whole_lines(path: str | os.PathLike[str], *, hint: str = HINT) -> list[str]:
    r"""The lines of ``path`` as written, under the module's rule (what a copy of it keeps).

    Blank lines and a torn last line are left out; any other line that is not JSON is an
    error naming the file and the line, as for :func:`read`.

    >>> import tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "session.jsonl"
    >>> _ = path.write_text('{"a": 1}\n\n{"b":  2}\n{"a": 3, "sam')
    >>> whole_lines(path), whole_lines(path.with_name("none.jsonl"))
    (['{"a": 1}', '{"b":  2}'], [])
    """
    found = read(path, hint=hint)
    if not found.rows and not found.torn:
        return []
    chunks = [c for c in pathlib.Path(path).read_bytes().split(b"\n") if c.strip()]
    return [c.decode("utf-8") for c in chunks[: len(chunks) - found.torn]]


def append(path: str | os.PathLike[str], record: dict[str, Any]) -> None:
    r"""Append ``record`` as one line, whole, in one ``write``; a torn last line cut off first.

    A line written by one ``write`` to a file opened for appending is never interleaved with
    another process's (a buffered text file splits a long line into several writes). An
    exclusive lock, held while a torn tail is looked for, cut and the line written, keeps one
    appender from cutting another's line.

    >>> import tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "compile.jsonl"
    >>> _ = path.write_text('{"a": 1}\n{"a": 2, "b')  # killed while writing the second
    >>> append(path, {"a": 3})
    >>> path.read_text()
    '{"a": 1}\n{"a": 3}\n'
    """
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    line = (json.dumps(record, sort_keys=True) + "\n").encode("utf-8")
    handle = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        size = os.fstat(handle).st_size
        if size and os.pread(handle, 1, size - 1) != b"\n":
            os.ftruncate(handle, _after_last_newline(handle, size))
        written = 0
        while written < len(line):
            written += os.write(handle, line[written:])
    finally:
        os.close(handle)  # and the lock with it


def _after_last_newline(handle: int, size: int, block: int = 1 << 16) -> int:
    """The offset just after the last newline of the open file (0: none)."""
    end = size
    while end > 0:
        start = max(0, end - block)
        found = os.pread(handle, end - start, start).rfind(b"\n")
        if found >= 0:
            return start + found + 1
        end = start
    return 0

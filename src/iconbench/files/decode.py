"""Decode a file into text, JSON or TOML; any malformed content is one line.

Each function takes ``hint``, what the user should do about a broken file (e.g. "fix the
baseline file (docs/baselines.md)"), and raises :class:`IconbenchError` with the file, the
line where it can be known, and the hint. No traceback for a truncated, binary or missing
file ever reaches the user.
"""

from __future__ import annotations

import json
import os
import pathlib
import tomllib
from typing import Any

from iconbench.errors import IconbenchError


def fail(
    path: str | os.PathLike[str], what: str, hint: str, line: int | None = None
) -> IconbenchError:
    """The error for ``path`` (at ``line``): ``FILE: line N: WHAT; HINT``.

    >>> str(fail("x.json", "invalid JSON (Expecting value)", "fix it", line=3))
    'x.json: line 3: invalid JSON (Expecting value); fix it'
    """
    where = f"{path}: line {line}" if line is not None else f"{path}"
    return IconbenchError(f"{where}: {what}; {hint}" if hint else f"{where}: {what}")


def read_text(path: str | os.PathLike[str], *, hint: str = "") -> str:
    """The UTF-8 text of ``path``; missing, unreadable and binary files are one line.

    >>> read_text("/nonexistent.json", hint="run 'iconbench baseline list'")
    Traceback (most recent call last):
    ...
    iconbench.errors.IconbenchError: /nonexistent.json: cannot read (No such file or directory); \
run 'iconbench baseline list'
    """
    path = pathlib.Path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise fail(path, f"cannot read ({error.strerror or error})", hint) from None
    if b"\0" in data:
        raise fail(path, "is a binary file, not text", hint) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise fail(path, "is not UTF-8 text (a binary file?)", hint, line) from None


def parse_json(text: str, path: str | os.PathLike[str], *, hint: str = "") -> Any:
    """``json.loads`` whose syntax errors (truncation included) name the file and line.

    >>> parse_json('{"a": [1, 2', "r.json", hint="re-run asv")
    Traceback (most recent call last):
    ...
    iconbench.errors.IconbenchError: r.json: line 1: invalid JSON (Expecting ',' delimiter \
column 12, the file may be truncated); re-run asv
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        at_end = error.pos >= len(text.rstrip()) or error.msg.startswith("Unterminated string")
        truncated = ", the file may be truncated" if at_end else ""
        what = f"invalid JSON ({error.msg} column {error.colno}{truncated})"
        raise fail(path, what, hint, error.lineno) from None
    except RecursionError:
        raise fail(path, "invalid JSON (nested too deeply)", hint) from None


def load_json(path: str | os.PathLike[str], *, hint: str = "") -> Any:
    """The JSON value of ``path`` (see :func:`read_text` and :func:`parse_json`)."""
    return parse_json(read_text(path, hint=hint), path, hint=hint)


def load_toml(path: str | os.PathLike[str], *, hint: str = "") -> dict[str, Any]:
    """The TOML table of ``path``; syntax errors name the line."""
    text = read_text(path, hint=hint)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        message = str(error)
        line = None
        if "(at line " in message:
            message, _, rest = message.partition(" (at line ")
            line = int(rest.split(",")[0])
        raise fail(path, f"invalid TOML ({message})", hint, line) from None

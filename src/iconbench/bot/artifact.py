"""The measuring job's artifact, read as untrusted data before anything is posted from it.

The measuring job ran the pull request's code, which could have written any file of its
results folder. The publishing job (``workflow_run``, the default branch's code, with write
rights) reads that folder only through :func:`read`: regular files only, every path inside
the folder with a plain name, a size limit, and a gate summary whose every value is a name,
a number or bounded text, with the fields the comment and the status use checked for type.
A refused artifact is one line naming the file and what is wrong; nothing is posted.

``python -m iconbench.bot.artifact DIR [--head SHA] [--max-bytes N]`` checks a downloaded
artifact (exit 2 with one line when refused).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import pathlib
import re
import sys
from typing import Any

from iconbench.errors import IconbenchError
from iconbench.records.summary import Summary

SUMMARY = "gate-summary.json"
#: the whole artifact, and one JSON file of it
MAX_BYTES = 64 * 2**20
MAX_JSON_BYTES = 16 * 2**20
MAX_FILES = 5000
#: a name (program, variant, backend, metric, kernel, label, file) and a free text's length
MAX_NAME = 300
MAX_TEXT = 20_000
MAX_DEPTH = 32
_PART = re.compile(r"^[A-Za-z0-9_.,+=@\[\]-]{1,200}$")
_SHA = re.compile(r"^[0-9a-f]{7,40}$")
_VERDICTS = frozenset({"pass", "regression", "error", "not comparable"})
#: the fields of a benchmark that are names (one line) and numbers (or null)
_NAMES = ("id", "program", "variant", "backend", "metric", "unit", "verdict")
_NUMBERS = ("threshold", "ratio", "p_value", "q_value")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


@dataclasses.dataclass(frozen=True)
class Artifact:
    """A checked artifact: its folder, its files and their size, and its gate summary."""

    folder: pathlib.Path
    files: tuple[str, ...]
    bytes: int
    summary: Summary

    @property
    def summary_path(self) -> pathlib.Path:
        return self.folder / SUMMARY


def _refuse(where: str, what: str) -> IconbenchError:
    return IconbenchError(f"artifact {where}: {what}; nothing is posted")


def files(folder: pathlib.Path, max_bytes: int = MAX_BYTES) -> tuple[tuple[str, ...], int]:
    """The artifact's files (relative paths) and their total size, or one line why not.

    A symbolic link, a device or a name with a character outside ``[A-Za-z0-9_.,+=@[]-]`` is
    refused, so no path leads out of the folder.
    """
    root = folder.resolve()
    if not root.is_dir():
        raise _refuse(str(folder), "not a folder (was the artifact downloaded?)")
    found, total = [], 0
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        shown = str(relative)[:120]
        if path.is_symlink():
            raise _refuse(shown, "a symbolic link (an artifact holds plain files)")
        if not all(_PART.match(part) and part not in {".", ".."} for part in relative.parts):
            raise _refuse(repr(shown), "a name outside [A-Za-z0-9_.,+=@[]-]")
        if not path.resolve().is_relative_to(root):
            raise _refuse(shown, "leaves the artifact's folder")
        if path.is_dir():
            continue
        if not path.is_file():
            raise _refuse(shown, "not a plain file")
        total += path.stat().st_size
        found.append(relative.as_posix())
        if total > max_bytes:
            raise _refuse(str(folder), f"over {max_bytes} bytes")
        if len(found) > MAX_FILES:
            raise _refuse(str(folder), f"over {MAX_FILES} files")
    return tuple(found), total


def _constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


def _values(value: Any, where: str, depth: int = 0) -> None:
    """Every value is bounded text, a finite number, a bool, null, a list or an object."""
    if depth > MAX_DEPTH:
        raise _refuse(where, f"nested deeper than {MAX_DEPTH}")
    if isinstance(value, dict):
        for key, item in value.items():
            if len(key) > MAX_NAME or _CONTROL.search(key):
                raise _refuse(where, f"a key {key[:40]!r} is not a name")
            _values(item, f"{where}.{key[:40]}", depth + 1)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _values(item, f"{where}[{index}]", depth + 1)
    elif isinstance(value, str):
        if len(value) > MAX_TEXT:
            raise _refuse(where, f"text over {MAX_TEXT} characters")
        if _CONTROL.search(value):
            raise _refuse(where, "text with a control character")
    elif isinstance(value, float) and not math.isfinite(value):
        raise _refuse(where, "not a finite number")
    elif value is not None and not isinstance(value, (bool, int, float)):
        raise _refuse(where, f"a {type(value).__name__}")


def _name(value: Any, where: str) -> None:
    if not isinstance(value, str) or len(value) > MAX_NAME or "\n" in value:
        raise _refuse(where, f"{str(value)[:60]!r} is not a name (one line of text)")


def _number(value: Any, where: str) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
        raise _refuse(where, f"{str(value)[:60]!r} is not a number")


def check_summary(data: Any, where: str = SUMMARY) -> None:
    """The gate summary's shape: the fields the comment and the status read, by type."""
    _values(data, where)
    if not isinstance(data, dict):
        raise _refuse(where, "not a JSON object")
    if (data.get("schema"), data.get("version")) != ("iconbench-gate-summary", 1):
        raise _refuse(where, "not an iconbench gate summary of version 1")
    if data.get("verdict") not in _VERDICTS:
        raise _refuse(f"{where}.verdict", f"{str(data.get('verdict'))[:40]!r} is no verdict")
    for side in ("base", "head"):
        entry = data.get(side)
        if not isinstance(entry, dict) or not _SHA.match(str(entry.get("commit", ""))):
            raise _refuse(f"{where}.{side}.commit", "not a commit (hexadecimal)")
        for key in ("label", "component"):
            _name(entry.get(key, ""), f"{where}.{side}.{key}")
    benchmarks = data.get("benchmarks")
    if not isinstance(benchmarks, list):
        raise _refuse(f"{where}.benchmarks", "not a list")
    for index, bench in enumerate(benchmarks):
        at = f"{where}.benchmarks[{index}]"
        if not isinstance(bench, dict):
            raise _refuse(at, "not an object")
        for key in _NAMES:
            _name(bench.get(key, ""), f"{at}.{key}")
        for key in _NUMBERS:
            _number(bench.get(key), f"{at}.{key}")
        for side in ("base", "head"):
            sample = bench.get(side)
            if sample is not None:
                _number(sample.get("median") if isinstance(sample, dict) else "?", f"{at}.{side}")


def read(folder: pathlib.Path, *, head: str | None = None, max_bytes: int = MAX_BYTES) -> Artifact:
    """The artifact in ``folder``, checked; ``head``: the commit the run was asked to measure."""
    names, total = files(folder, max_bytes)
    if SUMMARY not in names:
        raise _refuse(str(folder), f"no {SUMMARY} (the check did not reach its gate)")
    path = folder / SUMMARY
    if path.stat().st_size > MAX_JSON_BYTES:
        raise _refuse(SUMMARY, f"over {MAX_JSON_BYTES} bytes")
    try:  # read once: the bytes checked here are the bytes the summary is made of
        text = path.read_bytes().decode("utf-8")
        data = json.loads(text, parse_constant=_constant)
    except (ValueError, UnicodeDecodeError) as error:
        raise _refuse(SUMMARY, f"not JSON ({str(error)[:80]})") from None
    check_summary(data)
    if head is not None and not head.startswith(data["head"]["commit"][:7]):
        raise _refuse(f"{SUMMARY}.head.commit", f"{data['head']['commit'][:12]} is not {head[:12]}")
    try:
        summary = Summary.from_json(text, origin=str(path))
    except (IconbenchError, KeyError, TypeError, ValueError) as error:
        raise _refuse(SUMMARY, f"not a gate summary ({str(error)[:100]})") from None
    return Artifact(folder, names, total, summary)


def main(argv: list[str] | None = None) -> int:
    """Check one downloaded artifact: one line on stdout, or one line why not and exit 2."""
    parser = argparse.ArgumentParser(prog="python -m iconbench.bot.artifact")
    parser.add_argument("folder", type=pathlib.Path)
    parser.add_argument("--head", help="the commit the run was asked to measure")
    parser.add_argument("--max-bytes", type=int, default=MAX_BYTES)
    args = parser.parse_args(argv)
    try:
        artifact = read(args.folder, head=args.head, max_bytes=args.max_bytes)
    except IconbenchError as error:
        print(error, file=sys.stderr)
        return 2
    print(
        f"artifact {args.folder}: {len(artifact.files)} files, {artifact.bytes} bytes, "
        f"gate verdict {artifact.summary.verdict}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Writing a runner's output directory: atomic, append-only."""

from __future__ import annotations

import json
import os
import pathlib

from iconbench.errors import IconbenchError


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


def read_summary(path: pathlib.Path) -> dict:
    """A runner's ``summary*.json`` (``iconbench suite asv``), or one line naming the file.

    >>> import tempfile
    >>> bad = pathlib.Path(tempfile.mkdtemp()) / "summary.json"
    >>> _ = bad.write_text("{}")
    >>> try:
    ...     read_summary(bad)
    ... except IconbenchError as error:
    ...     print(str(error).removeprefix(str(bad)))
    : not a runner summary (no 'cases'); 'iconbench suite asv' writes one
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise IconbenchError(
            f"{path}: not a readable runner summary ({error}); 'iconbench suite asv' writes one"
        ) from None
    from iconbench.results import refuse_other_iconbench_file

    refuse_other_iconbench_file(path, data)  # a gate summary named summary-*.json
    if not isinstance(data, dict) or "cases" not in data:
        raise IconbenchError(
            f"{path}: not a runner summary (no 'cases'); 'iconbench suite asv' writes one"
        )
    return data


def recorded_stack(out: pathlib.Path) -> str | None:
    """The stack whose results ``out`` holds: its newest summary's, else its first compile's.

    >>> import tempfile
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> recorded_stack(root) is None
    True
    >>> _ = write_new_or_suffixed(root / "summary.json", '{"stack": "stack-a", "cases": []}')
    >>> recorded_stack(root)
    'stack-a'
    >>> from iconbench.timing.compilation import CompileLedger, CompileRecord
    >>> fresh = pathlib.Path(tempfile.mkdtemp())
    >>> (fresh / "work").mkdir()
    >>> CompileLedger(fresh / "work" / "compile.jsonl").append(
    ...     CompileRecord("a[default]", "gtfn_gpu", "tiny", "stack-b", 1.0))
    >>> recorded_stack(fresh)
    'stack-b'
    """
    summary = newest_summary(out)
    if summary is not None:
        return read_summary(summary).get("stack")
    from iconbench.timing.compilation import CompileLedger

    records = CompileLedger(out / "work" / "compile.jsonl").records()
    return records[0].stack if records else None


def require_stack(out: pathlib.Path, stack: str) -> None:
    """Refuse to add results of ``stack`` to a directory that holds another stack's.

    Its measurement ledger does not tell stacks apart, so the result files written from it
    would give the earlier stack's cases the new stack's name.
    """
    recorded = recorded_stack(out)
    if recorded is not None and recorded != stack:
        raise IconbenchError(
            f"--out {out} holds results of {recorded}, this run is {stack}: "
            "a result directory keeps one stack; give a new --out"
        )

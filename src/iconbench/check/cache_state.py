"""What a check met in the build cache: per side, the builds compiled, found and linked.

A check from an empty build cache and one with every build cached differ by minutes
(docs/pr-check-h100.md), so a row of a results table must say by itself which it was, not by
the order in which the checks ran on their host. ``check.json`` therefore records, per side
(``builds``):

- ``pairs``: the (case, backend) pairs the side precompiled;
- ``compiled``: its builds (libraries; static variants that generate the same code share one)
  made during this check, by either side's precompile;
- ``found``: its builds that were in the cache before the check: entered in the compile index
  (:mod:`iconbench.timing.compile_index`) or loaded through gt4py from a build folder older
  than the check;
- ``linked``: build folders head's cache got from base's
  (:func:`iconbench.stacks.sides.link_builds`; base: 0);
- ``in_measuring``: pairs measured whose build no precompile record of this check names, so
  a measuring process compiled or loaded it itself.

and ``compiled`` over both sides (a build both sides use counted once). A build is "made
during this check" when its library is no older than the precompile's start.
"""

from __future__ import annotations

import dataclasses
import pathlib
from collections.abc import Sequence
from typing import Any

from iconbench.records.compilation import CompileLedger, CompileRecord
from iconbench.stacks.sides import Side, build_cache

#: Slack for the library's modification time against the precompile's start (file systems
#: keep coarser times than ``time.time``).
CLOCK_SLACK_S = 1.0


@dataclasses.dataclass(frozen=True)
class SideBuilds:
    """One side's build-cache state (module docstring); ``libraries`` made during the check."""

    pairs: int
    compiled: int
    found: int
    linked: int
    in_measuring: int
    libraries: frozenset[str] = frozenset()

    def as_dict(self) -> dict[str, int]:
        return {"pairs": self.pairs, "compiled": self.compiled, "found": self.found,
                "linked": self.linked, "in_measuring": self.in_measuring}  # fmt: skip


def records_since(side: Side, since: float) -> list[CompileRecord]:
    """The side's successful precompile records of its stack from ``since`` on."""
    ledger = CompileLedger(side.out / "work" / "compile.jsonl")
    return [r for r in ledger.records()
            if r.stack == side.stack and r.error is None and r.at >= since]  # fmt: skip


def side_builds(side: Side, since: float, *, linked: int = 0) -> SideBuilds:
    """``side``'s build-cache state for a precompile that started at ``since`` (``time.time``).

    >>> import os, tempfile, time
    >>> from iconbench.records.compilation import CompileRecord
    >>> os.environ["ICONBENCH_CACHE_DIR"] = tempfile.mkdtemp()
    >>> side = Side("head", "pr", "c" * 40, (), pathlib.Path(tempfile.mkdtemp()), "s")
    >>> for folder in ("old", "new"):
    ...     (build_cache("s") / folder).mkdir(parents=True)
    ...     (build_cache("s") / folder / "l.so").touch()
    >>> start = time.time()
    >>> os.utime(build_cache("s") / "old" / "l.so", (start - 3600, start - 3600))
    >>> ledger = CompileLedger(side.out / "work" / "compile.jsonl")
    >>> for case, folder in [("a[x=1]", "new"), ("a[x=2]", "new"), ("b[default]", "old")]:
    ...     ledger.append(CompileRecord(case, "gtfn_cpu", "tiny", "s", 9.0, "f",
    ...                                 library=f"{folder}/l.so"))
    >>> side_builds(side, start).as_dict()
    {'pairs': 3, 'compiled': 1, 'found': 1, 'linked': 0, 'in_measuring': 0}
    """
    records = records_since(side, since)
    cache = build_cache(side.stack)
    made, older = set(), set()
    for record in records:
        if record.library is None:
            continue
        if not record.from_index and _made_since(cache / record.library, since):
            made.add(record.library)
        else:
            older.add(record.library)
    precompiled = {(r.case, r.backend) for r in records}
    measured = _measured_pairs(side.out / "work" / "session.jsonl")
    return SideBuilds(
        pairs=len(precompiled),
        compiled=len(made),
        found=len(older - made),
        linked=linked,
        in_measuring=len(measured - precompiled),
        libraries=frozenset(made),
    )


def check_builds(sides: Sequence[SideBuilds], names: Sequence[str]) -> dict[str, Any]:
    """``check.json``'s ``builds``: each side's state, and the builds compiled over both.

    >>> one = SideBuilds(40, 32, 0, 0, 0, frozenset({"a", "b"}))
    >>> check_builds([one, dataclasses.replace(one, libraries=frozenset({"b", "c"}))],
    ...              ["base", "head"])["compiled"]
    3
    """
    both = frozenset().union(*(side.libraries for side in sides))
    return {**{name: side.as_dict() for name, side in zip(names, sides, strict=True)},
            "compiled": len(both)}  # fmt: skip


def _made_since(library: pathlib.Path, since: float) -> bool:
    try:
        return library.stat().st_mtime >= since - CLOCK_SLACK_S
    except OSError:
        return False  # gone since: not a build of this check's to count


def _measured_pairs(path: pathlib.Path) -> set[tuple[str, str]]:
    """The (case, backend) pairs a side's session ledger holds measured."""
    from iconbench.records.session import SessionLedger

    return {(r.case, r.backend) for r in SessionLedger(path).results() if r.measurement}


def longest_builds(sides: Sequence[Side], since: float, count: int = 8) -> list[dict[str, Any]]:
    """The ``count`` longest builds the sides' precompiles made from ``since`` on, by stage.

    What bounds a check's precompile is its longest build, so ``check.json`` names them
    (``longest_builds``) with the seconds of each stage
    (:mod:`iconbench.records.build_stages`).
    """
    from iconbench.records import build_stages

    rows = []
    for side in sides:
        rows += build_stages.longest(records_since(side, since), count, side=side.name)
    return sorted(rows, key=lambda row: row["seconds"], reverse=True)[:count]

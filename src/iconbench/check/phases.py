"""The wall time of each phase of a check, as JSON and as a markdown table.

The figures the docs give for a pull-request check come from here: the whole check, run as a
user runs it, timed phase by phase (``OUT/check.json``, ``OUT/check.md``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import pathlib
import statistics
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from iconbench.files.atomic import write_atomic

#: What a check spends besides measuring (:func:`overhead`), in the order tables show it.
OVERHEAD = ("precompile", "startup", "precompile + startup", "whole")
#: The phases of a check, in order (a phase not run is absent).
PHASES = (
    "select", "environments", "precompile", "verify", "measure", "gate", "why", "comment", "site",
)  # fmt: skip


@dataclasses.dataclass
class Timeline:
    """Phases and their seconds, plus what the check was (written after every phase)."""

    out: pathlib.Path
    facts: dict[str, Any] = dataclasses.field(default_factory=dict)
    seconds: dict[str, float] = dataclasses.field(default_factory=dict)
    started: float = dataclasses.field(default_factory=time.perf_counter)
    #: per phase running, the seconds of the phases run inside it so far
    _inner: list[float] = dataclasses.field(default_factory=list)

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Time one phase; it is recorded even when it fails.

        A phase run inside another (the precompile while the first measuring workers start
        up) counts for itself only: the phases add up to the check's wall time.

        >>> import tempfile
        >>> timeline = Timeline(pathlib.Path(tempfile.mkdtemp()))
        >>> with timeline.phase("measure"):
        ...     with timeline.phase("precompile"):
        ...         time.sleep(0.2)
        >>> timeline.seconds
        {'precompile': 0.2, 'measure': 0.0}
        """
        start = time.perf_counter()
        self._inner.append(0.0)
        try:
            yield
        finally:
            elapsed = time.perf_counter() - start
            self.seconds[name] = round(elapsed - self._inner.pop(), 1)
            if self._inner:
                self._inner[-1] += elapsed
            self.write()

    def as_dict(self) -> dict[str, Any]:
        total = round(time.perf_counter() - self.started, 1)
        return {**self.facts, "phases": dict(self.seconds), "total_s": total}

    def write(self) -> None:
        data = self.as_dict()
        write_atomic(self.out / "check.json", json.dumps(data, indent=1) + "\n")
        write_atomic(self.out / "check.md", table(data))


def table(data: dict[str, Any]) -> str:
    """The markdown table of one check's phases.

    >>> print(table({"phases": {"select": 1.25, "measure": 30.0}, "total_s": 31.3}), end="")
    | phase | wall time |
    | --- | ---: |
    | select | 1.2 s |
    | measure | 30.0 s |
    | **total** | **31.3 s** |
    """
    rows = ["| phase | wall time |", "| --- | ---: |"]
    phases = data.get("phases", {})
    rows += [f"| {name} | {phases[name]:.1f} s |" for name in PHASES if name in phases]
    rows.append(f"| **total** | **{data.get('total_s', 0.0):.1f} s** |")
    return "\n".join(rows + builds_table(data.get("builds", {}))) + "\n"


def overhead(data: Mapping[str, Any]) -> dict[str, float]:
    """What the check of ``data`` (its ``check.json``) spent besides measuring, in seconds.

    The precompile phase, the first block's start-up after it (``measure_split.startup``;
    the workers' imports overlap the precompile, so their sum is the figure to compare
    between two versions of the check) and the whole check.

    >>> overhead({"phases": {"precompile": 3.0}, "measure_split": {"startup": 1.5},
    ...           "total_s": 20.0})
    {'precompile': 3.0, 'startup': 1.5, 'precompile + startup': 4.5, 'whole': 20.0}
    """
    compile_s = float(data.get("phases", {}).get("precompile", 0.0))
    startup_s = float(data.get("measure_split", {}).get("startup", 0.0))
    return dict(zip(OVERHEAD, (compile_s, startup_s, compile_s + startup_s,
                               float(data["total_s"])), strict=True))  # fmt: skip


def overhead_table(
    before: Sequence[Mapping[str, float]], after: Sequence[Mapping[str, float]]
) -> str:
    """The medians of :func:`overhead` of checks ``before`` and ``after`` a change, as markdown.

    >>> def check(precompile, startup, whole):
    ...     return overhead({"phases": {"precompile": precompile},
    ...                      "measure_split": {"startup": startup}, "total_s": whole})
    >>> before = [check(8.0, 2.0, 30.0), check(12.0, 2.0, 34.0), check(10.0, 2.5, 31.0)]
    >>> print(overhead_table(before, [check(4.0, 3.0, 24.0)]), end="")
    | check | before | after | after/before |
    | --- | ---: | ---: | ---: |
    | precompile | 10.0 | 4.0 | 0.40x |
    | startup | 2.0 | 3.0 | 1.50x |
    | precompile + startup | 12.5 | 7.0 | 0.56x |
    | whole | 31.0 | 24.0 | 0.77x |
    """
    rows = ["| check | before | after | after/before |", "| --- | ---: | ---: | ---: |"]
    for metric in OVERHEAD:
        was, now = (statistics.median(run[metric] for run in runs) for runs in (before, after))
        ratio = f"{now / was:.2f}x" if was else "–"
        rows.append(f"| {metric} | {was:.1f} | {now:.1f} | {ratio} |")
    return "\n".join(rows) + "\n"


def builds_table(builds: dict[str, Any]) -> list[str]:
    """What each side met in the build cache (:mod:`iconbench.check.cache_state`), as rows.

    >>> side = {"pairs": 40, "compiled": 32, "found": 0, "linked": 0, "in_measuring": 0}
    >>> for row in builds_table({"base": side, "head": side, "compiled": 64}):
    ...     print(row)
    <BLANKLINE>
    | builds | pairs | compiled | found in the cache | linked from base's | in measuring |
    | --- | ---: | ---: | ---: | ---: | ---: |
    | base | 40 | 32 | 0 | 0 | 0 |
    | head | 40 | 32 | 0 | 0 | 0 |
    | **both** | | **64** | | | |
    """
    if not builds:
        return []
    rows = ["", "| builds | pairs | compiled | found in the cache | linked from base's | "
            "in measuring |", "| --- | ---: | ---: | ---: | ---: | ---: |"]  # fmt: skip
    for name in ("base", "head"):
        side = builds[name]
        rows.append(f"| {name} | {side['pairs']} | {side['compiled']} | {side['found']} | "
                    f"{side['linked']} | {side['in_measuring']} |")  # fmt: skip
    rows.append(f"| **both** | | **{builds['compiled']}** | | | |")
    return rows

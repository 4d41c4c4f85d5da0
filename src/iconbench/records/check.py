"""A check's record: what it compared and the wall time of each phase (``OUT/check.json``).

``iconbench check`` (``ci/pr-check``), ``iconbench continuous``, ``iconbench confirm`` and a
change point's confirmation write it after every phase (:class:`iconbench.check.phases.Timeline`
times them), with its markdown table beside it (``OUT/check.md``); ``--record FILE`` appends
it to a file of checks, one JSON line each, by the ledgers' rule
(:mod:`iconbench.files.ledger`). The figures the docs give for a check come from here
(docs/ci-check.md); :meth:`CheckRecord.read` reads one back, ``perf/check_overhead.py`` compares
what checks spent besides measuring.

>>> import tempfile
>>> out = pathlib.Path(tempfile.mkdtemp())
>>> CheckRecord({"grid": "tiny"}, {"select": 1.25, "measure": 30.0}, 31.3).write(out)
>>> record = CheckRecord.read(out)
>>> record.facts, record.phases["measure"], record.total_s
({'grid': 'tiny'}, 30.0, 31.3)
"""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from iconbench.errors import IconbenchError
from iconbench.files import ledger as lines
from iconbench.files.atomic import write_atomic

#: What a check spends besides measuring (:meth:`CheckRecord.overhead`), in the order shown.
OVERHEAD = ("precompile", "startup", "precompile + startup", "whole")
#: The phases of a check, in order (a phase not run is absent).
PHASES = (
    "select", "environments", "precompile", "verify", "measure", "gate", "why", "comment", "site",
)  # fmt: skip

#: The record's file in a check's output directory, and its table beside it.
NAME, TABLE = "check.json", "check.md"


@dataclasses.dataclass(frozen=True)
class CheckRecord:
    """One check: what it was, each phase's wall seconds (in the order run), the whole's.

    ``facts`` are what the check compared and found (component, refs and commits, grid,
    cases, builds, verdict, counts, exit, ...), written first; ``phases`` and ``total_s``
    follow them in the file.
    """

    facts: dict[str, Any]
    phases: dict[str, float]
    total_s: float

    def as_dict(self) -> dict[str, Any]:
        """The JSON object (``check.json``, a line of a ``--record`` file)."""
        return {**self.facts, "phases": dict(self.phases), "total_s": self.total_s}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CheckRecord:
        """The typed value of an object written by :meth:`as_dict`."""
        facts = {k: v for k, v in data.items() if k not in ("phases", "total_s")}
        return cls(facts, dict(data.get("phases") or {}), float(data["total_s"]))

    def write(self, out: pathlib.Path) -> None:
        """``out/check.json`` and ``out/check.md``, each atomically."""
        data = self.as_dict()
        write_atomic(pathlib.Path(out) / NAME, json.dumps(data, indent=1) + "\n")
        write_atomic(pathlib.Path(out) / TABLE, self.table())

    def append_to(self, path: str | os.PathLike[str]) -> None:
        """Append as one line of a file of checks (:func:`iconbench.files.ledger.append`)."""
        lines.append(path, self.as_dict())

    def table(self) -> str:
        """The markdown table of the check's phases (``check.md``).

        >>> print(CheckRecord({}, {"select": 1.25, "measure": 30.0}, 31.3).table(), end="")
        | phase | wall time |
        | --- | ---: |
        | select | 1.2 s |
        | measure | 30.0 s |
        | **total** | **31.3 s** |
        """
        rows = ["| phase | wall time |", "| --- | ---: |"]
        phases = self.phases
        rows += [f"| {name} | {phases[name]:.1f} s |" for name in PHASES if name in phases]
        rows.append(f"| **total** | **{self.total_s:.1f} s** |")
        if line := host_line(self.facts.get("host") or {}):
            rows += ["", line]
        rows += builds_table(self.facts.get("builds", {}))
        if longest := self.facts.get("longest_builds"):
            from iconbench.records.build_stages import table

            rows += ["", "The longest builds of the check, seconds per stage "
                     "(docs/pr-check-h100.md):", "", table(longest)]  # fmt: skip
        return "\n".join(rows) + "\n"

    def overhead(self) -> dict[str, float]:
        """What the check spent besides measuring, in seconds.

        The precompile phase, the first block's start-up after it (``measure_split.startup``;
        the workers' imports overlap the precompile, so their sum is the figure to compare
        between two versions of the check) and the whole check.

        >>> CheckRecord({"measure_split": {"startup": 1.5}}, {"precompile": 3.0}, 20.0).overhead()
        {'precompile': 3.0, 'startup': 1.5, 'precompile + startup': 4.5, 'whole': 20.0}
        """
        compile_s = float(self.phases.get("precompile", 0.0))
        startup_s = float(self.facts.get("measure_split", {}).get("startup", 0.0))
        return dict(zip(OVERHEAD, (compile_s, startup_s, compile_s + startup_s,
                                   float(self.total_s)), strict=True))  # fmt: skip

    @classmethod
    def read(cls, out: pathlib.Path) -> CheckRecord:
        """The record of the check whose output directory is ``out``; one line if it has none."""
        path = pathlib.Path(out) / NAME
        try:
            return cls.from_dict(json.loads(path.read_text(encoding="utf-8")))
        except FileNotFoundError:
            raise IconbenchError(
                f"{path}: no check record; give the --out directory of 'iconbench check'"
            ) from None
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
            raise IconbenchError(f"{path}: not a check record ({error})") from None


def host_line(host: Mapping[str, Any]) -> str:
    """The host in one line of ``check.md``: its CPU, and how fast it ran Python when.

    A row of a results table is reproducible on a host as fast as its own, under the
    precompile's load above all (:mod:`iconbench.timing.host_speed`).

    >>> import textwrap
    >>> line = host_line({"cpu": "Xeon", "cores": 16, "python_us": 24.5,
    ...                   "precompile_python_us": {"median": 36.1, "quartiles": [30.2, 41.0],
    ...                                            "samples": 90}})
    >>> print(textwrap.fill(line, 90))
    Host: Xeon, 16 cores; Python's reference work 24.5 µs at the start, 36.1 µs during the
    precompile (median of 90 samples, quartiles 30.2-41.0 µs).
    >>> host_line({"cpu": "Xeon", "cores": 16, "python_us": 24.5})  # a record from before
    ''
    """
    during = host.get("precompile_python_us")
    if not during:
        return ""  # as checks before 08725b8 wrote their table: read and written again the same
    low, high = during["quartiles"]
    speeds = [f"{during['median']} µs during the precompile (median of {during['samples']} "
              f"samples, quartiles {low}-{high} µs)"]  # fmt: skip
    if (start := host.get("python_us")) is not None:
        speeds.insert(0, f"{start} µs at the start")
    return (f"Host: {host.get('cpu') or 'CPU not known'}, {host.get('cores', '?')} cores; "
            f"Python's reference work {', '.join(speeds)}.")  # fmt: skip


def overhead_table(
    before: Sequence[Mapping[str, float]], after: Sequence[Mapping[str, float]]
) -> str:
    """The medians of :meth:`CheckRecord.overhead` of checks ``before`` and ``after``, as markdown.

    >>> def check(precompile, startup, whole):
    ...     split = {"measure_split": {"startup": startup}}
    ...     return CheckRecord(split, {"precompile": precompile}, whole).overhead()
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

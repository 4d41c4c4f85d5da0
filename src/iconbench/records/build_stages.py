"""A check's longest builds and the seconds of each stage, as rows and a markdown table.

The precompile's worker times each build's stages (:mod:`iconbench.timing.compile_stages`),
the compile ledger keeps them (``CompileRecord.stages``), and a check's record names its
longest builds with them (``check.json``'s ``longest_builds``, ``check.md``): what a check's
precompile waits on is its longest build.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

#: The stages in the order a build passes them (``other`` is what is left).
STAGES = ("gt4py passes", "lowering", "dace passes", "code generation", "cmake", "compile",
          "nvcc", "host compiler", "link", "other")  # fmt: skip


def with_other(found: Mapping[str, float], *, total: float) -> dict[str, float]:
    """The stages timed, in :data:`STAGES`' order, and ``other``: ``total`` seconds none took.

    >>> with_other({"nvcc": 20.0, "dace passes": 120.0, "lowering": 0.0}, total=150.0)
    {'dace passes': 120.0, 'nvcc': 20.0, 'other': 10.0}
    """
    kept = {stage: round(found[stage], 2) for stage in STAGES if found.get(stage)}
    kept["other"] = round(max(0.0, total - sum(kept.values())), 2)
    return kept


def longest(records: Iterable[Any], count: int = 8, **also: str) -> list[dict[str, Any]]:
    """The ``count`` longest builds of compile records, as rows of :func:`table`.

    Builds found in a cache and failed compiles are no builds; ``also`` goes into every row
    (``side="head"``).

    >>> from iconbench.records.compilation import CompileRecord
    >>> records = [CompileRecord("a", "gtfn_gpu", "g", "s", 60.0, stages={"nvcc": 50.0}),
    ...            CompileRecord("b", "dace_gpu", "g", "s", 150.0),
    ...            CompileRecord("c", "dace_gpu", "g", "s", 300.0, from_index=True)]
    >>> [(row["case"], row["seconds"]) for row in longest(records, 2, side="head")]
    [('b', 150.0), ('a', 60.0)]
    """
    built = [r for r in records if r.error is None and not r.from_index]
    built.sort(key=lambda r: r.seconds, reverse=True)
    return [{**also, "case": r.case, "backend": r.backend, "seconds": round(r.seconds, 1),
             "stages": dict(r.stages or {})} for r in built[:count]]  # fmt: skip


def table(rows: Sequence[Mapping[str, Any]]) -> str:
    """Builds (rows of :func:`longest`) with their seconds per stage, as a markdown table.

    A build timed before builds were timed by stage shows its seconds only.

    >>> rows = [{"side": "head", "case": "p[x=1]", "backend": "dace_gpu", "seconds": 150.0,
    ...          "stages": {"dace passes": 120.0, "nvcc": 20.0, "other": 10.0}},
    ...         {"side": "base", "case": "q", "backend": "gtfn_gpu", "seconds": 60.0}]
    >>> lines = table(rows).splitlines()
    >>> lines[0][:51]
    '| side | build | backend | seconds | gt4py passes |'
    >>> for line in lines[2:]:
    ...     print(line)
    | head | p[x=1] | dace_gpu | 150.0 | – | – | 120.0 | – | – | – | 20.0 | – | – | 10.0 |
    | base | q | gtfn_gpu | 60.0 |  |  |  |  |  |  |  |  |  |  |
    """
    lines = ["| side | build | backend | seconds | " + " | ".join(STAGES) + " |",
             "| --- | --- | --- | ---: | " + " | ".join("---:" for _ in STAGES) + " |"]  # fmt: skip
    for row in rows:
        stages = row.get("stages") or {}
        cells = [(f"{stages[s]:.1f}" if s in stages else "–") if stages else "" for s in STAGES]
        lines.append(f"| {row.get('side', '')} | {row['case']} | {row['backend']} | "
                     f"{row['seconds']:.1f} | " + " | ".join(cells) + " |")  # fmt: skip
    return "\n".join(lines)

"""results/pr-check-h100/README.md's heavy check at a81e12e: the H200 records' (pr-check-h200).

Its results table and A/As are held to the records by tests/check/test_pr_check_h100_doc.py
with the other hosts' tables; here: the tables of the longest builds are the ledgers'
(``check.json``'s ``longest_builds``, and the builds alone, ``work/compile.jsonl``, as
:func:`iconbench.records.build_stages.longest` ranks them), and the goals' row names the three
checks and the floor. A figure changed in the doc without a
record behind it, or a record replaced without the doc, fails here.
"""

from __future__ import annotations

import json
import pathlib
import re

from tests.archived_results import restored

from iconbench.records import build_stages
from iconbench.records.compilation import CompileLedger

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOC = (ROOT / "results" / "pr-check-h100" / "README.md").read_text()
RECORDS = ROOT / "results" / "pr-check-h200"
SECTION = DOC[DOC.index("## The heavy check at a81e12e") : DOC.index("## The A/A of the check")]


def _check(state: str) -> dict:
    return json.loads((RECORDS / f"icon4py-1405-{state}-2026-11-28" / "check.json").read_text())


def _alone() -> CompileLedger:
    """The 8 builds alone: their compile ledger."""
    folder = restored("results/pr-check-h200") / "compile-stages-alone-2026-11-28"
    return CompileLedger(folder / "work" / "compile.jsonl")


def _stage_cells(row: dict, stages: tuple[str, ...]) -> str:
    return " | ".join(f"{row['stages'][s]:.1f}" if s in row["stages"] else "–" for s in stages)


def test_the_longest_builds_are_the_ledgers():
    after = (
        "gt4py passes", "lowering", "dace passes", "code generation", "nvcc", "host compiler",
        "link", "other",
    )  # fmt: skip
    for row in _check("main")["longest_builds"]:
        variant = row["case"][row["case"].index("[") :]
        line = (f"| `{variant}` | {row['backend']} | {row['seconds']:.1f} | "
                f"{_stage_cells(row, after)} |")  # fmt: skip
        assert line in SECTION, line
    alone = _alone()
    stages = ("gt4py passes", "lowering", "dace passes", "code generation", "cmake", "nvcc",
              "host compiler", "other")  # fmt: skip
    rows = build_stages.longest(alone.records(), 8)
    assert len(rows) == 8
    for row in rows:
        variant = row["case"][row["case"].index("[") :]
        line = (f"| `{variant}` | {row['backend']} | {row['seconds']:.1f} | "
                f"{_stage_cells(row, stages)} |")  # fmt: skip
        assert line in SECTION, line


def test_the_goals_row_names_the_three_wholes():
    goals = next(line for line in DOC.splitlines() if line.startswith("| icon4py #1405 on one GPU"))
    for state in ("empty", "main", "rerun"):
        assert f"**{_check(state)['total_s']:.1f} s**" in goals
    alone = _alone()
    longest = max(record.seconds for record in alone.records())
    assert re.search(rf"alone takes {longest:.1f} s", goals)

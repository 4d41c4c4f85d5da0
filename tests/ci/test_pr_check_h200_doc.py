"""docs/pr-check-h100.md's heavy check at a81e12e: the H200 records' (results/pr-check-h200).

Each row of its table is its check's ``check.json`` (phases, the measure split, blocks, the
whole check, the verdict's counts); the tables of the longest builds are the ledgers'
(``check.json``'s ``longest_builds``, and the builds alone, ``work/compile.jsonl``), rendered
by :func:`iconbench.timing.compile_stages.longest`. A figure changed in the doc without a
record behind it, or a record replaced without the doc, fails here.
"""

from __future__ import annotations

import json
import pathlib
import re

import pytest
from tests.archived_results import restored

from iconbench.records.compilation import CompileLedger
from iconbench.timing import compile_stages

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "pr-check-h100.md").read_text()
RECORDS = ROOT / "results" / "pr-check-h200"
SECTION = DOC[DOC.index("## The heavy check at a81e12e") : DOC.index("## The A/A of the check")]


def _check(state: str) -> dict:
    return json.loads((RECORDS / f"icon4py-1405-{state}-2026-11-28" / "check.json").read_text())


@pytest.mark.parametrize("state", ["empty", "rerun", "main"])
def test_each_row_is_its_checks_record(state):
    check = _check(state)
    row = next(line for line in SECTION.splitlines() if f"icon4py-1405-{state}-2026-11-28`" in line)
    phases, split = check["phases"], check["measure_split"]
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[2:5] == [f"{phases[p]:.1f} s" for p in ("select", "environments", "precompile")]
    assert cells[5] == (
        f"{phases['measure']:.1f} s ({split['startup']:.1f} / {split['measuring']:.1f} / "
        f"{split['deciding']:.1f}), {check['blocks']} blocks"
    )
    assert cells[6:8] == [f"{phases['gate']:.1f} s", f"{phases['why']:.1f} s"]
    assert cells[8] == f"**{check['total_s']:.1f} s**"
    counts = check["counts"]
    assert (counts["regression"], counts["improvement"]) == (4, 0)
    assert f"{counts['unchanged']} unchanged, {counts['inconclusive']} inconclusive" in cells[9]


def test_the_flagged_are_four_gtfn_device_times_in_every_state():
    records = restored("results/pr-check-h200")
    for state in ("empty", "rerun", "main"):
        summary = json.loads(
            (records / f"icon4py-1405-{state}-2026-11-28" / "gate-summary.json").read_text()
        )
        flagged = [b for b in summary["benchmarks"] if b["verdict"] == "regression"
                   and b["id"].endswith("device_time")]  # fmt: skip
        assert sorted(b["id"].split("|")[1] for b in flagged) == ["gtfn_gpu"] * 4
        assert {b["id"].split("[")[0] for b in flagged} == {"compute_rho_theta_pgrad_and_update_vn"}


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
    rows = compile_stages.longest(alone.records(), 8)
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

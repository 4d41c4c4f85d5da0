"""docs/upstream-releases.md is the committed release-history runs' (results/upstream-releases-*).

Each table is ``iconbench releases table`` of its record rebuilt from the archived runs and
A/Bs; the figures of "What the releases did" are those A/Bs' and comparisons' numbers, and the
wall times the records' ``phases.jsonl``. A figure changed in the doc without a run behind it,
or a run replaced without the doc, fails here.
"""

from __future__ import annotations

import json
import pathlib
import re

import pytest
from tests.archived_results import restored

from iconbench.history import releases
from iconbench.records.summary import CONFIRMED, Summary

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "upstream-releases.md").read_text(encoding="utf-8")
#: the doc's prose on one line (its lists wrap and indent)
TEXT = " ".join(DOC.split())
RECORDS = (
    "results/upstream-releases-h100",
    "results/upstream-releases-h200-dycore",
    "results/upstream-releases-velocity",
    "results/upstream-releases-solve-nh",
)
DACE_A7 = "gt4py-1.2.1_dace-2.0.0a6--gt4py-1.2.1_dace-2.0.0a7"
DECLARED = "gt4py-1.2.1_dace-2.0.0a6--gt4py-1.2.2_dace-2.0.0a7"
CASE = "apply_diffusion_to_theta_and_exner[apply_zdiffusion_t=True]|dace_gpu|device_time"


@pytest.mark.parametrize("record", RECORDS)
def test_each_table_is_its_record_rebuilt(record):
    made = releases.Plan.read(restored(record))
    table = releases.table(made)
    assert table == (ROOT / record / "table.md").read_text(encoding="utf-8")
    assert table in DOC
    assert len(made.steps) == 8
    assert len(made.stacks) == 7


def _confirmations(record: str) -> list[tuple[str, str, float, tuple[float, float], str]]:
    found = []
    for path in sorted((restored(record) / "steps").glob("*/confirmed.json")):
        for b in Summary.read(path).benchmarks:
            if b.confirmation is not None:
                c = b.confirmation
                found.append((path.parent.name, b.id, c.ratio, tuple(c.ratio_ci), c.verdict))
    return found


def test_the_dace_a7_change_is_the_records():
    found = {(step, bench): (ratio, ci, verdict)
             for step, bench, ratio, ci, verdict in _confirmations(RECORDS[0])}  # fmt: skip
    ratio, ci, verdict = found[(DACE_A7, CASE)]
    assert verdict == CONFIRMED
    assert f"1.036 [{ci[0]:.3f}, {ci[1]:.3f}] (4 + 4 processes)" in TEXT
    assert f"{ratio:.3f}" == "1.036"
    compared = Summary.read(restored(RECORDS[0]) / "steps" / DACE_A7 / "compare.json")
    between = next(b.ratio for b in compared.benchmarks if b.id == CASE)
    assert f"{between:.3f} between the two runs" in TEXT
    ratio, ci, verdict = found[(DECLARED, CASE)]
    assert verdict == CONFIRMED
    assert f"{ratio:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]" in DOC


def test_the_solver_changes_of_dace_a7_are_the_records():
    found = {(step, bench.split("[")[0], round(ratio, 3)): (ci, verdict)
             for step, bench, ratio, ci, verdict in _confirmations(RECORDS[3])}  # fmt: skip
    text = TEXT
    for step in (DACE_A7, DECLARED):
        ratios = sorted(r for s, b, r in found if s == step)
        assert len(ratios) == 2
        for ratio in ratios:
            ci, verdict = found[(step, "vertically_implicit_solver_at_corrector_step", ratio)]
            assert verdict == CONFIRMED
            assert f"{ratio:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]" in text


def test_noise_counts_and_wall_times_are_the_records():
    text = TEXT
    noise = [sum(v != CONFIRMED for *_, v in _confirmations(r)) for r in RECORDS]
    assert f"noise by its A/B: {noise[0]} on the H100, {noise[1]} on the H200" in text
    assert f"and {noise[2] + noise[3]} on the four H200s" in text
    # the four-H200 histories' two calls each: the first stopped by its timeout (no phases
    # line; its README says when), the second's time in phases.jsonl; the doc gives both pairs
    # in the records' order
    stopped, finished = [], []
    for record in RECORDS[2:]:
        readme = (ROOT / record / "README.md").read_text(encoding="utf-8")
        stopped.append(re.search(r"stopped at (\d+ s) by its timeout", readme).group(1))
        (last,) = [
            json.loads(line) for line in (ROOT / record / "phases.jsonl").read_text().splitlines()
        ]
        finished.append(f"{last['seconds']:.1f} s")
    assert f"stopped it ({stopped[0]} and {stopped[1]})" in text
    assert f"A/Bs ({finished[0]} and {finished[1]})" in text
    phases = [json.loads(line) for line in
              (ROOT / RECORDS[0] / "phases.jsonl").read_text().splitlines()]  # fmt: skip
    assert [p["options"] for p in phases] == ["--until measure", ""]
    assert f"measure`: {phases[0]['seconds']:.1f} s" in text
    assert f"`ci/gpu/upstream-releases OUT`: {phases[1]['seconds']:.1f} s" in text
    last = json.loads((ROOT / RECORDS[1] / "phases.jsonl").read_text().splitlines()[-1])
    assert f"the second ({last['seconds']:.1f} s)" in text
    for record in RECORDS:
        for run in (restored(record) / "runs").glob("*/summary.json"):
            summary = json.loads(run.read_text())
            gpu = summary["provenance"]["gpu"]["name"]
            assert ("H100" in gpu) == record.endswith("h100")
            packages = summary["provenance"]["packages"]
            assert run.parent.name == f"gt4py-{packages['gt4py']}_dace-{packages['dace']}"

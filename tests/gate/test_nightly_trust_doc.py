"""results/nightly-trust-h100/README.md's tables are the summaries of the runs they name.

Each row of the same-code table and of the planted-steps table is read back from the compare
and confirmation summaries of ``results/nightly-trust-h100/2026-11-27c`` (restored from git
history), so an edited figure or a re-run that measured otherwise fails here.
"""

from __future__ import annotations

import re

import pytest
from tests.archived_results import REPO, restored

from iconbench.records.summary import BenchmarkResult, Summary

RUN = "results/nightly-trust-h100/2026-11-27c"
DOC = (REPO / "results" / "nightly-trust-h100" / "README.md").read_text()


def _summary(name: str) -> Summary:
    return Summary.read(restored(RUN) / "compare" / name)


def _device_time(summary: Summary, program: str, backend: str) -> BenchmarkResult:
    (found,) = (
        b
        for b in summary.benchmarks
        if (b.program, b.backend, b.metric) == (program, backend, "device_time")
    )
    return found


def _flagged(summary: Summary) -> list[str]:
    return sorted(
        f"{b.program} {b.backend} {b.metric}"
        for b in summary.benchmarks
        if b.gated and b.verdict in ("regression", "improvement")
    )


def test_same_code_row_is_the_three_compares() -> None:
    (row,) = (line for line in DOC.splitlines() if line.endswith(f"`{RUN}` |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    for pair, cell in zip(("1-2", "2-3", "1-3"), cells[1:4], strict=True):
        summary = _summary(f"{pair}.json")
        gated = sum(1 for b in summary.benchmarks if b.gated and b.metric == "device_time")
        assert summary.verdict == "pass"
        assert _flagged(summary) == []
        assert cell == f"pass, {gated} unchanged"


@pytest.mark.parametrize(
    ("pair", "backend", "label", "flagged"),
    [
        ("3-4", "gtfn_gpu", "two square roots", ["gtfn_gpu"]),
        ("3-6", "gtfn_gpu", "four square roots", ["dace_gpu", "gtfn_gpu"]),
        ("3-6", "dace_gpu", "four square roots", ["dace_gpu", "gtfn_gpu"]),
    ],
)
def test_planted_step_rows_are_the_compare_and_its_confirmation(
    pair: str, backend: str, label: str, flagged: list[str]
) -> None:
    benchmark = _device_time(_summary(f"{pair}.confirmed.json"), "compute_tangential_wind", backend)
    assert benchmark.verdict == "regression"
    assert benchmark.confirmation.confirmed
    block = DOC[DOC.index(label) :]
    row = next(line for line in block.splitlines() if f"compute_tangential_wind, {backend}" in line)
    assert f"regression x{benchmark.ratio:.3f}" in row
    assert benchmark.confirmation.describe() in row  # "confirmed: 1.122x [1.112, 1.131], ..."
    # nothing else of that night was flagged: the plant alone is what the nightly reports
    assert _flagged(_summary(f"{pair}.json")) == [
        f"compute_tangential_wind {b} device_time" for b in flagged
    ]


def test_the_plus_ten_percent_plant_is_reported_alone() -> None:
    summary = _summary("3-4.confirmed.json")
    gtfn = _device_time(summary, "compute_tangential_wind", "gtfn_gpu")
    dace = _device_time(summary, "compute_tangential_wind", "dace_gpu")
    assert 1.08 < gtfn.ratio < 1.16
    assert gtfn.confirmation.confirmed
    assert dace.verdict == "unchanged"
    assert f"unchanged x{dace.ratio:.3f}" in DOC
    report = (REPO / RUN / "compare" / "3-4.report.txt").read_text()
    assert report.startswith("1 change reported, 0 not confirmed")
    assert re.search(r"gtfn_gpu device_time: x1\.117 .*A/B confirmed: 1\.122x", report)


def test_the_plant_without_a_step_flags_nothing() -> None:
    summary = _summary("3-5.json")
    assert summary.verdict == "pass"
    assert _flagged(summary) == []
    ratios = {
        b: _device_time(summary, "compute_tangential_wind", b).ratio
        for b in ("gtfn_gpu", "dace_gpu")
    }
    assert f"gtfn_gpu x{ratios['gtfn_gpu']:.3f}, dace_gpu x{ratios['dace_gpu']:.3f}" in DOC

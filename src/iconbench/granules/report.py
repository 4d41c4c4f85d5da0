"""Markdown report of granule results (``reporting/granules.md.j2``): results/h100/granules/."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from iconbench.baselines.format import Baseline
from iconbench.granules.comparison import BackendComparison
from iconbench.granules.results import GranuleResults


def render_markdown(
    baseline: Baseline,
    comparisons: Sequence[BackendComparison],
    results: Sequence[GranuleResults],
) -> str:
    """The report text: per backend the cases, overhead share, speed-ups and call counts."""
    from iconbench.timing.report import render

    return render(
        "granules.md.j2",
        {
            "baseline": baseline,
            "comparisons": comparisons,
            "results": results,
            "files": [r.path.name for r in results],
        },
    )


def write(text: str, out: Path) -> None:
    """Write the report atomically (a report is regenerated, so it may replace the old one)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=out.parent, prefix=".report-", suffix=".tmp")
    with os.fdopen(handle, "w") as stream:
        stream.write(text)
    os.replace(temporary, out)

"""Three separate runs of the same code on a CPU, compared pairwise, report no change.

Device time on a CPU moves between processes of unchanged code (a 2-core workstation:
0.0006x to 1.26x between separate runs, results/cpu-separate-runs-2026-11-28), so two
separate runs judge it only against a history (gate.config's ``history_only``), as they do
host overhead. Each run is its own
``iconbench suite all`` process, as a user or a nightly runs it; ``-m slow`` (about a minute
with the builds cached, three more minutes without).
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys

import pytest

from iconbench.cli import main

pytestmark = pytest.mark.slow

PROGRAMS = "^(compute_airmass|calculate_nabla4|compute_tangential_wind)\\["


def test_three_separate_cpu_runs_of_the_same_code_report_no_change(tmp_path, capsys):
    runs = []
    for number in (1, 2, 3):
        out = tmp_path / f"run{number}"
        subprocess.run([sys.executable, "-m", "iconbench", "suite", "all", "--out", str(out),
                        "--backends", "gtfn_cpu,embedded", "--programs", PROGRAMS,
                        "--grid", "tiny"], check=True, capture_output=True)  # fmt: skip
        runs.append(out)
    for base, head in itertools.combinations(runs, 2):
        summary_path = tmp_path / f"{base.name}-{head.name}.json"
        assert main(["compare", str(base), str(head), "--out", str(summary_path)]) == 0
        summary = json.loads(summary_path.read_text())
        assert summary["counts"]["regression"] == summary["counts"]["improvement"] == 0
        device = [b for b in summary["benchmarks"] if b["metric"] == "device_time"]
        assert len(device) == 6
        assert all(b["verdict"] == "inconclusive" and not b["gated"] for b in device)
        assert all("on a CPU moves beyond its threshold" in " ".join(b["notes"]) for b in device)
        # device time and host overhead of each case: not judged, and the table's last line
        # says so
        last = capsys.readouterr().out.strip().splitlines()[-1]
        assert last.startswith("PASS: 9 not judged between separate runs"), last

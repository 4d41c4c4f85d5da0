"""The release-history road on a CPU runner: plan, run (measure, compare, confirm), table.

Three real stacks from the package index (gt4py 1.2.1 + dace 2.0.0a6, the pinned one; dace
2.0.0a10 alone; gt4py 1.2.3 with the dace it declares), one program on embedded and gtfn_cpu
on the tiny grid: gt4py 1.2.3 cannot make gtfn_cpu with icon4py 0.4.1, which the table names
as the break of its steps, while embedded is measured, compared and confirmed on all three.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from iconbench.buildcache import REPO_ROOT

pytestmark = pytest.mark.slow


def test_release_history_on_cpu(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GT4PY_")}
    env |= {"ICONBENCH_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(REPO_ROOT / "src")}
    out = tmp_path / "releases"

    def iconbench(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "iconbench", "releases", *args, "--out",
                               str(out)], env=env, capture_output=True, text=True, check=False,
                              timeout=1200)  # fmt: skip

    planned = iconbench("plan", "--gt4py", "1.2.1,1.2.3", "--dace", "2.0.0a6,2.0.0a10",
                        "--backends", "embedded,gtfn_cpu", "--programs",
                        "^compute_tangential_wind\\[", "--grid", "tiny")  # fmt: skip
    if planned.returncode != 0 and "could not be fetched" in planned.stderr:
        pytest.skip(f"the package index is out of reach: {planned.stderr.strip()}")
    assert planned.returncode == 0, planned.stderr
    assert planned.stdout.strip() == f"3 steps over 3 stacks: {out / 'plan.json'}"
    done = iconbench("run", "--quick")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:3] == [
        "gt4py-1.2.1_dace-2.0.0a6: done",
        "gt4py-1.2.1_dace-2.0.0a10: done",
        "gt4py-1.2.3_dace-2.0.0a10: broken",
    ]
    table = (out / "table.md").read_text()
    rows = [line for line in table.splitlines() if line.startswith("| dace") or
            line.startswith("| gt4py")]  # fmt: skip
    assert [r.split(" | ")[0] for r in rows] == [
        "| dace 2.0.0a6 → 2.0.0a10 (gt4py 1.2.1)",
        "| gt4py 1.2.1 → 1.2.3 (dace 2.0.0a10)",
        "| gt4py 1.2.1 → 1.2.3 + dace 2.0.0a6 → 2.0.0a10",
    ]
    assert [r.split(" | ")[1] for r in rows] == ["2", "1", "1"]  # gtfn_cpu gone on 1.2.3
    assert rows[0].split(" | ")[2] == "no"
    assert "icon4py's code fails on 'GTFNBackendFactory' of gt4py" in rows[1]
    assert all(r.endswith("| confirmed |") for r in rows)
    broken = json.loads((out / "runs" / "gt4py-1.2.3_dace-2.0.0a10" / "summary.json").read_text())
    assert list(broken["broken"]) == ["gtfn_cpu"]
    again = iconbench("run", "--quick")  # resumes: nothing is measured again
    assert again.returncode == 0
    assert "measuring" not in again.stderr

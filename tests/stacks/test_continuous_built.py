"""The built-environment path with a toy component: a commit that fails to build.

The repository says it is gt4py (a tiny hatchling project), so asv builds an
``iconbench-uv`` environment without gt4py, builds and installs each commit, and runs a
pure-Python suite (no gt4py import: seconds, not minutes). The head commit breaks the build:
every benchmark of it must be reported as ``failed`` with a message naming the component and
the commit, while the base is measured normally.
"""

import json
import subprocess
import sys
from pathlib import Path

ICONBENCH = Path(sys.executable).with_name("iconbench")
PYPROJECT = """[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "gt4py"
version = "1.2.1"

[tool.hatch.build.targets.wheel]
packages = ["toy_gt4py"]
"""
SUITE = """
import importlib.metadata


class Installed:
    def time_metadata(self):
        importlib.metadata.version("gt4py")

    def track_installed_from_commit(self):
        return 1.0
"""


def test_failed_build_is_reported_as_failed(tmp_path, run_git):
    repo = tmp_path / "gt4py"
    (repo / "toy_gt4py").mkdir(parents=True)
    (repo / "toy_gt4py" / "__init__.py").write_text("")
    (repo / "pyproject.toml").write_text(PYPROJECT)
    run_git(repo, "init", "-q", "-b", "main")
    run_git(repo, "add", "-A", ".")
    run_git(repo, "commit", "-q", "-m", "toy")
    run_git(repo, "checkout", "-q", "-b", "broken")
    (repo / "pyproject.toml").write_text(PYPROJECT.replace('version = "1.2.1"', "version = ["))
    run_git(repo, "commit", "-q", "-am", "broken build")
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "__init__.py").write_text("")
    (suite / "bench_installed.py").write_text(SUITE)

    report_file = tmp_path / "report.json"
    command = [
        str(ICONBENCH), "continuous", "main", "broken", "--repo", str(repo),
        "--benchmark-dir", str(suite), "--asv-dir", str(tmp_path / "asv"),
        "--out", str(report_file),
        "--asv-arg=-a", "--asv-arg=rounds=1", "--asv-arg=-a", "--asv-arg=repeat=(3,5,1.0)",
    ]  # fmt: skip
    out = subprocess.run(command, capture_output=True, text=True, timeout=900, check=False)
    assert out.returncode == 1, out.stdout[-3000:] + out.stderr[-3000:]
    head = run_git(repo, "rev-parse", "broken")
    assert f"iconbench: building gt4py at {head[:12]} (.) failed" in out.stdout + out.stderr
    report = json.loads(report_file.read_text())
    verdicts = {
        c["benchmark"].rsplit(".", 1)[1]: (c["verdict"], c["head"]) for c in report["changes"]
    }
    assert verdicts == {
        "time_metadata": ("failed", None),
        "track_installed_from_commit": ("failed", None),
    }
    assert all(c["base"] is not None and c["base"] > 0 for c in report["changes"])
    assert "failed" in out.stdout

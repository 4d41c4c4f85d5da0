"""asv's own path with an environment built per commit: a commit that fails to build.

``asv continuous`` with a config iconbench writes for a checkout (``iconbench-uv``
environments, what ``iconbench bisect --environment build`` and the upstream configs use).
The repository says it is gt4py (a tiny hatchling project), so asv builds an environment
without gt4py, builds and installs each commit, and runs a pure-Python suite (no gt4py
import: seconds, not minutes). The head commit breaks the build: the build names the
component and the commit, and asv records no value for any benchmark of it, while the base
is measured normally.
"""

import subprocess
import sys

from iconbench.bisection.find import load_results, machine_name
from iconbench.stacks import asvconf

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

    config = asvconf.write_for_checkout("gt4py", repo, tmp_path / "asv", suite)
    asv = [sys.executable, "-m", "asv"]
    machine = machine_name(asv, config)
    command = [*asv, "continuous", "--config", str(config), "--machine", machine,
               "--show-stderr", "-a", "rounds=1", "-a", "repeat=(3,5,1.0)",
               "main", "broken"]  # fmt: skip
    out = subprocess.run(command, capture_output=True, text=True, timeout=900, check=False)
    head = run_git(repo, "rev-parse", "broken")
    assert f"iconbench: building gt4py at {head[:12]} (.) failed" in out.stdout + out.stderr
    results = tmp_path / "asv" / "results"
    base = load_results(results, machine, run_git(repo, "rev-parse", "main"))
    assert {name.rsplit(".", 1)[1] for name in base} == {
        "time_metadata", "track_installed_from_commit"
    }  # fmt: skip
    assert all(value is not None and value > 0 for value in base.values()), base
    assert all(value is None for value in load_results(results, machine, head).values())

"""ci/ensure-env takes Python 3.12 (the default) or 3.13, named by ICONBENCH_PYTHON."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _ensure(tmp_path: pathlib.Path, python: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ICONBENCH_PYTHON": python, "ICONBENCH_VENV": str(tmp_path / "venv")}
    return subprocess.run([str(ROOT / "ci" / "ensure-env")], env=env, capture_output=True,
                          text=True, check=False)  # fmt: skip


@pytest.mark.parametrize(
    ("python", "line"),
    [
        ("/nonexistent/python3", "ICONBENCH_PYTHON=/nonexistent/python3: no such interpreter; "
         "name 3.12, 3.13, a command or a path"),
        ("3.11", "ICONBENCH_PYTHON=3.11: no such interpreter; name 3.12, 3.13, a command or a "
         "path"),
    ],
)  # fmt: skip
def test_an_interpreter_it_cannot_use_is_one_line(tmp_path, python, line):
    done = _ensure(tmp_path, python)
    assert done.returncode == 2
    assert done.stderr == f"ensure-env: {line}\n"
    assert not (tmp_path / "venv").exists()


def test_another_python_version_is_refused_by_its_version(tmp_path):
    other = next(
        (p for p in ("python3.11", "python3.10", "python3.9") if subprocess.run(
            ["sh", "-c", f"command -v {p}"], capture_output=True, check=False).returncode == 0),
        None,
    )  # fmt: skip
    if other is None:
        pytest.skip("no Python other than 3.12 and 3.13 on this machine")
    done = _ensure(tmp_path, other)
    assert done.returncode == 2
    assert done.stderr.endswith("; iconbench runs on 3.12 or 3.13\n")
    assert done.stderr.count("\n") == 1


def test_an_environment_of_another_version_than_asked_is_not_reused(tmp_path):
    """A 3.12 environment asked to be 3.13 (or the reverse): removed by hand or named apart."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(sys.executable)  # this test's Python: 3.12 or 3.13
    other = "3.13" if sys.version_info[:2] == (3, 12) else "3.12"
    done = _ensure(tmp_path, other)
    assert done.returncode == 1
    assert done.stderr.startswith(f"ensure-env: {venv} is not a Python {other} environment;")

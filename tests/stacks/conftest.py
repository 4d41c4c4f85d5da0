"""Shared fixtures: small git repositories that stand in for a component's checkout."""

from __future__ import annotations

import pathlib
import subprocess

import pytest

GIT = [
    "git",
    "-c",
    "user.email=bench@example.org",
    "-c",
    "user.name=bench",
    "-c",
    "commit.gpgsign=false",
]


def git(repo: pathlib.Path, *args: str) -> str:
    """Run git in ``repo`` and return its stdout."""
    return subprocess.run(
        [*GIT, *args], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.strip()


def commit_all(repo: pathlib.Path, message: str) -> str:
    git(repo, "add", "-A", ".")
    git(repo, "commit", "-q", "--allow-empty", "-m", message)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def toy_repo(tmp_path: pathlib.Path) -> pathlib.Path:
    """A git repository that says it is gt4py, with commits on ``main`` and ``feature``."""
    repo = tmp_path / "gt4py"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "pyproject.toml").write_text('[project]\nname = "gt4py"\nversion = "1.2.1"\n')
    commit_all(repo, "first")
    git(repo, "tag", "v1.2.1")
    git(repo, "checkout", "-q", "-b", "feature")
    commit_all(repo, "second")
    return repo


@pytest.fixture
def run_git():
    """``run_git(repo, *args)``: git's stdout (tests share the helper through this fixture)."""
    return git

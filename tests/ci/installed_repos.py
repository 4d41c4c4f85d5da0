"""Repositories made of the installed gt4py and icon4py sources: a component's main, as the
pull-request tests need one to branch a change from (``ci/gpu/pr-check-repos`` on a GPU host)."""

from __future__ import annotations

import pathlib
import shutil
from collections.abc import Callable

#: The dycore package's place in icon4py's upstream layout.
DYCORE = "model/atmosphere/dycore/src/icon4py/model/atmosphere/dycore"


def main_of(
    component: str, repo: pathlib.Path, git: Callable[..., str], message: str = "base"
) -> pathlib.Path:
    """``repo`` with one commit on ``main``: gt4py's sources (``src/gt4py``) or icon4py's dycore."""
    if component == "gt4py":
        import gt4py

        source, target, version = pathlib.Path(gt4py.__file__).parent, repo / "src/gt4py", "1.2.1"
    else:
        from icon4py.model.atmosphere import dycore

        source, target, version = pathlib.Path(dycore.__file__).parent, repo / DYCORE, "0.4.1"
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
    (repo / "pyproject.toml").write_text(
        f'[project]\nname = "{component}"\nversion = "{version}"\n'
    )
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)
    return repo

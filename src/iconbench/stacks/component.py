"""Which component a checkout is: gt4py, dace, icon4py, or iconbench itself.

``iconbench continuous`` and ``iconbench bisect`` take a checkout without being told what it
is; its ``pyproject.toml`` says, read at the base ref so that a branch that breaks its own
``pyproject.toml`` is still recognised.
"""

from __future__ import annotations

import pathlib
import subprocess
import tomllib

from iconbench.errors import IconbenchError
from iconbench.stacks.spec import COMPONENTS


def detect(repo: pathlib.Path, ref: str | None = None) -> str | None:
    """The component ``repo`` is, from ``pyproject.toml`` at ``ref`` (default: the tree).

    ``None`` for iconbench's own checkout; one line for any other project.
    """
    name = None
    for source in (ref, None) if ref else (None,):
        try:
            if source is None:
                text = (repo / "pyproject.toml").read_text()
            else:
                text = subprocess.run(
                    ["git", "show", f"{source}:pyproject.toml"],
                    cwd=repo, capture_output=True, text=True, check=True, timeout=60,
                ).stdout  # fmt: skip
            name = tomllib.loads(text)["project"]["name"]
            break
        except (OSError, KeyError, tomllib.TOMLDecodeError, subprocess.SubprocessError):
            continue
    if name in COMPONENTS:
        return name
    if name == "iconbench":
        return None
    if name is None:
        raise IconbenchError(
            f"--repo {repo}: not a checkout of gt4py, dace, icon4py or iconbench (no "
            "pyproject.toml with a project name); pass --repo with such a checkout"
        )
    raise IconbenchError(
        f"--repo {repo}: project {name!r} is not gt4py, dace, icon4py or iconbench; pass "
        f"--repo with such a checkout, or --component {'|'.join(COMPONENTS)} if it is one"
    )

"""The commits of a stack's three components, as a nightly run records them (``stack.json``).

``ci/nightly`` pins the mains of gt4py, dace and icon4py once (``{"schema":
"iconbench-nightly-stack", "commits": {"gt4py": SHA, "dace": SHA, "icon4py": SHA}}``), so that
every shard measures the same stack; the history keeps the file with the night's results,
and the next night bisects from the commits it names.
"""

from __future__ import annotations

import os
import re
from typing import Any

from iconbench.errors import IconbenchError
from iconbench.files import decode
from iconbench.stacks.spec import COMPONENTS

SCHEMA = "iconbench-nightly-stack"
_SHA = re.compile(r"^[0-9a-f]{7,64}$")


def parse(data: Any, origin: str) -> dict[str, str]:
    """The commit of each component in ``data`` (a decoded ``stack.json``), checked.

    >>> parse({"schema": SCHEMA, "commits": {"gt4py": "a" * 40, "dace": "b" * 40,
    ...        "icon4py": "c" * 40}}, "stack.json")["dace"] == "b" * 40
    True
    >>> parse({"commits": {"gt4py": "main"}}, "stack.json")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    iconbench.errors.IconbenchError: stack.json: commits.gt4py: expected a commit hash, got ...
    """
    commits = data.get("commits") if isinstance(data, dict) else None
    if not isinstance(commits, dict):
        raise IconbenchError(f"{origin}: no 'commits' table; 'ci/nightly commits FILE' writes one")
    found = {}
    for name in COMPONENTS:
        sha = commits.get(name)
        if not isinstance(sha, str) or not _SHA.match(sha):
            raise IconbenchError(
                f"{origin}: commits.{name}: expected a commit hash, got {sha!r}; "
                "'ci/nightly commits FILE' writes the file"
            )
        found[name] = sha
    return found


def read(path: str | os.PathLike[str]) -> dict[str, str]:
    """The commits of the ``stack.json`` at ``path``."""
    return parse(decode.load_json(path), str(path))

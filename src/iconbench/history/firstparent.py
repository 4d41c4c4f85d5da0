"""The commits of a repository's own past that a backfill measures: first parents touching paths.

A repository's main is the sequence of its first parents: each is one merged pull request
(or a direct push), the unit a nightly would have measured. Commits of a merged branch are
not on it: they were never main, and their merge is. Of those, only commits that changed
the measured code or the lock that pins its stack can move a benchmark.
"""

from __future__ import annotations

import dataclasses
import pathlib
import subprocess
from collections.abc import Sequence

from iconbench.errors import IconbenchError
from iconbench.stacks import trees

#: icon4py's dycore and diffusion sources and its lock: what moves the benchmarked programs.
ICON4PY_PATHS = ("model/atmosphere/dycore/src", "model/atmosphere/diffusion/src", "uv.lock")


@dataclasses.dataclass(frozen=True)
class Commit:
    """One first-parent commit: its hash, committer date (ISO 8601) and subject."""

    sha: str
    date: str
    subject: str

    @property
    def short(self) -> str:
        return self.sha[:10]


def _git(repo: pathlib.Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=False, timeout=120
    )


def touching(
    repo: pathlib.Path, start: str, end: str, paths: Sequence[str] = ICON4PY_PATHS
) -> list[Commit]:
    """First-parent commits in ``(start, end]`` of ``repo`` that change one of ``paths``.

    Oldest first. Each changes a path against its first parent (a merge: what it brought
    to main). One line when a ref is no commit, ``start`` is not an ancestor of ``end`` or
    no commit of the range touches the paths.
    """
    first, last = trees.resolve_commit(repo, start), trees.resolve_commit(repo, end)
    if _git(repo, "merge-base", "--is-ancestor", first, last).returncode != 0:
        raise IconbenchError(
            f"--from {start} is not an ancestor of --to {end} in {repo}; give an older --from"
        )
    done = _git(repo, "log", "--first-parent", "--reverse", "--format=%H%x00%cI%x00%s",
                f"{first}..{last}", "--", *paths)  # fmt: skip
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise IconbenchError(f"git log {start}..{end} in {repo} failed: {reason}")
    commits = [Commit(*line.split("\0", 2)) for line in done.stdout.splitlines() if line]
    if not commits:
        raise IconbenchError(
            f"no first-parent commit of {start}..{end} in {repo} touches {', '.join(paths)}; "
            "check --paths (paths inside the repository)"
        )
    return commits

"""Commits as a repository's git names them: the full hash of an abbreviated one, its date.

Below everything that reads results: the provenance of a new result, the history's export
and its runs (:mod:`iconbench.history.runs`, which the site and the change points read).

asv keys its pages by the full 40-digit hash that ``git rev-list`` gives; a result file
whose ``commit_hash`` is abbreviated (``432aa3c``, written by a runner whose
``$ICONBENCH_COMMIT`` held a short hash) matches no revision, and asv's pages leave the run
out without a word. The stored history is append-only, so such files are not rewritten:
the site resolves the hash when it reads them (``git rev-parse`` in the repository asv
orders commits by) and hands asv a copy with the full hash.
"""

from __future__ import annotations

import functools
import pathlib
import re
import subprocess

FULL = re.compile(r"[0-9a-f]{40}")
ABBREVIATED = re.compile(r"[0-9a-f]{4,39}")


def is_full(commit: str) -> bool:
    """Whether ``commit`` is a full SHA-1 hash.

    >>> is_full("432aa3c"), is_full("432aa3c7625405df7fa462e9720d4825ed111ff0")
    (False, True)
    """
    return FULL.fullmatch(commit) is not None


def _ask_git(repo: pathlib.Path, *args: str) -> str:
    """The answer of git in ``repo`` (stripped), or ``""`` where git fails or is not there."""
    try:
        done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=False)
    except OSError:
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


@functools.cache
def full_hash(repo: pathlib.Path, commit: str) -> str:
    """``commit`` as a full hash when ``repo`` knows it unambiguously, else unchanged.

    A full hash is returned as it is, without asking git.
    """
    if is_full(commit) or not ABBREVIATED.fullmatch(commit):
        return commit
    found = _ask_git(repo, "rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}")
    return found if is_full(found) else commit


@functools.cache
def commit_time_ms(repo: pathlib.Path, commit: str) -> int:
    """When ``commit`` was committed (ms since the epoch) as ``repo`` says; 0 where it cannot.

    The history's order is the commits' order, not the order they were measured in: a
    backfill measures old commits after new ones, and a re-run measures an old one again.
    """
    if not (is_full(commit) or ABBREVIATED.fullmatch(commit)):
        return 0
    seconds = _ask_git(repo, "show", "-s", "--format=%ct", f"{commit}^{{commit}}", "--")
    return int(seconds) * 1000 if seconds.isdigit() else 0

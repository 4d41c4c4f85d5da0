"""A commit's source tree, exported once, and the directories it puts first on the path.

gt4py, dace's Python side and icon4py are pure Python at the level a regression hides in, so a
commit of one of them is measured by putting its exported tree first on ``PYTHONPATH`` of the
running stack (seconds), instead of building an environment per commit (minutes). Used by
asv's checkout environment (:mod:`iconbench.stacks.checkout_env`) and the interleaved check
(:mod:`iconbench.check`).
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import os
import pathlib
import shutil
import subprocess
import tempfile
import time
from collections.abc import Sequence

from iconbench.errors import IconbenchError


def source_roots(tree: pathlib.Path) -> list[pathlib.Path]:
    """The directories to put on ``sys.path`` for a repository's source tree.

    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> for part in ("model/common/src/icon4py/model/common", "model/dycore/src/icon4py/x"):
    ...     (root / part).mkdir(parents=True)
    >>> [p.relative_to(root).as_posix() for p in source_roots(root)]
    ['model/common/src', 'model/dycore/src']
    >>> empty = pathlib.Path(tempfile.mkdtemp())
    >>> source_roots(empty) == [empty]
    True
    """
    found = [
        path
        for pattern in ("src", "*/src", "*/*/src", "*/*/*/src")
        for path in sorted(tree.glob(pattern))
        if path.is_dir() and any(child.is_dir() for child in path.iterdir())
    ]
    return found or [tree]


def resolve_commit(repo: pathlib.Path, ref: str) -> str:
    """The full commit hash ``ref`` names in ``repo``; one line when it names none."""
    try:
        done = subprocess.run(
            ["git", "-C", str(repo), "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as error:
        raise IconbenchError(f"--repo {repo}: git could not run ({error})") from None
    if done.returncode == 0 and done.stdout.strip():
        return done.stdout.strip()
    inside = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "--git-dir"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    if inside.returncode != 0:
        raise IconbenchError(f"--repo {repo}: not a git repository; pass a checkout")
    raise IconbenchError(
        f"{ref!r} is no commit of {repo}; fetch it (git fetch origin {ref}) or name another ref"
    )


def export_tree(repo: pathlib.Path, commit: str, trees: pathlib.Path) -> pathlib.Path:
    """``commit``'s files under ``trees/<commit>`` (``git archive``; kept, exported once)."""
    tree = trees / commit
    if tree.exists():
        return tree
    trees.mkdir(parents=True, exist_ok=True)
    scratch = pathlib.Path(tempfile.mkdtemp(dir=trees, prefix=".tmp-"))
    archive = subprocess.run(
        ["git", "-C", str(repo), "archive", "--format=tar", commit],
        capture_output=True, check=False,
    )  # fmt: skip
    if archive.returncode != 0:
        shutil.rmtree(scratch, ignore_errors=True)
        line = archive.stderr.decode(errors="replace").strip().splitlines()[:1]
        raise IconbenchError(f"git archive {commit} in {repo} failed: {' '.join(line)}")
    subprocess.run(["tar", "-x", "-C", str(scratch)], input=archive.stdout, check=True)
    try:
        os.replace(scratch, tree)
    except OSError:  # another process exported it first
        shutil.rmtree(scratch, ignore_errors=True)
    return tree


#: The file in a tree exported in place that names its commit.
PLACED_COMMIT = ".iconbench-commit"


def export_in_place(repo: pathlib.Path, commit: str, place: pathlib.Path) -> pathlib.Path:
    """``commit``'s files at ``place``, replacing whichever commit's files were there.

    For a sequence of commits measured one after another (a backfill): gt4py keys its
    translations by the program's IR, which holds the absolute path and line of every source
    line, so a program that one commit leaves as it was keeps the previous commit's
    translation only where its sources stay at the same path. One writer per ``place``.

    Every file gets the time of the export as its modification time: Python trusts a cached
    ``.pyc`` whose source has the same size and second, and ``git archive`` stamps files
    with their commit's time, which two commits of one push can share.
    """
    marker = place / PLACED_COMMIT
    if marker.exists() and marker.read_text(encoding="utf-8") == commit:
        return place
    staging = place.parent / f".{place.name}.exports"
    exported = export_tree(repo, commit, staging)
    now = time.time()
    for path in exported.rglob("*"):
        if path.is_file():
            os.utime(path, (now, now))
    (exported / PLACED_COMMIT).write_text(commit, encoding="utf-8")
    shutil.rmtree(place, ignore_errors=True)
    os.replace(exported, place)
    shutil.rmtree(staging, ignore_errors=True)
    return place


def _code_of(path: str, data: bytes) -> bytes:
    """What a file does, as :func:`code_identity` counts it: a Python file's syntax tree."""
    if path.endswith(".py"):
        with contextlib.suppress(SyntaxError, ValueError):  # else: its bytes
            return ast.dump(ast.parse(data), include_attributes=False).encode()
    return data


def same_code(repo: pathlib.Path, base: str, head: str) -> bool:
    """Whether two commits of ``repo`` hold the same code (differ in comments, layout at most).

    Every file that differs between them has the same syntax tree on both: what
    :func:`code_identity` of their exported trees says where it says "the same", read from
    git without exporting anything: only the files ``git diff`` names are parsed (a second,
    not the 9 s of hashing every file of gt4py twice). A file added, removed or
    changed in its bytes (not Python) is a difference.
    """

    def git(*args: str) -> bytes:
        done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, timeout=60,
                              check=False)  # fmt: skip
        if done.returncode != 0:
            raise IconbenchError(f"git {' '.join(args)} in {repo}: {done.stderr.decode()[:200]}")
        return done.stdout

    changed = [p for p in git("diff", "--name-only", "-z", base, head).decode().split("\0") if p]
    for path in changed:
        sides = [subprocess.run(["git", "-C", str(repo), "show", f"{commit}:{path}"],
                                capture_output=True, timeout=60, check=False)
                 for commit in (base, head)]  # fmt: skip
        if any(side.returncode != 0 for side in sides):  # added or removed
            return False
        if _code_of(path, sides[0].stdout) != _code_of(path, sides[1].stdout):
            return False
    return True


def code_identity(roots: Sequence[pathlib.Path]) -> str:
    r"""A hash of what the sources under ``roots`` do, not how they are written.

    Python files count by their syntax tree, so a change of comments or layout alone leaves
    the identity as it is (docstrings and every statement count; line numbers do not); other
    files (C++ templates, JSON, ...) by their bytes. A check keys its sides' build caches by it:
    a comment-only change of gt4py then finds every build and translation of its base, instead
    of translating every program again (up to 3 minutes for one DaCe program on the H100).

    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (root / "a.py").write_text("x = 1  # one\n")
    >>> first = code_identity([root])
    >>> _ = (root / "a.py").write_text("# a comment\n\nx = 1\n")
    >>> code_identity([root]) == first
    True
    >>> _ = (root / "a.py").write_text("x = 2\n")
    >>> code_identity([root]) == first
    False
    """
    digest = hashlib.sha256()
    for root in roots:
        for path in sorted(root.rglob("*")):
            if not path.is_file() or "__pycache__" in path.parts:
                continue
            data = _code_of(path.name, path.read_bytes())
            digest.update(path.relative_to(root).as_posix().encode() + b"\0")
            digest.update(hashlib.sha256(data).digest())
    return digest.hexdigest()

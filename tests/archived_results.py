"""The committed result sets as the tests read them: whole, their raw files from git history.

``results/`` keeps a run's notes and check records; its raw files (asv result files,
summaries, ledgers, packs) are in git history, listed in ``results/archive.json``
(:mod:`iconbench.results_archive`). :func:`restored` gives a directory holding the whole
result set, restored once per test process into a temporary directory (about 0.3 s for the
11 MB of ``results/h100``), so a test reads what a user gets from ``iconbench results
fetch``, and the checkout is never written to.
"""

from __future__ import annotations

import atexit
import functools
import pathlib
import shutil
import tempfile

from iconbench import results_archive

REPO = pathlib.Path(__file__).resolve().parents[1]


@functools.cache
def _scratch() -> pathlib.Path:
    path = pathlib.Path(tempfile.mkdtemp(prefix="iconbench-archived-"))
    atexit.register(shutil.rmtree, path, True)
    return path


@functools.cache
def restored(path: str) -> pathlib.Path:
    """``REPO/path`` (e.g. ``results/h100``) whole: tree files and archived files together."""
    results_archive.fetch(results_archive.Archive.read(REPO), [path], out=_scratch())
    return _scratch() / path

"""Creating a command's output directory before its work, with one line where that fails.

The command line checks (:mod:`iconbench.cli.options`) and the runner's steps
(:func:`iconbench.runner.pipeline.prepare`, which every measuring road takes) both create
the ``--out`` they are given; both take it from here, below either.
"""

from __future__ import annotations

import os
import pathlib

from iconbench.errors import IconbenchError


def create_dir(path: str | os.PathLike[str], what: str = "--out") -> pathlib.Path:
    """Create the output directory ``path`` (and its parents) now: one line if that fails.

    :func:`iconbench.cli.options.writable_dir` checks without creating anything, and some
    places pass its check yet refuse a directory (``/proc``, a read-only mount as root): a
    command calls this after its inputs are checked and before the work whose results go
    there, so that such a place costs one line, not a traceback after the work.

    >>> create_dir("/proc/iconbench-out")
    Traceback (most recent call last):
    ...
    iconbench.errors.IconbenchError: --out /proc/iconbench-out: cannot create it (No such \
file or directory); give a writable directory
    """
    path = pathlib.Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise IconbenchError(
            f"{what} {path}: cannot create it ({error.strerror}); give a writable directory"
        ) from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise IconbenchError(f"{what} {path}: not writable; give a writable directory")
    return path

"""An exclusive lock between the processes of one machine: ``flock`` on a file.

Writers that must not interleave (two appends to one history store, the shards of a night
compiling one bytecode tree) take it on a lock file next to what they write. The lock is the
kernel's: a killed holder releases it, and nothing is left to clean up.
"""

from __future__ import annotations

import contextlib
import fcntl
import pathlib
from collections.abc import Iterator


@contextlib.contextmanager
def exclusive(path: pathlib.Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (created, with its directory) while in the block.

    >>> import tempfile
    >>> lock = pathlib.Path(tempfile.mkdtemp()) / "d" / ".lock"
    >>> with exclusive(lock):
    ...     lock.exists()
    True
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

"""The SHA-256 of a file, read in blocks: archives of hundreds of MB are checked by it.

Standard library only: ``ci/gpu-env.sh`` checks a wheelhouse's parts with it before any of
the stack is installed (:mod:`iconbench.stacks.parts`).
"""

from __future__ import annotations

import hashlib
import pathlib


def sha256_of(path: pathlib.Path) -> str:
    """The hex SHA-256 of the file at ``path``.

    >>> import tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "f"
    >>> _ = p.write_bytes(b"abc")
    >>> sha256_of(p)[:16]
    'ba7816bf8f01cfea'
    """
    digest = hashlib.sha256()
    with path.open("rb") as data:
        for chunk in iter(lambda: data.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()

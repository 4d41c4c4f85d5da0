"""SHA-256 digests: of a file read in blocks, and in the form a wheel's ``RECORD`` writes.

Files are read in blocks because archives of hundreds of MB are checked by it; the ``RECORD``
form is also the one the results archive's manifest writes.

Standard library only: ``ci/gpu-env.sh`` checks a wheelhouse's parts with it before any of
the stack is installed (:mod:`iconbench.stacks.parts`).
"""

from __future__ import annotations

import base64
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


def unpadded_b64(digest: bytes) -> str:
    """``digest`` as a wheel's ``RECORD`` writes it: URL-safe base64 without ``=`` padding.

    >>> unpadded_b64(bytes.fromhex("ab")), len(unpadded_b64(hashlib.sha256(b"").digest()))
    ('qw', 43)
    """
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()

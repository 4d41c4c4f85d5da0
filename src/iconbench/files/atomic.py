"""Writing a file so that no reader ever sees half of it: the project's one atomic write.

The data goes to a temporary file in the target's directory (same file system), which then
replaces the target with ``os.replace``: a web server, a concurrent publish or a killed
process sees the old file or the new one, at worst a ``*.tmp`` leftover, never a torn file.
"""

from __future__ import annotations

import os
import pathlib
import tempfile


def write_atomic(
    path: str | os.PathLike[str], data: str | bytes, *, fsync: bool = False
) -> pathlib.Path:
    """Write ``data`` (text as UTF-8) to ``path``, creating its directory; return the path.

    ``fsync``: flush the data to disk before the rename, for files that are the only copy
    (the history store); a page or a summary that can be written again does without.

    >>> import tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> write_atomic(folder / "a" / "x.json", "π = 3.14").read_text(encoding="utf-8")
    'π = 3.14'
    >>> write_atomic(folder / "a" / "x.json", b"[]", fsync=True).read_bytes()
    b'[]'
    >>> [p.name for p in (folder / "a").iterdir()]  # no temporary file left behind
    ['x.json']
    """
    target = pathlib.Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    with tempfile.NamedTemporaryFile("wb", dir=target.parent, delete=False, suffix=".tmp") as out:
        out.write(raw)
        if fsync:
            out.flush()
            os.fsync(out.fileno())
    os.replace(out.name, target)
    return target

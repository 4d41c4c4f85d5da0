"""Writing a file so that no reader ever sees half of it: the project's one atomic write.

The data goes to a temporary file in the target's directory (same file system), which then
replaces the target with ``os.replace``: a web server, a concurrent publish or a killed
process sees the old file or the new one, at worst a ``*.tmp`` leftover, never a torn file.

``tempfile`` creates its files with mode 0600 (private to the writer), and ``os.replace``
keeps that mode, so a published site would answer 403 to a web server running as another
user. The file gets the mode a plain ``open(path, "w")`` gives instead: ``0o666`` less the
process's umask (0644 with the usual umask 022).
"""

from __future__ import annotations

import functools
import os
import pathlib
import tempfile


@functools.cache
def _umask() -> int:
    """The process's umask, read without changing it where Linux tells it (else set back)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def file_mode() -> int:
    """The mode of a newly created regular file: ``0o666 & ~umask``.

    >>> oct(file_mode() & 0o600)  # the writer can always read and write
    '0o600'
    """
    return 0o666 & ~_umask()


def write_atomic(
    path: str | os.PathLike[str], data: str | bytes, *, fsync: bool = False
) -> pathlib.Path:
    """Write ``data`` (text as UTF-8) to ``path``, creating its directory; return the path.

    ``fsync``: flush the data to disk before the rename, for files that are the only copy
    (the history store); a page or a summary that can be written again does without.
    The file's mode is that of a plain ``open`` (:func:`file_mode`), not ``tempfile``'s 0600.

    >>> import tempfile, stat
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> written = write_atomic(folder / "a" / "x.json", "π = 3.14")
    >>> written.read_text(encoding="utf-8")
    'π = 3.14'
    >>> stat.S_IMODE(written.stat().st_mode) == file_mode()
    True
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
        os.fchmod(out.fileno(), file_mode())
        if fsync:
            out.flush()
            os.fsync(out.fileno())
    os.replace(out.name, target)
    return target

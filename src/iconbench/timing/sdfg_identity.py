"""DaCe build folders found by what their SDFG computes, not by its random GUIDs and paths.

gt4py names a DaCe build folder by a fingerprint of the SDFG's JSON
(``gt4py.next.otf.compilation.cache.get_cache_folder``). That JSON holds a fresh random
``guid`` for every data access each time a program is translated, and debug information that
names the source file of gt4py's lowering that made each node, by its absolute path. Two
translations of one program therefore get two folders: base and head of a gt4py change (each
translates, their sources lie in different directories) compile every unchanged ``dace_gpu``
program twice, 30-180 s each.

While :func:`reusing` is active, a DaCe build folder that gt4py is about to fill gets an
*identity*: a hash of the SDFG with the GUIDs, its build folder, its hash and the directory
part of every source path taken out, plus the Python binding gt4py generated for it and the
folder name's suffix (gt4py's version and the DaCe configuration, which holds the compiler
flags). When a complete build of the same identity is already in the cache (the base's build
folders are linked into the head's cache, :func:`iconbench.stacks.sides.link_builds`, and a
runner's other stacks' into every stack's, :mod:`iconbench.stacks.shared_builds`), the new
folder becomes a link to it and gt4py finds its library there instead of compiling.

A change of DaCe itself can change the code generated from one SDFG, so the identity also
holds the DaCe that generates the code (its version, where its sources are and the
environment's commit of it): the two sides of a DaCe change, each with its own DaCe tree, and
two nights' stacks of two DaCe commits never share a build this way.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import pathlib
from collections.abc import Iterator
from typing import Any

#: The file in a build folder that holds its identity (written when gt4py asks for the folder).
IDENTITY_FILE = "iconbench-sdfg-identity"

#: gt4py writes this into a DaCe build folder once the library is complete.
COMPLETE_MARKER = ".gt4py_compile_complete"

#: Keys of the SDFG's JSON that differ between two translations of the same program.
_UNSTABLE_KEYS = frozenset({"guid", "build_folder", "hash"})

#: Keys whose values are source paths (a node's debug information, the SDFG's source files).
_PATH_KEYS = frozenset({"filename", "source_files"})


def _package_path(path: str) -> str:
    """A source path from its package on: where the sources lie is no part of the program.

    >>> _package_path("/x/trees/0a1b/src/gt4py/next/ffront/decorator.py")
    'gt4py/next/ffront/decorator.py'
    >>> _package_path("/usr/lib/python3.12/site-packages/gt4py/next/a.py")
    'gt4py/next/a.py'
    >>> _package_path("<string>")
    '<string>'
    """
    for marker in ("/site-packages/", "/src/"):
        if marker in path:
            return path.rsplit(marker, 1)[1]
    return path


def _paths(value: Any) -> Any:
    """A path, or a list of paths, from the package on."""
    if isinstance(value, str):
        return _package_path(value)
    if isinstance(value, list):
        return [_package_path(v) if isinstance(v, str) else v for v in value]
    return value


def _stable(node: Any) -> Any:
    """``node`` without the keys of :data:`_UNSTABLE_KEYS` and with package-relative paths."""
    if isinstance(node, dict):
        return {
            key: _paths(value) if key in _PATH_KEYS else _stable(value)
            for key, value in node.items()
            if key not in _UNSTABLE_KEYS
        }
    if isinstance(node, list):
        return [_stable(item) for item in node]
    return node


def identity(sdfg_json: str | dict[str, Any], binding: str = "", suffix: str = "") -> str:
    """The identity of a DaCe build: equal for two translations of the same program.

    >>> one = '{"guid": "5b64", "debuginfo": {"filename": "/a/src/gt4py/x.py", "start_line": 3}}'
    >>> two = '{"guid": "e561", "debuginfo": {"filename": "/b/src/gt4py/x.py", "start_line": 3}}'
    >>> identity(one) == identity(two)
    True
    >>> identity(one) == identity(two.replace('"start_line": 3', '"start_line": 4'))
    False
    >>> identity(one, suffix="1.2.1_ab") == identity(one, suffix="1.2.1_cd")
    False
    """
    sdfg = json.loads(sdfg_json) if isinstance(sdfg_json, str) else sdfg_json
    stable = json.dumps(_stable(sdfg), sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256()
    for part in (stable, binding, suffix):
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()


def _suffix(folder: pathlib.Path, fingerprint_at: int) -> str:
    """The part of a build folder's name after its fingerprint (gt4py version, build context)."""
    return "_".join(folder.name.split("_")[fingerprint_at + 1 :])


def find_complete(
    cache: pathlib.Path, wanted: str, *, besides: pathlib.Path
) -> pathlib.Path | None:
    """A complete build folder in ``cache`` (not ``besides``) whose identity is ``wanted``."""
    for folder in sorted(cache.iterdir()):
        if folder.name == besides.name or not (folder / COMPLETE_MARKER).exists():
            continue
        try:
            if (folder / IDENTITY_FILE).read_text(encoding="utf-8").strip() == wanted:
                return folder
        except OSError:
            continue
    return None


def adopt(
    folder: pathlib.Path, sdfg_json: str | dict[str, Any], binding: str, generator: str = ""
) -> pathlib.Path | None:
    """Give ``folder`` its identity; link it to an equal complete build if there is one.

    ``folder`` is the one gt4py just chose (``<name>_<fingerprint>_<version>[_<context>]``),
    ``generator`` names the DaCe that generates its code. Returns the build it now links to,
    or ``None`` when gt4py has to fill it itself.
    """
    parts = folder.name.split("_")
    fingerprint_at = next(  # the first 16-digit part: the build context's is one too
        (i for i in range(1, len(parts) - 1) if len(parts[i]) == 16 and _hex(parts[i])), None
    )
    if fingerprint_at is None:
        return None
    if folder.is_symlink() or (folder / COMPLETE_MARKER).exists():
        return None  # built already, or linked by an earlier call
    wanted = identity(sdfg_json, binding, f"{_suffix(folder, fingerprint_at)}|{generator}")
    if not any(folder.iterdir()):
        found = find_complete(folder.parent, wanted, besides=folder)
        if found is not None:
            with contextlib.suppress(OSError):  # another process linked it first
                folder.rmdir()
                folder.symlink_to(found.resolve(), target_is_directory=True)
            return found
    from iconbench.files.atomic import write_atomic

    write_atomic(folder / IDENTITY_FILE, wanted + "\n")
    return None


@functools.cache
def _generator() -> str:
    """The DaCe that turns SDFGs into code here: its version, sources' directory and commit.

    The commit is the environment's (:func:`iconbench.stacks.identity.installed`: its stack
    record, or an editable checkout's commit and diff): a nightly's environment is made anew
    at the same path each night, and a DaCe main's version stays as it is from one commit to
    the next, so version and directory alone would let tonight's stack link a build that
    last night's DaCe generated (:mod:`iconbench.stacks.shared_builds`).
    """
    try:
        import dace
    except ImportError:
        return ""
    from iconbench.stacks.identity import installed

    where = pathlib.Path(dace.__file__).resolve().parent
    which = json.dumps(installed("dace"), sort_keys=True)
    return f"{getattr(dace, '__version__', '?')}:{where}:{which}"


def _hex(text: str) -> bool:
    return all(c in "0123456789abcdef" for c in text)


@contextlib.contextmanager
def reusing() -> Iterator[list[pathlib.Path]]:
    """While inside, gt4py's DaCe builds are looked up by identity first (module docstring).

    Yields the list of build folders that were linked instead of compiled. Acts in this
    process only: gt4py compiles in it when ``GT4PY_BUILD_JOBS`` is 1, as the runner's
    precompile has it. A gt4py without the hook's seam leaves everything as it is.
    """
    linked: list[pathlib.Path] = []
    try:
        from gt4py.next.otf.compilation import cache
    except ImportError:
        yield linked
        return
    original = cache.get_cache_folder
    generator = _generator()

    def get_cache_folder(ext_source: Any, *args: Any, **kwargs: Any) -> pathlib.Path:
        folder = original(ext_source, *args, **kwargs)
        source = getattr(getattr(ext_source, "program_source", None), "source_code", "")
        if isinstance(source, dict):  # an SDFG (gt4py keeps it as parsed JSON)
            binding = getattr(getattr(ext_source, "binding_source", None), "source_code", "")
            try:
                found = adopt(folder, source, binding or "", generator)
            except Exception:  # never fail a compile over its reuse
                found = None  # no identity: gt4py builds as it would have
            if found is not None:
                linked.append(found)
        return folder

    cache.get_cache_folder = get_cache_folder
    try:
        yield linked
    finally:
        cache.get_cache_folder = original

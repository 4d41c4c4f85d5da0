"""The compile index: which compiles of a stack finished, found without starting gt4py.

A precompile whose builds are all in the cache still started a ``spawn`` pool (~9 s until its
workers had imported gt4py, dace and icon4py on the H100 host) and had each worker translate
and fingerprint every program (~10 s) only to find its build there: 19-28 s of every check
(docs/pr-check-h100.md). The precompile (:mod:`iconbench.runner.precompile`) writes one small
JSON file per successful compile into ``<GT4PY_BUILD_CACHE_DIR>/compile-index/``, next to
gt4py's own cache folder, and looks every pending pair up there before it starts a pool: a
pair whose entry exists and whose library is still in the cache is done, and no pool starts
when every pair is.

An entry is keyed by what decides the program's translation and build (:func:`entry_key`):
the stack key, the sources put first on the path (their absolute paths, since gt4py's
translation caches hold them, and their code identity,
:func:`iconbench.stacks.trees.code_identity`), the case, the backend and the grid. Where the
code is the running environment's (no sources given), the stack key covers it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import pathlib
from collections.abc import Callable, Sequence

from iconbench.files.atomic import write_atomic
from iconbench.grids.grid import Grid
from iconbench.records.compilation import CompileRecord

#: The index's folder inside the stack's build-cache directory (``GT4PY_BUILD_CACHE_DIR``).
FOLDER = "compile-index"


@dataclasses.dataclass(frozen=True)
class Sources:
    """The source roots a process puts first on its path, and the identity of their code.

    ``roots`` empty: the code is the running environment's (the stack key says which).
    """

    roots: tuple[pathlib.Path, ...] = ()
    identity: str = ""

    @classmethod
    def of(cls, roots: Sequence[pathlib.Path], identity: str = "") -> Sources:
        """``roots`` made absolute, with their code identity (computed when not given)."""
        absolute = tuple(pathlib.Path(os.path.abspath(root)) for root in roots)
        if absolute and not identity:
            from iconbench.stacks.trees import code_identity

            identity = code_identity(absolute)
        return cls(absolute, identity)


def entry_key(stack: str, sources: Sources, case: str, backend: str, grid: Grid) -> str:
    """The hash an index entry is found by: one per program build of one tree at one path.

    >>> from iconbench.grids import resolve
    >>> tiny, here = resolve("tiny"), Sources((pathlib.Path("/t/a"),), "code-1")
    >>> key = entry_key("stack-1", here, "p[default]", "gtfn_cpu", tiny)
    >>> key == entry_key("stack-1", Sources((pathlib.Path("/t/a"),), "code-1"), "p[default]",
    ...                  "gtfn_cpu", resolve("tiny"))
    True
    >>> others = [entry_key("stack-2", here, "p[default]", "gtfn_cpu", tiny),
    ...           entry_key("stack-1", Sources((pathlib.Path("/t/a"),), "code-2"),
    ...                     "p[default]", "gtfn_cpu", tiny),  # changed code, same path
    ...           entry_key("stack-1", Sources((pathlib.Path("/t/b"),), "code-1"),
    ...                     "p[default]", "gtfn_cpu", tiny),  # same code, another path
    ...           entry_key("stack-1", Sources(), "p[default]", "gtfn_cpu", tiny),
    ...           entry_key("stack-1", here, "p[x=1]", "gtfn_cpu", tiny),
    ...           entry_key("stack-1", here, "p[default]", "dace_cpu", tiny),
    ...           entry_key("stack-1", here, "p[default]", "gtfn_cpu", resolve("tiny", levels=5))]
    >>> len({key, *others})
    8
    """
    payload = {
        "stack": stack,
        "roots": [str(root) for root in sources.roots],
        "identity": sources.identity,
        "case": case,
        "backend": backend,
        "grid": dataclasses.asdict(grid.spec),
    }
    text = json.dumps(payload, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


@dataclasses.dataclass(frozen=True)
class CompileIndex:
    """The entries of one stack's build cache, for the code of ``sources``.

    ``directory`` is the build-cache directory (``GT4PY_BUILD_CACHE_DIR``), ``cache_dir``
    gt4py's cache folder in it that libraries are recorded relative to. ``warn`` gets one
    line when an entry is replaced by different content.

    >>> import tempfile
    >>> from iconbench.grids import resolve
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> index = CompileIndex(root, root / ".gt4py_cache", "s", Sources(), warn=print)
    >>> tiny = resolve("tiny")
    >>> built = CompileRecord("p", "gtfn_cpu", "tiny", "s", 41.0, "f1", library="b/l.so")
    >>> index.record(built, tiny)
    >>> index.lookup("p", "gtfn_cpu", tiny) is None  # the library is not in the cache
    True
    >>> (root / ".gt4py_cache" / "b").mkdir(parents=True)
    >>> (root / ".gt4py_cache" / "b" / "l.so").touch()
    >>> found = index.lookup("p", "gtfn_cpu", tiny)
    >>> found.seconds, found.fingerprint, found.library, found.from_index
    (41.0, 'f1', 'b/l.so', True)
    >>> index.record(CompileRecord("p", "gtfn_cpu", "tiny", "s", 0.2, "f1", library="b/l.so"), tiny)
    >>> index.lookup("p", "gtfn_cpu", tiny).seconds  # the same build: the first compile's time
    41.0
    >>> index.record(CompileRecord("p", "gtfn_cpu", "tiny", "s", 9.0, "f2", library="c/l.so"), tiny)
    ... # doctest: +ELLIPSIS
    compile index: p on gtfn_cpu: entry ... was f1 (b/l.so), now f2 (c/l.so)
    """

    directory: pathlib.Path
    cache_dir: pathlib.Path
    stack: str
    sources: Sources
    warn: Callable[[str], None] = print

    def path(self, case: str, backend: str, grid: Grid) -> pathlib.Path:
        """The file of the entry of ``case`` on ``backend`` and ``grid``."""
        key = entry_key(self.stack, self.sources, case, backend, grid)
        return self.directory / FOLDER / key[:2] / f"{key}.json"

    def lookup(self, case: str, backend: str, grid: Grid) -> CompileRecord | None:
        """The entry's compile as a ledger record (``from_index``), if its library is there.

        An entry that cannot be read (a foreign file) is no entry: the pair is compiled.
        """
        entry = self._read(self.path(case, backend, grid))
        if entry is None or not (self.cache_dir / entry["library"]).is_file():
            return None
        return CompileRecord(case, backend, grid.name, self.stack, float(entry["seconds"]),
                             entry["fingerprint"], library=entry["library"],
                             from_index=True)  # fmt: skip

    def record(self, record: CompileRecord, grid: Grid) -> None:
        """Enter a successful compile that built a library; another is not entered.

        An entry of the same build keeps its seconds (the first compile's, not a reload's);
        one of another build is replaced, with a line to ``warn``.
        """
        if record.error is not None or record.library is None or record.from_index:
            return
        path = self.path(record.case, record.backend, grid)
        entry = {"fingerprint": record.fingerprint, "library": record.library,
                 "seconds": record.seconds}  # fmt: skip
        known = self._read(path)
        if known is not None:
            if (known["fingerprint"], known["library"]) == (record.fingerprint, record.library):
                return
            self.warn(
                f"compile index: {record.case} on {record.backend}: entry {path} was "
                f"{known['fingerprint']} ({known['library']}), now {record.fingerprint} "
                f"({record.library})"
            )
        write_atomic(path, json.dumps(entry, sort_keys=True) + "\n")

    @staticmethod
    def _read(path: pathlib.Path) -> dict | None:
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(entry, dict) or not isinstance(entry.get("library"), str):
            return None
        return entry

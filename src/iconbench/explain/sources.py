"""A side's generated source of one benchmark: from its build folder, else built again.

The side's compile ledger (``OUT/work/compile.jsonl``) names the library its precompile
built or loaded for the (case, backend), relative to the side's build cache; the build
folder is the cache's entry that holds it. gtfn's folder keeps its C++/CUDA source, and so
does DaCe's in its development mode. DaCe's production mode keeps only the library: then
the side's own environment writes the code again from the program's SDFG
(``iconbench suite sources``, :func:`iconbench.timing.codegen.write_sources`).
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
import sys

from iconbench.errors import IconbenchError
from iconbench.explain import side_process
from iconbench.grids.grid import Grid
from iconbench.records.compilation import CompileLedger
from iconbench.stacks.sides import Side, build_cache
from iconbench.timing import codegen

#: Files larger than this are compared by content only, not line by line.
MAX_FILE_BYTES = 4_000_000


@dataclasses.dataclass(frozen=True)
class Sources:
    """The generated files of one build (relative path -> text) and where they came from."""

    files: dict[str, str]
    fingerprint: str | None
    origin: str


def read_folder(folder: pathlib.Path) -> dict[str, str]:
    """Every generated source file under ``folder`` (relative path -> text)."""
    found = {}
    for path in codegen.source_files(folder):
        data = path.read_bytes()
        relative = path.relative_to(folder).as_posix()
        if len(data) > MAX_FILE_BYTES:
            found[relative] = f"<{len(data)} bytes, sha256 {_digest(data)}: too large to diff>\n"
        else:
            found[relative] = data.decode("utf-8", errors="replace")
    return found


def _digest(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()[:16]


def from_build_folder(side: Side, case: str, backend: str) -> Sources | None:
    """The sources in the build folder the side's ledger names (``None``: none there)."""
    ledger = CompileLedger(side.out / "work" / "compile.jsonl")
    records = [
        r
        for r in ledger.records()
        if (r.case, r.backend, r.stack) == (case, backend, side.stack) and r.error is None
    ]
    if not records or not records[-1].library:
        return None
    cache = build_cache(side.stack)
    folder = cache / pathlib.PurePath(records[-1].library).parts[0]
    files = read_folder(folder) if folder.is_dir() else {}
    if not files:
        return None
    return Sources(files, records[-1].fingerprint, codegen.FROM_BUILD_FOLDER)


def generated_again(
    side: Side, case: str, backend: str, grid: Grid, *, work: pathlib.Path, timeout_s: float
) -> Sources:
    """The sources written by the side's own ``iconbench suite sources`` (one line on failure)."""
    from iconbench.runner.sources import MANIFEST

    target = work / f"{side.name}-sources"
    command = [sys.executable, "-m", "iconbench", "suite", "sources", "--case", case,
               "--backends", backend, *grid.argv, "--stack", side.stack,
               "--out", str(side.out), "--sources-dir", str(target)]  # fmt: skip
    side_process.run(
        side,
        command,
        what="writing the generated code",
        timeout_s=timeout_s,
        log=work / f"{side.name}-sources.log",
    )
    if not (target / MANIFEST).exists():
        raise IconbenchError(f"the generated code of {side.name} was not written to {target}")
    manifest = json.loads((target / MANIFEST).read_text(encoding="utf-8"))
    return Sources(read_folder(target), manifest.get("fingerprint"), manifest["origin"])


def of_side(
    side: Side, case: str, backend: str, grid: Grid, *, work: pathlib.Path, timeout_s: float = 900.0
) -> Sources:
    """The side's generated source of ``case`` on ``backend``: its build folder, else again."""
    found = from_build_folder(side, case, backend)
    if found is not None:
        return found
    return generated_again(side, case, backend, grid, work=work, timeout_s=timeout_s)

"""Codegen fingerprint: which generated code a compiled program variant runs.

The same stack has been seen to generate different code with ~20 % different speed, so every
result carries a hash of the code its program ran. The hash must belong to the one compiled
*variant* (static arguments switch branches off, each variant is its own build), and must not
change with where the cache or the packages live, or two machines could never agree.

gt4py hands each compilation's result to the caller as a *compilation artifact* (a frozen
dataclass naming the build on disk). :func:`recording` captures the artifacts of the compiles
started inside it, by wrapping gt4py's default compilation runner (its ``Runner`` protocol:
``submit`` returns a future of the artifact); this also sees builds loaded from the
persistent cache, since gt4py submits the same task for a cache hit. :func:`of_artifact` turns
one artifact into a :class:`Build`:

- gtfn (C++/CUDA extension module): the SHA-256 of the generated source files in the build
  folder (everything but CMake's ``build/`` tree);
- DaCe: in its production mode DaCe deletes the generated sources after the build, so the hash
  is of what they are generated from, deterministically: the final SDFG (with the keys that
  name places or identities rather than code removed: debug info with file paths, the build
  folder, GUIDs, DaCe's own hash, transformation history) plus gt4py's argument-binding code.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import pathlib
import warnings
from collections.abc import Iterator
from typing import Any

from iconbench.errors import IconbenchError

_SOURCE_SUFFIXES = (".cpp", ".cu", ".hpp", ".h", ".cuh")
#: SDFG JSON keys that name places, identities or history, not the generated code
_SDFG_VOLATILE_KEYS = frozenset(
    {
        "debuginfo",
        "build_folder",
        "guid",
        "hash",
        "cfg_list_id",
        "sdfg_list_id",
        "transformation_hist",
        "orig_sdfg",
        "source_files",
    }
)


@dataclasses.dataclass(frozen=True)
class Build:
    """One compiled program variant in gt4py's build cache.

    ``library`` is the loaded shared library relative to the build-cache directory (so the
    ledger entry of a compile says which file a later run can load, on any cache root).
    """

    library: str
    fingerprint: str


def source_files(folder: pathlib.Path) -> list[pathlib.Path]:
    """The generated source files of a build folder, sorted (CMake's ``build/`` tree left out)."""
    return [
        path
        for path in sorted(folder.rglob("*"))
        if path.suffix in _SOURCE_SUFFIXES
        and path.relative_to(folder).parts[0] != "build"
        and path.is_file()
    ]


def source_fingerprint(folder: pathlib.Path) -> str | None:
    """SHA-256 (16 hex digits) of the generated sources in ``folder``, ``None`` if there are none.

    >>> import tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> source_fingerprint(folder) is None
    True
    >>> _ = (folder / "p.cpp").write_text("int main() {}")
    >>> (folder / "build").mkdir(); _ = (folder / "build" / "x.cpp").write_text("cmake's")
    >>> first = source_fingerprint(folder)
    >>> _ = (folder / "build" / "x.cpp").write_text("changed")
    >>> source_fingerprint(folder) == first, len(first)
    (True, 16)
    """
    digest = hashlib.sha256()
    found = source_files(folder)
    for path in found:
        digest.update(str(path.relative_to(folder)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16] if found else None


def sdfg_fingerprint(sdfg_json: str, binding_source: str = "") -> str:
    """SHA-256 (16 hex digits) of an SDFG without the keys that do not change the code.

    >>> a = '{"attributes": {"debuginfo": {"filename": "/x/a.py"}, "m": "A[i]"}, "guid": "1"}'
    >>> b = '{"attributes": {"debuginfo": {"filename": "/y/a.py"}, "m": "A[i]"}, "guid": "2"}'
    >>> c = '{"attributes": {"debuginfo": {"filename": "/x/a.py"}, "m": "A[i+1]"}, "guid": "1"}'
    >>> sdfg_fingerprint(a) == sdfg_fingerprint(b), sdfg_fingerprint(a) == sdfg_fingerprint(c)
    (True, False)
    """

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {
                key: strip(item)
                for key, item in value.items()
                if key not in _SDFG_VOLATILE_KEYS and not str(key).startswith("_meta_")
            }
        if isinstance(value, list):
            return [strip(item) for item in value]
        return value

    canonical = json.dumps(strip(json.loads(sdfg_json)), sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(canonical.encode())
    digest.update(binding_source.encode())
    return digest.hexdigest()[:16]


def of_artifact(artifact: Any, cache_dir: pathlib.Path) -> Build | None:
    """The :class:`Build` of a gt4py compilation artifact (``None`` for a kind not known here)."""
    if hasattr(artifact, "src_dir") and hasattr(artifact, "module"):  # gtfn: extension module
        folder = pathlib.Path(artifact.src_dir)
        library, fingerprint = folder / artifact.module, source_fingerprint(folder)
    elif hasattr(artifact, "library_path") and hasattr(artifact, "sdfg_json"):  # DaCe
        library = pathlib.Path(artifact.library_path)
        fingerprint = sdfg_fingerprint(
            artifact.sdfg_json, getattr(artifact, "binding_source_code", "")
        )
    else:
        return None
    if fingerprint is None:
        return None
    return Build(os.path.relpath(library, cache_dir), fingerprint)


def build_folder(artifact: Any) -> pathlib.Path | None:
    """The build folder of a gt4py compilation artifact (gtfn's sources, DaCe's library)."""
    if hasattr(artifact, "src_dir"):
        return pathlib.Path(artifact.src_dir)
    if hasattr(artifact, "library_path"):
        library = pathlib.Path(artifact.library_path).parent
        return library.parent if library.name == "build" else library  # development mode
    return None


#: Where :func:`write_sources` says the code came from.
FROM_BUILD_FOLDER = "build folder"
FROM_SDFG = "generated again from the SDFG"


def write_sources(artifact: Any, target: pathlib.Path) -> str:
    """Write the generated source of a compiled program under ``target``; say where it came from.

    gtfn's build folder holds its C++/CUDA source; so does DaCe's in its development mode
    (``src/<target>/``). In its production mode DaCe keeps only the library, and the code
    is generated again from the artifact's SDFG, with gt4py's DaCe settings for the
    artifact's device, into the same layout (``src/cpu/NAME.cpp``, ``src/cuda/NAME.cu``), so
    that a build of either mode compares file by file with the other.
    """
    folder = build_folder(artifact)
    found = source_files(folder) if folder is not None and folder.is_dir() else []
    if found:
        for path in found:
            copy = target / path.relative_to(folder)
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_bytes(path.read_bytes())
        return FROM_BUILD_FOLDER
    if not hasattr(artifact, "sdfg_json"):
        raise IconbenchError(f"no generated source in the build folder {folder}")
    import dace
    from gt4py.next import config
    from gt4py.next.program_processors.runners.dace.workflow import common

    device = getattr(artifact, "device_type", None)
    with common.dace_context(device_type=device, cmake_build_type=config.CMAKE_BUILD_TYPE):
        sdfg = dace.SDFG.from_json(json.loads(artifact.sdfg_json))
        for code in sdfg.generate_code():
            parts = [code.target.target_name, code.target_type or ""]
            path = target.joinpath("src", *filter(None, parts), f"{code.name}.{code.language}")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(code.clean_code, encoding="utf-8")
    return FROM_SDFG


class _RecordingRunner:
    """gt4py ``Runner`` that delegates to another and keeps the artifacts it produced."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.artifacts: list[Any] = []

    def submit(self, task: Any) -> Any:
        future = self.inner.submit(task)
        future.add_done_callback(self._keep)
        return future

    def _keep(self, future: Any) -> None:
        if not future.cancelled() and future.exception() is None:
            self.artifacts.append(future.result())

    def shutdown(self, wait: bool = True) -> None:
        self.inner.shutdown(wait)


@contextlib.contextmanager
def recording() -> Iterator[list[Any]]:
    """Collect the compilation artifacts of the programs compiled (or loaded) inside.

    gt4py resolves its default runner at each submission, so a runner installed here sees
    every compile of this process until the block ends; ``wait_for_compilation`` may shut it
    down inside the block (it resets the default runner), which leaves the recorded list as is.
    A gt4py without that runner seam (other versions of a stack) records nothing: the
    results then carry no fingerprint, and a warning says why, instead of failing the run.
    """
    try:
        from gt4py.next.otf import runners

        runners.get_default_runner, runners._default_runner_lock  # noqa: B018
    except (ImportError, AttributeError):
        warnings.warn(
            "this gt4py has no compilation-runner seam (gt4py.next.otf.runners); "
            "results will carry no codegen fingerprint",
            stacklevel=3,
        )
        yield []
        return
    recorder = _RecordingRunner(runners.get_default_runner())
    with runners._default_runner_lock:
        runners._default_runner = recorder
    try:
        yield recorder.artifacts
    finally:
        with runners._default_runner_lock:
            if runners._default_runner is recorder:
                runners._default_runner = recorder.inner

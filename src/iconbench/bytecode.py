"""Python bytecode of the stack kept between processes, also where writing it is switched off.

Every process iconbench starts (precompile workers, measuring workers, asv's benchmark
processes) imports gt4py, dace, icon4py and their dependencies: about 2 400 modules. Container
images and CI runners often set ``PYTHONDONTWRITEBYTECODE=1``; then no ``.pyc`` is ever written
and each process compiles those modules from source again, before it does any work. On a
2-core runner that is 20 s of a 33 s program set-up (``compute_diagnostics_from_normal_wind``
on the tiny grid: 32.7 s without bytecode, 8.7 s with it); a check starts dozens of processes.
Measuring workers run under ``PYTHONOPTIMIZE=2``, whose ``.opt-2.pyc`` files no installer
writes, so they compile from source too where the site-packages are read-only.

:func:`configure` keeps the bytecode in a tree of its own under the iconbench cache
(``PYTHONPYCACHEPREFIX``), so the source tree and the image stay as the user wants them, and
turns writing on for this process and the processes it starts. Python checks each cached
file against its source's modification time and size, so one tree serves every stack and
checkout.

:func:`compile_once` compiles the whole stack ahead (:func:`compile_stack`) once per stack
and bytecode location: a GPU runner's environment script runs ``iconbench bytecode`` in every
process group it starts (each shard of a night at once, the merge, the finish), and each
run imported the stack and walked its ~9 000 files for 15-22 s to find them all current.
A stamp in the bytecode directory, written after a complete compile and named by what
decides the bytecode (:func:`stack_key`), lets a later run see that in well under a second
without importing the stack.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import json
import os
import pathlib
import sys
import time
from collections.abc import MutableMapping
from typing import Any

from iconbench.buildcache import cache_root
from iconbench.files.atomic import write_atomic
from iconbench.files.lock import exclusive


def configure(environ: MutableMapping[str, str] = os.environ) -> pathlib.Path | None:
    """Write and read bytecode under ``cache_root()/pycache`` when it would not be written.

    Returns the bytecode directory, or ``None`` when Python writes bytecode already (the
    ``__pycache__`` folders next to the sources are used as usual) or the user chose a
    prefix of their own (``PYTHONPYCACHEPREFIX``, which wins).

    >>> env = {"PYTHONDONTWRITEBYTECODE": "1", "ICONBENCH_CACHE_DIR": "/c"}
    >>> str(configure(env)), env.get("PYTHONDONTWRITEBYTECODE"), env["PYTHONPYCACHEPREFIX"]
    ('/c/pycache', None, '/c/pycache')
    >>> configure({"PYTHONPYCACHEPREFIX": "/mine", "PYTHONDONTWRITEBYTECODE": "1"}) is None
    True
    """
    if environ.get("PYTHONPYCACHEPREFIX"):
        return None
    if not environ.get("PYTHONDONTWRITEBYTECODE") and not (
        environ is os.environ and sys.flags.dont_write_bytecode
    ):
        return None
    directory = cache_root(environ) / "pycache"
    environ.pop("PYTHONDONTWRITEBYTECODE", None)
    environ["PYTHONPYCACHEPREFIX"] = str(directory)
    if environ is os.environ:
        directory.mkdir(parents=True, exist_ok=True)
        sys.pycache_prefix = str(directory)  # this process's later imports, too
        sys.dont_write_bytecode = False
    return directory


#: What the processes of a run import: iconbench's runner and catalog, gt4py, DaCe, the
#: icon4py programs (``cupy`` where it is installed).
STACK_MODULES = (
    "iconbench.runner.measure", "iconbench.runner.precompile", "iconbench.gate.verdict",
    "iconbench.programs.catalog", "gt4py.next", "dace", "icon4py.model.atmosphere.dycore",
    "icon4py.model.atmosphere.diffusion", "icon4py.model.common", "cupy",
)  # fmt: skip


def compile_stack(
    workers: int | None = None, modules: tuple[str, ...] = STACK_MODULES
) -> tuple[int, int]:
    """Compile the bytecode of the whole stack once, ahead, as an installer does.

    A runner whose stack was installed without bytecode (``pip install --no-compile``, a
    carried wheelhouse) or whose bytecode lives in the cache of :func:`configure` has none
    for a run's first processes: the two precompile pools of a check (16 processes on a
    GPU host) each compiled the same ~2 400 modules from source at once. This imports
    ``modules`` (which writes the bytecode of what they import) and then compiles
    every file of each package they came from (gt4py, DaCe and the programs import much of
    theirs only when compiling or measuring), in ``workers`` processes, at this process's
    optimization level and at level 2 (the measuring workers'). Returns (files compiled or
    found current, packages).
    """
    import compileall
    import importlib
    import sysconfig
    import warnings

    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError:  # cupy on a machine without CUDA
            continue
    if any(name.startswith("icon4py") for name in modules):
        from iconbench.programs import catalog

        catalog.discover()  # every program module
    stdlib = pathlib.Path(sysconfig.get_paths()["stdlib"]).resolve()
    packages: set[pathlib.Path] = set()  # whole: parts of them are imported later
    files: set[pathlib.Path] = set()  # the standard library's: only what is imported
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if not path or not path.endswith(".py"):
            continue
        path = pathlib.Path(path).resolve()
        depth = module.__name__.count(".") + (path.name == "__init__.py")
        if path.is_relative_to(stdlib) or depth == 0:
            files.add(path)
        else:
            packages.add(path.parents[depth - 1])
    levels = sorted({sys.flags.optimize, 2})
    with warnings.catch_warnings():  # old escapes in a dependency's sources are not ours
        warnings.simplefilter("ignore", SyntaxWarning)
        for package in sorted(packages):
            compileall.compile_dir(package, quiet=2, optimize=levels, workers=workers or 0)
        for path in sorted(files):
            compileall.compile_file(path, quiet=2, optimize=levels)
    count = len(files) + sum(1 for package in packages for _ in package.rglob("*.py"))
    return count, len(packages)


#: The stamp's schema (its ``schema`` key) and its file name's start.
STAMP = "iconbench-bytecode"


def bytecode_dir() -> pathlib.Path:
    """Where this process's bytecode goes: ``sys.pycache_prefix``, else the iconbench cache.

    Without a prefix the bytecode is next to the sources (``__pycache__``), which may be
    read-only; the stamps go to the cache then.
    """
    return pathlib.Path(sys.pycache_prefix) if sys.pycache_prefix else cache_root() / "bytecode"


def stack_key(modules: tuple[str, ...] = STACK_MODULES) -> dict[str, Any]:
    """What decides the bytecode of ``modules``' packages here, read without importing them.

    The interpreter (its version and installation: the standard library) and the optimization
    levels compiled; the bytecode location; where each of the modules' top-level packages is
    found (another checkout of gt4py or icon4py first on ``PYTHONPATH``); and every installed
    distribution: name, version, its metadata folder and that folder's inode change time,
    which an installer sets and cannot set back (a wheelhouse installed again, even of the
    same versions unpacked with their old modification times, changes it). A source edited
    in place changes none of these: Python still checks each cached file against its source,
    and the first process to import it compiles it.
    """
    import importlib.metadata
    import importlib.util

    found = {}
    for top in sorted({name.split(".")[0] for name in modules}):
        spec = importlib.util.find_spec(top)  # a top-level name: searched, not imported
        found[top] = sorted(spec.submodule_search_locations or [spec.origin]) if spec else []
    installed = set()
    for dist in importlib.metadata.distributions():
        folder = getattr(dist, "_path", None)  # a PathDistribution's .dist-info/.egg-info
        changed = os.stat(folder).st_ctime_ns if folder is not None else 0
        installed.add((dist.name or "", dist.version or "", str(folder or ""), changed))
    return {
        "python": sys.version,
        "prefix": [sys.base_prefix, sys.prefix],
        "optimize": sorted({sys.flags.optimize, 2}),
        "location": os.path.realpath(sys.pycache_prefix) if sys.pycache_prefix else "",
        "modules": list(modules),
        "found": found,
        "distributions": [list(entry) for entry in sorted(installed)],
    }


@dataclasses.dataclass(frozen=True)
class Compiled:
    """The stack's bytecode at one location: compiled by this call, or found current."""

    files: int
    packages: int
    #: when the complete compile that made it current finished (UTC)
    compiled_at: datetime.datetime
    #: this call's seconds (finding a stamp, or compiling)
    seconds: float
    #: ``sys.pycache_prefix``, or "next to the sources"
    location: str
    #: True: a stamp of this stack said current, nothing was compiled
    current: bool

    def describe(self) -> str:
        """The line ``iconbench bytecode`` prints.

        >>> at = datetime.datetime(2026, 11, 27, 14, 49, 12, tzinfo=datetime.UTC)
        >>> Compiled(9006, 65, at, 0.2, "/c/pycache", True).describe()
        'bytecode: current (compiled 2026-11-27T14:49Z, 9006 files; /c/pycache)'
        >>> Compiled(9006, 65, at, 15.04, "/c/pycache", False).describe()
        'bytecode: 9006 files of 65 packages in 15.0 s (/c/pycache)'
        """
        if self.current:
            when = self.compiled_at.strftime("%Y-%m-%dT%H:%MZ")
            return f"bytecode: current (compiled {when}, {self.files} files; {self.location})"
        return (
            f"bytecode: {self.files} files of {self.packages} packages in {self.seconds:.1f} s "
            f"({self.location})"
        )


def _where(key: dict[str, Any]) -> str:
    """The bytecode location a stamp's ``key`` names, as the printed line says it."""
    return key["location"] or "next to the sources"


def _stamp_of(key: dict[str, Any]) -> pathlib.Path:
    canonical = json.dumps(key, sort_keys=True, separators=(",", ":"))
    return bytecode_dir() / f"{STAMP}-{hashlib.sha256(canonical.encode()).hexdigest()[:16]}.json"


def _current(stamp: pathlib.Path, key: dict[str, Any], start: float) -> Compiled | None:
    """What ``stamp`` says was compiled, where it is the stamp of ``key``; else ``None``."""
    try:
        data = json.loads(stamp.read_text(encoding="utf-8"))
        if data.get("schema") != STAMP or data.get("key") != key:
            return None
        return Compiled(
            files=int(data["files"]),
            packages=int(data["packages"]),
            compiled_at=datetime.datetime.fromisoformat(data["compiled"]),
            seconds=time.perf_counter() - start,
            location=_where(key),
            current=True,
        )
    except (OSError, ValueError, KeyError, TypeError):  # none yet, or not ours: compile
        return None


def compile_once(
    workers: int | None = None, modules: tuple[str, ...] = STACK_MODULES, *, force: bool = False
) -> Compiled:
    """The stack's bytecode compiled (:func:`compile_stack`), unless a stamp says it is current.

    The stamp (``<bytecode dir>/iconbench-bytecode-<key hash>.json``) is written atomically
    after a complete compile only, so a run stopped midway leaves none. Runs that start
    together wait for the one compiling (a lock in the bytecode directory) and then find its
    stamp. ``force``: compile whatever a stamp says (each file is still checked against its
    source, as compileall does).
    """
    start = time.perf_counter()
    key = stack_key(modules)
    stamp = _stamp_of(key)
    if not force and (found := _current(stamp, key, start)):
        return found
    with exclusive(stamp.parent / f".{STAMP}.lock"):  # the shards of a night start together
        if not force and (found := _current(stamp, key, start)):  # compiled while we waited
            return found
        files, packages = compile_stack(workers, modules)
        done = datetime.datetime.now(datetime.UTC)
        record = {"schema": STAMP, "version": 1, "compiled": done.isoformat(timespec="seconds"),
                  "files": files, "packages": packages, "key": key}  # fmt: skip
        write_atomic(stamp, json.dumps(record, indent=1))
    return Compiled(files, packages, done, time.perf_counter() - start,
                    _where(key), current=False)  # fmt: skip

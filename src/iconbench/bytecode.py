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
"""

from __future__ import annotations

import os
import pathlib
import sys
from collections.abc import MutableMapping

from iconbench.buildcache import cache_root


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

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

"""The precompile's compile processes, forked from a server that imported the stack once.

A precompile's pool workers each imported gt4py, DaCe and icon4py before their first build,
and the heavy check's longest build could only start after that: on one H200 host 4.9-5.4 s
of imports in each of 16 workers started together (``perf/compile_worker_startup.py``). A
``forkserver`` whose server imports the stack once (:data:`PRELOAD`) forks workers that
import nothing: 0.02 s there. :func:`start` starts that server as the precompile process
starts, before its own import of gt4py, so the server imports beside it; the pool
(:func:`context`) then forks from a ready server.

A CUDA driver initialised before a fork is unusable in the child
(``cudaErrorInitializationError``), and gt4py initialises it on import: its DaCe backend asks
the device for its architecture, unless ``CUDAARCHS`` names it. :func:`start` sets
``CUDAARCHS`` from ``nvidia-smi`` (the value gt4py would have asked the device for: the same
builds), so neither this process nor the server touches the device; each worker makes its
own CUDA context. Where the architecture is not known for certain (GPUs of two kinds, an
``nvidia-smi`` that fails, a CUDA driver without ``nvidia-smi``), or a pool of one process
is asked for, the workers are spawned as before (:data:`SPAWN`).
"""

from __future__ import annotations

import ctypes.util
import multiprocessing
import os
import shutil
import subprocess
from collections.abc import Callable, Mapping
from multiprocessing.context import BaseContext

#: What the server imports before it forks a worker: one module, which imports the stack
#: and keeps going where the stack breaks (a worker then meets the break where it always did).
PRELOAD = ["iconbench.runner.compile_preload"]
#: How compile processes start where no server runs.
SPAWN = "spawn"
#: The environment variable that gives the server the pool's ``--programs`` pattern
#: (:mod:`.compile_preload` reads it). Kept here: importing ``compile_preload`` imports the
#: stack, which this process must not do before the server starts.
PROGRAMS_VARIABLE = "ICONBENCH_COMPILE_PRELOAD_PROGRAMS"

_started: list[str] = []  # the start method of this process's compile pools, once started


def architectures(
    run: Callable[[list[str]], str] | None = None,
    *,
    environ: Mapping[str, str] = os.environ,
    cuda_driver: bool | None = None,
) -> str | None:
    r"""The CMake-style CUDA architecture of this host's GPUs; ``""``: no NVIDIA GPU.

    ``None`` where it is not known for certain. An exported ``CUDAARCHS`` wins, as in gt4py.
    ``run`` runs ``nvidia-smi`` (a test's stand-in); ``cuda_driver`` whether a CUDA driver
    library is installed.

    >>> architectures(lambda argv: "9.0\n9.0\n", environ={})
    '90'
    >>> architectures(lambda argv: "9.0\n8.0\n", environ={}) is None  # two kinds
    True
    >>> architectures(lambda argv: "", environ={}, cuda_driver=False)
    ''
    >>> architectures(lambda argv: "9.0", environ={"CUDAARCHS": "80"})
    '80'
    """
    if exported := environ.get("CUDAARCHS", "").strip():
        return exported
    if run is None:
        if shutil.which("nvidia-smi") is None:
            driver = ctypes.util.find_library("cuda") if cuda_driver is None else cuda_driver
            return None if driver else ""
        run = _nvidia_smi
    try:
        found = {line.strip().replace(".", "") for line in run(
            ["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"]
        ).splitlines() if line.strip()}  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    if not found:
        return "" if cuda_driver is False else None
    return found.pop() if len(found) == 1 and next(iter(found)).isdigit() else None


def _nvidia_smi(argv: list[str]) -> str:
    return subprocess.run(argv, capture_output=True, text=True, timeout=30, check=True).stdout


def start(processes: int, programs: str = "") -> str:
    """Start the server for a pool of ``processes``; the start method its workers will get.

    Call it after :func:`iconbench.buildcache.configure` (the server imports gt4py with the
    environment of this moment) and before this process imports gt4py, so that the two
    imports run side by side. ``programs``: the run's ``--programs`` pattern, whose programs
    the server also prepares (:mod:`.compile_preload`).
    """
    if _started:
        return _started[0]
    method = SPAWN
    if processes > 1 and "forkserver" in multiprocessing.get_all_start_methods():
        arch = architectures()
        if arch is not None:
            if arch:
                os.environ["CUDAARCHS"] = arch
            multiprocessing.get_context("forkserver").set_forkserver_preload(PRELOAD)
            _ensure_running(programs)
            method = "forkserver"
    _started.append(method)
    return method


def _ensure_running(programs: str) -> None:
    """Start the server with ``programs`` in its environment (and only in its)."""
    from multiprocessing import forkserver

    before = os.environ.get(PROGRAMS_VARIABLE)
    os.environ[PROGRAMS_VARIABLE] = programs
    try:
        forkserver.ensure_running()
    finally:
        if before is None:
            os.environ.pop(PROGRAMS_VARIABLE, None)
        else:
            os.environ[PROGRAMS_VARIABLE] = before


def context() -> BaseContext:
    """The context of a compile pool: the started server's, else ``spawn``."""
    return multiprocessing.get_context(_started[0] if _started else SPAWN)

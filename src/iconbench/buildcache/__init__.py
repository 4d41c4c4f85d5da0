"""Where gt4py keeps compiled programs, and how it compiles them.

gt4py reads its configuration from environment variables *when it is imported*, so
:func:`configure` must run before the first ``import gt4py``; the CLI and the asv suite call
it first thing. A persistent cache matters because one program takes 30–50 s to compile per
backend: a second run of the same stack must not compile again. The cache directory is keyed
by the stack (see :mod:`iconbench.stacks`) so that a changed gt4py never reuses stale code:
gt4py's translation caches in it are keyed by the program's IR alone. A runner that keeps its
cache shares the build folders of its stacks between them, never their translations
(:mod:`iconbench.stacks.shared_builds`, ``ICONBENCH_SHARED_BUILD_CACHE=1``).
"""

from __future__ import annotations

import os
import pathlib
import sys
from collections.abc import Mapping

#: Repository root (``src/iconbench/buildcache/__init__.py`` -> four levels up).
REPO_ROOT = pathlib.Path(__file__).resolve().parents[3]

#: Default root of the persistent caches; override with ``ICONBENCH_CACHE_DIR``.
DEFAULT_CACHE_ROOT = REPO_ROOT / ".cache"


def cache_root(environ: Mapping[str, str] = os.environ) -> pathlib.Path:
    """The directory under which iconbench keeps gt4py build caches and generated grids.

    ``environ``: the environment that sets it (a process about to be started has its own).
    """
    return pathlib.Path(environ.get("ICONBENCH_CACHE_DIR", DEFAULT_CACHE_ROOT))


def configure(stack_key: str, *, jobs: int | None = None) -> pathlib.Path:
    """Point gt4py at a persistent build cache for ``stack_key`` and set parallel builds.

    The caller resolves the key: ``--stack``, or the running environment's stack (gt4py, dace
    and icon4py commits or versions, Python; :func:`iconbench.stacks.identity.stack_key`),
    which reads the stack and so sits above this module.

    Values the user already exported win, so ``GT4PY_BUILD_CACHE_DIR=/scratch/x iconbench …``
    still does what it says. Returns the cache directory in effect.
    """
    if "gt4py" in sys.modules and "GT4PY_BUILD_CACHE_DIR" not in os.environ:
        # Too late to influence gt4py.next.config; say so instead of silently compiling
        # into a session cache that is thrown away.
        import warnings

        warnings.warn(
            "iconbench.buildcache.configure() called after gt4py was imported; "
            "the build cache settings will not take effect",
            stacklevel=2,
        )
    directory = cache_root() / "gt4py" / stack_key
    os.environ.setdefault("GT4PY_BUILD_CACHE_LIFETIME", "persistent")
    os.environ.setdefault("GT4PY_BUILD_CACHE_DIR", str(directory))
    os.environ.setdefault("GT4PY_BUILD_JOBS", str(jobs or os.cpu_count() or 1))
    if os.environ["GT4PY_BUILD_JOBS"] == "1":
        # One job: compile in the calling process. gt4py 1.2's ``wait_for_compilation`` tears
        # its worker pool down, so a pool of one costs a ~9 s worker start per program loaded
        # (measured on tiny_lam, gtfn_cpu: 9.2 s per cache hit of apply_diffusion_to_vn, 0.2 s
        # serial).
        os.environ.setdefault("GT4PY_BUILD_JOBS_MODE", "serial")
    # icon4py's fields have unit stride in the horizontal; gt4py generates faster code when told.
    os.environ.setdefault("GT4PY_UNSTRUCTURED_HORIZONTAL_HAS_UNIT_STRIDE", "1")
    path = pathlib.Path(os.environ["GT4PY_BUILD_CACHE_DIR"])
    path.mkdir(parents=True, exist_ok=True)
    return path

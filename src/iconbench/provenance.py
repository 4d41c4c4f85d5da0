"""What stack a measurement was taken on: versions of the software and the hardware.

A benchmark number without its stack is useless for comparison, so every result carries a
:class:`StackInfo`. It is gathered without importing cupy or CUDA when they are absent, so it
also works on CPU-only machines (CI).
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import json
import os
import platform
import re
import shutil
import subprocess
import sys
from typing import Any

from iconbench import collector

#: Distributions whose exact versions make up the stack, in display order.
COMPONENTS: tuple[str, ...] = (
    "iconbench",
    "gt4py",
    "dace",
    "icon4py-common",
    "icon4py-atmosphere-dycore",
    "icon4py-atmosphere-diffusion",
    "numpy",
    "cupy-cuda13x",
    "cupy-cuda12x",
)


@dataclasses.dataclass(frozen=True)
class GpuInfo:
    """The GPU and CUDA versions seen by cupy."""

    name: str
    cuda_runtime: str
    cuda_driver: str
    memory_gib: float
    sm_count: int


@dataclasses.dataclass(frozen=True)
class StackInfo:
    """Versions of Python and every stack component, plus the GPU when there is one.

    >>> info = StackInfo(python="3.12.1", platform="Linux-x86_64", packages={"gt4py": "1.2.1"},
    ...                  python_optimize=2, gpu=None)
    >>> info.packages["gt4py"]
    '1.2.1'
    """

    python: str
    platform: str
    packages: dict[str, str]
    python_optimize: int
    gpu: GpuInfo | None
    #: how the garbage collector ran while programs were translated and loaded (their compile
    #: and load times depend on it; :mod:`iconbench.collector`); results recorded
    #: before it was recorded ran with Python's defaults
    collector: str = "Python's defaults"

    def as_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict, as stored next to results."""
        return dataclasses.asdict(self)

    def to_json(self) -> str:
        """The dict as pretty JSON."""
        return json.dumps(self.as_dict(), indent=2, sort_keys=True)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> StackInfo:
        """Inverse of :meth:`as_dict` (provenance recorded on another machine, e.g. a GPU).

        >>> info = collect()
        >>> StackInfo.from_dict(info.as_dict()) == info
        True
        """
        gpu = data.get("gpu")
        return cls(**{**data, "gpu": GpuInfo(**gpu) if gpu else None})


def package_versions(names: tuple[str, ...] = COMPONENTS) -> dict[str, str]:
    """Versions of ``names`` as this process imports them; missing distributions are left out.

    A stack component's version is that of the code Python imports (an overlay or a source
    tree first on the path), not of the metadata installed (:mod:`iconbench.imported`).
    """
    from iconbench.imported import DIST_MODULES, imported

    versions: dict[str, str] = {}
    for name in names:
        if name in DIST_MODULES:
            found = imported(name)
            if found.source != "missing":
                versions[name] = found.version
            continue
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return versions


def _cuda_version(code: int) -> str:
    """CUDA encodes versions as ``1000 * major + 10 * minor``."""
    return f"{code // 1000}.{(code % 1000) // 10}"


def gpu_info() -> GpuInfo | None:
    """The first CUDA GPU as cupy sees it, or ``None`` without cupy or a GPU."""
    try:
        import cupy
    except ImportError:
        return None
    try:
        if cupy.cuda.runtime.getDeviceCount() == 0:
            return None
        props = cupy.cuda.runtime.getDeviceProperties(0)
        return GpuInfo(
            name=props["name"].decode() if isinstance(props["name"], bytes) else props["name"],
            cuda_runtime=_cuda_version(cupy.cuda.runtime.runtimeGetVersion()),
            cuda_driver=_cuda_version(cupy.cuda.runtime.driverGetVersion()),
            memory_gib=round(props["totalGlobalMem"] / 2**30, 1),
            sm_count=int(props["multiProcessorCount"]),
        )
    except Exception:  # no driver, no device: a CPU machine with cupy installed
        return None


def nvcc_version() -> str | None:
    r"""The release of the nvcc that gt4py's and DaCe's builds run (``CUDACXX``, else ``PATH``).

    cupy's runtime may be another release than the compiler (a CUDA 12 wheelhouse on a CUDA 13
    runner without its nvcc, ``ci/gpu-env.sh``): both are named.

    >>> import os, tempfile
    >>> d = tempfile.mkdtemp(); nvcc = os.path.join(d, "nvcc")
    >>> with open(nvcc, "w") as f:
    ...     _ = f.write("#!/bin/sh\necho 'Cuda compilation tools, release 12.4, V12.4.131'\n")
    >>> os.chmod(nvcc, 0o755)
    >>> old = os.environ.get("CUDACXX"); os.environ["CUDACXX"] = nvcc
    >>> nvcc_version()
    '12.4.131'
    >>> _ = os.environ.pop("CUDACXX") if old is None else os.environ.update(CUDACXX=old)
    """
    nvcc = os.environ.get("CUDACXX") or shutil.which("nvcc")
    if not nvcc:
        return None
    try:
        out = subprocess.run(
            [nvcc, "--version"], capture_output=True, text=True, timeout=20, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    found = re.search(r"release [\d.]+, V([\d.]+)", out.stdout)
    return found.group(1) if found else None


def nvidia_driver_version() -> str | None:
    """The kernel driver version from nvidia-smi (cupy only knows the CUDA API level)."""
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=20,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip().splitlines()[0] if out.stdout.strip() else None


def collect() -> StackInfo:
    """Gather the stack of the running interpreter."""
    return StackInfo(
        python=platform.python_version(),
        platform=f"{platform.system()}-{platform.machine()}",
        packages=package_versions(),
        python_optimize=sys.flags.optimize,
        gpu=gpu_info(),
        collector=collector.DESCRIPTION,
    )


def environment_flags() -> dict[str, str]:
    """The GT4Py and Python settings that change generated code or call overhead."""
    keys = sorted(k for k in os.environ if k.startswith("GT4PY_") or k == "PYTHONOPTIMIZE")
    return {k: os.environ[k] for k in keys}


def checkout_commit() -> str:
    """The commit of this checkout ('' outside git)."""
    from iconbench.buildcache import REPO_ROOT

    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True, check=False
        )
    except OSError:
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


def code_commit() -> str:
    """The iconbench commit that made a result.

    ``$ICONBENCH_COMMIT`` first (a runner's copy of the code may have no git metadata), else
    this checkout's ``HEAD``, else forty zeros. asv keys results by the full hash: an
    abbreviated ``$ICONBENCH_COMMIT`` is expanded where this checkout knows it (else kept;
    the site expands it when it reads the file, ``iconbench.commits``).
    """
    named = os.environ.get("ICONBENCH_COMMIT")
    if named:
        from iconbench.buildcache import REPO_ROOT
        from iconbench.commits import full_hash

        return full_hash(REPO_ROOT, named)
    return checkout_commit() or "0" * 40

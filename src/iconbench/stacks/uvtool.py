"""Where the ``uv`` binary is: environments are built with it, never with pip (speed)."""

from __future__ import annotations

import os
import shutil

from iconbench.errors import IconbenchError


def uv_executable() -> str:
    """``$ICONBENCH_UV``, else the uv of the ``uv`` Python package, else ``uv`` on PATH."""
    if os.environ.get("ICONBENCH_UV"):
        return os.environ["ICONBENCH_UV"]
    try:
        import uv

        return uv.find_uv_bin()
    except (ImportError, FileNotFoundError):
        pass
    found = shutil.which("uv")
    if not found:
        raise IconbenchError("uv is not installed; run ci/ensure-env or set ICONBENCH_UV")
    return found

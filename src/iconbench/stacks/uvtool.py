"""Where the ``uv`` binary is, and the one call that installs into a directory with it.

Environments and overlays are built with uv, never with pip (speed).
"""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

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


def pip_install(
    target: pathlib.Path | str,
    *requirements: str,
    find_links: pathlib.Path | None = None,
    index: str | None = None,
    options: tuple[str, ...] = ("--quiet",),
) -> subprocess.CompletedProcess[str]:
    """``uv pip install --no-deps --target TARGET`` for this Python; its result, not raised.

    ``find_links``: only the wheels in that directory (a runner without network), else
    ``index`` where the requirement's registry is not PyPI. The overlays and the release
    resolution install through this one call.
    """
    command = [uv_executable(), "pip", "install", *options, "--no-deps", "--target",
               str(target), "--python", sys.executable]  # fmt: skip
    if find_links is not None:
        command += ["--no-index", "--find-links", str(find_links)]
    elif index:
        command += ["--index-url", index]
    return subprocess.run([*command, *requirements], capture_output=True, text=True, check=False)


def last_line(done: subprocess.CompletedProcess[str]) -> str:
    """The installer's last line of error output, for a one-line message."""
    return (done.stderr.strip().splitlines() or ["no message"])[-1]

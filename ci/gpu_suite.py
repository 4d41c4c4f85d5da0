#!/usr/bin/env python3
"""Kept for existing command lines: ``ci/gpu_suite.py STEP`` is ``iconbench suite STEP``.

Runs ``iconbench suite STEP [options]`` (the library's runner, :mod:`iconbench.runner`) with
this checkout's sources; ``--processes`` is the runner's ``--jobs``. See
``iconbench suite --help``.
"""

import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]

if __name__ == "__main__":
    argv = ["--jobs" if arg == "--processes" else arg for arg in sys.argv[1:]]
    paths = [str(ROOT / "src"), *filter(None, [os.environ.get("PYTHONPATH")])]
    os.environ["PYTHONPATH"] = os.pathsep.join(paths)
    os.execv(sys.executable, [sys.executable, "-m", "iconbench", "suite", *argv])

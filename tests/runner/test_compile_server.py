"""The precompile's compile processes fork from a server that imported the stack once.

Each test runs a fresh Python (the server and ``CUDAARCHS`` are per process), with a stand-in
``nvidia-smi`` on ``PATH`` that reports the GPUs' compute capabilities.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

CHILD = textwrap.dedent("""
    import json, os, sys
    from iconbench.runner import compile_server
    from tests.runner.test_compile_server import worker_view
    method = compile_server.start(int(sys.argv[1]), sys.argv[2])
    imported_here = "gt4py.next" in sys.modules  # the server imports the stack, not this one
    with compile_server.context().Pool(1) as pool:
        view = pool.apply(worker_view)
    print(json.dumps({"method": method, "parent": os.getpid(), "worker": view,
                      "arch_here": os.environ.get("CUDAARCHS"), "imported_here": imported_here,
                      "programs_here": os.environ.get("ICONBENCH_COMPILE_PRELOAD_PROGRAMS")}))
""")


def worker_view() -> dict:
    """What a compile worker finds before it imports anything itself."""
    catalog = sys.modules.get("iconbench.programs.catalog")
    looked_up = catalog._spec_named.cache_info().currsize if catalog else 0
    return {"gt4py_imported": "gt4py.next" in sys.modules, "pid": os.getpid(),
            "parent": os.getppid(), "arch": os.environ.get("CUDAARCHS"),
            "programs_looked_up": looked_up}  # fmt: skip


def run_child(tmp_path: Path, capabilities: str, processes: int, programs: str = "") -> dict:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    smi = bin_dir / "nvidia-smi"
    smi.write_text(f"#!/bin/sh\nprintf '{capabilities}'\n")
    smi.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k != "CUDAARCHS"}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), str(REPO / "src")])
    env["GT4PY_BUILD_CACHE_DIR"] = str(tmp_path / "cache")  # gt4py's, before it is imported
    env["ICONBENCH_CACHE_DIR"] = str(tmp_path / "iconbench-cache")  # the program index's
    done = subprocess.run([sys.executable, "-c", CHILD, str(processes), programs], env=env,
                          cwd=tmp_path,
                          capture_output=True, text=True, timeout=300, check=True)  # fmt: skip
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_workers_fork_from_a_server_with_the_stack_imported_and_the_device_named(tmp_path):
    """One child for all (its server imports the whole stack): the road a GPU host takes."""
    seen = run_child(tmp_path, "9.0\\n9.0\\n", processes=2,
                     programs=r"^(compute_tangential_wind|compute_airmass)\[")  # fmt: skip
    assert seen["method"] == "forkserver"
    assert seen["worker"]["gt4py_imported"]  # imported by the server, not by the worker
    # nor by the process that started it, which imports the stack beside the server's import
    assert not seen["imported_here"]
    assert seen["worker"]["parent"] != seen["parent"]  # forked by the server
    # gt4py reads the architecture from CUDAARCHS instead of asking the device (CUDA untouched
    # before the fork); the value nvidia-smi reported, as gt4py's own query would give it
    assert seen["worker"]["arch"] == seen["arch_here"] == "90"
    # the check's --programs pattern: the worker finds both programs analysed already, and
    # the pattern went to the server alone
    assert seen["worker"]["programs_looked_up"] == 2
    assert seen["programs_here"] is None


def test_gpus_of_two_kinds_or_one_process_are_spawned_as_before(tmp_path):
    (tmp_path / "a").mkdir()
    seen = run_child(tmp_path / "a", "9.0\\n8.0\\n", processes=2)
    assert seen["method"] == "spawn"
    assert not seen["worker"]["gt4py_imported"]
    assert seen["worker"]["parent"] == seen["parent"]
    assert seen["worker"]["arch"] is None
    (tmp_path / "b").mkdir()
    assert run_child(tmp_path / "b", "9.0\\n", processes=1)["method"] == "spawn"

"""One build and one load of a case with Python's collector defaults and with iconbench's.

Run as ``.venv/bin/python perf/collector_in_builds.py CASE BACKEND GRID [ROUNDS]`` (for
example ``'compute_rho_theta_pgrad_and_update_vn[is_iau_active=False-limited_area=False]'
dace_cpu tiny``). Each round builds the case in two fresh processes, one after the other,
each into an empty build cache of its own: one with the collector's defaults, one under
:func:`iconbench.collector.fewer_collections` (what ``suite.compile_case`` does); then
each process loads its build again from its cache the same way. It prints per process the
build's and the load's seconds, the seconds the collector paused them (``gc.callbacks``) and
the peak memory, and the ratios of the two settings, measured side by side.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parents[1]

CHILD = r"""
import contextlib, gc, json, resource, sys, time
paused = [0.0, 0]
started = [0.0]
def timed(phase, info):
    if phase == "start":
        started[0] = time.perf_counter()
    else:
        paused[0] += time.perf_counter() - started[0]
        paused[1] += 1
gc.callbacks.append(timed)
from iconbench import buildcache, suite
from iconbench.grids.grid import resolve
from iconbench import collector
case, backend, grid_name, mode = sys.argv[1:5]
buildcache.configure("stack-collector", jobs=1)
grid = resolve(grid_name)
if mode == "defaults":  # what a process without iconbench's setting does
    collector.fewer_collections = contextlib.nullcontext
found = {}
for step in ("build", "load"):
    suite._LOADED.clear()
    paused[:] = [0.0, 0]
    t0 = time.perf_counter()
    if step == "build":
        suite.compile_case(case, backend, grid)
    else:
        suite.preload(case, backend, grid)
    found[step] = {"s": time.perf_counter() - t0, "gc_s": paused[0], "collections": paused[1]}
found["peak_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(found))
"""


def one(case: str, backend: str, grid: str, mode: str) -> dict:
    """Build then load ``case`` in a fresh process with an empty cache: its figures."""
    cache = pathlib.Path(tempfile.mkdtemp(prefix="iconbench-collector-"))
    grids = REPO / ".cache" / "grids"
    if grids.is_dir():  # the grid is not what is timed
        shutil.copytree(grids, cache / "grids")
    env = dict(os.environ, ICONBENCH_CACHE_DIR=str(cache), PYTHONOPTIMIZE="2")
    env.setdefault("PYTHONPYCACHEPREFIX", str(REPO / ".cache" / "pycache"))
    try:
        done = subprocess.run([sys.executable, "-c", CHILD, case, backend, grid, mode],
                              env=env, capture_output=True, text=True, check=True)  # fmt: skip
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(case: str, backend: str, grid: str, rounds: str = "1") -> int:
    """Alternate the two settings ``rounds`` times; print each process and the ratios."""
    runs: dict[str, list[dict]] = {"defaults": [], "fewer": []}
    for number in range(int(rounds)):
        order = ("defaults", "fewer") if number % 2 == 0 else ("fewer", "defaults")
        for mode in order:
            found = one(case, backend, grid, mode)
            runs[mode].append(found)
            print(f"{mode:<9} build {found['build']['s']:6.1f} s (collector "
                  f"{found['build']['gc_s']:4.1f} s, {found['build']['collections']} "
                  f"collections)  load {found['load']['s']:5.2f} s (collector "
                  f"{found['load']['gc_s']:4.2f} s)  peak {found['peak_mib']:.0f} MiB",
                  flush=True)  # fmt: skip
    for step in ("build", "load"):
        ratio = statistics.median(r[step]["s"] for r in runs["fewer"]) / statistics.median(
            r[step]["s"] for r in runs["defaults"]
        )
        print(f"{step}: fewer collections / defaults = {ratio:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:5]))

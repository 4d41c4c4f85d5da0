"""Profile one build of one case in this process: where its translation's seconds go.

Run as ``.venv/bin/python perf/profile_build.py CASE BACKEND GRID OUT.prof`` (for example
``'compute_rho_theta_pgrad_and_update_vn[is_iau_active=False-limited_area=False]' dace_cpu
mch_icon-ch1_medium /tmp/build.prof``) with an empty ``ICONBENCH_CACHE_DIR``, so that the
case is translated and compiled, not found. Prints the build's stages
(:mod:`iconbench.timing.compile_stages`) and the functions with the most cumulative time;
``OUT.prof`` is cProfile's file for ``python -m pstats``. A GPU backend needs a GPU (its grid
lives on the device); the CPU variant of a DaCe build runs the same SDFG passes but the GPU
transformations.
"""

from __future__ import annotations

import cProfile
import pstats
import sys
import time


def main(case: str, backend: str, grid_name: str, out: str) -> int:
    """Build ``case`` on ``backend`` under cProfile; print the stages and the top functions."""
    from iconbench import buildcache, suite
    from iconbench.grids.grid import resolve
    from iconbench.timing import compile_stages

    buildcache.configure("stack-profile", jobs=1)
    grid = resolve(grid_name)
    profile = cProfile.Profile()
    started = time.perf_counter()
    with compile_stages.timed(suite.build_cache_dir()) as stages:
        profile.enable()
        try:
            suite.compile_case(case, backend, grid)
        finally:
            profile.disable()
    print(f"{case} on {backend}: {time.perf_counter() - started:.1f} s")
    for stage, seconds in sorted(stages.items(), key=lambda item: -item[1]):
        print(f"  {stage:<16} {seconds:8.1f} s")
    profile.dump_stats(out)
    pstats.Stats(out).sort_stats("cumulative").print_stats(40)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:5]))

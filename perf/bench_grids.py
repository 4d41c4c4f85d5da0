"""Print how long generating big grids takes on one CPU core (a figure, not a pass/fail test).

Run as ``OMP_NUM_THREADS=1 taskset -c 0 .venv/bin/python perf/bench_grids.py [preset ...]``;
the issue asks for a ~1M-cell grid in under 15 s on one core.
"""

from __future__ import annotations

import os
import sys
import time

for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(variable, "1")


def main(presets: list[str]) -> int:
    """Generate each preset once and print its size and wall time."""
    from iconbench import grids

    grids.generate("tiny")  # imports and first-call set-up are not part of the figure
    for name in presets:
        spec = grids.PRESETS[name]
        start = time.perf_counter()
        generated = grids.generate(spec)
        seconds = time.perf_counter() - start
        print(
            f"{name}: {generated.grid.num_cells} cells, {generated.grid.num_edges} edges, "
            f"{generated.grid.num_vertices} vertices, {spec.num_levels} levels "
            f"generated in {seconds:.2f} s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["gpu_1m"]))

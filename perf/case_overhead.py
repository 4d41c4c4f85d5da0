#!/usr/bin/env python3
"""What a measuring worker spends on each case besides its samples, frozen programs or not.

``python perf/case_overhead.py [--load CASE:BACKEND ...] [--case CASE:BACKEND] [--repeats N]``

Loads the ``--load`` programs (from the build cache, compiled if missing) as a measuring
worker holds them, then prepares, measures (``timing.measurement.measure``, 30 samples) and
releases ``--case`` over and over, alternately with the loaded programs' objects walked by
every garbage collection (``gc.unfreeze``, as up to 790efe1) and frozen
(``suite.keep_loaded``, as a worker does now); prints the median seconds of each and their
ratio. Runs on the CPU in seconds once the programs are built.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time

DEFAULT_LOAD = (
    "compute_rho_theta_pgrad_and_update_vn[is_iau_active=False-limited_area=False]:dace_cpu",
)
DEFAULT_CASE = "compute_tangential_wind[default]:gtfn_cpu"


def one_case(case: str, backend: str, grid: str) -> float:
    """Seconds to prepare, measure and release ``case`` (its program already loaded)."""
    from iconbench import suite
    from iconbench.timing.clocks import clock_for
    from iconbench.timing.measurement import measure

    start = time.perf_counter()
    prepared = suite.prepare(case, backend, grid)
    measure(prepared, clock_for(suite.as_backend(backend)), samples=30, max_s=1.0,
            warmup_s=0.01, gt4py_calls=0)  # fmt: skip
    suite.forget(case, backend, grid)
    del prepared
    gc.collect()  # as the worker's release (timing.isolation)
    return time.perf_counter() - start


def main() -> None:
    """Load, then time the case alternately walked and frozen; print both and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--load", action="append", help="CASE:BACKEND a worker holds loaded")
    parser.add_argument("--case", default=DEFAULT_CASE, help="CASE:BACKEND measured")
    parser.add_argument("--grid", default="tiny")
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    from iconbench import buildcache
    from iconbench.stacks.identity import stack_key

    buildcache.configure(stack_key(), jobs=1)
    from iconbench import suite

    for spec in args.load or DEFAULT_LOAD:
        case, backend = spec.rsplit(":", 1)
        suite.preload(case, backend, args.grid)
    case, backend = args.case.rsplit(":", 1)
    suite.preload(case, backend, args.grid)
    one_case(case, backend, args.grid)  # warm: first call, first allocations
    walked: list[float] = []
    frozen: list[float] = []
    for _ in range(args.repeats):
        gc.unfreeze()
        walked.append(one_case(case, backend, args.grid))
        suite.keep_loaded()
        frozen.append(one_case(case, backend, args.grid))
    before, after = statistics.median(walked), statistics.median(frozen)
    walkable, kept = len(gc.get_objects()), gc.get_freeze_count()
    print(f"objects walked by a collection: {walkable} (frozen: {kept})")
    print(f"per case, programs walked: {before * 1e3:.1f} ms; frozen: {after * 1e3:.1f} ms; "
          f"ratio {after / before:.2f} (median of {args.repeats} each, alternating)")  # fmt: skip


if __name__ == "__main__":
    main()

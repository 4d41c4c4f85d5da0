"""A case's inputs in a measuring turn, side by side: as prepare builds them now and before.

For the first static variants of each program, in the order a worker meets them, the seconds
of ``suite._build`` with the fields:

- ``now``: the fields a process drew for an earlier variant shared (``programs.drawn_fields``)
  and the program not bound again (``bound=False``, what ``suite.prepare`` does);
- ``bound``: shared fields, the program bound to its backend again (gt4py fingerprints it),
  as at 389a879;
- ``drawn``: every field drawn again and the program bound, as up to 49e32fc.

Each variant is built the three ways right after one another, after the device memory check a
worker runs between cases; the first variant of a program draws for all later ones and is left
out of the ratios. Prints the medians and their ratios to ``now``; ``--out`` writes every time.

    python perf/case_inputs.py --grid mch_icon-ch1_medium --backends gtfn_gpu,dace_gpu
        --out results/case-inputs/h100-DATE.json
"""

from __future__ import annotations

import argparse
import gc
import json
import pathlib
import statistics
import time

from iconbench import suite
from iconbench.files.atomic import write_atomic
from iconbench.programs.drawn_fields import DrawnFieldsCache
from iconbench.timing import isolation

PROGRAMS = ("apply_divergence_damping_and_update_vn", "compute_rho_theta_pgrad_and_update_vn")


def _timed(case: str, backend, grid, *, bound: bool, on_gpu: bool) -> float:
    # what a worker does between cases: its device-memory check collects and gives cupy's
    # free blocks back (a CPU worker only collects)
    if on_gpu:
        isolation.gpu_memory_in_use()
    else:
        gc.collect()
    start = time.perf_counter()
    built = suite._build(case, backend, grid, bound=bound)
    if on_gpu:
        import cupy

        cupy.cuda.runtime.deviceSynchronize()
    seconds = time.perf_counter() - start
    del built
    return seconds


def measure(grid_name: str, backends: list[str], variants: int) -> list[dict]:
    """One record per (backend, program, variant): the seconds of each way."""
    grid = suite.as_grid(grid_name)
    records = []
    for name in backends:
        backend = suite.as_backend(name)
        suite.generated_grid(grid, backend)
        for program in PROGRAMS:
            cases = [c for c in suite.all_case_ids() if c.startswith(program + "[")][:variants]
            suite._DRAWN.clear()
            on_gpu = backend.on_gpu
            for number, case in enumerate(cases):
                times = {}
                times["now"] = _timed(case, backend, grid, bound=False, on_gpu=on_gpu)
                times["bound"] = _timed(case, backend, grid, bound=True, on_gpu=on_gpu)
                kept, suite._DRAWN = suite._DRAWN, DrawnFieldsCache()  # nothing shared
                times["drawn"] = _timed(case, backend, grid, bound=True, on_gpu=on_gpu)
                suite._DRAWN = kept
                rounded = {way: round(seconds, 5) for way, seconds in times.items()}
                records.append({"backend": name, "program": program, "variant": number,
                                "case": case, **rounded})  # fmt: skip
                shown = "  ".join(f"{way} {seconds:.4f} s" for way, seconds in times.items())
                print(f"{name:9} {program[:40]:40} {number} {shown}", flush=True)
    return records


def main() -> None:
    """Measure, print the medians of the later variants and their ratios, write ``--out``."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])  # -OO: none
    parser.add_argument("--grid", default="tiny")
    parser.add_argument("--backends", default="gtfn_cpu")
    parser.add_argument("--variants", type=int, default=4)
    parser.add_argument("--out", type=pathlib.Path)
    args = parser.parse_args()
    records = measure(args.grid, args.backends.split(","), args.variants)
    later = [r for r in records if r["variant"] > 0]
    for backend in sorted({r["backend"] for r in later}):
        for program in PROGRAMS:
            mine = [r for r in later if r["backend"] == backend and r["program"] == program]
            if not mine:
                continue
            median = {k: statistics.median(r[k] for r in mine) for k in ("now", "bound", "drawn")}
            print(f"{backend} {program}: median now {median['now']:.4f} s, bound "
                  f"{median['bound']:.4f} s ({median['bound'] / median['now']:.1f}x), drawn "
                  f"{median['drawn']:.4f} s ({median['drawn'] / median['now']:.1f}x)")  # fmt: skip
    if args.out:
        write_atomic(args.out, json.dumps({"grid": args.grid, "records": records}, indent=1) + "\n")


if __name__ == "__main__":
    main()

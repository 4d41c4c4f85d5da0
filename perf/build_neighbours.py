#!/usr/bin/env python3
r"""How much the heavy check's longest build slows beside the builds it runs with.

With main's builds the heavy check waits for head's longest build, one ``dace_gpu`` variant
of ``compute_rho_theta_pgrad_and_update_vn``: 150-192 s inside the checks on H200 hosts,
149-176 s with its 7 sibling builds and nothing else running (docs/pr-check-h100.md). Such a
build is one core's Python (DaCe's passes, gt4py's) and, on these virtual machines, one core
runs Python faster the fewer of the others work (``perf/host_contention.py``). This script
tells how much of the build is the build and how much its neighbours: in a fresh build cache
each time, as ``iconbench suite precompile`` runs it,

- **alone**: the one case, one process, nothing else compiling;
- **with siblings**: the same case among all the builds ``--together`` names, one process each.

The rows alternate (``--repeats``: alone, together, alone, …; ``--only`` one kind) while
``--budget-s`` allows another, and each row's ``python_us`` is sampled beside it
(:mod:`iconbench.timing.host_speed`).
The table prints the case's seconds by stage in each row and the ratio of the medians::

    python perf/build_neighbours.py --backend dace_gpu --grid mch_icon-ch1_medium

On a workstation without a GPU, ``--backend gtfn_cpu --grid tiny`` runs the same road.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

CASE = "compute_rho_theta_pgrad_and_update_vn[is_iau_active=True-limited_area=False]"
TOGETHER = r"^compute_rho_theta_pgrad_and_update_vn\["


def one_row(case: str, backends: str, programs: str, grid: str, jobs: int) -> dict:
    """One precompile in a fresh cache; the case's compile record and the host's speed."""
    from iconbench.timing import host_speed

    with tempfile.TemporaryDirectory(prefix="neighbours-") as scratch:
        root = pathlib.Path(scratch)
        env = {**os.environ, "ICONBENCH_CACHE_DIR": str(root / "cache")}
        command = [sys.executable, "-m", "iconbench", "suite", "precompile", "--out",
                   str(root / "out"), "--backends", backends, "--grid", grid,
                   "--programs", programs, "--jobs", str(jobs)]  # fmt: skip
        started = time.perf_counter()
        with host_speed.sampled() as samples:
            done = subprocess.run(command, check=False, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - started
        if done.returncode:
            raise SystemExit(f"precompile failed ({done.returncode}): {done.stderr[-800:]}")
        records = [json.loads(line) for line in (root / "out/work/compile.jsonl").open()]
    backend = None if "," in backends else backends
    mine = [r for r in records if r.get("case") == case and (backend is None or
            r.get("backend") == backend)]  # fmt: skip
    builds = [r for r in records if r.get("case")]
    return {
        "wall_s": wall,
        "builds": len(builds),
        "case": {r["backend"]: r for r in mine},
        "python_us": host_speed.summarize(samples),
    }


def main() -> int:
    """Alone and with its siblings, alternately; the table and the ratio."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("--case", default=CASE)
    parser.add_argument("--backend", default="dace_gpu", help="the case's backend")
    parser.add_argument("--together", default=TOGETHER, help="--programs of the siblings' row")
    parser.add_argument("--together-backends", default="gtfn_gpu,dace_gpu")
    parser.add_argument("--grid", default="mch_icon-ch1_medium")
    parser.add_argument("--jobs", type=int, default=16, help="processes of the siblings' row")
    parser.add_argument("--repeats", type=int, default=2, help="alone/together pairs at most")
    parser.add_argument("--budget-s", type=float, default=480.0,
                        help="start no row once this many seconds have passed")  # fmt: skip
    parser.add_argument("--only", choices=("alone", "together"),
                        help="rows of one kind only (a host with little time left)")  # fmt: skip
    args = parser.parse_args()
    if args.backend.startswith("gtfn_cpu") or args.backend.endswith("_cpu"):
        args.together_backends = args.backend
    alone_pattern = "^" + args.case.replace("[", r"\[").replace("]", r"\]") + "$"
    rows: dict[str, list[dict]] = {"alone": [], "together": []}
    began = time.perf_counter()
    order = [args.only] * args.repeats if args.only else ["alone", "together"] * args.repeats
    last: float = 0.0
    for kind in order:
        if rows[kind] and time.perf_counter() - began + last > args.budget_s:
            break
        t0 = time.perf_counter()
        if kind == "alone":
            row = one_row(args.case, args.backend, alone_pattern, args.grid, 1)
        else:
            row = one_row(args.case, args.together_backends, args.together, args.grid, args.jobs)
        last = time.perf_counter() - t0
        record = row["case"].get(args.backend)
        if record is None:
            raise SystemExit(f"{args.case} on {args.backend}: not in the {kind} row's ledger")
        rows[kind].append({**row, "record": record})
        speed = row["python_us"] or {}
        print(f"{kind:>8}: {record['seconds']:7.1f} s for the case ({row['builds']} builds, "
              f"{row['wall_s']:.1f} s in all), python_us median {speed.get('median', 0):.2f} "
              f"(quartiles {speed.get('quartiles')})", flush=True)  # fmt: skip
    print()
    stages = sorted({s for kind in rows.values() for r in kind
                     for s in (r["record"].get("stages") or {})})  # fmt: skip
    print("| row | seconds | python_us | " + " | ".join(stages) + " |")
    print("| --- | ---: | ---: | " + " | ".join("---:" for _ in stages) + " |")
    for kind, found in rows.items():
        for r in found:
            got = r["record"].get("stages") or {}
            speed = (r["python_us"] or {}).get("median", 0.0)
            cells = " | ".join(f"{got[s]:.1f}" if s in got else "–" for s in stages)
            print(f"| {kind} | {r['record']['seconds']:.1f} | {speed:.2f} | {cells} |")
    if rows["alone"] and rows["together"]:
        alone = statistics.median(r["record"]["seconds"] for r in rows["alone"])
        together = statistics.median(r["record"]["seconds"] for r in rows["together"])
        print(f"\nwith its siblings / alone: {together:.1f} s / {alone:.1f} s = "
              f"{together / alone:.2f}x")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())

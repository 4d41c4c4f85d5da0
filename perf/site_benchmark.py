#!/usr/bin/env python3
"""Time ``iconbench publish`` on a synthetic history: ``python perf/site_benchmark.py``.

50 asv result files (:func:`iconbench.records.asv.write_asv`) shaped like the H100 runner's: 200
cases (1-4 variants per program) x gtfn_gpu, dace_gpu, 100 samples each, tracked metrics, a
few compile failures, code that changes every 10 commits. Prints the publish times (first,
+1 commit, nothing new); exit 1 if the first takes a minute or more.
"""

import argparse
import json
import os
import pathlib
import random
import sys
import tempfile
import time

from iconbench.records import asv as results
from iconbench.site import publish as site

BACKENDS = ("gtfn_gpu", "dace_gpu")
KINDS = ("time_device", "time_host", "track_call_overhead", "track_bandwidth_fraction",
         "track_compile_cold", "track_codegen_fingerprint")  # fmt: skip
MACHINE = {"machine": "h100", "arch": "x86_64", "cpu": "16 cores", "num_cpu": "16",
           "os": "Linux", "ram": "", "gpu": "NVIDIA H100 80GB HBM3"}  # fmt: skip


def case_ids(cases: int) -> list[str]:
    """``cases`` case ids: programs of 1-4 static variants."""
    ids: list[str] = []
    for p in range(cases // 2):
        variants = 1 + p % 4 if len(ids) + 4 <= cases else 1
        ids += [f"program_{p:03d}[{'default' if variants == 1 else f'flag={v}'}]"
                for v in range(variants)]  # fmt: skip
    return ids[:cases]


def write_history(root: pathlib.Path, commits: range, cases: int) -> None:
    """One asv result file per commit number in ``commits``."""
    ids = case_ids(cases)
    params = [[repr(c) for c in ids], [repr(b) for b in BACKENDS], [repr("ch1_medium")]]
    benchmarks = [{"name": f"programs.Programs.{kind}", "params": params, "version": "1",
                   "param_names": ["program", "backend", "grid"], "unit": "seconds",
                   "type": "time" if kind.startswith("time_") else "track"}
                  for kind in KINDS]  # fmt: skip
    rng = random.Random(1)
    base = {c: 10 ** rng.uniform(-4.5, -2) for c in ids}
    for n in commits:
        values: dict[str, dict] = {k: {} for k in KINDS}
        for case in ids:
            for b, backend in enumerate(BACKENDS):
                key = (case, backend, "ch1_medium")
                if backend == "dace_gpu" and hash(case) % 11 == 0:
                    continue  # a compile failure: no value
                median = base[case] * (1 + 0.3 * b) * (1 + 0.002 * n) * (0.9 if n >= 30 else 1.0)
                samples = [median * rng.gauss(1, 0.005) for _ in range(100)]
                fingerprint = hash((case, backend, n // 10)) % 2**48
                row = [(median, samples), (median + 4e-5, [s + 4e-5 for s in samples]),
                       (4e-5 * rng.uniform(0.9, 1.1), None), (rng.uniform(0.3, 0.98), None),
                       (rng.uniform(20, 60), None), (fingerprint, None)]  # fmt: skip
                for kind, value in zip(KINDS, row, strict=True):
                    values[kind][key] = value
        results.write_asv(root, benchmarks, values, machine=MACHINE,
                          commit=f"{n:04x}".ljust(40, "a"), python="3.12",
                          env_name="existing-py3.12-stack-x-ch1_medium",
                          date_ms=1_790_000_000_000 + n * 3_600_000)  # fmt: skip


def main() -> int:
    """Write the history and publish it; add a commit, publish; publish again."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=50, help="commits in the history")
    parser.add_argument("--cases", type=int, default=200, help="cases per backend (x2 backends)")
    parser.add_argument("--keep", type=pathlib.Path, help="keep the results and site here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        work = args.keep or pathlib.Path(scratch)
        history, n, t0 = work / "results" / "all", args.commits, time.perf_counter()
        write_history(history, range(n), args.cases)
        print(f"wrote {n} result files x {2 * args.cases} benchmarks in "
              f"{time.perf_counter() - t0:.1f} s", flush=True)  # fmt: skip
        figures: dict[str, float] = {}
        for name, what in [("first_s", f"first publish ({n} commits)"),
                           ("incremental_s", f"incremental publish (+1 commit, {n + 1} in all)"),
                           ("unchanged_s", "publish with nothing new")]:  # fmt: skip
            if name == "incremental_s":  # one more commit, as a nightly run adds it
                write_history(history, range(n, n + 1), args.cases)
            started = time.perf_counter()
            done = site.publish(site.resolve_inputs([history], asv=False), work / "site")
            figures[name] = round(time.perf_counter() - started, 1)
            outcome = {"runs_added": done.runs_added, "pages": len(done.pages)}
            print(f"{what}: {figures[name]:.1f} s, {outcome}", flush=True)
        print(json.dumps({"commits": n, "benchmarks": 2 * args.cases, **figures,
                          "cores": os.cpu_count()}))  # fmt: skip
        return 0 if figures["first_s"] < 60 else 1


if __name__ == "__main__":
    sys.exit(main())

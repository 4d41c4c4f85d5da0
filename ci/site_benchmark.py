#!/usr/bin/env python3
"""Time ``iconbench publish`` on a long history: 50 commits x 400 benchmarks, synthetic.

The result files are written by asv's own ``Results`` class (:func:`iconbench.results.
write_asv`), shaped like the H100 runner's: 200 cases (100 programs, 1-4 variants) on
gtfn_gpu and dace_gpu, 100 device-time samples per case, the tracked overhead, compile time,
bandwidth fraction and codegen fingerprint, a few compile failures, generated code that
changes every 10 commits, a slow drift. Prints the time of the first publish (everything),
of adding one commit (incremental) and of a publish with nothing new.

    python ci/site_benchmark.py [--commits 50] [--cases 200] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import random
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

BACKENDS = ("gtfn_gpu", "dace_gpu")
KINDS = (
    "time_device",
    "time_host",
    "track_call_overhead",
    "track_bandwidth_fraction",
    "track_compile_cold",
    "track_codegen_fingerprint",
)


def suite(cases: int) -> tuple[list[str], list[dict]]:
    """Case ids (1-4 variants per program) and the suite's benchmark descriptions."""
    ids = []
    for p in range(cases // 2):
        variants = 1 + p % 4 if len(ids) + 4 <= cases else 1
        for v in range(variants):
            ids.append(
                f"program_{p:03d}[default]" if variants == 1 else f"program_{p:03d}[flag={v}]"
            )
            if len(ids) == cases:
                break
        if len(ids) == cases:
            break
    params = [[repr(c) for c in ids], [repr(b) for b in BACKENDS], [repr("ch1_medium")]]
    benchmarks = [
        {
            "name": f"programs.Programs.{kind}",
            "params": params,
            "param_names": ["program", "backend", "grid"],
            "type": "time" if kind.startswith("time_") else "track",
            "unit": "seconds",
            "version": "1",
        }
        for kind in KINDS
    ]
    return ids, benchmarks


def write_history(root: pathlib.Path, commits: range, cases: int) -> None:
    """One asv result file per commit number in ``commits``."""
    from iconbench import results

    ids, benchmarks = suite(cases)
    rng = random.Random(1)
    base = {c: 10 ** rng.uniform(-4.5, -2) for c in ids}
    machine = {
        "machine": "h100",
        "arch": "x86_64",
        "cpu": "16 cores",
        "num_cpu": "16",
        "os": "Linux",
        "ram": "",
        "gpu": "NVIDIA H100 80GB HBM3",
    }
    for n in commits:
        commit = f"{n:04x}".ljust(40, "a")
        values: dict[str, dict] = {k: {} for k in KINDS}
        for case in ids:
            for b, backend in enumerate(BACKENDS):
                key = (case, backend, "ch1_medium")
                if backend == "dace_gpu" and hash(case) % 11 == 0:
                    continue  # a compile failure: no value
                median = base[case] * (1 + 0.3 * b) * (1 + 0.002 * n) * (0.9 if n >= 30 else 1.0)
                samples = [median * rng.gauss(1, 0.005) for _ in range(100)]
                values["time_device"][key] = (median, samples)
                values["time_host"][key] = (median + 4e-5, [s + 4e-5 for s in samples])
                values["track_call_overhead"][key] = (4e-5 * rng.uniform(0.9, 1.1), None)
                values["track_bandwidth_fraction"][key] = (rng.uniform(0.3, 0.98), None)
                values["track_compile_cold"][key] = (rng.uniform(20, 60), None)
                values["track_codegen_fingerprint"][key] = (
                    hash((case, backend, n // 10)) % 2**48,
                    None,
                )
        results.write_asv(
            root,
            benchmarks,
            values,
            machine=machine,
            commit=commit,
            env_name="existing-py3.12-stack-x-ch1_medium",
            python="3.12",
            date_ms=1_790_000_000_000 + n * 3_600_000,
        )


def publish(results_dir: pathlib.Path, out: pathlib.Path) -> tuple[float, dict]:
    """Seconds of one ``iconbench publish`` (library call, no asv pages)."""
    from iconbench.site import publish as site

    started = time.perf_counter()
    outcome = site.publish(site.resolve_inputs([results_dir], asv=False), out)
    return time.perf_counter() - started, {
        "runs_added": outcome.runs_added,
        "pages": len(outcome.pages),
    }


def main() -> int:
    """Write the history, publish it, add a commit, publish again; exit 1 above a minute."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=50, help="commits in the history")
    parser.add_argument("--cases", type=int, default=200, help="cases per backend (x2 backends)")
    parser.add_argument("--keep", type=pathlib.Path, help="keep the results and site here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        work = args.keep or pathlib.Path(scratch)
        results_dir, out = work / "results", work / "site"
        t0 = time.perf_counter()
        write_history(results_dir / "all", range(args.commits), args.cases)
        print(
            f"wrote {args.commits} result files x {2 * args.cases} benchmarks in "
            f"{time.perf_counter() - t0:.1f} s",
            flush=True,
        )
        first, outcome = publish(results_dir / "all", out)
        print(f"first publish ({args.commits} commits): {first:.1f} s, {outcome}", flush=True)
        # one more commit, as a nightly run adds it
        write_history(results_dir / "all", range(args.commits, args.commits + 1), args.cases)
        added, outcome = publish(results_dir / "all", out)
        print(
            f"incremental publish (+1 commit, {args.commits + 1} in all): {added:.1f} s, {outcome}"
        )
        nothing, outcome = publish(results_dir / "all", out)
        print(f"publish with nothing new: {nothing:.1f} s, {outcome}")
        print(
            json.dumps(
                {
                    "commits": args.commits,
                    "benchmarks": 2 * args.cases,
                    "first_s": round(first, 1),
                    "incremental_s": round(added, 1),
                    "unchanged_s": round(nothing, 1),
                    "cores": os.cpu_count(),
                }
            )
        )
        return 0 if first < 60 else 1


if __name__ == "__main__":
    sys.exit(main())

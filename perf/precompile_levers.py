#!/usr/bin/env python3
"""A check's precompile before and after, side by side: ``python perf/precompile_levers.py``.

The precompile of an icon4py change that changes the code of both sides' programs (branch
``edge`` of ``ci/gpu/pr-check-repos``; ``--head edge-comment``: a comment, the same builds on
both sides), run as the check runs it (``iconbench.check.run``'s
``_precompile``: both sides' ``iconbench suite precompile`` pools at once) with iconbench at
``--before`` and at this checkout, alternately, in two build-cache states:

- **empty**: a fresh cache, both sides compile;
- **main's builds**: a cache that holds the base's builds (made once, by
  ``iconbench check --base main --head main --until precompile``; copied for each run): only
  head compiles.

Per run it prints the precompile's wall seconds, the compile processes of each side, the
builds compiled (``iconbench.check.cache_state``), and the pool seconds spent on builds that
another worker made (a variant of the same code, the other side's build: waiting on gt4py's
lock) with the compiles taken up again later instead (``iconbench.runner.busy_builds``). The
runner's ledger that orders the compiles longest first is the warm-up's own (the compile times
of these programs on this machine). On the CPU (``gtfn_cpu``, grid ``tiny``) the default
selection is four variants of ``apply_divergence_damping_and_update_vn`` (two codes: its
``limited_area`` changes nothing without fourth-order damping) and one of
``compute_rho_theta_pgrad_and_update_vn`` (a long compile); ``--programs`` takes another.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "ci"))
from check_overhead import iconbench_at  # noqa: E402

DEFAULT_PROGRAMS = (
    r"^(?:apply_divergence_damping_and_update_vn\[is_iau_active=False-limited_area=(?:False|True)"
    r"-apply_2nd_order_divergence_damping=(?:False|True)-apply_4th_order_divergence_damping=False\]"
    r"|compute_rho_theta_pgrad_and_update_vn\[is_iau_active=False-limited_area=False\])"
)

#: Run with a version's ``src`` first on the path: that version's check precompiles both sides.
PRECOMPILE = """
import inspect, json, pathlib, sys, time
from iconbench.check import run
from iconbench.stacks import sides
from iconbench.grids import resolve
from iconbench.stacks.identity import stack_key
repo, out, jobs, programs, backends, grid, ledgers, head = sys.argv[1:]
base, head = sides.resolve("icon4py", pathlib.Path(repo), ("main", head),
                           out=pathlib.Path(out), stack=stack_key())
pairs = run._jobs(programs, False, tuple(backends.split(",")))
selection = ["--backends", backends, *resolve(grid).argv, "--programs", programs]
start = time.perf_counter()
if "pairs" in inspect.signature(run._precompile).parameters:  # processes shared by the work
    _, processes = run._precompile((base, head), selection, int(jobs), pairs=pairs,  # left,
                                   grid=resolve(grid), ledgers=pathlib.Path(ledgers))  # ordered
else:  # before: an even split, head's pool in the opposite order
    run._precompile((base, head), selection, int(jobs))
    processes = {"base": max(1, int(jobs) // 2), "head": max(1, int(jobs) // 2)}
print(json.dumps({"seconds": time.perf_counter() - start, "processes": processes,
                  "since": time.time() - (time.perf_counter() - start)}))
"""


def icon4py_checkout(work: pathlib.Path) -> pathlib.Path:
    """``main`` and ``edge`` of ``ci/gpu/pr-check-repos`` (made once under ``work``)."""
    repos = work / "repos"
    if not (repos / "icon4py" / ".git").is_dir():
        env = dict(os.environ, ICONBENCH_PYTHON=sys.executable)
        subprocess.run(["bash", str(ROOT / "ci" / "gpu" / "pr-check-repos"), str(repos)],
                       check=True, env=env, capture_output=True)  # fmt: skip
    return repos / "icon4py"


def environment(src: pathlib.Path, cache: pathlib.Path) -> dict[str, str]:
    """Our environment with iconbench's ``src`` on the path and ``cache`` as its cache."""
    env = {k: v for k, v in os.environ.items() if k != "ICONBENCH_CATALOG"}
    return env | {"PYTHONPATH": str(src), "ICONBENCH_CACHE_DIR": str(cache)}


def fresh_cache(cache: pathlib.Path, runner: pathlib.Path, copy: pathlib.Path | None) -> None:
    """An empty build cache (or ``copy`` restored), with the runner's compiled bytecode.

    Always at one path: the exported trees, their compile-index entries and gt4py's
    translations are keyed by where the trees lie, as on a runner that keeps its cache.
    """
    shutil.rmtree(cache, ignore_errors=True)
    if copy is not None:
        shutil.copytree(copy, cache, symlinks=True)
        return
    cache.mkdir(parents=True)
    if (runner / "pycache").is_dir():
        (cache / "pycache").symlink_to(runner / "pycache", target_is_directory=True)


def warm_main(repo: pathlib.Path, work: pathlib.Path, args) -> tuple[pathlib.Path, pathlib.Path]:
    """A copy of the cache with main's builds, and the runner's ledger of their compile times."""
    cache, kept, out = work / "cache", work / "cache-main", work / "warm-main"
    if not (out / "check.json").exists() or not kept.is_dir():
        fresh_cache(cache, args.runner_cache, None)
        shutil.rmtree(out, ignore_errors=True)
        command = [sys.executable, "-m", "iconbench", "check", "--component", "icon4py",
                   "--repo", str(repo), "--base", "main", "--head", "main", "--programs",
                   args.programs, "--backends", args.backends, "--grid", args.grid, "--until",
                   "precompile", "--jobs", str(args.jobs), "--out", str(out)]  # fmt: skip
        subprocess.run(command, env=environment(ROOT / "src", cache), check=True,
                       capture_output=True)  # fmt: skip
        shutil.rmtree(kept, ignore_errors=True)
        shutil.copytree(cache, kept, symlinks=True)
    return kept, out / "base" / "work"


def one_run(src, repo, cache, out, *, ledgers, args) -> dict:
    """One precompile of main..edge by the check of ``src``, and what its ledgers say."""
    shutil.rmtree(out, ignore_errors=True)
    command = [sys.executable, "-c", PRECOMPILE, str(repo), str(out), str(args.jobs),
               args.programs, args.backends, args.grid, str(ledgers), args.head]  # fmt: skip
    done = subprocess.run(command, env=environment(src, cache), check=False,
                          capture_output=True, text=True)  # fmt: skip
    if done.returncode != 0:
        sys.exit(f"precompile_levers: the precompile failed:\n{done.stderr[-3000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return result | pool_seconds(out, cache, result["since"])


def pool_seconds(out: pathlib.Path, cache: pathlib.Path, since: float) -> dict:
    """Builds compiled, compiles taken up again, and pool seconds on another worker's build.

    A compile record whose library an earlier record of the run (either side) names spent its
    seconds on a build another worker made: waiting on gt4py's lock, or finding it done.
    """
    from iconbench.check import cache_state
    from iconbench.stacks.sides import Side

    os.environ["ICONBENCH_CACHE_DIR"] = str(cache)
    records = []
    compiled = set()
    for name in ("base", "head"):
        side = Side(name, name, "", (), out / name, _stack(out / name))
        records += cache_state.records_since(side, since)
        compiled |= cache_state.side_builds(side, since).libraries
    seen: set[str] = set()
    elsewhere = 0.0
    for record in sorted(records, key=lambda r: r.at - r.seconds):  # in the order started
        if record.from_index or record.library is None:
            continue
        if record.library in seen:
            elsewhere += record.seconds
        seen.add(record.library)
    logs = [out / name / "precompile.log" for name in ("base", "head")]
    deferred = sum(log.read_text().count("taken up again later") for log in logs if log.exists())
    return {"compiled": len(compiled), "on others' builds s": elsewhere, "deferred": deferred}


def _stack(side_out: pathlib.Path) -> str:
    """The stack key a side's ledger records (the same for both sides of an icon4py change)."""
    from iconbench.records.compilation import CompileLedger

    records = CompileLedger(side_out / "work" / "compile.jsonl").records()
    return records[-1].stack if records else ""


#: The committed H100 ledgers whose compile times the model takes (gtfn_gpu, dace_gpu, medium).
H100_LEDGERS = (
    "results/h100/work/compile.jsonl",
    "results/h100-mch_icon-ch1_medium/work/compile.jsonl",
    "results/h100-ch1_medium-dace-2.0.0a6/work/compile.jsonl",
)


def heavy_jobs(side: str, backends: tuple[str, ...], *, shared: bool = False) -> list:
    """The heavy check's compiles of one side in the runner's case order, the H100's times.

    A compile's seconds are the median of its successful records in :data:`H100_LEDGERS`, else
    of its program's on that backend. ``apply_divergence_damping_and_update_vn``'s variants
    without fourth-order damping generate one code for either ``limited_area`` (the ledger's
    gtfn_gpu fingerprints, and one build folder for both on dace_cpu). ``shared``: both sides
    generate the same code (a comment-only change).
    """
    from iconbench import results_archive
    from iconbench.programs.catalog import split_case
    from iconbench.records.compilation import CompileLedger
    from iconbench.runner.cases import jobs
    from iconbench.timing.compilation import PlannedCompile

    times: dict[tuple[str, str], list[float]] = {}
    for path in H100_LEDGERS:
        for r in CompileLedger(results_archive.cached(ROOT, path)).records():
            if r.error is None and r.seconds > 1.0:
                times.setdefault((r.case, r.backend), []).append(r.seconds)
                times.setdefault((split_case(r.case)[0], r.backend), []).append(r.seconds)
    programs = (
        "^(?:apply_divergence_damping_and_update_vn|compute_rho_theta_pgrad_and_update_vn)\\["
    )
    options = _options(programs, backends)
    found = []
    for case, backend in jobs(options):
        known = times.get((case, backend)) or times[(split_case(case)[0], backend)]
        code = (
            case.replace("limited_area=True", "limited_area=False")
            if case.endswith("apply_4th_order_divergence_damping=False]")
            else case
        )
        seconds, label = statistics.median(known), f"{'' if shared else side}:{backend}:{code}"
        found.append(PlannedCompile(seconds, label))
    return found


def _options(programs: str, backends: tuple[str, ...]):
    from iconbench.grids import resolve
    from iconbench.programs.backends import backend
    from iconbench.runner.options import RunOptions

    chosen = tuple(backend(name) for name in backends)
    return RunOptions(pathlib.Path("."), chosen, resolve("tiny"), "s", programs=programs)


def model(cores: int, load_s: float) -> None:
    """The heavy check's precompile on ``cores`` with the H100's compile times: a model."""
    from iconbench.runner.precompile import split_processes
    from iconbench.timing.compilation import pools_makespan

    backends = ("gtfn_gpu", "dace_gpu")
    base, head = heavy_jobs("base", backends), heavy_jobs("head", backends)
    longest = lambda jobs: sorted(jobs, key=lambda j: -j.seconds)  # noqa: E731
    half = max(1, cores // 2)
    print(f"\nmodel: the heavy check's precompile on {cores} cores, the H100 ledgers' compile "
          f"times ({len(base)} pairs a side, {len({j.code for j in base})} codes), {load_s:.0f} s "
          "to find a build another worker made; makespan [s]")  # fmt: skip
    print("| cache | before | + longest first (runner's ledger) | + busy builds not waited on "
          "| + processes by work left = after | after/before |")  # fmt: skip
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    comment = (heavy_jobs("base", backends, shared=True), heavy_jobs("head", backends, shared=True))
    states = {"empty": (base, head), "main's builds": ([], head),
              "empty, a comment-only change (one code both sides)": comment}  # fmt: skip
    for state, (left, right) in states.items():
        even = [(half, left[::-1]), (half, right)]
        ordered = [(half, longest(left)), (half, longest(right))]
        shares = split_processes([sum(j.seconds for j in jobs) for jobs in (left, right)], cores)
        fitted = [(shares[0], longest(left)), (shares[1], longest(right))]
        spans = [pools_makespan(even, defer=False, load_s=load_s),
                 pools_makespan(ordered, defer=False, load_s=load_s),
                 pools_makespan(ordered, defer=True, load_s=load_s),
                 pools_makespan(fitted, defer=True, load_s=load_s)]  # fmt: skip
        print(f"| {state} | " + " | ".join(f"{x:.0f}" for x in spans)
              + f" | {spans[-1] / spans[0]:.2f}x |")  # fmt: skip


def main() -> int:
    """Warm main's builds once, time the precompiles alternately, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="main", help="iconbench ref to compare with")
    parser.add_argument("--head", default="edge", help="icon4py branch: edge, or edge-comment")
    parser.add_argument("--backends", default="gtfn_cpu")
    parser.add_argument("--grid", default="tiny")
    parser.add_argument("--programs", default=DEFAULT_PROGRAMS)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="compile processes")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--states", default="main,empty", help="main's builds, empty, or both")
    parser.add_argument("--work", type=pathlib.Path, help="kept between runs (default: temp)")
    runner = pathlib.Path(os.environ.get("ICONBENCH_CACHE_DIR", ROOT / ".cache"))
    parser.add_argument("--runner-cache", type=pathlib.Path, default=runner,
                        help="the runner's cache (its compiled bytecode is linked)")  # fmt: skip
    parser.add_argument("--model-only", action="store_true", help="only the model (seconds)")
    parser.add_argument("--model-cores", type=int, default=16, help="the model's host's cores")
    args = parser.parse_args()
    if args.model_only:
        model(args.model_cores, load_s=5.0)
        return 0
    work = args.work or pathlib.Path(tempfile.mkdtemp(prefix="precompile-levers-"))
    work.mkdir(parents=True, exist_ok=True)
    repo = icon4py_checkout(work)
    versions = {"before": iconbench_at(args.before, work), "after": ROOT / "src"}
    main_cache, ledgers = warm_main(repo, work, args)
    runs: dict[tuple[str, str], list[dict]] = {}
    for repeat in range(args.repeats):
        for state in args.states.split(","):
            for name, src in versions.items():
                cache = work / "cache"
                fresh_cache(cache, args.runner_cache, main_cache if state == "main" else None)
                started = time.perf_counter()
                result = one_run(
                    src, repo, cache, work / f"{state}-{name}-{repeat}", ledgers=ledgers, args=args
                )
                runs.setdefault((state, name), []).append(result)
                print(f"[{state} {name} {repeat}] {json.dumps(result)} "
                      f"({time.perf_counter() - started:.0f} s)", flush=True)  # fmt: skip
                shutil.rmtree(cache, ignore_errors=True)
    print(f"\n{args.repeats} run(s) each, {os.cpu_count()} cores, --jobs {args.jobs}, "
          f"{args.backends}, {args.grid}; median")  # fmt: skip
    print(
        "| cache | iconbench | precompile [s] | processes base/head | builds compiled "
        "| compiles taken up again | pool s on others' builds | after/before |"
    )
    print("| --- | --- | ---: | --- | ---: | ---: | ---: | ---: |")
    for state in args.states.split(","):
        was = statistics.median(r["seconds"] for r in runs[state, "before"])
        for name in versions:
            done = runs[state, name]
            now = statistics.median(r["seconds"] for r in done)
            last = done[-1]["processes"]
            print(f"| {state} | {name} | {now:.1f} | {last['base']}/{last['head']} | "
                  f"{statistics.median(r['compiled'] for r in done):.0f} | "
                  f"{statistics.median(r['deferred'] for r in done):.0f} | "
                  f"{statistics.median(r['on others\' builds s'] for r in done):.1f} | "
                  f"{now / was:.2f}x |")  # fmt: skip
    model(args.model_cores, load_s=5.0)
    return 0


if __name__ == "__main__":
    sys.exit(main())

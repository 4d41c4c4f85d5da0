#!/usr/bin/env python3
"""The full GPU suite on one machine, in resumable steps that each fit a 10-minute limit.

Steps (each re-runnable; finished work is never redone):

  plan        print what precompile and measure would do now and how long that should take
              (compile times from <out>/work/compile.jsonl, per-case times from session.jsonl)
  precompile  compile every catalog program for the backends in a process pool into the
              persistent gt4py cache (ICONBENCH_CACHE_DIR), appending to <out>/work/compile.jsonl
  measure     generate the grid once, then time every compiled program in this process
              (CUDA events, host timer, gt4py metrics), appending to <out>/work/session.jsonl
  crosscheck  re-time N programs per backend with cupyx.profiler.benchmark and print the
              ratios harness/cupyx (also <out>/crosscheck.json)
  asv         write <out>/asv/ (asv results format: benchmarks.json, machine.json, one result
              file) and <out>/summary.json from the ledgers
  all         precompile, measure, asv in one go (stops at --budget, rerun to continue)

Usage on the GPU runner (see docs/timing.md):
  source ci/gpu-env.sh
  python ci/gpu_suite.py precompile --out results/h100 --budget 480
  python ci/gpu_suite.py measure    --out results/h100 --budget 480
  python ci/gpu_suite.py crosscheck --out results/h100
  python ci/gpu_suite.py asv        --out results/h100
  python ci/gpu_report.py results/h100 results/h100-mch_icon-ch1_medium > docs/results-h100.md
  (--experiment mch_icon-ch1_medium: only the variants the experiment runs, on its grid)
(--no-optimize: run without PYTHONOPTIMIZE; the default re-executes under PYTHONOPTIMIZE=2)
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))


def _log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def _phase(out: pathlib.Path, name: str, seconds: float, **extra) -> None:
    """Append the wall time of one step to <out>/work/phases.jsonl (for the report)."""
    path = out / "work" / "phases.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps({"phase": name, "seconds": seconds, "at": time.time(), **extra})
    with path.open("a", encoding="utf-8") as handle:
        handle.write(line + "\n")


def _ensure_optimized(args: argparse.Namespace, argv: list[str]) -> None:
    """Restart under PYTHONOPTIMIZE=2 (gt4py's call path checks ``__debug__``), unless told not.

    The flag is fixed at interpreter start; compile workers inherit it through the environment.
    Every measurement records ``python_optimize``.
    """
    os.environ["PYTHONOPTIMIZE"] = "" if args.no_optimize else "2"
    if bool(sys.flags.optimize) == args.no_optimize:
        sys.stdout.flush()
        os.execv(sys.executable, [sys.executable, str(pathlib.Path(__file__).resolve()), *argv])


def _setup_environment(args: argparse.Namespace) -> None:
    import warnings

    warnings.filterwarnings("ignore", message="Field View Program")
    os.environ["ICONBENCH_BACKENDS"] = ",".join(args.backends)
    os.environ["ICONBENCH_GRID"] = args.grid
    if args.programs:
        os.environ["ICONBENCH_PROGRAMS"] = args.programs
    from iconbench import buildcache

    buildcache.configure(args.stack, jobs=args.build_jobs)


def _jobs(args: argparse.Namespace) -> list[tuple[str, str]]:
    from iconbench import suite
    from iconbench.timing.compilation import jobs_for
    from iconbench.timing.sharding import parse_shard

    shard = parse_shard(args.shard) if args.shard else None
    cases = suite.case_ids(args.programs or "", shard, one_variant=args.one_variant)
    if args.experiment is not None:  # the variants the experiment runs (its static arguments)
        cases = args.experiment.case_ids(cases)
    # every program's first variant before any other, so a run its budget cuts short still
    # covers every program
    firsts = set(suite.first_variants(cases))
    return jobs_for(sorted(cases, key=lambda case: case not in firsts), args.backends)


def _unmeasured(args: argparse.Namespace) -> list[tuple[str, str]]:
    """Selected compiled-backend pairs the session ledger has no (good enough) result for."""
    from iconbench.timing import session

    return session.SessionLedger(args.out / "work" / "session.jsonl").todo(
        [(case, backend) for case, backend in _jobs(args) if backend != "embedded"],
        args.grid,
        retry_failed=True,
        max_cv=args.remeasure_cv_above,
    )


def step_plan(args: argparse.Namespace) -> None:
    """What precompile and measure would do now, with times estimated from the ledgers."""
    import statistics

    from iconbench import suite
    from iconbench.timing import compilation, session

    jobs = _unmeasured(args)
    ledger = compilation.CompileLedger(args.out / "work" / "compile.jsonl")
    failing = ledger.failed(args.stack) & set(jobs)
    to_compile = ledger.pending(
        jobs, args.stack, cache_dir=suite.build_cache_dir(), skip_failed=True
    )
    expected = ledger.expected_seconds()
    known_compiles = any(r.error is None for r in ledger.records())
    compile_s = compilation.makespan([expected(*j) for j in to_compile], args.processes)
    durations = [
        r.duration_s
        for r in session.SessionLedger(args.out / "work" / "session.jsonl").results()
        if r.grid == args.grid and r.measurement is not None
    ]
    to_measure = len(jobs) - len(failing)
    unknown = "time unknown: no {} in {} yet"
    compile_time = (
        f"~{compile_s:.0f} s on {args.processes} workers"
        if known_compiles
        else unknown.format("compile", "work/compile.jsonl")
    )
    measure_time = (
        f"~{to_measure * statistics.median(durations):.0f} s "
        f"({statistics.median(durations):.1f} s per case)"
        if durations
        else unknown.format(f"case measured on {args.grid}", "work/session.jsonl")
    )
    print(
        f"plan: {len(jobs)} pairs not measured on {args.grid}; {len(failing)} fail to compile "
        f"(skipped); {len(to_compile)} to compile: {compile_time}; {to_measure} to measure: "
        f"{measure_time}",
        flush=True,
    )
    if known_compiles:
        for backend in args.backends:
            mine = [j for j in to_compile if j[1] == backend]
            print(
                f"  {backend}: {len(mine)} to compile, ~{sum(expected(*j) for j in mine):.0f} "
                "worker-seconds",
                flush=True,
            )


def step_precompile(args: argparse.Namespace) -> None:
    """Compile all selected (program, backend) pairs into the persistent cache."""
    from iconbench import suite
    from iconbench.timing import compilation

    jobs = _unmeasured(args)
    ledger = compilation.CompileLedger(args.out / "work" / "compile.jsonl")
    cache_dir = suite.build_cache_dir()
    _log(
        f"precompile: {len(jobs)} (program, backend) pairs, {args.processes} processes, "
        f"{os.environ['GT4PY_BUILD_JOBS']} build jobs each, "
        f"cache {os.environ['GT4PY_BUILD_CACHE_DIR']}"
    )
    start = time.perf_counter()
    records = compilation.precompile(
        jobs,
        grid=args.compile_grid,
        stack=args.stack,
        ledger=ledger,
        processes=args.processes,
        progress=compilation.print_progress,
        budget_s=args.budget,
        skip_failed=not args.retry_failed,
        cache_dir=cache_dir,
    )
    elapsed = time.perf_counter() - start
    _phase(args.out, "precompile", elapsed, compiled=len(records))
    known_failures = ledger.failed(args.stack) & set(jobs)
    left = len(ledger.pending(jobs, args.stack, cache_dir=cache_dir, skip_failed=True))
    failed = sum(1 for r in records if r.error)
    _log(
        f"precompile: {len(records)} compiled in {elapsed:.0f}s ({failed} failed); "
        f"{len(known_failures)} pairs fail to compile"
        + ("" if args.retry_failed else " (not tried again; --retry-failed does)")
        + f"; {left} pairs not compiled yet"
        + (" -> run precompile again" if left else "")
    )


def step_measure(args: argparse.Namespace) -> None:
    """Time every selected compiled program on the measurement grid, in fresh workers.

    The cases run in worker processes (this script's ``measure --worker-jobs``) that stop at a
    failure or when device memory is not given back; a fresh worker takes what is left
    (:mod:`iconbench.timing.isolation`).
    """
    import tempfile

    from iconbench import suite
    from iconbench.timing import compilation, isolation, session

    if args.worker_jobs:
        _measure_worker(args)
        return
    jobs = _jobs(args)
    compile_ledger = compilation.CompileLedger(args.out / "work" / "compile.jsonl")
    # known compile failures of this stack are not compiled again here either (a failure on
    # another stack says nothing about this one)
    compiled = compile_ledger.compiled(args.stack)
    failed_compiles = compile_ledger.failed(args.stack)
    jobs = [j for j in jobs if j in compiled or j not in failed_compiles]
    ledger = session.SessionLedger(args.out / "work" / "session.jsonl")
    todo = ledger.todo(
        jobs, args.grid, retry_failed=args.retry_failed, max_cv=args.remeasure_cv_above
    )
    if args.compiled_only:
        # a pair precompile did not get to would compile here, serially, inside the budget;
        # pairs measured already are not asked about (their build may be on an earlier machine)
        cached = compile_ledger.in_cache(args.stack, suite.build_cache_dir())
        kept = [j for j in todo if j[1] == "embedded" or j in cached]
        if len(kept) < len(todo):
            _log(
                f"measure: {len(todo) - len(kept)} pairs to measure are not compiled yet "
                "(left for later: run precompile)"
            )
        todo = kept
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="iconbench-measure-") as scratch:
        jobs_file = pathlib.Path(scratch) / "jobs.json"

        def start_worker(cases, budget_s, inflight):
            jobs_file.write_text(json.dumps(list(cases)), encoding="utf-8")
            command = [sys.executable, str(pathlib.Path(__file__).resolve()), *args.argv,
                       "--worker-jobs", str(jobs_file), "--inflight", str(inflight)]  # fmt: skip
            if budget_s is not None:
                command += ["--budget", f"{budget_s:.0f}"]
            return subprocess.run(command, check=False).returncode

        runs = isolation.run_in_workers(
            todo,
            grid=args.grid,
            ledger=ledger,
            start_worker=start_worker,
            inflight=pathlib.Path(scratch) / "inflight",
            budget_s=args.budget,
            progress=_log,
        )
    elapsed = time.perf_counter() - start
    _phase(args.out, "measure", elapsed, measured=len(runs.results), workers=runs.workers)
    left = len(
        ledger.todo(jobs, args.grid, retry_failed=args.retry_failed, max_cv=args.remeasure_cv_above)
    )
    _log(
        f"measure: {len(runs.results)} cases in {elapsed:.0f}s ({runs.workers} workers, "
        f"{len(runs.failed)} failed); {left} left" + (" -> run measure again" if left else "")
    )


def _measure_worker(args: argparse.Namespace) -> None:
    """One measure worker: the grid once, the copy peak, then the cases of --worker-jobs."""
    from iconbench import suite
    from iconbench.timing import bandwidth, compilation, isolation, session

    jobs = [tuple(job) for job in json.loads(args.worker_jobs.read_text(encoding="utf-8"))]
    compile_ledger = compilation.CompileLedger(args.out / "work" / "compile.jsonl")
    start = time.perf_counter()
    _log(f"measure worker: generating grid {args.grid} ...")
    suite.generated_grid(args.grid, args.backends[0])
    _log(f"measure worker: grid ready after {time.perf_counter() - start:.0f}s")
    on_gpu = any(suite.is_gpu_backend(b) for b in args.backends)
    peak = bandwidth.measure_copy_peak(on_gpu=on_gpu)
    with (args.out / "work" / "copy-peak.jsonl").open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(peak.as_dict()) + "\n")
    datasheet = bandwidth.datasheet_peak(peak.device)
    _log(
        f"measure worker: copy peak {peak.bytes_per_s / 1e12:.3f} TB/s on {peak.device} "
        f"(datasheet {datasheet and datasheet / 1e12} TB/s)"
    )
    remaining = None if args.budget is None else args.budget - (time.perf_counter() - start)
    session.run_cases(
        jobs,
        grid=args.grid,
        ledger=session.SessionLedger(args.out / "work" / "session.jsonl"),
        prepare=suite.prepare,
        release=suite.forget,
        cold_compile_s=lambda c, b: compile_ledger.cold_seconds(c, b, args.stack),
        copy_peak=lambda _b: peak.bytes_per_s,
        datasheet=lambda _b: datasheet,
        budget_s=remaining,
        retry_failed=True,
        max_cv=args.remeasure_cv_above,
        measure_options={
            "samples": args.samples,
            "max_s": args.max_s,
            "warmup_s": args.warmup_s,
        },
        stop_after_failure=True,
        fit_for_next=isolation.DeviceMemory() if on_gpu else lambda: None,
        starting=lambda job: args.inflight and isolation.write_inflight(args.inflight, job),
    )


def step_crosscheck(args: argparse.Namespace) -> None:
    """Harness device time vs cupyx.profiler.benchmark on the same compiled call."""
    import statistics

    import cupyx.profiler

    from iconbench import suite
    from iconbench.timing import report

    rows = []
    suite.generated_grid(args.grid, args.backends[0])
    for backend in args.backends:
        for record in _chosen_for_check(args, backend, args.crosscheck):
            prepared = suite.prepare(record.case, backend, args.grid)
            result = cupyx.profiler.benchmark(
                prepared, name=record.case, n_repeat=args.samples, n_warmup=10
            )
            cupyx_s = float(statistics.median(result.gpu_times[0]))
            harness_s = record.measurement.device_median
            rows.append(
                {
                    "case": record.case,
                    "backend": backend,
                    "harness_s": harness_s,
                    "cupyx_s": cupyx_s,
                    "ratio": harness_s / cupyx_s,
                }
            )
            suite.forget(record.case, backend, args.grid)
            print(
                f"{backend:<9} {record.case:<60} harness {harness_s * 1e6:10.1f} us  "
                f"cupyx {cupyx_s * 1e6:10.1f} us  ratio {harness_s / cupyx_s:.4f}",
                flush=True,
            )
    path = args.out / "crosscheck.json"
    _write_new_or_suffixed(path, json.dumps(rows, indent=1))
    print(
        f"{report.within_5pct(rows)}/{len(rows)} within 5% of cupyx.profiler.benchmark", flush=True
    )
    print(
        "independent check with Nsight Compute (kernel durations of one case):\n  ncu "
        "--metrics gpu__time_duration.sum --csv python ci/gpu_suite.py ncu-target "
        f"--case '<case>' --backends {args.backends[0]} --grid {args.grid}"
    )


def step_ncu_target(args: argparse.Namespace) -> None:
    """Call one prepared case ``--ncu-calls`` times inside the NVTX range ncu profiles."""
    import cupy

    from iconbench import suite
    from iconbench.timing import nsight

    prepared = suite.prepare(args.case, args.backends[0], args.grid)
    call = prepared.call_and_sync()
    call()  # warm-up, outside the range
    cupy.cuda.nvtx.RangePush(nsight.NVTX_RANGE)
    for _ in range(args.ncu_calls):
        call()
    cupy.cuda.nvtx.RangePop()


def _chosen_for_check(args: argparse.Namespace, backend: str, count: int) -> list:
    """``count`` measured cases of ``backend``, from the slowest down, spread over the range."""
    from iconbench.timing import session

    measured = sorted(
        (
            r
            for r in session.SessionLedger(args.out / "work" / "session.jsonl").results()
            # only what the current clock measured (earlier runs may predate a clock change)
            if session.is_current(r)
            and r.measurement.device_s
            and r.grid == args.grid
            and r.backend == backend
            and (not args.programs or re.search(args.programs, r.case))
        ),
        key=lambda r: r.measurement.device_median,
        reverse=True,
    )
    step = max(1, len(measured) // max(1, count))
    return measured[::step][:count]


def step_ncu(args: argparse.Namespace) -> None:
    """Nsight Compute kernel durations of ``--crosscheck`` cases per backend vs the harness."""
    from iconbench.errors import IconbenchError
    from iconbench.timing import nsight, report

    rows = []
    for backend in args.backends:
        for record in _chosen_for_check(args, backend, args.crosscheck):
            log = args.out / "work" / "ncu.csv"
            log.unlink(missing_ok=True)
            command = [
                "ncu", "--nvtx", "--nvtx-include", f"{nsight.NVTX_RANGE}/",
                "--metrics", nsight.METRIC, "--cache-control", "none", "--clock-control", "none",
                "--csv", "--log-file", str(log),
                sys.executable, str(pathlib.Path(__file__).resolve()), "ncu-target",
                "--case", record.case, "--backends", backend, "--grid", args.grid,
                "--ncu-calls", str(args.ncu_calls), "--stack", args.stack, "--out", str(args.out),
            ]  # fmt: skip
            try:
                done = subprocess.run(command, check=False, capture_output=True, text=True)
            except FileNotFoundError:
                _log("ncu: Nsight Compute (ncu) is not on PATH; install it or skip the ncu step")
                return
            if done.returncode != 0 or not log.exists():
                _log(f"ncu failed for {backend} {record.case}: {done.stderr.strip()[-500:]}")
                continue
            try:
                kernels = nsight.kernel_durations(log.read_text())
            except IconbenchError as error:  # keep the rows of the other cases
                _log(f"ncu: {backend} {record.case}: {error}")
                continue
            ncu_s = nsight.per_call_seconds(kernels, args.ncu_calls)
            harness_s = record.measurement.device_median
            rows.append(
                {
                    "case": record.case,
                    "backend": backend,
                    "harness_s": harness_s,
                    "ncu_s": ncu_s,
                    "kernels_per_call": len(kernels) / args.ncu_calls,
                    "ratio": harness_s / ncu_s,
                }
            )
            print(
                f"{backend:<9} {record.case:<60} harness {harness_s * 1e6:10.1f} us  "
                f"ncu {ncu_s * 1e6:10.1f} us ({len(kernels) // args.ncu_calls} kernels)  "
                f"ratio {harness_s / ncu_s:.4f}",
                flush=True,
            )
    _write_new_or_suffixed(args.out / "ncu.json", json.dumps(rows, indent=1))
    print(
        f"{report.within_5pct(rows)}/{len(rows)} within 5% of Nsight Compute kernel durations",
        flush=True,
    )


def _write_new_or_suffixed(path: pathlib.Path, text: str) -> pathlib.Path:
    """Write ``text`` to ``path``, or to ``path.N`` if it exists (results are append-only)."""
    target, number = path, 1
    while target.exists():
        target = path.with_name(f"{path.stem}.{number}{path.suffix}")
        number += 1
    tmp = target.with_suffix(target.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, target)
    return target


def _commit() -> str:
    if os.environ.get("ICONBENCH_COMMIT"):
        return os.environ["ICONBENCH_COMMIT"]
    try:
        return subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "0" * 40


def _recorded_provenance(path: pathlib.Path) -> dict:
    """The ``provenance`` and ``environment`` of a summary.json written on the GPU machine."""
    try:
        recorded = json.loads(path.read_text())
        recorded["provenance"], recorded["environment"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise SystemExit(
            f"--provenance {path}: not a summary.json of 'gpu_suite.py asv' ({error!r}); "
            "pass the summary.json the GPU machine wrote"
        ) from None
    return recorded


def step_asv(args: argparse.Namespace) -> None:
    """Write asv-format results and summary.json from the ledgers."""
    import dataclasses

    from iconbench import provenance, results, suite
    from iconbench.timing import session
    from iconbench.timing.statistics import summarize

    # bytes from today's model (a ledger line keeps the count of the code that measured it;
    # the domain-aware count replaced whole fields, which gave programs writing one level
    # 40 times the copy peak)
    records = [
        dataclasses.replace(r, bytes_moved=suite.minimum_bytes(r.case, args.grid))
        if r.measurement is not None
        else r
        for r in session.SessionLedger(args.out / "work" / "session.jsonl").results()
        if r.grid == args.grid
    ]
    values: dict[str, dict] = {k: {} for k in (*results.TIME_KINDS, *results.TRACK_KINDS)}
    for r in records:
        key = (r.case, r.backend, r.grid)
        m = r.measurement
        if m is None:
            continue
        values["time_host"][key] = (m.host_median, m.host_s)
        if m.device_s:
            values["time_device"][key] = (m.device_median, m.device_s)
            values["track_call_overhead"][key] = (m.overhead_median, None)
        if r.bandwidth_bytes_per_s:
            values["track_bandwidth"][key] = (r.bandwidth_bytes_per_s / 1e9, None)
            values["track_bandwidth_fraction"][key] = (r.fraction_of(r.copy_peak_bytes_per_s), None)
        if r.cold_compile_s is not None:
            values["track_compile_cold"][key] = (r.cold_compile_s, None)
        values["track_compile_cached"][key] = (r.load_s, None)
        if r.fingerprint:
            values["track_codegen_fingerprint"][key] = (int(r.fingerprint[:12], 16), None)
    # the suite's parameters cover the whole ledger, not only this run's --programs
    os.environ.pop("ICONBENCH_PROGRAMS", None)
    benchmarks = results.discover_benchmarks(ROOT / "benchmarks")
    recorded = _recorded_provenance(args.provenance) if args.provenance else None
    info = (
        provenance.StackInfo.from_dict(recorded["provenance"]) if recorded else provenance.collect()
    )
    machine_json = args.out / "asv" / args.machine / "machine.json"
    if machine_json.exists():  # an asv machine is one fixed description, as `asv machine` keeps it
        machine = {k: v for k, v in json.loads(machine_json.read_text()).items() if k != "version"}
    else:
        machine = {
            "machine": args.machine,
            "arch": "x86_64",
            "cpu": f"{os.cpu_count()} cores",
            "num_cpu": str(os.cpu_count()),
            "os": info.platform,
            "ram": "",
            "gpu": info.gpu.name if info.gpu else "none",
        }
    env_name = f"existing-py{info.python}-{args.stack}-{args.grid}"
    path = results.write_asv(
        args.out / "asv",
        benchmarks,
        values,
        machine=machine,
        commit=_commit(),
        env_name=env_name,
        python=info.python[:4],
    )
    _log(f"asv: wrote {path}")
    from iconbench.grids.presets import counts_of
    from iconbench.programs import backend_variants

    summary = {
        "grid": args.grid,
        "grid_counts": counts_of(args.grid).as_dict(),
        "experiment": args.experiment.name if args.experiment else None,
        "backend_options": backend_variants.options_of(args.backends),
        "backends": args.backends,
        "stack": args.stack,
        "provenance": info.as_dict(),
        "environment": recorded["environment"] if recorded else provenance.environment_flags(),
        "phases": [
            json.loads(line)
            for line in (args.out / "work" / "phases.jsonl").read_text().splitlines()
        ]
        if (args.out / "work" / "phases.jsonl").exists()
        else [],
        "cases": [],
    }
    for r in sorted(records, key=lambda r: (r.backend, r.case)):
        entry = {
            "case": r.case,
            "backend": r.backend,
            "error": r.error,
            "load_s": r.load_s,
            "cold_compile_s": r.cold_compile_s,
            "fingerprint": r.fingerprint,
            "bytes_moved": r.bytes_moved,
            "duration_s": r.duration_s,
        }
        if r.measurement is not None:
            m = r.measurement
            host = summarize(m.host_s)
            entry |= {
                "host_median_s": host.median,
                "host_cv": host.cv,
                "device_source": m.device_source,
                "python_optimize": m.python_optimize,
                "gt4py_compute_median_s": summarize(m.gt4py_compute_s).median
                if m.gt4py_compute_s
                else None,
                "gt4py_total_median_s": summarize(m.gt4py_total_s).median
                if m.gt4py_total_s
                else None,
            }
            if m.device_s:
                device = summarize(m.device_s)
                entry |= {
                    "device_median_s": device.median,
                    "device_cv": device.cv,
                    "device_iqr_rel": device.iqr_relative,
                    "samples": device.n,
                    "overhead_median_s": m.overhead_median,
                    "bandwidth_bytes_per_s": r.bandwidth_bytes_per_s,
                    "fraction_of_copy_peak": r.fraction_of(r.copy_peak_bytes_per_s),
                    "fraction_of_datasheet": r.fraction_of(r.datasheet_bytes_per_s),
                    "copy_peak_bytes_per_s": r.copy_peak_bytes_per_s,
                    "datasheet_bytes_per_s": r.datasheet_bytes_per_s,
                }
        summary["cases"].append(entry)
    compile_path = args.out / "work" / "compile.jsonl"
    if compile_path.exists():
        summary["compile"] = [
            json.loads(line) for line in compile_path.read_text().splitlines() if line.strip()
        ]
        for entry in summary["compile"]:
            entry.pop("error", None) if entry.get("error") is None else None
    target = _write_new_or_suffixed(args.out / "summary.json", json.dumps(summary, indent=1))
    _log(f"summary: wrote {target} ({len(summary['cases'])} cases)")


def main(argv: list[str] | None = None) -> int:
    """Parse the step and its options and run it."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "step",
        choices=["plan", "precompile", "measure", "crosscheck", "ncu", "asv", "all", "ncu-target"],
    )
    parser.add_argument("--out", type=pathlib.Path, default=ROOT / "results" / "h100")
    parser.add_argument("--backends", type=lambda s: s.split(","), default=["gtfn_gpu", "dace_gpu"])
    parser.add_argument(
        "--grid",
        default="",
        help="grid preset to measure on (default: the experiment's grid, else gpu_1m)",
    )
    parser.add_argument(
        "--experiment",
        default="",
        help="ICON experiment (baselines/experiments/NAME.toml): only the program variants it "
        "runs, on its grid unless --grid is given",
    )
    parser.add_argument(
        "--compile-grid",
        default="",
        help="grid preset the compile workers take static arguments from (default: --grid; "
        "programs a granule calls compile their domain bounds in, so they depend on the grid; "
        "workers build no fields, only the host grid)",
    )
    parser.add_argument("--programs", default="", help="regex on case ids")
    parser.add_argument("--shard", default="", help="i/n: this runner's share of the cases")
    parser.add_argument(
        "--stack",
        default=os.environ.get("ICONBENCH_STACK", ""),
        help="build-cache key (default: this environment's stack, as iconbench verify uses)",
    )
    parser.add_argument(
        "--processes",
        type=int,
        default=max(1, (os.cpu_count() or 2) - 2),
        help="compile worker processes",
    )
    parser.add_argument("--build-jobs", type=int, default=1, help="GT4PY_BUILD_JOBS per worker")
    parser.add_argument(
        "--budget",
        type=float,
        default=480.0,
        help="seconds after which no new compile/measurement starts",
    )
    parser.add_argument("--samples", type=int, default=100, help="timed calls per case")
    parser.add_argument("--max-s", type=float, default=5.0, help="max sampling seconds per case")
    parser.add_argument(
        "--warmup-s",
        type=float,
        default=0.5,
        help="seconds of synchronised warm-up calls per case (GPU boost clocks settle)",
    )
    parser.add_argument("--crosscheck", type=int, default=3, help="programs per backend")
    parser.add_argument(
        "--retry-failed",
        action="store_true",
        help="precompile: compile again pairs whose last compile failed; measure: measure "
        "again cases whose last measurement failed",
    )
    parser.add_argument(
        "--remeasure-cv-above",
        type=float,
        metavar="CV",
        help="measure again cases above 100 us whose device CV exceeded CV (e.g. 0.01)",
    )
    parser.add_argument(
        "--one-variant", action="store_true", help="only the first variant of each program"
    )
    parser.add_argument(
        "--compiled-only",
        action="store_true",
        help="measure: only pairs whose build precompile left in the cache (no compiles inside "
        "the measurement budget)",
    )
    parser.add_argument(
        "--worker-jobs",
        type=pathlib.Path,
        help=argparse.SUPPRESS,  # measure: a worker's cases (JSON), written by the driver
    )
    parser.add_argument("--inflight", type=pathlib.Path, help=argparse.SUPPRESS)
    parser.add_argument("--machine", default="h100")
    parser.add_argument(
        "--provenance",
        type=pathlib.Path,
        help="asv: take stack and GPU from this summary.json written on the GPU machine "
        "(to write the asv files after the GPU job, from the ledgers)",
    )
    parser.add_argument("--case", default="", help="ncu-target: the case id")
    parser.add_argument("--ncu-calls", type=int, default=3, help="calls profiled by ncu")
    parser.add_argument(
        "--no-optimize",
        action="store_true",
        help="run without PYTHONOPTIMIZE (recorded); default re-executes under PYTHONOPTIMIZE=2",
    )
    args = parser.parse_args(argv)
    # measure's workers re-run this script with these options (the step replaced) and their own
    given = list(sys.argv[1:] if argv is None else argv)
    given.remove(args.step)
    args.argv = ["measure", *given]  # (the experiment is resolved again by each worker)
    _ensure_optimized(args, sys.argv[1:] if argv is None else list(argv))
    if args.experiment:
        from iconbench.baselines import experiments
        from iconbench.errors import IconbenchError

        try:
            args.experiment = experiments.load(args.experiment)
        except IconbenchError as error:
            parser.error(f"--experiment: {error}")
        if args.one_variant:
            parser.error("--experiment chooses the variants; leave out --one-variant")
    else:
        args.experiment = None
    args.grid = args.grid or (args.experiment.grid if args.experiment else "gpu_1m")
    args.compile_grid = args.compile_grid or args.grid
    if not args.stack:
        from iconbench.stacks.identity import stack_key

        args.stack = stack_key()
    (args.out / "work").mkdir(parents=True, exist_ok=True)
    # one program per worker at a time: parallelism comes from the workers (--processes)
    os.environ["GT4PY_BUILD_JOBS"] = str(args.build_jobs)
    _setup_environment(args)
    # after the build cache is configured: importing the backends imports gt4py
    from iconbench.errors import IconbenchError
    from iconbench.programs import backends

    for backend in args.backends:
        try:
            backends.resolve(backend)
        except IconbenchError as error:
            parser.error(f"--backends: {error}")
    steps = {
        "plan": step_plan,
        "precompile": step_precompile,
        "measure": step_measure,
        "crosscheck": step_crosscheck,
        "ncu": step_ncu,
        "asv": step_asv,
        "ncu-target": step_ncu_target,
    }
    chosen = [step_precompile, step_measure, step_asv] if args.step == "all" else [steps[args.step]]
    try:
        for step in chosen:
            step(args)
    except IconbenchError as error:  # bad input: one line that says what to do, no traceback
        print(f"gpu_suite.py {args.step}: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

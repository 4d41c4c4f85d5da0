"""``plan``: what precompile and measure would do now, with times from the ledgers."""

from __future__ import annotations

import statistics

from iconbench.runner import cases
from iconbench.runner.options import RunOptions


def run(options: RunOptions) -> None:
    """Print the plan (pairs to compile and measure, and how long that should take)."""
    from iconbench import suite
    from iconbench.records import session
    from iconbench.records.compilation import CompileLedger
    from iconbench.timing import compilation

    jobs = cases.unmeasured(options)
    ledger = CompileLedger(options.work / "compile.jsonl")
    failing = ledger.failed(options.stack) & set(jobs)
    to_compile = ledger.pending(
        jobs, options.stack, cache_dir=suite.build_cache_dir(), skip_failed=True
    )
    expected = ledger.expected_seconds()
    known_compiles = any(r.error is None for r in ledger.records())
    compile_s = compilation.makespan([expected(*j) for j in to_compile], options.processes)
    durations = [
        r.duration_s
        for r in session.SessionLedger(options.work / "session.jsonl").results()
        if r.grid == options.grid.name and r.measurement is not None
    ]
    to_measure = len(jobs) - len(failing)
    unknown = "time unknown: no {} in {} yet"
    compile_time = (
        f"~{compile_s:.0f} s on {options.processes} workers"
        if known_compiles
        else unknown.format("compile", "work/compile.jsonl")
    )
    measure_time = (
        f"~{to_measure * statistics.median(durations):.0f} s "
        f"({statistics.median(durations):.1f} s per case)"
        if durations
        else unknown.format(f"case measured on {options.grid.name}", "work/session.jsonl")
    )
    print(
        f"plan: {len(jobs)} pairs not measured on {options.grid.name}; {len(failing)} fail to "
        f"compile (skipped); {len(to_compile)} to compile: {compile_time}; {to_measure} to "
        f"measure: {measure_time}",
        flush=True,
    )
    if known_compiles:
        for backend in options.backend_names:
            mine = [j for j in to_compile if j[1] == backend]
            print(
                f"  {backend}: {len(mine)} to compile, ~{sum(expected(*j) for j in mine):.0f} "
                "worker-seconds",
                flush=True,
            )

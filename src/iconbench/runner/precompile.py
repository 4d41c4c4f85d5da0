"""``precompile``: every selected pair into the persistent gt4py cache, in a process pool."""

from __future__ import annotations

import os
import time

from iconbench.runner import cases
from iconbench.runner.options import RunOptions
from iconbench.runner.progress import log, phase


def run(options: RunOptions) -> None:
    """Compile what is not yet measured and not yet in the cache (compile.jsonl records it)."""
    from iconbench import suite
    from iconbench.timing import compilation

    jobs = cases.unmeasured(options)
    ledger = compilation.CompileLedger(options.work / "compile.jsonl")
    cache_dir = suite.build_cache_dir()
    log(
        f"precompile: {len(jobs)} (program, backend) pairs, {options.processes} processes, "
        f"{os.environ['GT4PY_BUILD_JOBS']} build jobs each, "
        f"cache {os.environ['GT4PY_BUILD_CACHE_DIR']}"
    )
    start = time.perf_counter()
    records = compilation.precompile(
        jobs,
        grid=options.compile_grid,
        stack=options.stack,
        ledger=ledger,
        processes=options.processes,
        progress=compilation.print_progress,
        budget_s=options.budget,
        skip_failed=not options.retry_failed,
        cache_dir=cache_dir,
    )
    elapsed = time.perf_counter() - start
    phase(options.out, "precompile", elapsed, compiled=len(records))
    known_failures = ledger.failed(options.stack) & set(jobs)
    left = len(ledger.pending(jobs, options.stack, cache_dir=cache_dir, skip_failed=True))
    failed = sum(1 for r in records if r.error)
    log(
        f"precompile: {len(records)} compiled in {elapsed:.0f}s ({failed} failed); "
        f"{len(known_failures)} pairs fail to compile"
        + ("" if options.retry_failed else " (not tried again; --retry-failed does)")
        + f"; {left} pairs not compiled yet"
        + (" -> run precompile again" if left else "")
    )

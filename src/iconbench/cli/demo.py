"""``iconbench demo``: the main job on the small embedded default, end to end in minutes.

Generates the tiny grid, compiles two programs for gtfn_cpu in parallel (the persistent cache
makes a second run instant), times them on embedded and gtfn_cpu with the same protocol as
the full suite, prints a table and writes a markdown report.
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys

from iconbench.buildcache import REPO_ROOT
from iconbench.cli import options
from iconbench.cli.command import Command
from iconbench.errors import IconbenchError

#: Two cheap, representative stencils: a neighbour reduction and a pointwise update.
DEMO_CASES: tuple[str, ...] = (
    "compute_tangential_wind[default]",
    "compute_perturbation_of_rho_and_theta[default]",
)


def ensure_optimized(argv: list[str]) -> None:
    """Re-run this command under ``PYTHONOPTIMIZE=2`` if the interpreter runs without it.

    gt4py validates arguments on every call when ``__debug__`` is on, which inflates the call
    overhead we measure; the flag is fixed at interpreter start, so the only fix is to restart.
    """
    if sys.flags.optimize or os.environ.get("ICONBENCH_NO_REEXEC"):
        return
    os.environ["PYTHONOPTIMIZE"] = "2"
    os.environ["ICONBENCH_NO_REEXEC"] = "1"
    sys.stdout.flush()
    os.execv(sys.executable, [sys.executable, "-m", "iconbench", *argv])


def _us(seconds: float | None) -> str:
    return "–" if seconds is None else f"{seconds * 1e6:,.1f}"


class Demo(Command):
    """Time a couple of programs on the CPU backends of a generated tiny grid; write a report."""

    name = "demo"
    summary = "the main job on the small embedded default: tiny grid, CPU backends, report"
    examples = (
        "iconbench demo",
        "iconbench demo --backends embedded --programs compute_tangential_wind",
        "iconbench demo --out /tmp/demo",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        options.add_backends(parser)
        options.add_grid(parser)
        options.add_programs(
            parser,
            help="regex searched in case ids program[variant] "
            "(default: compute_tangential_wind and compute_perturbation_of_rho_and_theta)",
        )
        parser.add_argument(
            "--samples",
            type=options.positive_int_type,
            default=100,
            metavar="N",
            help="timed calls per case (default: 100)",
        )
        options.add_jobs(parser, default_help="one per program to compile, at most the cores")
        options.add_out(
            parser,
            default=REPO_ROOT / "results-local",
            help="directory for the report and the run's ledgers (default: results-local/)",
        )

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        # Names are checked (argparse, the case index) before the restart and before gt4py.
        options.check_environment()
        if args.programs:
            options.select_cases(args.programs)
        options.create_dir(args.out, "--out")  # before the work, not after it
        ensure_optimized(sys.argv[1:])
        import warnings

        from iconbench import buildcache
        from iconbench.stacks.identity import stack_key

        warnings.filterwarnings("ignore", message="Field View Program")
        # The build cache is keyed by this environment's stack, never a fixed name: a changed
        # gt4py must not load stale builds.
        stack = options.from_environment("ICONBENCH_STACK") or stack_key()
        buildcache.configure(stack, jobs=1)
        from iconbench import provenance, suite
        from iconbench.timing import bandwidth, compilation, report, session

        backends = list(args.backends)
        cases = suite.case_ids(args.programs) if args.programs else None
        if cases is None:
            available = set(suite.case_ids(""))
            cases = [c for c in DEMO_CASES if c in available] or sorted(available)[:1]
        if not cases:
            raise IconbenchError(f"no program matches {args.programs!r}")
        stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%SZ")
        work = args.out / f"demo-{stamp}"
        ledger = compilation.CompileLedger(buildcache.cache_root() / "compile-ledger.jsonl")
        compiled = [(c, b) for c, b in compilation.jobs_for(cases, backends) if b != "embedded"]
        if compiled and not args.no_precompile:
            print(f"compiling {len(compiled)} program(s) (cached after the first run) …")
            compilation.precompile(
                compiled,
                grid=args.grid,
                stack=stack,
                ledger=ledger,
                processes=args.jobs or min(len(compiled), os.cpu_count() or 1),
                progress=compilation.print_progress,
            )
        peak = bandwidth.measure_copy_peak(on_gpu=False)
        results = session.run_cases(
            compilation.jobs_for(cases, backends),
            grid=args.grid,
            ledger=session.SessionLedger(work / "session.jsonl"),
            prepare=suite.prepare,
            release=suite.forget,
            cold_compile_s=lambda c, b: ledger.cold_seconds(c, b, stack),
            copy_peak=lambda _b: peak.bytes_per_s,
            measure_options={"samples": args.samples, "max_s": 5.0},
            progress=lambda line: None,
        )
        rows = [
            {
                "case": r.case,
                "backend": r.backend,
                "error": r.error,
                "host": r.measurement.host_median if r.measurement else None,
                "device": r.measurement.device_median if r.measurement else None,
                "source": r.measurement.device_source if r.measurement else "",
                "overhead": r.measurement.overhead_median if r.measurement else None,
                "bandwidth": r.bandwidth_bytes_per_s,
                "fraction": r.fraction_of(peak.bytes_per_s),
                "fingerprint": r.fingerprint,
            }
            for r in results
        ]
        header = (
            f"{'program':<50} {'backend':<9} {'host µs':>10} {'device µs':>10} "
            f"{'overhead µs':>11} {'GB/s':>8}"
        )
        print(header)
        print("-" * len(header))
        for row in rows:
            if row["error"]:
                print(f"{row['case']:<50} {row['backend']:<9} FAILED: {row['error'][-80:]}")
                continue
            gbs = f"{row['bandwidth'] / 1e9:8.2f}" if row["bandwidth"] else f"{'–':>8}"
            print(
                f"{row['case']:<50} {row['backend']:<9} {_us(row['host']):>10} "
                f"{_us(row['device']):>10} {_us(row['overhead']):>11} {gbs}"
            )
        text = report.render(
            "demo.md.j2",
            {
                "rows": rows,
                "grid": args.grid,
                "stamp": stamp,
                "stack": provenance.collect().as_dict(),
                "copy_peak": peak.bytes_per_s,
                "environment": provenance.environment_flags(),
            },
        )
        work.mkdir(parents=True, exist_ok=True)
        path = work / "report.md"
        tmp = path.with_suffix(".md.tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
        print(f"\nreport written to {path}", file=sys.stdout)
        return 1 if any(r["error"] for r in rows) else 0

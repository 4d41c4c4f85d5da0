"""``iconbench demo``: the main job on the small embedded default, end to end in minutes.

The runner's own steps (:mod:`iconbench.runner.pipeline`) on two programs: compile them for
gtfn_cpu in parallel (the persistent cache makes a second run instant), measure them on
embedded and gtfn_cpu in a fresh worker, write the result directory ``OUT/demo-<time>/``
(asv files, ``summary.json``, ledgers); then a table and a markdown report read from it.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from iconbench.buildcache import REPO_ROOT
from iconbench.cli import options
from iconbench.cli.command import Command
from iconbench.files.directories import create_dir

if TYPE_CHECKING:
    from iconbench.grids import Grid
    from iconbench.runner.options import RunOptions

#: Two cheap, representative stencils: a neighbour reduction and a pointwise update.
DEMO_CASES: tuple[str, ...] = (
    "compute_tangential_wind[default]",
    "compute_perturbation_of_rho_and_theta[default]",
)


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
        options.add_grid_source(parser)
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
        grid = options.grid_of(args)
        if args.programs:
            options.select_cases(args.programs)
        create_dir(args.out, "--out")  # before the work, not after it
        from iconbench.records import resultdir
        from iconbench.runner import pipeline

        pipeline.optimized()
        run = cls._options(args, grid)
        pipeline.run(run, pipeline.ALL if not args.no_precompile else ("measure", "asv"))
        summary = resultdir.read_summary(resultdir.newest_summary(run.out))
        rows = [_row(case) for case in summary["cases"]]
        _print_table(rows)
        from iconbench.timing import report

        peaks = [
            c["copy_peak_bytes_per_s"] for c in summary["cases"] if c.get("copy_peak_bytes_per_s")
        ]
        text = report.render(
            "demo.md.j2",
            {
                "rows": rows,
                "grid": run.grid.name,
                "stamp": run.out.name.removeprefix("demo-"),
                "stack": summary["provenance"],
                "copy_peak": max(peaks, default=0.0) or None,
                "environment": summary["environment"],
            },
        )
        from iconbench.files.atomic import write_atomic

        path = run.out / "report.md"
        write_atomic(path, text)
        print(f"\nreport written to {path}", file=sys.stdout)
        return 1 if any(r["error"] for r in rows) else 0

    @staticmethod
    def _options(args: argparse.Namespace, grid: Grid) -> RunOptions:
        """The runner's options for the demo's cases, in a new ``OUT/demo-<time>/``."""
        import re

        from iconbench import suite
        from iconbench.programs import backends as registry
        from iconbench.records.resultdir import new_directory
        from iconbench.runner.options import RunOptions

        if args.programs:
            cases = suite.case_ids(args.programs)
        else:
            available = set(suite.case_ids(""))
            cases = [c for c in DEMO_CASES if c in available] or sorted(available)[:1]
        backends = tuple(registry.backend(name) for name in args.backends)  # resolved once
        compiled = sum(1 for b in backends if not b.is_embedded) * len(cases)
        stack = options.resolve_stack()
        return RunOptions(
            out=new_directory(args.out, "demo", stack),
            backends=backends,
            grid=grid,
            stack=stack,
            programs="^(?:" + "|".join(re.escape(case) for case in cases) + ")$",
            processes=args.jobs or max(1, min(compiled, os.cpu_count() or 1)),
            samples=args.samples,
            warmup_s=0.2,
            machine="demo",
        )


def _row(case: dict) -> dict:
    """One line of the demo's table from one case of the summary."""
    return {
        "case": case["case"],
        "backend": case["backend"],
        "error": case["error"],
        "host": case.get("host_median_s"),
        "device": case.get("device_median_s"),
        "source": case.get("device_source") or "",
        "overhead": case.get("overhead_median_s"),
        "bandwidth": case.get("bandwidth_bytes_per_s"),
        "fraction": case.get("fraction_of_copy_peak"),
        "fingerprint": case.get("fingerprint"),
    }


def _print_table(rows: list[dict]) -> None:
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

"""``iconbench verify``: every program and variant on a backend against the embedded backend."""

from __future__ import annotations

import argparse
import pathlib
import sys

from iconbench.cli.command import Command


class Verify(Command):
    """Compare each program's outputs on the given backends with the reference; write a table."""

    name = "verify"
    summary = "check each backend computes what the embedded backend computes (exit 1 on mismatch)"
    examples = (
        "iconbench verify --backend gtfn_cpu --grid tiny --program compute_tangential_wind",
        "iconbench verify --backend gtfn_cpu --backend dace_cpu --grid tiny_lam "
        "--out docs/verification/cpu.md",
        "iconbench verify --backend gtfn_gpu --backend dace_gpu --grid tiny_lam --jobs 8 "
        "--out docs/verification/gpu.md",
        "iconbench verify --backend gtfn_gpu --grid tiny_lam --one-variant --jobs 14",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--backend",
            action="append",
            required=True,
            help="backend to verify (repeatable): embedded, gtfn_cpu, dace_gpu, dace_gpu_noauto…",
        )
        parser.add_argument("--grid", default="tiny", help="grid preset (default: tiny)")
        parser.add_argument("--program", metavar="REGEX", help="only cases matching REGEX")
        parser.add_argument("--out", type=pathlib.Path, help="write FILE.md and FILE.json")
        parser.add_argument(
            "--jobs",
            type=int,
            default=0,
            help="precompile in N processes first (0: no precompile; compile on first call)",
        )
        parser.add_argument("--seed", type=int, default=0, help="input seed (default 0)")
        parser.add_argument(
            "--one-variant",
            action="store_true",
            help="only the first static variant of each program (every program, fewer compiles)",
        )

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        from iconbench import buildcache

        buildcache.configure()
        from iconbench import verification

        if args.jobs:
            _precompile(args, verification)
        report = verification.verify(
            args.backend,
            args.grid,
            pattern=args.program,
            seed=args.seed,
            progress=verification.print_progress,
            one_variant=args.one_variant,
        )
        for line in verification.summary_lines(report):
            print(line)
        for result in report.results:
            if result.status != "pass":
                print(f"{result.status:<12} {result.backend:<9} {result.case}: {result.detail}")
        if args.out:
            markdown, data = report.write(args.out)
            print(f"wrote {markdown} and {data}", file=sys.stderr)
        return 0 if report.ok else 1


def _precompile(args: argparse.Namespace, verification: object) -> None:
    """Compile every selected case (and needed references) in a process pool, into the cache."""
    from iconbench import buildcache
    from iconbench.stacks.identity import stack_key
    from iconbench.timing import compilation

    stack = stack_key()
    jobs = verification.precompile_jobs(  # type: ignore[attr-defined]
        args.program, args.backend, args.grid, one_variant=args.one_variant
    )
    ledger = compilation.CompileLedger(buildcache.cache_root() / "compile-ledger.jsonl")
    compilation.precompile(
        jobs,
        grid=args.grid,
        stack=stack,
        ledger=ledger,
        processes=args.jobs,
        progress=compilation.print_progress,
    )

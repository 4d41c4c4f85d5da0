"""``iconbench verify``: every program and variant on a backend against the embedded backend."""

from __future__ import annotations

import argparse
import os
import pathlib
import sys

from iconbench.cli import options
from iconbench.cli.command import Command


class Verify(Command):
    """Compare each program's outputs on the given backends with the reference; write a table."""

    name = "verify"
    summary = "check each backend computes what the embedded backend computes (exit 1 on mismatch)"
    examples = (
        "iconbench verify --backends gtfn_cpu --grid tiny --programs compute_tangential_wind",
        "iconbench verify --backends gtfn_cpu,dace_cpu --grid tiny_lam "
        "--out docs/verification/cpu.md",
        "iconbench verify --backends gtfn_gpu,dace_gpu --grid tiny_lam --jobs 8 "
        "--out docs/verification/gpu.md",
        "iconbench verify --backends gtfn_gpu --grid tiny_lam --one-variant --jobs 14",
        "iconbench verify --backends dace_cpu --grid tiny_lam --shard 1/2 --out part-1 "
        "(then: iconbench merge part-1.json part-2.json --out dace_cpu)",
        "iconbench verify --backends embedded --programs 'diffusion' --no-precompile",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        options.add_backends(
            parser,
            default=None,
            required=True,
            help="backends to verify against embedded, comma list or repeated (required): "
            "embedded, gtfn_cpu, dace_cpu, gtfn_gpu, dace_gpu, dace_gpu_noauto, ...",
        )
        options.add_grid(parser)
        options.add_programs(parser)
        options.add_out(parser, help="write PATH.md and PATH.json (the table and the data)")
        options.add_jobs(
            parser,
            default_help="half the cores; the cases are then verified in as many processes",
        )
        parser.add_argument(
            "--seed", type=int, default=0, metavar="N", help="input seed (default 0)"
        )
        parser.add_argument(
            "--one-variant",
            action="store_true",
            help="only the first static variant of each program (every program, fewer compiles)",
        )
        parser.add_argument(
            "--shard",
            default=None,
            type=options.shard,
            metavar="I/N",
            help="verify the I-th of N shares of the cases (one per runner; "
            "'iconbench merge' joins the shards' tables)",
        )

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        from iconbench import buildcache

        options.require_backends(args.backends, "iconbench verify --backends gtfn_cpu")
        options.select_cases(args.programs or "", one_variant=args.one_variant, shard=args.shard)
        stack = options.resolve_stack()
        buildcache.configure(stack)
        from iconbench import verification

        if not args.no_precompile:
            _precompile(args, verification, stack)
        report = verification.verify(
            list(args.backends),
            args.grid,
            pattern=args.programs or None,
            seed=args.seed,
            progress=verification.print_progress,
            one_variant=args.one_variant,
            shard=args.shard,
            processes=1 if args.no_precompile else _processes(args),
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


def _precompile(args: argparse.Namespace, verification: object, stack: str) -> None:
    """Compile every selected case (and needed references) with the runner's precompile driver.

    Its compile ledger lies beside the table (``PATH.compiles.jsonl``); without ``--out``
    the compiles are recorded for this call only (the build cache keeps the builds).
    """
    import tempfile

    from iconbench import suite
    from iconbench.runner.precompile import compile_pairs
    from iconbench.timing.compilation import CompileLedger

    jobs = verification.precompile_jobs(  # type: ignore[attr-defined]
        args.programs or None,
        list(args.backends),
        args.grid,
        one_variant=args.one_variant,
        shard=args.shard,
    )
    with tempfile.TemporaryDirectory(prefix="iconbench-verify-") as scratch:
        path = args.out.with_suffix(".compiles.jsonl") if args.out else pathlib.Path(scratch)
        compile_pairs(
            jobs,
            grid=suite.as_grid(args.grid),
            stack=stack,
            ledger=CompileLedger(path if args.out else path / "compile.jsonl"),
            processes=_processes(args),
            cache_dir=suite.build_cache_dir(),
        )


def _processes(args: argparse.Namespace) -> int:
    """Processes that compile, then verify: ``--jobs`` or half the cores."""
    return args.jobs or max(1, (os.cpu_count() or 1) // 2)

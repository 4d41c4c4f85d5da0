"""``iconbench verify``: every program and variant on a backend against the embedded backend."""

from __future__ import annotations

import argparse
import os

from iconbench.cli import option_types as types
from iconbench.cli import options
from iconbench.cli.command import Command


class Verify(Command):
    """Compare each program's outputs on the given backends with the reference; write a table."""

    name = "verify"
    summary = "check each backend computes what the embedded backend computes (exit 1 on mismatch)"
    examples = (
        "iconbench verify --backends gtfn_cpu --grid tiny --programs compute_tangential_wind",
        "iconbench verify --backends gtfn_cpu,dace_cpu --grid tiny_lam "
        "--out results/verification/cpu.md",
        "iconbench verify --backends gtfn_gpu,dace_gpu --grid tiny_lam --jobs 8 "
        "--out results/verification/gpu.md",
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
            "--seed", type=types.NON_NEGATIVE, default=0, metavar="N", help="input seed (default 0)"
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
        from iconbench.runner.verify import verify

        return verify(
            list(args.backends),
            args.grid,
            stack=stack,
            processes=args.jobs or max(1, (os.cpu_count() or 1) // 2),
            programs=args.programs or None,
            seed=args.seed,
            one_variant=args.one_variant,
            shard=args.shard,
            precompile=not args.no_precompile,
            out=args.out,
        )

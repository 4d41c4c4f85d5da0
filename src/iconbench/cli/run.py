"""``iconbench run``: the runner's steps with a workstation's defaults, a new directory each time.

A front end of ``iconbench suite all`` (:mod:`iconbench.runner.pipeline`): precompile in
parallel, measure in fresh workers, write the result directory (``OUT/asv`` in asv's format,
``OUT/summary.json``). Each call measures afresh into ``OUT/run-<time>/``; ``asv publish``
and ``iconbench publish`` read its ``asv/``.
"""

from __future__ import annotations

import argparse
import os

from iconbench.buildcache import REPO_ROOT
from iconbench.cli import option_types as types
from iconbench.cli import options
from iconbench.cli.command import Command
from iconbench.files.directories import create_dir

#: ``--quick``: a smoke test, no statistics worth gating.
QUICK = {"samples": 10, "max_s": 0.5, "warmup_s": 0.05}


class Run(Command):
    """Precompile, measure, write asv results and summary: ``suite all`` in a new directory."""

    name = "run"
    summary = "benchmark programs × backends on a grid into a new result directory (the runner)"
    examples = (
        "iconbench run --quick --programs 'compute_tangential_wind' --backends embedded,gtfn_cpu",
        "iconbench run --backends gtfn_gpu,dace_gpu --grid ch1_medium --shard 2/4",
        "iconbench run --precompile-only --backends gtfn_cpu --jobs 2",
        "iconbench run --out /scratch/results --backends gtfn_cpu --programs diffusion",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        options.add_backends(parser)
        options.add_grid_source(parser)
        options.add_programs(parser)
        parser.add_argument(
            "--one-variant", action="store_true", help="only the first static variant per program"
        )
        parser.add_argument(
            "--shard",
            default=None,
            type=options.shard,
            metavar="I/N",
            help="run the I-th of N equal shares of the cases (e.g. 2/4, one per runner)",
        )
        parser.add_argument(
            "--quick", action="store_true", help="10 samples of at most 0.5 s per case (smoke test)"
        )
        options.add_jobs(parser, default_help="cores - 2")
        options.add_devices(parser)
        parser.add_argument(
            "--precompile-only",
            action="store_true",
            help="compile the selected programs into the build cache, then stop",
        )
        parser.add_argument(
            "--stack",
            type=options.stack_key_type,
            metavar="KEY",
            help="build-cache key (default: $ICONBENCH_STACK, else this environment's stack key "
            "as 'iconbench stack show' prints it)",
        )
        parser.add_argument(
            "--machine", type=types.NAME, default="", help="asv machine name (default: host name)"
        )
        options.add_out(
            parser,
            default=REPO_ROOT / "results-local",
            help="where the run's directory run-<time>/ goes (default: results-local/)",
        )

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        from iconbench.errors import IconbenchError

        if args.no_precompile and args.precompile_only:
            raise IconbenchError("--no-precompile and --precompile-only exclude each other")
        # Every name is checked before the restart, gt4py, any compile or any file written.
        options.check_environment()
        grid = options.grid_of(args)
        options.select_cases(args.programs, one_variant=args.one_variant, shard=args.shard)
        create_dir(args.out, "--out")
        from iconbench.programs import backends as registry
        from iconbench.records.resultdir import new_directory
        from iconbench.runner import devices, pipeline
        from iconbench.runner.options import RunOptions

        pipeline.optimized()
        stack = options.resolve_stack(args.stack)
        backends = tuple(registry.backend(name) for name in args.backends)  # resolved once
        on_gpu = all(b.on_gpu for b in backends)
        run = RunOptions(
            out=new_directory(args.out, "run", stack),
            backends=backends,
            grid=grid,
            stack=stack,
            programs=args.programs,
            shard="{}/{}".format(*args.shard) if args.shard else "",
            one_variant=args.one_variant,
            processes=args.jobs or max(1, (os.cpu_count() or 2) - 2),
            machine=args.machine or pipeline.hostname(),
            devices=devices.resolve(args.devices, on_gpu=on_gpu),
            **(QUICK if args.quick else {}),
        )
        if args.precompile_only:
            steps: tuple[str, ...] = ("precompile",)
        else:
            steps = ("measure", "asv") if args.no_precompile else pipeline.ALL
        pipeline.run(run, steps)
        print(f"results: {run.out} (asv results in {run.out / 'asv'})", flush=True)
        return 0

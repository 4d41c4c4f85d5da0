"""``iconbench suite STEP``: the one runner of the benchmark suite, for CPU and GPU backends.

A GitHub runner with a GPU, a SLURM job and a workstation run the same steps (the library's
:mod:`iconbench.runner`), each resumable from the ledgers in ``OUT/work``.
"""

from __future__ import annotations

import argparse
import os
import pathlib

from iconbench.cli import option_types as types
from iconbench.cli import options
from iconbench.cli.command import Command
from iconbench.errors import IconbenchError


def cores(text: str) -> tuple[int, ...]:
    """``"3,5"`` -> ``(3, 5)`` (a worker's cores, given by the check that starts it)."""
    return tuple(int(core) for core in text.split(",") if core)


STEPS = ("plan", "precompile", "verify", "measure", "crosscheck", "ncu", "asv", "all",
         "ncu-target", "sources")  # fmt: skip


class Suite(Command):
    """Plan, precompile, verify, measure in isolated workers, cross-check, write results."""

    name = "suite"
    summary = "run the suite in resumable steps (plan, precompile, measure, asv...) on CPU or GPU"
    examples = (
        "iconbench suite all --out results/ws --backends gtfn_cpu --grid tiny --programs diffusion",
        "iconbench suite plan --out results/h100 --backends gtfn_gpu,dace_gpu --grid ch1_medium",
        "iconbench suite precompile --out results/h100 --backends gtfn_gpu --grid ch1_medium "
        "--budget 480",
        "iconbench suite measure --out results/h100 --backends gtfn_gpu --grid ch1_medium "
        "--compiled-only --retry-failed --remeasure-cv-above 0.01",
        "iconbench suite asv --out results/h100 --backends gtfn_gpu,dace_gpu --grid ch1_medium",
        "iconbench suite all --out results/shard-2 --shard 2/4 --backends gtfn_gpu,dace_gpu",
        "iconbench suite all --out results/ch1 --backends gtfn_gpu "
        "--experiment mch_icon-ch1_medium",
        "iconbench suite measure --out results/h100x4 --backends gtfn_gpu,dace_gpu --grid "
        "ch1_medium --devices 0,1,2,3",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "step",
            choices=STEPS,
            help="plan | precompile | verify (iconbench verify on the tiny_lam grid) | measure | "
            "crosscheck (cupyx) | ncu (Nsight Compute) | asv (asv result files and summary.json "
            "from the ledgers) | all (precompile, measure, asv) | ncu-target, sources (internal)",
        )
        options.add_out(parser, help="output directory, required (ledgers in OUT/work)")
        options.add_backends(parser)
        options.add_grid_source(
            parser,
            default=None,
            preset_help="grid preset to measure on (default: the experiment's grid, else tiny)",
        )
        parser.add_argument(
            "--experiment",
            type=types.EXPERIMENT,
            default="",
            help="ICON experiment (baselines/experiments/NAME.toml): only the program variants "
            "it runs, on its grid unless --grid is given",
        )
        parser.add_argument(
            "--compile-grid",
            type=options.grid_type,
            metavar=options.METAVARS["grid"],
            help="grid preset the compile workers take static arguments from (default: --grid)",
        )
        options.add_programs(parser)
        parser.add_argument(
            "--shard", type=types.SHARD, default="", help="i/n: this runner's share of the cases"
        )
        parser.add_argument(
            "--shard-ledgers",
            type=types.DIRECTORY,
            metavar="DIR",
            help="a runner's work/ whose ledgers balance the shards (and the devices' shares) "
            "by time and order the precompile longest first (default: $ICONBENCH_SHARD_LEDGERS, "
            "else by count)",
        )
        parser.add_argument(
            "--stack",
            type=options.stack_key_type,
            help="build-cache key (default: $ICONBENCH_STACK, else this environment's stack)",
        )
        options.add_jobs(parser, default_help="cores - 2")
        options.add_devices(parser)
        parser.add_argument(
            "--load-ahead",
            type=options.positive_int_type,
            metavar="N",
            help="measure: each worker measures N cases while the next one loads its N programs "
            "on other cores (default: one worker loads and measures a device's cases in turn)",
        )
        parser.add_argument(
            "--build-jobs", type=types.COUNT, default=1, help="GT4PY_BUILD_JOBS each"
        )
        parser.add_argument(
            "--shortest-first",
            action="store_true",
            help="precompile: start with the shortest compiles (a second precompile into the "
            "same build cache then meets the first in the middle instead of waiting on its builds)",
        )
        parser.add_argument(
            "--no-compile-index",
            action="store_true",
            help="precompile: load every pending build through gt4py, also those the compile "
            "index finds in the cache",
        )
        # a check's side: the sources first on its path and their code identity (compile index)
        parser.add_argument("--sources", type=types.TEXT, default="", help=argparse.SUPPRESS)
        parser.add_argument(
            "--sources-identity", type=types.TEXT, default="", help=argparse.SUPPRESS
        )
        parser.add_argument(
            "--budget", type=types.SECONDS, help="seconds after which no compile or case starts"
        )
        options.add_sampling(parser, samples=100, max_s=5.0, warmup_s=0.5)
        parser.add_argument(
            "--crosscheck",
            type=types.NON_NEGATIVE,
            default=3,
            help="cases per backend cross-checked",
        )
        parser.add_argument(
            "--gt4py-calls",
            type=types.NON_NEGATIVE,
            default=10,
            help="calls per case timed by gt4py's own metrics after the samples (its cross-check)",
        )
        parser.add_argument(
            "--retry-failed",
            action="store_true",
            help="compile (measure) again pairs whose last compile (measurement) failed",
        )
        parser.add_argument(
            "--remeasure-cv-above",
            type=types.FRACTION,
            metavar="CV",
            help="measure again cases above 100 us whose device CV exceeded CV (e.g. 0.01)",
        )
        parser.add_argument(
            "--one-variant", action="store_true", help="only the first variant of each program"
        )
        parser.add_argument(
            "--compiled-only",
            action="store_true",
            help="measure: only pairs whose build precompile left in the cache",
        )
        parser.add_argument(
            "--machine", type=types.NAME, default="", help="asv machine name (default: hostname)"
        )
        parser.add_argument(
            "--provenance",
            type=types.JSON_FILE,
            help="asv: take stack and GPU from this summary.json written on the GPU machine",
        )
        parser.add_argument(
            "--case", type=types.NAME, default="", help="ncu-target, sources: the case id"
        )
        parser.add_argument(
            "--sources-dir",
            type=types.OUTPUT,
            help="sources: where the case's generated code is written",
        )
        parser.add_argument(
            "--ncu-calls", type=types.COUNT, default=3, help="calls profiled by ncu"
        )
        parser.add_argument(
            "--no-optimize",
            action="store_true",
            help="run without PYTHONOPTIMIZE (recorded); default re-executes under "
            "PYTHONOPTIMIZE=2 (gt4py's call path checks __debug__)",
        )
        options.add_dry_run(parser, help="print the plan, run nothing")
        parser.add_argument("--worker-jobs", type=types.LOCATION, help=argparse.SUPPRESS)
        parser.add_argument("--inflight", type=types.LOCATION, help=argparse.SUPPRESS)
        # a worker of an interleaved check (iconbench.check): its round, its turn, its core
        parser.add_argument("--round-name", type=types.TEXT, default="", help=argparse.SUPPRESS)
        parser.add_argument("--turn", type=types.LOCATION, help=argparse.SUPPRESS)
        parser.add_argument("--load-after", type=types.LOCATION, help=argparse.SUPPRESS)
        parser.add_argument("--hold-loads", type=types.LOCATION, help=argparse.SUPPRESS)
        parser.add_argument("--measure-cores", type=types.TEXT, default="", help=argparse.SUPPRESS)
        parser.add_argument("--startup-cores", type=types.TEXT, default="", help=argparse.SUPPRESS)
        # a measure worker's one device (iconbench.runner.devices), recorded with its cases
        parser.add_argument("--device", type=types.TEXT, default="", help=argparse.SUPPRESS)
        parser.add_argument(
            "--commit",
            type=types.GIT_REF,
            default="",
            help="asv: the commit these results are for (default: iconbench's checkout); a "
            "check gives the commit of the component under test",
        )

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        if args.out is None:
            raise IconbenchError(f"suite {args.step}: give --out DIR (results and ledgers)")
        run = cls.run_options(args)
        from iconbench.runner import pipeline

        pipeline.optimized(args.no_optimize)
        if args.dry_run:
            pipeline.run(run, ["plan"])
        elif args.step == "all" and args.no_precompile:  # each program compiles on first call
            pipeline.run(run, ["measure", "asv"])
        else:
            pipeline.run(run, [args.step])
        return 0

    @staticmethod
    def run_options(args: argparse.Namespace):
        """The run's options, every name checked (milliseconds: no gt4py, nothing written)."""
        from iconbench import grids
        from iconbench.cli.options import (
            check_environment,
            grid_of,
            resolve_stack,
            select_cases,
        )
        from iconbench.runner import pipeline
        from iconbench.runner.devices import ONE
        from iconbench.runner.devices import resolve as resolve_devices
        from iconbench.runner.options import RunOptions
        from iconbench.stacks import shared_builds

        experiment = None
        if args.experiment:
            from iconbench.baselines import experiments

            try:
                experiment = experiments.load(args.experiment)
            except IconbenchError as error:
                raise IconbenchError(f"--experiment: {error}") from None
            if args.one_variant:
                raise IconbenchError("--experiment chooses the variants; leave out --one-variant")
        grid = grid_of(args, default=experiment.grid if experiment else "tiny")
        compile_grid = grids.resolve(args.compile_grid) if args.compile_grid else None
        check_environment()
        # a selection of no case, before the restart, any directory or gt4py (milliseconds)
        select_cases(
            args.programs,
            one_variant=args.one_variant,
            shard=args.shard,
            experiment=experiment,
        )
        shard_ledgers = args.shard_ledgers or os.environ.get("ICONBENCH_SHARD_LEDGERS") or None
        from iconbench.programs import backends as registry

        backends = tuple(registry.backend(name) for name in args.backends)  # resolved once
        devices = ONE  # a worker measures on the one device its driver gave it
        if args.worker_jobs is None and args.step in ("measure", "all"):
            devices = resolve_devices(args.devices, on_gpu=all(b.on_gpu for b in backends))
        return RunOptions(
            out=args.out,
            backends=backends,
            grid=grid,
            compile_grid=compile_grid,
            programs=args.programs,
            shard="/".join(map(str, args.shard)) if args.shard else "",  # as the workers take it
            stack=resolve_stack(args.stack),
            processes=args.jobs or max(1, (os.cpu_count() or 2) - 2),
            build_jobs=args.build_jobs,
            shared_builds=shared_builds.enabled(),
            shortest_first=args.shortest_first,
            budget=args.budget,
            samples=args.samples,
            max_s=args.max_s,
            warmup_s=args.warmup_s,
            warmup_next_s=args.warmup_next_s,
            precision=args.precision,
            crosscheck=args.crosscheck,
            retry_failed=args.retry_failed,
            remeasure_cv_above=args.remeasure_cv_above,
            one_variant=args.one_variant,
            compiled_only=args.compiled_only,
            machine=args.machine or pipeline.hostname(),
            provenance=args.provenance,
            case=args.case,
            ncu_calls=args.ncu_calls,
            experiment=experiment,
            worker_jobs=args.worker_jobs,
            inflight=args.inflight,
            round_name=args.round_name,
            turn=args.turn,
            load_after=args.load_after,
            hold_loads=args.hold_loads,
            measure_cores=cores(args.measure_cores),
            startup_cores=cores(args.startup_cores),
            devices=devices,
            load_ahead=args.load_ahead or 0,
            device=args.device,
            commit=args.commit,
            gt4py_calls=args.gt4py_calls,
            sources_dir=args.sources_dir,
            no_optimize=args.no_optimize,
            shard_ledgers=pathlib.Path(shard_ledgers) if shard_ledgers else None,
            sources=tuple(pathlib.Path(p) for p in args.sources.split(os.pathsep) if p),
            sources_identity=args.sources_identity,
            compile_index=not args.no_compile_index,
        )

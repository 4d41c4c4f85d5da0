"""``iconbench run``: precompile the selected programs in parallel, then drive ``asv run``."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys

from iconbench.buildcache import REPO_ROOT
from iconbench.cli import options
from iconbench.cli.command import Command
from iconbench.errors import IconbenchError


def shard_bench_regex(cases: list[str]) -> str:
    r"""An asv ``--bench`` regex selecting exactly ``cases`` of ``programs.Programs``.

    asv matches ``--bench`` against ``name(param0, param1, ...)`` with parameters as
    ``repr``, so a shard is the alternation of its quoted case ids. The parameter space stays
    the same in every shard, which is what lets shard results merge.

    >>> shard_bench_regex(["a[x]", "b[default]"])
    "Programs\\.\\w+\\('(?:a\\[x\\]|b\\[default\\])'"
    """
    alternatives = "|".join(re.escape(case) for case in cases)
    return rf"Programs\.\w+\('(?:{alternatives})'"


class Run(Command):
    """Precompile (process pool, persistent cache), then ``asv run`` the generated suite."""

    name = "run"
    summary = "benchmark programs × backends × grid with asv (compiles up front in parallel)"
    examples = (
        "iconbench run --quick --programs 'compute_tangential_wind' --backends embedded,gtfn_cpu",
        "iconbench run --backends gtfn_gpu,dace_gpu --grid ch1_medium --shard 2/4",
        "iconbench run --precompile-only --backends gtfn_cpu --jobs 2",
        "iconbench run --kinds time_device,track_bandwidth -- --show-stderr",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        options.add_backends(parser)
        options.add_grid(parser, several=True)
        options.add_programs(parser)
        parser.add_argument(
            "--one-variant", action="store_true", help="only the first static variant per program"
        )
        parser.add_argument(
            "--shard",
            default="",
            type=options.shard,
            metavar="I/N",
            help="run the I-th of N equal shares of the cases (e.g. 2/4, one per runner)",
        )
        parser.add_argument(
            "--kinds",
            default="",
            type=options.benchmark_kinds,
            metavar="KIND[,KIND]",
            help="benchmark methods, e.g. time_device,track_bandwidth (default: all)",
        )
        parser.add_argument("--quick", action="store_true", help="asv --quick (one sample)")
        options.add_jobs(parser, default_help="half the cores")
        parser.add_argument(
            "--precompile-only",
            action="store_true",
            help="compile the selected programs into the build cache, then stop (no asv run)",
        )
        parser.add_argument(
            "--stack",
            type=options.stack_key_type,
            metavar="KEY",
            help="build-cache key (default: $ICONBENCH_STACK, else this environment's stack key "
            "as 'iconbench stack show' prints it)",
        )
        parser.add_argument(
            "--config",
            default=str(REPO_ROOT / "asv.conf.json"),
            type=options.existing_file_type,
            metavar="FILE",
            help="asv configuration (default: iconbench's asv.conf.json)",
        )
        parser.add_argument("--machine", default="", help="asv machine name (default: host name)")
        parser.add_argument("asv_args", nargs=argparse.REMAINDER, help="-- extra asv arguments")

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        from iconbench import buildcache

        if args.no_precompile and args.precompile_only:
            raise IconbenchError("--no-precompile and --precompile-only exclude each other")
        # Every name is checked before gt4py is imported or anything is compiled or written.
        options.check_environment()
        options.select_cases(args.programs, one_variant=args.one_variant, shard=args.shard)
        commit = None if args.precompile_only else cls._commit()
        stack = args.stack or options.from_environment("ICONBENCH_STACK")
        stack = stack or _environment_stack_key()
        os.environ.setdefault("PYTHONOPTIMIZE", "2")
        os.environ["ICONBENCH_BACKENDS"] = ",".join(args.backends)
        os.environ["ICONBENCH_GRID"] = ",".join(args.grid)
        os.environ["ICONBENCH_STACK"] = stack
        if args.one_variant:
            os.environ["ICONBENCH_ONE_VARIANT"] = "1"
        cores = os.cpu_count() or 1
        processes = args.jobs or max(1, cores // 2)
        buildcache.configure(stack, jobs=max(1, cores // processes))
        from iconbench import suite
        from iconbench.timing import compilation

        cases = suite.case_ids(args.programs, args.shard, one_variant=args.one_variant)
        if not cases:
            raise IconbenchError(f"no program matches {args.programs!r}")
        backends = list(args.backends)
        if not args.no_precompile:
            ledger = compilation.CompileLedger(buildcache.cache_root() / "compile-ledger.jsonl")
            jobs = [j for j in compilation.jobs_for(cases, backends) if j[1] != "embedded"]
            for grid in args.grid:
                print(f"precompiling {len(jobs)} programs with {processes} processes", flush=True)
                compilation.precompile(
                    jobs,
                    grid=grid,
                    stack=stack,
                    ledger=ledger,
                    processes=processes,
                    progress=compilation.print_progress,
                )
        if args.precompile_only:
            return 0
        return cls._asv(args, cases, commit or cls._commit())

    @classmethod
    def _asv(cls, args: argparse.Namespace, cases: list[str], commit: str) -> int:
        asv = shutil.which("asv") or os.path.join(os.path.dirname(sys.executable), "asv")
        regex = shard_bench_regex(cases)
        if args.kinds:
            kinds = "|".join(re.escape(k) for k in args.kinds)
            regex = regex.replace(r"\w+", f"(?:{kinds})", 1)
        command = [
            asv,
            "run",
            "--config",
            args.config,
            "--python=same",
            "--record-samples",
            "--bench",
            regex,
            "--set-commit-hash",
            commit,
        ]
        if args.quick:
            command.append("--quick")
        if args.machine:
            command += ["--machine", args.machine]
        # asv refuses to run on a machine it has no description of; record one (idempotent).
        machine = ["--machine", args.machine] if args.machine else []
        subprocess.run(
            [asv, "machine", "--yes", "--config", args.config, *machine],
            check=False,
            stdout=subprocess.DEVNULL,
        )
        extra = [a for a in args.asv_args if a != "--"]
        print("running:", " ".join(command[:3]), "…", " ".join(extra), flush=True)
        return subprocess.call([*command, *extra])

    @staticmethod
    def _commit() -> str:
        """The commit asv records; checked before anything is compiled."""
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True, check=False
        )
        if out.returncode != 0:
            raise IconbenchError("iconbench run needs a git checkout (asv records the commit)")
        return out.stdout.strip()


def _environment_stack_key() -> str:
    """The stack key of this environment (gt4py, dace, icon4py commits or versions)."""
    from iconbench.stacks.identity import stack_key

    return stack_key()

"""``iconbench run``: precompile the selected programs in parallel, then drive ``asv run``."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys

from iconbench.buildcache import REPO_ROOT
from iconbench.cli.command import Command, add_case_selection
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
        add_case_selection(
            parser,
            grid_help="grid preset (comma list)",
            programs_help="regex on case ids program[variant]",
        )
        parser.add_argument("--one-variant", action="store_true", help="first variant only")
        parser.add_argument("--shard", default="", help="i/n: this runner's share")
        parser.add_argument(
            "--kinds", default="", help="benchmark methods, e.g. time_device,track_bandwidth"
        )
        parser.add_argument("--quick", action="store_true", help="asv --quick (one sample)")
        parser.add_argument("--jobs", type=int, default=0, help="compile processes (0: cores/2)")
        parser.add_argument("--no-precompile", action="store_true")
        parser.add_argument("--precompile-only", action="store_true")
        parser.add_argument("--stack", default=os.environ.get("ICONBENCH_STACK", "default"))
        parser.add_argument("--config", default=str(REPO_ROOT / "asv.conf.json"))
        parser.add_argument("--machine", default="", help="asv machine name")
        parser.add_argument("asv_args", nargs=argparse.REMAINDER, help="-- extra asv arguments")

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        from iconbench import buildcache

        os.environ.setdefault("PYTHONOPTIMIZE", "2")
        os.environ["ICONBENCH_BACKENDS"] = args.backends
        os.environ["ICONBENCH_GRID"] = args.grid
        os.environ["ICONBENCH_STACK"] = args.stack
        if args.one_variant:
            os.environ["ICONBENCH_ONE_VARIANT"] = "1"
        cores = os.cpu_count() or 1
        processes = args.jobs or max(1, cores // 2)
        buildcache.configure(args.stack, jobs=max(1, cores // processes))
        from iconbench import suite
        from iconbench.timing import compilation, sharding

        shard = sharding.parse_shard(args.shard) if args.shard else None
        cases = suite.case_ids(args.programs, shard, one_variant=args.one_variant)
        if not cases:
            raise IconbenchError(f"no program matches {args.programs!r}")
        backends = [b for b in args.backends.split(",") if b]
        if not args.no_precompile:
            ledger = compilation.CompileLedger(buildcache.cache_root() / "compile-ledger.jsonl")
            jobs = [j for j in compilation.jobs_for(cases, backends) if j[1] != "embedded"]
            for grid in args.grid.split(","):
                print(f"precompiling {len(jobs)} programs with {processes} processes", flush=True)
                compilation.precompile(
                    jobs,
                    grid=grid,
                    stack=args.stack,
                    ledger=ledger,
                    processes=processes,
                    progress=compilation.print_progress,
                )
        if args.precompile_only:
            return 0
        return cls._asv(args, cases)

    @classmethod
    def _asv(cls, args: argparse.Namespace, cases: list[str]) -> int:
        asv = shutil.which("asv") or os.path.join(os.path.dirname(sys.executable), "asv")
        regex = shard_bench_regex(cases)
        if args.kinds:
            kinds = "|".join(re.escape(k) for k in args.kinds.split(","))
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
            cls._commit(),
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
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True, check=False
        )
        if out.returncode != 0:
            raise IconbenchError("iconbench run needs a git checkout (asv records the commit)")
        return out.stdout.strip()

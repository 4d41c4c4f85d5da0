"""``iconbench continuous``: is my branch of gt4py, dace or icon4py slower than main."""

from __future__ import annotations

import argparse
import json
import pathlib

from iconbench.cli.command import Command
from iconbench.stacks import continuous


class Continuous(Command):
    """Benchmark two commits of a checkout in their own environments and compare them."""

    name = "continuous"
    summary = "compare two commits of a gt4py, dace, icon4py (or iconbench) checkout with asv"
    examples = (
        "iconbench continuous main HEAD --repo ../gt4py",
        "iconbench continuous main HEAD --repo . --bench diffusion --backend gtfn_cpu --grid tiny",
        "iconbench continuous main main --existing --repo ../gt4py   # store main, current env",
        "iconbench continuous origin/main HEAD --repo ../icon4py --json report.json",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("base", help="the reference: branch, tag or commit (e.g. main)")
        parser.add_argument("head", help="the commit under test (e.g. HEAD)")
        parser.add_argument(
            "--repo",
            type=pathlib.Path,
            default=pathlib.Path("."),
            help="checkout of gt4py, dace, icon4py or iconbench (default: .)",
        )
        parser.add_argument(
            "--component",
            choices=("gt4py", "dace", "icon4py"),
            help="which component the checkout is (default: from its pyproject.toml)",
        )
        parser.add_argument("--bench", "-b", metavar="REGEX", help="only benchmarks matching REGEX")
        parser.add_argument("--backend", help="gt4py backend the suite uses (ICONBENCH_BACKEND)")
        parser.add_argument("--grid", help="grid preset the suite uses (ICONBENCH_GRID), e.g. tiny")
        parser.add_argument(
            "--stack",
            metavar="NAME",
            help="take the other two components from this stored stack (default: the lock)",
        )
        parser.add_argument(
            "--programs", metavar="REGEX", help="only these programs (ICONBENCH_PROGRAMS)"
        )
        parser.add_argument(
            "--existing",
            action="store_true",
            help="measure the current environment as HEAD, no rebuild (quick local iteration)",
        )
        parser.add_argument(
            "--environment",
            choices=("build", "checkout"),
            default="build",
            help="build: an environment per commit (default); checkout: this Python's stack "
            "with each commit's sources first on the path (pure-Python changes, seconds)",
        )
        parser.add_argument(
            "--quick",
            action="store_true",
            help="one sample per benchmark (smoke test, no statistics)",
        )
        parser.add_argument(
            "--factor", type=float, default=1.1, help="ratio that counts as a change (default 1.1)"
        )
        parser.add_argument(
            "--benchmark-dir",
            type=pathlib.Path,
            help="asv suite to run (default: iconbench's benchmarks/)",
        )
        parser.add_argument(
            "--asv-dir",
            type=pathlib.Path,
            default=None,
            help="where configs, environments, results and provenance go "
            "(default: .asv/ of iconbench; CI: a directory the job keeps)",
        )
        parser.add_argument(
            "--asv-arg",
            action="append",
            default=[],
            metavar="ARG",
            help="pass ARG to asv (repeatable), e.g. --asv-arg=-a --asv-arg=rounds=1",
        )
        parser.add_argument(
            "--json", type=pathlib.Path, metavar="FILE", help="also write the report as JSON"
        )

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        report = continuous.run(
            continuous.Options(
                base=args.base,
                head=args.head,
                repo=args.repo,
                component=args.component,
                bench=args.bench,
                backend=args.backend,
                grid=args.grid,
                programs=args.programs,
                stack=args.stack,
                existing=args.existing,
                quick=args.quick,
                factor=args.factor,
                benchmark_dir=args.benchmark_dir,
                environment=args.environment,
                asv_args=tuple(args.asv_arg),
                **({"asv_root": args.asv_dir.resolve()} if args.asv_dir else {}),
            )
        )
        print(report.table())
        if args.json:
            args.json.write_text(json.dumps(report.as_dict(), indent=2) + "\n")
        return 1 if report.bad else 0

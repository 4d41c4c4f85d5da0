"""``iconbench continuous``: is my branch of gt4py, dace or icon4py slower than main."""

from __future__ import annotations

import argparse
import json
import pathlib

from iconbench.cli import options
from iconbench.cli.command import Command


class Continuous(Command):
    """Benchmark two commits of a checkout in their own environments and compare them."""

    name = "continuous"
    summary = "compare two commits of a gt4py, dace, icon4py (or iconbench) checkout with asv"
    examples = (
        "iconbench continuous main HEAD --repo ../gt4py",
        "iconbench continuous main HEAD --repo . --bench diffusion --backends gtfn_cpu --grid tiny",
        "iconbench continuous main main --existing --repo ../gt4py   # store main, current env",
        "iconbench continuous origin/main HEAD --repo ../icon4py --out report.json",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("base", help="the reference: branch, tag or commit (e.g. main)")
        parser.add_argument("head", help="the commit under test (e.g. HEAD)")
        parser.add_argument(
            "--repo",
            type=pathlib.Path,
            default=pathlib.Path("."),
            metavar="DIR",
            help="git checkout of gt4py, dace, icon4py or iconbench (default: .)",
        )
        parser.add_argument(
            "--component",
            choices=("gt4py", "dace", "icon4py"),
            help="which component the checkout is (default: from its pyproject.toml)",
        )
        parser.add_argument(
            "--bench",
            "-b",
            metavar="REGEX",
            type=options.regex_type,
            help="only asv benchmarks matching REGEX, e.g. time_device",
        )
        options.add_backends(
            parser,
            default=None,
            help="backends the suite runs, comma list or repeated "
            "(default: the suite's, embedded,gtfn_cpu)",
        )
        options.add_grid(parser, default=None, help="grid preset the suite uses (default: tiny)")
        parser.add_argument(
            "--stack",
            metavar="NAME",
            help="take the other two components from this stored stack (default: the lock)",
        )
        options.add_programs(parser, help="only cases matching REGEX (default: all)")
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
            "--factor",
            type=options.ratio_type,
            default=1.1,
            help="a ratio head/base above FACTOR (or below 1/FACTOR) counts as a change, "
            "as in asv continuous; > 1 (default 1.1)",
        )
        parser.add_argument(
            "--benchmark-dir",
            type=options.existing_dir_type,
            metavar="DIR",
            help="asv suite to run (default: iconbench's benchmarks/)",
        )
        parser.add_argument(
            "--asv-dir",
            type=pathlib.Path,
            default=None,
            metavar="DIR",
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
        options.add_json(parser, help="print the report as JSON instead of the table")
        options.add_out(parser, help="also write the report as JSON to PATH")

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        from iconbench.stacks import continuous, resolve, stored

        # Everything the user named is checked before any environment is built.
        options.check_environment()  # the suite in each environment reads them
        repo = options.existing_dir(args.repo, "--repo")
        component = args.component or continuous.detect_component(repo, args.base)
        label = component or "iconbench"
        for ref in (args.base, args.head):
            resolve.commit_of(label, str(repo), ref)
        if args.stack:
            stored.load(args.stack)
        if args.programs:
            options.select_cases(args.programs)
        if args.asv_dir:
            options.writable_dir(args.asv_dir, "--asv-dir")
        report = continuous.run(
            continuous.Options(
                base=args.base,
                head=args.head,
                repo=repo,
                component=component,
                bench=args.bench,
                backend=",".join(args.backends) if args.backends else None,
                grid=args.grid,
                programs=args.programs or None,
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
        data = json.dumps(report.as_dict(), indent=2) + "\n"
        print(data, end="") if args.json else print(report.table())
        if args.out:
            args.out.write_text(data)
        return 1 if report.bad else 0

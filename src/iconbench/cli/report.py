"""``iconbench report``: the markdown report of runner result directories."""

from __future__ import annotations

import argparse

from iconbench.cli import options
from iconbench.cli.command import Command


class Report(Command):
    """Print the report of the runs in the given ``iconbench suite --out`` directories."""

    name = "report"
    summary = "the markdown report of result directories (coverage, cost, repeatability, speed-up)"
    examples = (
        "iconbench report results/h100 results/h100-mch_icon-ch1_medium "
        "results/h100-ch1_medium-dace-2.0.0a6 --out results/h100/README.md",
        "iconbench report /tmp/run --one-variant   # coverage against each program's first variant",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "dirs",
            nargs="+",
            type=options.existing_dir_type,
            metavar="DIR",
            help="result directories of 'iconbench suite' (its --out), shown in this order",
        )
        parser.add_argument(
            "--one-variant",
            action="store_true",
            help="coverage against the first variant of each program (as 'suite --one-variant')",
        )
        options.add_out(parser, help="write the report to PATH (default: print it)")

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        from iconbench.files.atomic import write_atomic
        from iconbench.runner import report

        text = report.render(args.dirs, one_variant=args.one_variant, out=args.out)
        if args.out is None:
            print(text)
        else:
            write_atomic(args.out, text + "\n")
        return 0

"""``iconbench confirm``: a comparison of two runs, its flagged benchmarks measured again."""

from __future__ import annotations

import argparse
import os

from iconbench.cli import option_types as types
from iconbench.cli import options
from iconbench.cli.check import add_rounds, rounds_plan
from iconbench.cli.command import Command
from iconbench.errors import IconbenchError


class Confirm(Command):
    """Measure each flagged benchmark of a summary again, both stacks interleaved; hold to it."""

    name = "confirm"
    summary = (
        "confirm before report: the regressions and improvements of a comparison of two runs "
        "measured again, both stacks interleaved (exit as the gate's, on what is confirmed)"
    )
    examples = (
        "iconbench confirm gate-summary.json --base-stack last/stack.json --head-stack "
        "CHECKOUTS/stack.json --checkouts CHECKOUTS --out gate-summary.confirmed.json",
        "iconbench confirm gate-summary.json --base-stack a.json --head-stack b.json "
        "--checkouts CHECKOUTS --out confirmed.json --work ab --quick",
        "iconbench confirm agreement.json --base-stack gpus-1/checkouts/stack.json --head-stack "
        "gpus-4/checkouts/stack.json --checkouts gpus-4/checkouts --out agreement.confirmed.json "
        "--on-their-gpus gpus-1/merged gpus-4/merged",
        "iconbench confirm gate-summary.confirmed.json --report",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "summary", type=types.JSON_FILE, help="gate summary of the two runs (compare --out)"
        )
        for side, run in (("base", "the earlier run (the last nightly)"), ("head", "tonight's")):
            parser.add_argument(
                f"--{side}-stack",
                type=types.JSON_FILE,
                metavar="FILE",
                help=f"stack.json of {run}: the commits of gt4py, dace and icon4py",
            )
        parser.add_argument(
            "--checkouts",
            type=types.DIRECTORY,
            metavar="DIR",
            help="DIR/gt4py, DIR/dace, DIR/icon4py: git checkouts holding both runs' commits "
            "(ci/nightly stack makes them)",
        )
        parser.add_argument(
            "--work",
            type=types.OUTPUT,
            metavar="DIR",
            help="the A/B's directory, new or empty (default: beside --out, <name>.ab)",
        )
        parser.add_argument(
            "--on-their-gpus",
            nargs=2,
            type=types.PATH,
            metavar=("BASE_RUN", "HEAD_RUN"),
            help="measure each side on the GPU its run measured the case on (each run's "
            "work/session.jsonl): for two runs of one stack on different GPUs of a host, an "
            "A/B of the GPUs (default: both sides on one GPU, an A/B of the code)",
        )
        options.add_jobs(parser, default_help="cores")
        add_rounds(parser, quick=True)
        parser.add_argument(
            "--report",
            action="store_true",
            help="print what a confirmed summary reports (each confirmed change, its A/B and "
            "bisection; the not confirmed once) and measure nothing",
        )
        options.add_out(parser, help="write the confirmed summary here (a new file)")
        options.add_json(parser, help="print the confirmed summary as JSON")

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        from iconbench.check import confirm
        from iconbench.gate import confirmation, table
        from iconbench.records.summary import Summary
        from iconbench.stacks import commits

        summary = Summary.read(args.summary)
        if args.report:
            print(confirmation.report(summary))
            return summary.exit_code
        if args.out is None:
            raise IconbenchError(
                "confirm: give --out (the confirmed summary), or --report to print one"
            )
        if args.out.exists():
            raise IconbenchError(f"--out {args.out} exists; summaries are kept: give a new path")
        if not confirmation.flagged(summary):  # nothing to measure: no stacks needed
            summary.write(args.out)
            print(confirmation.report(summary))
            return summary.exit_code
        missing = [name for name, value in (("--base-stack", args.base_stack),
                   ("--head-stack", args.head_stack), ("--checkouts", args.checkouts))
                   if value is None]  # fmt: skip
        if missing:
            flagged = len(confirmation.flagged(summary))
            raise IconbenchError(
                f"{args.summary}: {flagged} flagged benchmarks to measure again; give "
                f"{', '.join(missing)} (the stacks of both runs and their checkouts)"
            )
        gpus = confirm.gpus_of(*args.on_their_gpus) if args.on_their_gpus else None
        work = args.work or args.out.parent / f"{args.out.stem}.ab"
        if work.exists() and (not work.is_dir() or any(work.iterdir())):
            raise IconbenchError(
                f"--work {work}: exists and is not an empty directory; an A/B is kept: give a "
                "new directory"
            )
        request = confirm.Request(
            summary=summary,
            stacks=confirm.Stacks(
                base=commits.read(args.base_stack),
                head=commits.read(args.head_stack),
                checkouts=options.existing_dir(args.checkouts, "--checkouts").resolve(),
            ),
            work=work.resolve(),
            plan=rounds_plan(args),
            compile_jobs=args.jobs or os.cpu_count() or 1,
            gpus=gpus,
        )
        confirmed = confirm.confirm(request)
        confirmed.write(args.out)
        if args.json:
            print(confirmed.to_json(), end="")
        else:
            print(table.render(confirmed))
            print(confirmation.report(confirmed))
        return confirmed.exit_code

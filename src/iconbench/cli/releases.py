"""``iconbench releases``: what each gt4py and dace release since the pins did to icon4py."""

from __future__ import annotations

import argparse
import os
import pathlib

from iconbench.cli import options
from iconbench.cli.check import add_rounds, rounds_plan
from iconbench.cli.command import Command

#: The releases since the pins of icon4py 0.4.1 (gt4py 1.2.1, whose lock pins dace 2.0.0a6).
GT4PY = "1.2.1,1.2.2,1.2.3"
DACE = "2.0.0a6,2.0.0a7,2.0.0a8,2.0.0a9,2.0.0a10"


def _versions(text: str) -> tuple[str, ...]:
    found = tuple(v.strip() for v in text.split(",") if v.strip())
    if len(found) < 2:
        raise argparse.ArgumentTypeError(f"{text!r}: give two releases or more, oldest first")
    return found


class Releases(Command):
    """Each release step measured, compared and confirmed; a table of what changed and whose."""

    name = "releases"
    summary = (
        "upstream's release history: every gt4py and dace release since the pins measured, "
        "each step compared and confirmed, each change attributed to its component"
    )
    examples = (
        "iconbench releases plan --out rel --experiment mch_icon-ch1_medium "
        "--backends gtfn_gpu,dace_gpu   # resolves the releases, builds each stack's overlay",
        "iconbench releases run --out rel   # resumable: measure, compare, confirm",
        "iconbench releases run --out rel --until measure",
        "iconbench releases table --out rel",
        "iconbench releases table --out rel --site site   # the site's 'upstream releases' page",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "action",
            choices=("plan", "run", "table"),
            help="plan: resolve the releases, write OUT/plan.json, build the overlays (needs "
            "the package index); run: measure each stack, compare and confirm each step "
            "(resumes); table: the markdown table",
        )
        parser.add_argument(
            "--out",
            metavar=options.METAVARS["out"],
            type=pathlib.Path,
            required=True,
            help="the release history's directory (plan.json, stacks/, runs/, steps/, table.md)",
        )
        parser.add_argument(
            "--gt4py",
            type=_versions,
            default=_versions(GT4PY),
            help=f"plan: gt4py releases, the pinned one first (default {GT4PY})",
        )
        parser.add_argument(
            "--dace",
            type=_versions,
            default=_versions(DACE),
            help=f"plan: dace releases, the pinned one first (default {DACE})",
        )
        parser.add_argument(
            "--find-links",
            type=pathlib.Path,
            metavar="DIR",
            help="plan: install from the wheels in DIR, not from the registries",
        )
        parser.add_argument(
            "--site",
            metavar="DIR",
            type=pathlib.Path,
            help="table: also publish it as the history site's 'upstream releases' page in DIR",
        )
        parser.add_argument(
            "--until",
            choices=("measure", "compare", "confirm"),
            default="confirm",
            help="run: stop after this phase (default: confirm)",
        )
        parser.add_argument(
            "--jobs",
            metavar=options.METAVARS["jobs"],
            type=options.positive_int,
            help="run: compile processes, N >= 1 (default: cores - 2)",
        )
        add_rounds(parser, quick=True)
        options.add_backends(parser)
        options.add_programs(parser)
        options.add_experiment(parser, help="plan: the experiment whose cases every stack runs")
        parser.add_argument("--grid", type=options.check_grid, help="plan: the grid preset")

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        from iconbench.history import releases

        if args.action == "plan":
            suite = []
            for flag, value in (("--backends", ",".join(args.backends or ())),
                                ("--programs", args.programs), ("--experiment", args.experiment),
                                ("--grid", args.grid)):  # fmt: skip
                suite += [flag, value] if value else []
            made = releases.plan(args.out, args.gt4py, args.dace, suite, find_links=args.find_links)
            where = args.out / releases.PLAN
            print(f"{len(made.steps)} steps over {len(made.stacks)} stacks: {where}")
            return 0
        made = releases.Plan.read(args.out)
        if args.site is not None:
            from iconbench.site import releases as site_releases

            site_releases.require_site(args.site)
        if args.action == "run":
            jobs = args.jobs or max(1, (os.cpu_count() or 2) - 2)
            states = releases.run(made, plan_rounds=rounds_plan(args), compile_jobs=jobs,
                                  until=args.until)  # fmt: skip
            for name, state in states.items():
                print(f"{name}: {state}")
        if args.action == "table" or args.until == "confirm":
            table = releases.table(made)
            from iconbench.files.atomic import write_atomic

            write_atomic(args.out / "table.md", table)
            print(table, end="")
        if args.site is not None:
            import datetime

            from iconbench.site import render

            site_releases.store(made, args.site)
            published = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
            env = render.environment()
            site_releases.render(env, args.site, {"published": published})
            render.copy_static(args.site)
            print(f"published: {args.site / site_releases.PAGE}")
        return 0

"""``iconbench releases``: what each gt4py and dace release since the pins did to icon4py."""

from __future__ import annotations

import argparse
import os

from iconbench.cli import option_types as types
from iconbench.cli import options
from iconbench.cli.check import add_rounds, rounds_plan
from iconbench.cli.command import Command

#: The releases since the pins of icon4py 0.4.1 (gt4py 1.2.1, whose lock pins dace 2.0.0a6).
GT4PY = "1.2.1,1.2.2,1.2.3"
DACE = "2.0.0a6,2.0.0a7,2.0.0a8,2.0.0a9,2.0.0a10"


#: The options only ``plan`` uses (the plan fixes them for ``run`` and ``table``).
PLAN_ONLY = ("gt4py", "dace", "find_links", "backends", "programs", "experiment", "grid")
#: The options every action uses.
COMMON = ("action", "out", "_command", "_defaults")


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
            type=types.OUTPUT,
            required=True,
            help="the release history's directory (plan.json, stacks/, runs/, steps/, table.md)",
        )
        parser.add_argument(
            "--gt4py",
            type=types.RELEASES,
            default=GT4PY,
            help=f"plan: gt4py releases, the pinned one first (default {GT4PY})",
        )
        parser.add_argument(
            "--dace",
            type=types.RELEASES,
            default=DACE,
            help=f"plan: dace releases, the pinned one first (default {DACE})",
        )
        parser.add_argument(
            "--find-links",
            type=types.DIRECTORY,
            metavar="DIR",
            help="plan: install from the wheels in DIR, not from the registries",
        )
        parser.add_argument(
            "--site",
            metavar="DIR",
            type=types.OUTPUT,
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
            type=types.COUNT,
            help="run: compile processes, N >= 1 (default: cores - 2)",
        )
        add_rounds(parser, quick=True)
        options.add_backends(parser)
        options.add_programs(parser)
        options.add_experiment(parser, help="plan: the experiment whose cases every stack runs")
        parser.add_argument("--grid", type=types.GRID, help="plan: the grid preset")
        parser.add_argument(
            "--force",
            action="store_true",
            help="plan: replace a plan of other options; run: set aside the stored runs and "
            "steps that differ from the plan (kept as NAME.stale-N) and measure them again",
        )
        parser.set_defaults(_defaults={  # as parsed: argparse converts a default string
            a.dest: a.type(a.default) if a.type and isinstance(a.default, str) else a.default
            for a in parser._actions
        })  # fmt: skip

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        from iconbench.history import releases

        _refuse_unused(args)
        if args.action == "plan":
            suite = []
            for flag, value in (("--backends", ",".join(args.backends or ())),
                                ("--programs", args.programs), ("--experiment", args.experiment),
                                ("--grid", args.grid)):  # fmt: skip
                suite += [flag, value] if value else []
            made = releases.plan(args.out, args.gt4py, args.dace, suite,
                                 find_links=args.find_links, force=args.force)  # fmt: skip
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
                                  until=args.until, force=args.force)  # fmt: skip
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


def _refuse_unused(args: argparse.Namespace) -> None:
    """One line for an option the action does not use (it would be ignored, silently)."""
    from iconbench.errors import IconbenchError

    uses = {
        "plan": {*PLAN_ONLY, "force"},
        "run": set(args._defaults) - set(PLAN_ONLY),
        "table": {"site"},
    }[args.action]
    for dest, default in args._defaults.items():
        if dest in COMMON or dest in uses or getattr(args, dest, default) == default:
            continue
        flag = "--" + dest.replace("_", "-")
        owner = "plan" if dest in PLAN_ONLY else "table" if dest == "site" else "run"
        why = " (the plan fixes it for every run)" if dest in PLAN_ONLY else ""
        raise IconbenchError(
            f"releases {args.action} does not use {flag}: an option of 'releases {owner}'"
            f"{why}; leave it out"
        )

"""``iconbench changepoints``: steps in each benchmark's device-time history (docs/gate.md)."""

from __future__ import annotations

import argparse
import json
import re

from iconbench.cli import option_types as types
from iconbench.cli import options
from iconbench.cli.command import Command


class ChangePoints(Command):
    """Find where each (case, backend)'s device time stepped, and the commits to bisect."""

    name = "changepoints"
    summary = "change points of the nightly device-time history, with bisect's commit range"
    examples = (
        "iconbench changepoints .asv/results --new   # what last night's run added",
        "iconbench changepoints results/h100 --json",
        "iconbench changepoints backfill/[0-9a-f]*/ --repo ../icon4py   # a backfill: commit order",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "results",
            nargs="+",
            type=types.PATH,
            help="asv results directories or GPU runner result sets holding the history",
        )
        parser.add_argument(
            "--new",
            action="store_true",
            help="only change points the newest run added (what a nightly reports)",
        )
        parser.add_argument(
            "--repo",
            type=types.GIT_REPOSITORY,
            default=None,
            help="repository of the runs' commits: runs in commit order (default: the order "
            "they were measured in)",
        )
        parser.add_argument("--json", action="store_true", help="print JSON lines")

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        from iconbench.history import changepoints
        from iconbench.history.runs import runs_in

        if args.repo is not None:
            options.git_repository(args.repo)
        runs = [run for path in args.results for run in runs_in(path, args.repo)]
        found = changepoints.found_in(runs, new=args.new)
        for each in found:
            target, case, backend, point = each.target, each.case, each.backend, each.point
            bisect = (
                f"iconbench bisect --repo REPO --good {point.good[:12]} "
                f"--bad {point.bad[:12]} --programs '^{re.escape(case)}$' "
                f"--backends {backend} --grid {target.grid}"
            )
            if args.json:
                print(
                    json.dumps(
                        {
                            "device": target.device,
                            "grid": target.grid,
                            "case": case,
                            "backend": backend,
                            "index": point.index,
                            "good": point.good,
                            "bad": point.bad,
                            "magnitude": point.magnitude,
                            "confidence": point.confidence,
                            "bisect": bisect,
                        }
                    )
                )
            else:
                print(
                    f"{case} {backend} on {target.label}: x{point.magnitude:.3f} from "
                    f"{point.bad[:8]} (after {point.good[:8]}, run {point.index}, "
                    f"confidence {point.confidence:.3f})\n    {bisect}"
                )
        if not args.json:
            what = "new change points" if args.new else "change points"
            print(f"{len(found)} {what} in {len(runs)} runs")
        return 0

"""``iconbench bisect``: the first bad commit of a regression, named in the gate summary."""

from __future__ import annotations

import argparse
import json
import os
import pathlib

from iconbench.cli import options
from iconbench.cli.command import Command
from iconbench.errors import IconbenchError


class Bisect(Command):
    """Narrow a regression between two commits of one repository with ``asv find``."""

    name = "bisect"
    summary = "find the first bad commit of a regression between two commits (asv find)"
    examples = (
        "iconbench bisect --repo ../gt4py --good $LAST_NIGHT --bad main "
        "--summary gate-summary.json --out gate-summary.bisected.json",
        "iconbench bisect --repo ../icon4py --good v0.4.0 --bad main "
        "--bench 'programs\\.Programs\\.time_host' --programs '^compute_tangential_wind\\[' "
        "--backends embedded --grid tiny",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--repo", required=True, help="checkout of the repository")
        parser.add_argument("--good", required=True, help="last good commit (e.g. last night's)")
        parser.add_argument("--bad", required=True, help="first known bad commit (e.g. main)")
        parser.add_argument(
            "--summary",
            help="gate summary (iconbench compare --out): bisect its worst regression",
        )
        parser.add_argument("--bench", help="asv benchmark regex (default: from --summary)")
        options.add_programs(parser, help="regex searched in case ids (sets ICONBENCH_PROGRAMS)")
        options.add_backends(parser, default=None, help="backends (sets ICONBENCH_BACKENDS)")
        options.add_grid(parser, default=None, help="grid preset (sets ICONBENCH_GRID)")
        parser.add_argument(
            "--component", default="", help="gt4py | dace | icon4py (default: from the checkout)"
        )
        parser.add_argument("--repository", default="", help="owner/name, for the record")
        parser.add_argument("--config", help="asv config to use (default: one written for --repo)")
        parser.add_argument(
            "--environment",
            choices=("checkout", "build"),
            default="checkout",
            help="checkout: this Python's stack with the commit's sources on the path (fast); "
            "build: an environment built per commit (iconbench-uv)",
        )
        options.add_out(parser, help="write the record (or the summary with it) here")
        options.add_json(parser, help="print the record as JSON")

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        from iconbench.bisection import find, record
        from iconbench.stacks import asvconf
        from iconbench.stacks.component import detect

        repo = pathlib.Path(args.repo)
        if not (repo / ".git").exists() and not (repo / "HEAD").exists():
            raise IconbenchError(f"--repo {repo}: not a git checkout")
        out = pathlib.Path(args.out) if args.out else None
        if out is not None and out.exists():
            raise IconbenchError(f"--out {out} exists; results are append-only: give a new path")
        summary = None
        benchmark_id = ""
        variables: dict[str, str] = {}
        if args.summary:
            try:
                summary = json.loads(pathlib.Path(args.summary).read_text(encoding="utf-8"))
            except (OSError, ValueError) as error:
                raise IconbenchError(f"--summary {args.summary}: {error}") from None
            record.check_summary(summary, args.summary)
        bench = args.bench
        if bench is None:
            worst = record.worst_regression(summary) if summary else None
            if worst is None:
                raise IconbenchError(
                    "nothing to bisect: give --bench, or a --summary with a regression"
                )
            bench, variables = record.asv_selection(worst)
            benchmark_id = worst.get("id", "")
        for option, variable in (
            ("programs", "ICONBENCH_PROGRAMS"),
            ("backends", "ICONBENCH_BACKENDS"),
            ("grid", "ICONBENCH_GRID"),
        ):
            if getattr(args, option):
                variables[variable] = getattr(args, option)
        component = args.component or detect(repo, args.good) or "iconbench"
        if args.config:
            config = pathlib.Path(args.config)
        elif args.environment == "checkout":
            config = find.checkout_config(
                None if component == "iconbench" else component, repo, asvconf.ASV_ROOT
            )
        else:
            config = asvconf.write_for_checkout(
                None if component == "iconbench" else component, repo, asvconf.ASV_ROOT
            )
        found = find.find(
            repo=repo,
            good=args.good,
            bad=args.bad,
            bench=bench,
            config=config,
            component=component,
            repository=args.repository,
            env=dict(os.environ, **variables),
            echo=not args.json,
        )
        if args.json:
            print(json.dumps(found.as_dict(), indent=1))
        else:
            ratio = "n/a" if found.ratio is None else f"{found.ratio:.2f}x"
            print(
                f"first bad commit: {found.first_bad[:12]} {found.subject!r} ({ratio} on "
                f"{found.benchmark}, {found.commits} commits searched)"
            )
        if out is not None:
            document = record.attach(summary, [found], benchmark_id) if summary else found.as_dict()
            from iconbench.files.atomic import write_atomic

            write_atomic(out, json.dumps(document, indent=1))
        return 0

"""``iconbench bisect``: the first bad commit of a regression, named in the gate summary."""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import tempfile
from typing import Any

from iconbench.cli import option_types as types
from iconbench.cli import options
from iconbench.cli.check import add_rounds, rounds_plan
from iconbench.cli.command import Command
from iconbench.errors import IconbenchError


class Bisect(Command):
    """Narrow a regression between two commits of one repository, step by interleaved A/B."""

    name = "bisect"
    summary = (
        "find the first bad commit of a regression between two commits (each step an "
        "interleaved A/B against the good commit; or asv find)"
    )
    examples = (
        "iconbench bisect --repo ../gt4py --good $LAST_NIGHT --bad main "
        "--summary gate-summary.confirmed.json --out gate-summary.bisected.json",
        "iconbench bisect --repo ../icon4py --good v0.4.0 --bad main --summary s.json "
        "--out s2.json --backends embedded --grid tiny --quick",
        "iconbench bisect --method asv --repo ../icon4py --good v0.4.0 --bad main "
        "--bench 'programs\\.Programs\\.time_host' --programs '^compute_tangential_wind\\[' "
        "--backends embedded --grid tiny",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--repo", type=types.GIT_REPOSITORY, required=True, help="checkout of the repository"
        )
        parser.add_argument(
            "--good", type=types.GIT_REF, required=True, help="last good commit (e.g. last night's)"
        )
        parser.add_argument(
            "--bad", type=types.GIT_REF, required=True, help="first known bad commit (e.g. main)"
        )
        parser.add_argument(
            "--summary",
            type=types.JSON_FILE,
            help="gate summary (iconbench compare --out, iconbench confirm --out): bisect its "
            "worst regression",
        )
        parser.add_argument(
            "--method",
            choices=("interleaved", "asv"),
            default="interleaved",
            help="interleaved (default): each step's commit against --good, an A/B in "
            "alternating fresh processes, bad when it shows the regression; asv: asv find, one "
            "sample per commit",
        )
        parser.add_argument(
            "--bench", type=types.REGEX, help="asv: benchmark regex (default: from --summary)"
        )
        options.add_programs(
            parser,
            help="without --summary: the one case whose device time to bisect (asv: regex "
            "searched in case ids, ICONBENCH_PROGRAMS)",
        )
        options.add_backends(
            parser,
            default=None,
            help="without --summary: its one backend (asv: backends, ICONBENCH_BACKENDS)",
        )
        options.add_grid(
            parser, default=None, help="grid preset (default: the summary's; asv: ICONBENCH_GRID)"
        )
        parser.add_argument(
            "--component",
            type=types.COMPONENT,
            default="",
            help="gt4py | dace | icon4py (default: from the checkout)",
        )
        parser.add_argument(
            "--repository", type=types.REPOSITORY, default="", help="owner/name, for the record"
        )
        parser.add_argument(
            "--config", type=types.FILE, help="asv: config to use (default: one for --repo)"
        )
        parser.add_argument(
            "--environment",
            choices=("checkout", "build"),
            default="checkout",
            help="asv: checkout: this Python's stack with the commit's sources on the path "
            "(fast); build: an environment built per commit (iconbench-uv)",
        )
        parser.add_argument(
            "--work",
            type=types.OUTPUT,
            metavar="DIR",
            help="interleaved: the steps' A/Bs, one directory each (default: beside --out, "
            "<name>.steps)",
        )
        options.add_jobs(parser, default_help="cores")
        add_rounds(parser, quick=True)
        options.add_out(parser, help="write the record (or the summary with it) here")
        options.add_json(parser, help="print the record as JSON")

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        from iconbench.bisection import record
        from iconbench.stacks.component import detect

        repo = pathlib.Path(args.repo)
        if not (repo / ".git").exists() and not (repo / "HEAD").exists():
            raise IconbenchError(f"--repo {repo}: not a git checkout")
        _check_ends(repo, args.good, args.bad)
        out = pathlib.Path(args.out) if args.out else None
        if out is not None and out.exists():
            raise IconbenchError(f"--out {out} exists; results are append-only: give a new path")
        summary = None
        if args.summary:
            try:
                summary = json.loads(pathlib.Path(args.summary).read_text(encoding="utf-8"))
            except (OSError, ValueError) as error:
                raise IconbenchError(f"--summary {args.summary}: {error}") from None
            record.check_summary(summary, args.summary)
        component = args.component or detect(repo, args.good) or "iconbench"
        if args.method == "interleaved":
            found, benchmark_id = cls._interleaved(args, repo, component, out)
            if found is None:
                return 1
        else:
            found, benchmark_id = cls._asv(args, repo, component, summary)
        if args.json:
            print(json.dumps(found.as_dict(), indent=1))
        else:
            ratio = "n/a" if found.ratio is None else f"{found.ratio:.2f}x"
            steps = f", {len(found.steps)} A/Bs" if found.steps else ""
            print(
                f"first bad commit: {found.first_bad[:12]} {found.subject!r} ({ratio} on "
                f"{found.benchmark}, {found.commits} commits searched{steps})"
            )
        if out is not None:
            document = record.attach(summary, [found], benchmark_id) if summary else found.as_dict()
            from iconbench.files.atomic import write_atomic

            write_atomic(out, json.dumps(document, indent=1))
        return 0

    @staticmethod
    def _interleaved(args: argparse.Namespace, repo: pathlib.Path, component: str,
                     out: pathlib.Path | None) -> tuple[Any, str]:  # fmt: skip
        """The first bad commit by interleaved A/Bs (``None``: not in this range, one line)."""
        from iconbench.bisection import interleaved
        from iconbench.grids.grid import resolve as resolve_grid
        from iconbench.stacks import trees

        summary, worst = _worst_regression(args.summary) if args.summary else (None, None)
        target = interleaved.Target(worst.id) if worst else _named_target(args)
        grid = args.grid or (summary.head.grid.name or summary.base.grid.name if summary else "")
        good, bad = (trees.resolve_commit(repo, ref) for ref in (args.good, args.bad))
        work = args.work or (
            out.parent / f"{out.stem}.steps"
            if out is not None
            else pathlib.Path(tempfile.mkdtemp(prefix="iconbench-bisect-"))
        )
        request = interleaved.Request(
            repo=repo.resolve(),
            component=component,
            good=good,
            bad=bad,
            target=target,
            grid=resolve_grid(grid),
            plan=rounds_plan(args),
            work=work.resolve(),
            compile_jobs=args.jobs or os.cpu_count() or 1,
            repository=args.repository,
            known_bad=interleaved.known_bad(summary, worst, component, good, bad)
            if summary and worst
            else None,
        )
        try:
            return interleaved.find(request), target.id
        except interleaved.NotInRangeError as error:
            print(f"iconbench: {error}", file=sys.stderr)
            return None, target.id

    @staticmethod
    def _asv(args: argparse.Namespace, repo: pathlib.Path, component: str,
             summary: dict[str, Any] | None) -> tuple[Any, str]:  # fmt: skip
        """The first bad commit by ``asv find`` (one sample per commit)."""
        from iconbench.bisection import find, record
        from iconbench.stacks import asvconf

        benchmark_id = ""
        variables: dict[str, str] = {}
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
            value = getattr(args, option)
            if value:
                variables[variable] = ",".join(value) if option == "backends" else value
        checkout = None if component == "iconbench" else component
        if args.config:
            config = pathlib.Path(args.config)
        elif args.environment == "checkout":
            config = find.checkout_config(checkout, repo, asvconf.ASV_ROOT)
        else:
            config = asvconf.write_for_checkout(checkout, repo, asvconf.ASV_ROOT)
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
        return found, benchmark_id


def _worst_regression(path: str):
    """The summary at ``path`` and its worst reported regression (confirmed, where held)."""
    from iconbench.gate import confirmation
    from iconbench.records.summary import Summary

    summary = Summary.read(path)
    regressions = [b for b in confirmation.reported(summary) if b.verdict == "regression"]
    if not regressions:
        raise IconbenchError(f"--summary {path}: no regression to bisect")
    return summary, max(regressions, key=lambda b: b.ratio or 0.0)


def _named_target(args: argparse.Namespace):
    """The device time of the one case and backend named (``iconbench changepoints``' form)."""
    from iconbench.bisection import interleaved

    if not (args.programs and args.backends and len(args.backends) == 1 and args.grid):
        raise IconbenchError(
            "bisect: give --summary (a gate summary with a regression), or the device time to "
            "bisect as --programs CASE --backends ONE --grid PRESET (or --method asv --bench "
            "REGEX)"
        )
    cases = options.select_cases(args.programs) or []  # none: one line naming the nearest
    if len(cases) != 1:
        raise IconbenchError(
            f"--programs {args.programs!r} matches {len(cases)} cases; name one, e.g. "
            "'^compute_tangential_wind\\[default\\]$'"
        )
    return interleaved.Target(f"{cases[0]}|{args.backends[0]}|device_time")


def _check_ends(repo: pathlib.Path, good: str, bad: str) -> None:
    """One line unless ``good`` is an ancestor of ``bad`` (swapped ends said to be swapped)."""
    import subprocess

    from iconbench.stacks import trees

    old, new = trees.resolve_commit(repo, good), trees.resolve_commit(repo, bad)
    if old == new:
        raise IconbenchError(f"--good {good} and --bad {bad} are the same commit {old[:12]}")

    def is_ancestor(a: str, b: str) -> bool:
        command = ["git", "-C", str(repo), "merge-base", "--is-ancestor", a, b]
        done = subprocess.run(command, capture_output=True, check=False, timeout=60)
        return done.returncode == 0

    if is_ancestor(old, new):
        return
    if is_ancestor(new, old):
        raise IconbenchError(
            f"--good {good} and --bad {bad} are swapped: {bad} ({new[:12]}) is older than "
            f"{good}; give --good {bad} --bad {good}"
        )
    raise IconbenchError(
        f"--good {good} is no ancestor of --bad {bad}: bisect needs one line of history "
        "from the good commit to the bad one"
    )

"""``iconbench select``: which benchmarks a pull request's check runs, and what it costs."""

from __future__ import annotations

import argparse
import json
import os
import pathlib

from iconbench.buildcache import REPO_ROOT
from iconbench.cli import option_types as types
from iconbench.cli import options
from iconbench.cli.command import Command
from iconbench.errors import IconbenchError

DEFAULT_LEDGERS = REPO_ROOT / "results" / "h100" / "work"


def ledgers_dir(given: pathlib.Path) -> pathlib.Path:
    """``--ledgers`` as given, the default read from git history where the checkout lacks it.

    The default, the H100 run's ``work/``, is archived (``results/archive.json``): it is read
    into the iconbench cache once.
    """
    if given != DEFAULT_LEDGERS or (given / "session.jsonl").exists():
        return given
    from iconbench import results_archive

    if not (REPO_ROOT / results_archive.MANIFEST).exists():
        return given  # not a checkout: the missing ledger is named as before
    return results_archive.cached(REPO_ROOT, DEFAULT_LEDGERS.relative_to(REPO_ROOT).as_posix())


class Select(Command):
    """Map a change to the programs it can affect (docs/ci-check.md, "What a change selects")."""

    name = "select"
    summary = "the benchmarks a pull request's check runs (changed files -> programs), and its cost"
    examples = (
        "iconbench select --component icon4py --repo ../icon4py --base main --head HEAD",
        "iconbench select --component icon4py --changed "
        "model/atmosphere/dycore/src/icon4py/model/atmosphere/dycore/stencils/"
        "compute_tangential_wind.py --json",
        "iconbench select --component gt4py --full",
        "iconbench select --costs   # PR check wall time per kind of change on one H100 host",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--component",
            type=types.COMPONENT,
            default="icon4py",
            help="repository of the pull request: gt4py | dace | icon4py | iconbench",
        )
        parser.add_argument(
            "--changed", type=types.TEXT, nargs="*", default=[], help="changed file paths"
        )
        parser.add_argument(
            "--repo", type=types.TEXT, help="checkout of the component: take the changes from git"
        )
        parser.add_argument(
            "--base", type=types.GIT_REF, default="", help="with --repo: base ref of the PR"
        )
        parser.add_argument(
            "--head", type=types.GIT_REF, default="HEAD", help="with --repo: head ref of the PR"
        )
        parser.add_argument(
            "--full", action="store_true", help="everything ('/benchmark full', nightly)"
        )
        parser.add_argument(
            "--baseline",
            type=types.TEXT,
            default="",
            help="OpenACC baseline (iconbench baseline list) whose timer shares pick the "
            "representative subset; default: the newest stored baseline with an integrate_nh "
            "timer, else the runner's measured shares (--ledgers)",
        )
        parser.add_argument(
            "--ledgers",
            type=types.DIRECTORY,
            default=DEFAULT_LEDGERS,
            help="the runner's work/ directory (compile.jsonl, session.jsonl) for costs",
        )
        options.add_backends(parser, default=("gtfn_gpu", "dace_gpu"))
        options.add_jobs(parser, default_help="14, a 16-core runner's")
        parser.add_argument(
            "--coverage",
            type=types.FRACTION,
            default=0.8,
            help="share of time the subset covers (0.8)",
        )
        parser.add_argument(
            "--costs", action="store_true", help="print the cost table per kind of change"
        )
        options.add_json(parser, help="print the selection (or the cost table) as JSON")

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        from iconbench.programs.catalog import PACKAGES
        from iconbench.programs.imports import ProgramIndex
        from iconbench.records import compilation, session
        from iconbench.selection import cost, plan, scenarios, subset

        if args.component not in plan.COMPONENTS:
            raise IconbenchError(
                f"--component {args.component!r}: choose one of {', '.join(plan.COMPONENTS)}"
            )
        processes = args.jobs or 14
        backends = list(args.backends)
        ledgers = pathlib.Path(args.ledgers)
        if ledgers != DEFAULT_LEDGERS and not (ledgers / "session.jsonl").exists():
            raise IconbenchError(
                f"--ledgers {ledgers}: no session.jsonl; give the runner's work/ directory"
            )
        if args.repo and not args.base:
            raise IconbenchError("--repo needs --base (the pull request's base ref)")
        files = list(args.changed)
        if args.repo:
            files += plan.changed_files(
                pathlib.Path(args.repo), args.base, args.head, component=args.component
            )
        ledgers = ledgers_dir(ledgers)  # the default: from git history, after the checks
        if not (ledgers / "session.jsonl").exists():
            raise IconbenchError(
                f"--ledgers {ledgers}: no session.jsonl; give the runner's work/ directory"
            )
        shares = cls._openacc_shares(args.baseline)
        if shares is None:
            results = session.SessionLedger(ledgers / "session.jsonl").results()
            shares = subset.measured_shares(results, backends[0])
        index = ProgramIndex.installed(kept=False)  # bad input writes nothing
        catalog = index.catalog_programs(PACKAGES)
        if args.costs:
            compile_ledger = compilation.CompileLedger(ledgers / "compile.jsonl")
            records = compile_ledger.records()
            all_cases = sorted({r.case for r in records})
            stacks = {r.stack for r in records}
            failing = set().union(*(compile_ledger.failed(s) for s in stacks)) if stacks else set()
            rows = scenarios.scenarios(
                model=cost.CostModel.from_ledgers(str(ledgers)),
                index=index,
                catalog=catalog,
                shares=shares,
                all_cases=all_cases,
                backends=backends,
                failing=failing,
                processes=processes,
                compile=not args.no_precompile,
            )
            if args.json:
                print(json.dumps([
                    {"change": r.change, "selection": r.selection.as_dict(), "cases": r.cases,
                     "compile_s": r.estimate.compile_s, "measure_s": r.estimate.measure_s,
                     "total_s": r.estimate.total_s} for r in rows
                ], indent=1))  # fmt: skip
            else:
                print(scenarios.table(rows, processes=processes, backends=backends))
            return 0
        chosen = plan.select(
            args.component,
            files,
            index=index,
            catalog=catalog,
            shares=shares,
            full=args.full,
            coverage=args.coverage,
        )
        cls._check_selects_cases(chosen)
        if args.json:
            print(json.dumps(chosen.as_dict() | {"changed_files": files}, indent=1))
        elif chosen.scope == "none":
            print(f"none: {chosen.reason}; nothing to measure")
        else:
            print(f"{chosen.scope}: {chosen.reason}")
            if chosen.programs:
                print("programs: " + " ".join(chosen.programs))
            print(f"--programs '{chosen.programs_regex}'" + (" --one-variant" * chosen.one_variant))
        if out := os.environ.get("GITHUB_OUTPUT"):
            with open(out, "a", encoding="utf-8") as handle:
                handle.write(f"scope={chosen.scope}\nprograms={chosen.programs_regex}\n")
                handle.write(f"one_variant={'true' if chosen.one_variant else 'false'}\n")
        return 0

    @staticmethod
    def _check_selects_cases(chosen) -> None:
        """A selection that is to measure something selects at least one case.

        Scope ``none`` (a change of tests or docs) measures nothing on purpose; a
        ``programs`` or ``representative`` selection of no case would pass a check having
        measured nothing.
        """
        if chosen.scope in ("none", "full"):
            return
        if not chosen.programs:
            raise IconbenchError(
                f"the {chosen.scope} selection names no program ({chosen.reason}); give "
                "--baseline or --ledgers whose times name programs of this icon4py"
            )
        options.select_cases(chosen.programs_regex, one_variant=chosen.one_variant,
                             what=f"the {chosen.scope} selection")  # fmt: skip

    @staticmethod
    def _openacc_shares(name: str):
        """Shares of the named baseline, or of the newest one that times the whole step."""
        from iconbench.baselines import mapping, store
        from iconbench.selection import subset

        timers = mapping.load()
        root = store.default_root()
        if name:
            return subset.openacc_shares(store.load(root, name), timers)
        whole_step = [
            baseline
            for baseline in (store.load(root, n) for n in store.names(root))
            if any(baseline.timer(t) for t in timers.reference_timers)
        ]
        if not whole_step:
            return None
        newest = max(whole_step, key=lambda b: b.date)
        return subset.openacc_shares(newest, timers)

"""``iconbench check``: the pull-request check, base and head interleaved through the runner."""

from __future__ import annotations

import argparse
import dataclasses
import os
from typing import TYPE_CHECKING

from iconbench.buildcache import REPO_ROOT
from iconbench.cli import option_types as types
from iconbench.cli import options
from iconbench.cli.command import Command
from iconbench.cli.select import DEFAULT_LEDGERS, ledgers_dir
from iconbench.errors import IconbenchError

if TYPE_CHECKING:
    from iconbench.check.rounds import Plan
    from iconbench.grids import Grid
    from iconbench.programs.backends import Backend
    from iconbench.runner.devices import Devices


#: The check's grid unless ``--grid`` (or a size, or a file) says otherwise.
DEFAULT_GRID = "mch_icon-ch1_medium"


class Check(Command):
    """Select, precompile both commits, measure them interleaved, gate, comment, site."""

    name = "check"
    summary = "the pull-request check: base and head measured interleaved, gated (1: regression)"
    examples = (
        "iconbench check --component icon4py --repo ../icon4py --base main --head HEAD "
        "--out check --backends gtfn_gpu,dace_gpu --grid mch_icon-ch1_medium",
        "iconbench check --component gt4py --repo ../gt4py --base main --head HEAD --out check "
        "--backends gtfn_cpu --grid tiny --programs '^compute_tangential_wind\\['",
        "iconbench check --component gt4py --repo ../gt4py --base main --head HEAD --out check "
        "--devices 0,1,2,3",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--component", type=types.COMPONENT, required=True, help="gt4py | dace | icon4py"
        )
        parser.add_argument("--repo", required=True, type=types.GIT_REPOSITORY, help="its checkout")
        parser.add_argument(
            "--base", type=types.GIT_REF, required=True, help="base ref of the change"
        )
        parser.add_argument(
            "--head", type=types.GIT_REF, default="HEAD", help="head ref of the change"
        )
        options.add_out(parser, help="the check's directory (sides, rounds, summary, phases)")
        add_interleaving(parser, backends=("gtfn_gpu", "dace_gpu"), grid=DEFAULT_GRID)
        options.add_programs(
            parser, help="regex of case ids to measure (default: what 'iconbench select' picks)"
        )
        parser.add_argument("--full", action="store_true", help="select everything")
        parser.add_argument(
            "--repository", type=types.REPOSITORY, default="", help="OWNER/NAME: comment on its PR"
        )
        parser.add_argument("--pr", type=types.NON_NEGATIVE, default=0, help="pull request number")
        parser.add_argument(
            "--comment-arg",
            type=types.TEXT,
            action="append",
            default=[],
            help="passed to 'iconbench comment' (repeat), e.g. --comment-arg=--dry-run",
        )
        parser.add_argument("--site", action="store_true", help="build OUT/site (the artifact)")
        parser.add_argument(
            "--until",
            choices=("precompile",),
            default="",
            help="stop after this phase: 'precompile' puts both commits' builds into the "
            "runner's build cache and measures nothing (e.g. main's, before its pull requests' "
            "checks: --base main --head main --programs REGEX)",
        )
        parser.add_argument(
            "--record",
            type=types.OUTPUT,
            help="append the check's facts and phase times as one JSON line to this file",
        )

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        from iconbench.check.run import Request, run

        if args.component not in ("gt4py", "dace", "icon4py"):
            raise IconbenchError(f"--component {args.component!r}: one of gt4py, dace, icon4py")
        if args.repository and not args.pr:
            raise IconbenchError("--repository needs --pr (the pull request's number)")
        backends, grid, devices, plan = interleaving(args, grid=DEFAULT_GRID)
        request = Request(
            component=args.component,
            repo=args.repo.resolve(),
            base=args.base,
            head=args.head,
            out=args.out.resolve(),
            backends=backends,
            grid=grid,
            plan=plan,
            programs=args.programs,
            one_variant=args.one_variant,
            full=args.full,
            jobs=args.jobs or os.cpu_count() or 1,
            repository=args.repository,
            pr=args.pr,
            comment_args=tuple(args.comment_arg),
            site=args.site,
            record=args.record,
            devices=devices,
            ledgers=ledgers_dir(args.ledgers),
            until=args.until,
        )
        return run(request)


def add_interleaving(
    parser: argparse.ArgumentParser, *, backends: tuple[str, ...], grid: str, quick: bool = False
) -> None:
    """The options of base and head measured interleaved (``iconbench check``, ``continuous``).

    What is measured (backends, grid, the first variant only), on which cores and devices,
    how long each case a round, and how many blocks of rounds ABBA BAAB at least and at most.
    """
    options.add_backends(parser, default=backends)
    options.add_grid_source(parser, default=grid)
    parser.add_argument("--one-variant", action="store_true", help="first variant only")
    options.add_jobs(parser, default_help="cores")
    options.add_devices(parser)
    parser.add_argument(
        "--ledgers",
        type=types.DIRECTORY,
        default=DEFAULT_LEDGERS,
        help="a runner's work/ (compile.jsonl, session.jsonl): the selection's time shares "
        "and the devices' shares of the cases balanced by their measuring time "
        f"(default: {DEFAULT_LEDGERS.relative_to(REPO_ROOT)})",
    )
    add_rounds(parser, quick=quick)
    parser.add_argument(
        "--no-pin",
        action="store_true",
        help="let the measuring workers run on any core (default: cores of their own, one per GPU)",
    )
    parser.add_argument(
        "--measure-while-compiling",
        choices=("gpu", "always", "never"),
        default="gpu",
        help="measure the cases whose builds both sides have while the longest builds still "
        "compile: with GPU backends (default; device time does not feel the compiles on other "
        "cores, a CPU backend's timings do), always, or never",
    )


def interleaving(
    args: argparse.Namespace, *, grid: str
) -> tuple[tuple[Backend, ...], Grid, Devices, Plan]:
    """:func:`add_interleaving`'s options resolved: backends, grid, devices and the plan.

    Milliseconds, before any work: an unknown backend, a bad grid or block count is one line.
    """
    from iconbench.check import rounds
    from iconbench.programs import backends as registry
    from iconbench.runner import devices as found

    plan = rounds_plan(args)
    chosen = tuple(registry.backend(name) for name in args.backends)  # unknown: one line
    on_gpu = all(b.on_gpu for b in chosen)
    devices = found.resolve(args.devices, on_gpu=on_gpu)
    cores = () if args.no_pin else rounds.measuring_cores(on_gpu, len(devices))
    overlap = {"gpu": on_gpu, "always": True, "never": False}[args.measure_while_compiling]
    plan = dataclasses.replace(plan, measure_cores=cores, while_compiling=overlap)
    return chosen, options.grid_of(args, default=grid), devices, plan


#: A round's GPU case after its first: the device is working already, so 3 calls and 20 ms warm it
#: (the first case of each process still warms up 0.1 s). Most of a round was warm-up: in
#: icon4py #1405's check on an H100, median 0.100 s of each case's 0.126-0.127 s
#: (docs/pr-check-h100.md).
WARMUP_NEXT_S = 0.02

#: ``--quick``: two blocks of four rounds (4 processes a side, the fewest the gate decides
#: on), short samples (a smoke test, little statistics).
QUICK = {"samples": 10, "max_s": 0.1, "warmup_s": 0.05, "min_blocks": 2, "max_blocks": 2}


def add_rounds(parser: argparse.ArgumentParser, *, quick: bool = False) -> None:
    """How long each case is measured a round, and how many blocks of rounds (ABBA BAAB).

    ``quick``: also ``--quick`` (:data:`QUICK`): ``iconbench continuous``, and the commands
    that measure again what two runs left in doubt (``iconbench confirm``, ``bisect``).
    """
    options.add_sampling(parser, samples=50, max_s=0.5, warmup_s=0.1, precision=0.005,
                         warmup_next_s=WARMUP_NEXT_S)  # fmt: skip
    parser.add_argument(
        "--min-blocks", type=types.COUNT, default=2, help="blocks of 4 rounds at least (ABBA BAAB)"
    )
    parser.add_argument(
        "--max-blocks", type=types.COUNT, default=4, help="blocks at most, if still undecided"
    )
    parser.add_argument(
        "--budget", type=types.SECONDS, help="seconds of measuring after which no block starts"
    )
    if quick:
        parser.add_argument(
            "--quick",
            action="store_true",
            help="two blocks of 4 rounds, 10 samples of at most 0.1 s a case (smoke test)",
        )


def rounds_plan(args: argparse.Namespace) -> Plan:
    """:func:`add_rounds`' options resolved (a bad block count is one line); no cores pinned."""
    from iconbench.check import rounds

    if not 1 <= args.min_blocks <= args.max_blocks:
        raise IconbenchError("--min-blocks must be >= 1 and <= --max-blocks")
    plan = rounds.Plan(samples=args.samples, max_s=args.max_s, warmup_s=args.warmup_s,
                       min_blocks=args.min_blocks, max_blocks=args.max_blocks,
                       budget_s=args.budget, precision=args.precision,
                       warmup_next_s=args.warmup_next_s)  # fmt: skip
    return dataclasses.replace(plan, **QUICK) if getattr(args, "quick", False) else plan

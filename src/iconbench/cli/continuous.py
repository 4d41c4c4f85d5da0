"""``iconbench continuous``: whether a branch of gt4py, dace or icon4py is slower than main.

A front end of the pull-request check's measurement (:func:`iconbench.check.run.compare`):
both commits' sources exported and put first on the path of this Python's stack, precompiled
side by side into the build cache, measured in alternating fresh workers (ABBA BAAB) until
the gate decides, asv result files written for each commit, and the gate's verdict. No
selection from the change, no comment, no site: the programs are the user's ``--programs``.
"""

from __future__ import annotations

import argparse
import os
import pathlib
from typing import Any, NoReturn

from iconbench.cli import option_types as types
from iconbench.cli import options
from iconbench.cli.check import add_interleaving, interleaving
from iconbench.cli.command import Command
from iconbench.cli.select import ledgers_dir
from iconbench.errors import IconbenchError
from iconbench.files.directories import create_dir

#: Options of the asv-driven command this one replaced: each is refused with what to do now.
REMOVED: dict[str, tuple[int, str]] = {
    "--bench": (1, "every round measures every metric of each case (device time, host "
                "overhead, compile time); choose the cases with --programs REGEX and --backends"),
    "--asv-arg": (1, "no asv runs here; how long a case is measured: --samples, --max-s, "
                  "--warmup-s; how many rounds: --min-blocks, --max-blocks, --quick"),
    "--factor": (1, "the gate decides with its thresholds (device time 5 %, host overhead 10 %; "
                 "docs/gate.md); to judge the result with others: iconbench compare OUT/base "
                 "OUT/head --config gate.toml"),
    "--environment": (1, "no environment is built: each commit's sources go first on the path "
                      "of this Python's stack (what 'checkout' did); a change of compiled code "
                      "(dace's C++ runtime) is compared by asv continuous with an iconbench-uv "
                      "config (docs/stacks.md)"),
    "--existing": (0, "not needed: no environment is built, each commit's sources go first on "
                   "the path of this Python's stack (seconds); commit your edits and name both "
                   "commits"),
    "--asv-dir": (1, "the results go to --out DIR: asv result files in DIR/base/asv and "
                  "DIR/head/asv, the verdict in DIR/gate-summary.json"),
    "--benchmark-dir": (1, "the programs of the catalog are measured by the runner, not an asv "
                        "suite: choose them with --programs; another asv suite runs with asv "
                        "continuous and its own config"),
    "--stack": (1, "both commits run on this Python's stack (its gt4py, dace and icon4py, the "
                "commit's sources first on the path); to compare on another stack, run "
                "iconbench continuous from an environment that has it installed"),
}  # fmt: skip


class _Removed(argparse.Action):
    """An option that is gone: one line naming what replaces it."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> NoReturn:
        parser.error(f"{option_string}: {REMOVED[option_string or ''][1]}")


class Continuous(Command):
    """Both commits of a checkout measured interleaved through the runner, gated."""

    name = "continuous"
    summary = "is my branch of gt4py, dace or icon4py slower? both commits interleaved, gated"
    examples = (
        "iconbench continuous main HEAD --repo ../gt4py",
        "iconbench continuous main HEAD --repo ../icon4py --backends gtfn_cpu --grid tiny "
        "--programs compute_tangential_wind",
        "iconbench continuous origin/main HEAD --repo ../gt4py --backends embedded --quick",
        "iconbench continuous $BASE $HEAD --repo $CHECKOUT --out $KEPT/continuous --json",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "base", type=types.GIT_REF, help="the reference: branch, tag or commit (e.g. main)"
        )
        parser.add_argument("head", type=types.GIT_REF, help="the commit under test (e.g. HEAD)")
        parser.add_argument(
            "--repo",
            type=types.GIT_REPOSITORY,
            default=pathlib.Path("."),
            metavar="DIR",
            help="git checkout of gt4py, dace or icon4py (default: .)",
        )
        parser.add_argument(
            "--component",
            choices=("gt4py", "dace", "icon4py"),
            help="which component the checkout is (default: from its pyproject.toml)",
        )
        add_interleaving(parser, backends=("embedded", "gtfn_cpu"), grid="tiny", quick=True)
        options.add_programs(parser, help="regex of case ids to measure (default: all)")
        options.add_out(
            parser,
            help="the comparison's directory, a new one (default: "
            "iconbench-continuous-<time>/ in the current directory): base/ and head/ (asv "
            "files, summary.json), gate-summary.json, check.json (phase times)",
        )
        options.add_json(parser, help="print the gate summary as JSON instead of the table")
        for name, (values, _) in REMOVED.items():
            parser.add_argument(name, nargs=values, action=_Removed, help=argparse.SUPPRESS)

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        from iconbench.check import continuous_report
        from iconbench.check.run import Request, compare, start
        from iconbench.stacks import component, trees

        # Everything the user named is checked before anything is exported or measured.
        options.check_environment()
        repo = options.existing_dir(args.repo, "--repo").resolve()
        chosen = args.component or component.detect(repo, args.base)
        if chosen is None:
            raise IconbenchError(
                f"--repo {repo} is iconbench itself: compare its commits with asv in its "
                "checkout, 'asv continuous main HEAD' (docs/stacks.md); this command compares "
                "gt4py, dace or icon4py"
            )
        options.select_cases(args.programs, one_variant=args.one_variant)
        backends, grid, devices, plan = interleaving(args, grid="tiny")
        _refuse_used_out(args.out)
        # the same code on both sides (a comment, a rebase): said at once, nothing measured
        commits = [trees.resolve_commit(repo, ref) for ref in (args.base, args.head)]
        if trees.same_code(repo, *commits):
            print(continuous_report.identical(chosen, (args.base, commits[0]),
                                              (args.head, commits[1])))  # fmt: skip
            return 0
        request = Request(
            component=chosen,
            repo=repo,
            base=args.base,
            head=args.head,
            out=_new_out(args.out),
            backends=backends,
            grid=grid,
            plan=plan,
            programs=args.programs,
            one_variant=args.one_variant,
            jobs=args.jobs or os.cpu_count() or 1,
            devices=devices,
            ledgers=ledgers_dir(args.ledgers),
        )
        timeline = start(request)
        summary = compare(request, args.programs, args.one_variant, timeline).summary
        timeline.facts |= {"verdict": summary.verdict, "counts": dict(summary.counts),
                           "exit": summary.exit_code}  # fmt: skip
        timeline.write()
        if args.json:
            print(summary.to_json(), end="")
        else:
            print(continuous_report.render(summary, args.base, args.head, chosen))
            print(f"results: {request.out} (base/asv, head/asv, gate-summary.json)")
        return summary.exit_code


def _new_out(given: pathlib.Path | None) -> pathlib.Path:
    """The comparison's directory: ``given`` if new or empty, else a new one where it is run.

    A developer runs it in their checkout and finds the results there
    (``./iconbench-continuous-<time>/``), not in iconbench's. A directory of an earlier
    comparison is refused: its ledgers would mix into this one's.
    """
    if given is None:
        from iconbench.records.resultdir import new_directory

        # stack "": no compile ledger to continue (each side keeps its own, in base/ and head/)
        return new_directory(pathlib.Path.cwd(), "iconbench-continuous", stack="").resolve()
    _refuse_used_out(given)
    return create_dir(given, "--out").resolve()


def _refuse_used_out(given: pathlib.Path | None) -> None:
    """One line if ``--out`` names a file or a directory with something in it."""
    if given is not None and given.exists() and (not given.is_dir() or any(given.iterdir())):
        raise IconbenchError(
            f"--out {given}: exists and is not an empty directory; results are kept: give a "
            "new directory"
        )

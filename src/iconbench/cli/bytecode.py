"""``iconbench bytecode``: compile the stack's bytecode once, when a runner is set up.

Once per stack and bytecode location: a later run (every script that sources a GPU runner's
environment runs it) finds the stamp of the complete compile and says so in well under a second.
"""

from __future__ import annotations

import argparse

from iconbench.cli import options
from iconbench.cli.command import Command


class Bytecode(Command):
    """Compile the bytecode of gt4py, DaCe, icon4py and iconbench ahead of the first run."""

    name = "bytecode"
    summary = "compile the stack's Python bytecode once (a runner's set-up, after installing)"
    examples = ("iconbench bytecode", "iconbench bytecode --jobs 16", "iconbench bytecode --force")

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        options.add_jobs(parser, default_help="cores")
        parser.add_argument(
            "--force",
            action="store_true",
            help="compile even where this stack's bytecode was compiled completely before",
        )

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        from iconbench import bytecode

        print(bytecode.compile_once(args.jobs or None, force=args.force).describe())
        return 0

"""``iconbench bytecode``: compile the stack's bytecode once, when a runner is set up."""

from __future__ import annotations

import argparse
import sys
import time

from iconbench.cli import options
from iconbench.cli.command import Command


class Bytecode(Command):
    """Compile the bytecode of gt4py, DaCe, icon4py and iconbench ahead of the first run."""

    name = "bytecode"
    summary = "compile the stack's Python bytecode once (a runner's set-up, after installing)"
    examples = ("iconbench bytecode", "iconbench bytecode --jobs 16")

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        options.add_jobs(parser, default_help="cores")

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        from iconbench import bytecode

        start = time.perf_counter()
        files, packages = bytecode.compile_stack(args.jobs or None)
        where = sys.pycache_prefix or "next to the sources"
        print(f"bytecode: {files} files of {packages} packages in "
              f"{time.perf_counter() - start:.1f} s ({where})")  # fmt: skip
        return 0

"""The parser the command reference is generated from (docs/reference/commands.md).

It is ``iconbench.cli.build_parser()`` itself; only each command's examples block, plain text
for ``--help``, is marked as a literal block, so that reStructuredText shows the examples as
typed (a ``results/shard-*`` would otherwise open an emphasis).
"""

from __future__ import annotations

import argparse

from iconbench.cli import build_parser

HEADING = "examples:"


def parser() -> argparse.ArgumentParser:
    """``iconbench``'s parser, its commands' examples as literal blocks."""
    top = build_parser()
    for action in top._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command in action.choices.values():
                epilog = command.epilog or ""
                if epilog.startswith(HEADING):
                    command.epilog = "Examples::\n\n" + epilog.removeprefix(HEADING).lstrip("\n")
    return top

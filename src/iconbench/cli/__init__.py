"""The ``iconbench`` command line: discovers one :class:`Command` per module of this package.

Errors of kind :class:`iconbench.errors.IconbenchError` are printed as one line
(``iconbench: error: …``, exit 2); so are bad arguments
(:class:`~iconbench.cli.options.OneLineParser`), and so is a stack that cannot run
(:mod:`iconbench.stacks.breakage`: which component's code fails on which name). Anything else
is a bug and keeps its traceback. The command modules import their libraries inside
``run``, so that parsing and checking the arguments takes well under a second.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import pkgutil
import sys
from collections.abc import Sequence

from iconbench import __version__
from iconbench.bytecode import configure as configure_bytecode
from iconbench.cli import option_types as types
from iconbench.cli import options
from iconbench.cli.command import Command
from iconbench.cli.options import OneLineParser
from iconbench.errors import IconbenchError


@functools.cache
def commands() -> dict[str, type[Command]]:
    """All subcommands, by name, found by importing every module of this package (once)."""
    found: dict[str, type[Command]] = {}
    for module in pkgutil.iter_modules(__path__):
        if module.name in ("command", "options", "option_types"):
            continue
        mod = importlib.import_module(f"{__name__}.{module.name}")
        for value in vars(mod).values():
            if (
                isinstance(value, type)
                and issubclass(value, Command)
                and value is not Command
                and value.__module__ == mod.__name__
            ):
                found[value.name] = value
    return dict(sorted(found.items()))


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with one subparser per command."""
    parser = OneLineParser(
        prog="iconbench",
        description="Continuous benchmarking of ICON4Py's GT4Py dycore and diffusion programs.",
        epilog="Run 'iconbench COMMAND --help' for a command's options and examples.",
    )
    parser.add_argument("--version", action="version", version=f"iconbench {__version__}")
    parser.add_argument(
        "--overlay",
        metavar="STACK",
        type=types.OVERLAY,
        help="run the command on a stack built by 'iconbench stack build gt4py==V dace==V' "
        "(its name, or its directory): its gt4py and dace first on the path",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, command in commands().items():
        p = sub.add_parser(
            name,
            help=command.summary,
            description=command.summary,
            epilog=command.epilog(),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        command.add_arguments(p)
        p.set_defaults(_command=command, _parser=p)
    return parser


def _without_overlay(argv: list[str]) -> list[str]:
    """``argv`` less its ``--overlay STACK`` (the command runs again, on that stack).

    >>> _without_overlay(["--overlay", "s", "info"]), _without_overlay(["--overlay=s", "info"])
    (['info'], ['info'])
    """
    for i, arg in enumerate(argv):
        if arg == "--overlay":
            return argv[:i] + argv[i + 2 :]
        if arg.startswith("--overlay="):
            return argv[:i] + argv[i + 1 :]
    return argv


def misplaced_global_option(argv: Sequence[str], names: Sequence[str]) -> str | None:
    """The one line for a global option given after the command (``info --overlay X``).

    >>> misplaced_global_option(["info", "--overlay", "X"], ["info"])
    "--overlay is an option of iconbench itself, given before the command: \
'iconbench --overlay X info'"
    >>> misplaced_global_option(["--overlay", "X", "info"], ["info"]) is None
    True
    """
    command = next((i for i, arg in enumerate(argv) if arg in names), None)
    if command is None:
        return None
    for i, arg in enumerate(argv[command + 1 :], command + 1):
        if arg == "--overlay" or arg.startswith("--overlay="):
            value = argv[i + 1 : i + 2] if arg == "--overlay" else [arg.partition("=")[2]]
            rest = [
                a for j, a in enumerate(argv) if j != i and not (arg == "--overlay" and j == i + 1)
            ]
            right = " ".join(["iconbench", "--overlay", *value, *rest])
            return (
                f"--overlay is an option of iconbench itself, given before the command: '{right}'"
            )
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``iconbench`` console script."""
    configure_bytecode()  # before gt4py is imported, here and in every process started
    given = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if line := misplaced_global_option(given, list(commands())):
        print(f"iconbench: error: {line}", file=sys.stderr)
        return 2
    args = parser.parse_args(argv)
    from iconbench.stacks import overlay

    try:
        if args.overlay:
            overlay.enter(str(args.overlay), _without_overlay(given))
        if on := overlay.check_imported():  # run again on an overlay: its own, or nothing
            print(f"iconbench: note: on {on.describe()}", file=sys.stderr)
    except IconbenchError as error:
        print(f"iconbench: error: {error}", file=sys.stderr)
        return 2
    if not getattr(args, "_command", None):
        parser.print_help()
        return 2
    try:
        options.refuse_unused(args._parser, args)  # an option its action would ignore
        return args._command.run(args)
    except IconbenchError as error:
        print(f"iconbench: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("iconbench: interrupted", file=sys.stderr)
        return 130
    except Exception as error:
        from iconbench.stacks.breakage import BrokenStackError, classify

        broken = classify(error)
        if broken is None:
            raise  # a bug: its traceback is what fixes it
        text = str(error) if isinstance(error, BrokenStackError) else broken.line()
        print(f"iconbench: error: {text}", file=sys.stderr)
        return 2

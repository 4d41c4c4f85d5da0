"""The base class of every ``iconbench`` subcommand.

Modelled on ``asv/commands``: one module per subcommand under :mod:`iconbench.cli`, each
defining one :class:`Command` subclass. The CLI discovers them, so adding a command means
adding a file, never editing a central list. Commands stay thin: they parse arguments, call
the library and print; the work lives in the library modules.
"""

from __future__ import annotations

import abc
import argparse
from typing import ClassVar


class Command(abc.ABC):
    """One subcommand: its name, a one-line summary, an example and what it does."""

    #: The word after ``iconbench``.
    name: ClassVar[str]
    #: One line for ``iconbench --help``.
    summary: ClassVar[str]
    #: Example invocations shown at the end of ``iconbench NAME --help``.
    examples: ClassVar[tuple[str, ...]]

    @classmethod
    def epilog(cls) -> str:
        """The examples block of ``--help``."""
        lines = ["examples:", *(f"  {example}" for example in cls.examples)]
        return "\n".join(lines)

    @classmethod
    @abc.abstractmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        """Declare the command's options on its subparser."""

    @classmethod
    @abc.abstractmethod
    def run(cls, args: argparse.Namespace) -> int:
        """Do the work; return the process exit status."""

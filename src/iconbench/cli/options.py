"""The one vocabulary of options every ``iconbench`` command speaks, checked before any work.

The same thing has the same option in every command, declared here once with its help text:

=================  =============================================================
``--programs``     REGEX searched in case ids ``program[variant]``
``--backends``     NAME[,NAME] backends: a comma list, and repeatable
``--grid``         PRESET, a grid preset (``iconbench grid`` lists them)
``--experiment``   NAME, an ICON experiment (``baselines/experiments/NAME.toml``)
``--store``        DIR, a store of files (after the action: ``baseline list --store DIR``)
``--jobs``         N >= 1 compile processes (``--no-precompile``: compile on first call)
``--devices``      ID[,ID] GPUs measured on at once (default: every visible GPU)
``--out``          PATH of the files written
``--json``         machine-readable output on stdout
``--dry-run``      check and print, write nothing
=================  =============================================================

Every check here runs while the arguments are parsed or first thing in ``run``, in
milliseconds: nothing imports gt4py (15-30 s) before a name is known to be valid. Backend
names are read from icon4py's source (:func:`iconbench.programs.backends.known_names`), case
ids from the case index (:mod:`iconbench.programs.caseindex`), grid presets from
:mod:`iconbench.grids.presets`.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NoReturn

from iconbench.cli import option_types as types
from iconbench.cli.option_types import (  # noqa: F401  (the checks, for the commands)
    check_backends,
    check_experiment,
    check_grid,
    check_grids,
    check_known,
    check_regex,
    check_shard,
    check_stack_key,
    existing_dir,
    existing_file,
    existing_path,
    float_above,
    git_repository,
    output_path,
    positive_int,
    select_cases,
    writable_dir,
)
from iconbench.errors import IconbenchError

#: The canonical option of each concept (the argparse ``dest``), for every command.
VOCABULARY: dict[str, str] = {
    "programs": "--programs",
    "backends": "--backends",
    "grid": "--grid",
    "experiment": "--experiment",
    "store": "--store",
    "jobs": "--jobs",
    "devices": "--devices",
    "no_precompile": "--no-precompile",
    "out": "--out",
    "json": "--json",
    "dry_run": "--dry-run",
}

#: Metavars shown in ``--help``, the same everywhere.
METAVARS: dict[str, str] = {
    "programs": "REGEX",
    "backends": "NAME[,NAME]",
    "grid": "PRESET",
    "experiment": "NAME",
    "store": "DIR",
    "jobs": "N",
    "devices": "ID[,ID]",
    "out": "PATH",
}


class OneLineParser(argparse.ArgumentParser):
    """An argparse parser whose errors are one line on stderr (exit 2), like IconbenchError.

    argparse prints the usage block and then the error; a CI log or a user then has to find
    the one line that matters. Here the error is that line, and it points at ``--help``.
    """

    def error(self, message: str) -> NoReturn:
        hint = f"see '{self.prog} --help'"
        self.exit(2, f"iconbench: error: {message}; {hint}\n")


def note(text: str) -> None:
    """Print a one-line note on stderr (skipped files): never fatal."""
    print(f"iconbench: note: {text}", file=sys.stderr)


# --- actions --------------------------------------------------------------------------


class _Extend(argparse.Action):
    """Append the tuple of one occurrence to the values so far (the default is replaced)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        current = getattr(namespace, self.dest, None)
        if current is None or current is self.default:
            current = ()
        setattr(namespace, self.dest, tuple(dict.fromkeys((*current, *values))))


# --- the options ----------------------------------------------------------------------


def add_programs(
    parser: argparse.ArgumentParser,
    *,
    default: str = "",
    help: str = "regex searched in case ids program[variant] (default: all); "
    "'iconbench programs --cases' lists them",
) -> None:
    """``--programs REGEX``, checked to compile.

    :func:`select_cases` checks that it matches at least one case.
    """
    parser.add_argument(
        "--programs",
        metavar=METAVARS["programs"],
        type=types.PROGRAMS,
        default=default,
        help=help,
    )


def add_backends(
    parser: argparse.ArgumentParser,
    *,
    default: Sequence[str] | None = ("embedded", "gtfn_cpu"),
    required: bool = False,
    help: str | None = None,
) -> None:
    """``--backends NAME[,NAME]``, a comma list and repeatable.

    The value is a tuple of known names (``default`` when not given); unknown names are an
    argparse error that lists the known ones. ``required``: the command checks the value
    with :func:`require_backends` (one line that gives an example).
    """
    if help is None:
        shown = f"default: {','.join(default)}" if default else "default: all"
        help = (
            "backends, comma list or repeated "
            f"(e.g. gtfn_cpu,dace_cpu; {'required' if required else shown}); "
            "embedded, gtfn_cpu, dace_cpu, gtfn_gpu, dace_gpu, dace_gpu_noauto, ..."
        )
    kwargs: dict[str, Any] = {
        "type": types.BACKENDS,
        "action": _Extend,
        "default": None if default is None else tuple(default),
    }
    parser.add_argument("--backends", metavar=METAVARS["backends"], help=help, **kwargs)


def require_backends(backends: Sequence[str] | None, example: str) -> tuple[str, ...]:
    """``backends``, or the one line saying they are needed (``example``: a command line)."""
    if not backends:
        raise IconbenchError(f"give the backends with --backends NAME[,NAME], e.g. {example}")
    return tuple(backends)


def add_grid(
    parser: argparse.ArgumentParser,
    *,
    default: str | None = "tiny",
    several: bool = False,
    help: str | None = None,
) -> None:
    """``--grid PRESET`` (``several``: a comma list ``tiny,small``, value a tuple)."""
    if help is None:
        help = "grid preset" + (" (comma list)" if several else "")
        help += f" (default: {default}); 'iconbench grid' lists them" if default else ""
    parser.add_argument(
        "--grid",
        metavar=METAVARS["grid"],
        type=types.GRIDS if several else types.GRID,
        default=(check_grids(default) if several and default else default),
        help=help,
    )


def add_grid_source(
    parser: argparse.ArgumentParser, *, default: str | None = "tiny", preset_help: str = ""
) -> None:
    """The grid of a measuring command: ``--grid PRESET`` or ``--cells N`` or ``--grid-file``.

    With ``--levels K`` and (generated grids) ``--limited-area``; :func:`grid_of` resolves
    them, once, into an :class:`iconbench.grids.Grid`. ``default`` is the preset when none of
    the three is given (``None``: the command decides, e.g. an experiment's grid).
    """
    shown = f" (default: {default})" if default else ""
    parser.add_argument(
        "--grid",
        metavar=METAVARS["grid"],
        type=types.GRID,
        default=None,
        help=preset_help or f"grid preset{shown}; 'iconbench grid' lists them",
    )
    parser.add_argument(
        "--cells",
        type=types.COUNT,
        metavar="N",
        help="instead of a preset: a generated grid of about N cells",
    )
    parser.add_argument(
        "--grid-file",
        type=types.NETCDF_FILE,
        metavar="FILE",
        help="instead of a preset: a real ICON grid file (NetCDF)",
    )
    parser.add_argument(
        "--levels",
        type=types.COUNT,
        metavar="K",
        help="full levels (default: the preset's; 65 for --cells and --grid-file)",
    )
    parser.add_argument(
        "--limited-area",
        action="store_true",
        help="a generated limited-area grid (boundary and nudging zones), not a torus",
    )


def grid_of(args: argparse.Namespace, default: str | None = "tiny") -> Any:
    """The :class:`iconbench.grids.Grid` of :func:`add_grid_source`'s options, resolved once.

    ``None`` when none is given and there is no ``default`` (the command decides later).

    >>> grid_of(argparse.Namespace(grid=None, cells=None, grid_file=None, levels=None,
    ...                            limited_area=False)).argv
    ('--grid', 'tiny')
    """
    from iconbench import grids

    preset = args.grid
    if preset is None and args.cells is None and args.grid_file is None:
        if default is None:
            return None
        preset = default
    return grids.resolve(
        preset,
        cells=args.cells,
        levels=args.levels,
        limited_area=args.limited_area,
        grid_file=args.grid_file,
    )


def add_experiment(parser: argparse.ArgumentParser, *, help: str) -> None:
    """``--experiment NAME``, checked to exist while the arguments are parsed."""
    parser.add_argument(
        "--experiment", metavar=METAVARS["experiment"], type=types.EXPERIMENT, help=help
    )


def add_store(parser: argparse.ArgumentParser, *, help: str) -> None:
    """``--store DIR`` (checked by the command: :func:`existing_dir` or :func:`writable_dir`)."""
    parser.add_argument("--store", metavar=METAVARS["store"], type=types.STORE, help=help)


def add_jobs(parser: argparse.ArgumentParser, *, default_help: str) -> None:
    """``--jobs N`` (compile processes, N >= 1) and ``--no-precompile``.

    ``jobs`` is ``None`` when not given (the command picks ``default_help``'s value).
    """
    parser.add_argument(
        "--jobs",
        metavar=METAVARS["jobs"],
        default=None,
        type=types.COUNT,
        help=f"compile processes, N >= 1 (default: {default_help})",
    )
    parser.add_argument(
        "--no-precompile",
        action="store_true",
        help="do not compile up front; each program compiles on its first call",
    )


def add_devices(parser: argparse.ArgumentParser) -> None:
    """``--devices ID[,ID]``: the GPUs measured on at once (:mod:`iconbench.runner.devices`)."""
    parser.add_argument(
        "--devices",
        metavar=METAVARS["devices"],
        type=types.DEVICES,
        default=None,
        help="devices measured on at the same time, one worker on each, the cases split between "
        "them by their measuring time (CUDA_VISIBLE_DEVICES entries, e.g. 0,1; default: for GPU "
        "backends every GPU of $CUDA_VISIBLE_DEVICES, else of 'nvidia-smi -L'; else one)",
    )


def add_sampling(
    parser: argparse.ArgumentParser,
    *,
    samples: int,
    max_s: float,
    warmup_s: float,
    precision: float | None = None,
    warmup_next_s: float | None = None,
) -> None:
    """``--samples``, ``--max-s``, ``--warmup-s``, ``--precision``: how long each case is measured.

    Per process; ``--precision`` stops a case's sampling once its median is known that well
    (:func:`iconbench.timing.measurement.median_decided`); ``--warmup-next-s`` is the warm-up
    of a GPU case measured right after another in the same process
    (:func:`iconbench.timing.session.run_cases`).
    """
    parser.add_argument("--samples", type=types.COUNT, default=samples, help="timed calls per case")
    parser.add_argument(
        "--max-s", type=types.SECONDS, default=max_s, help="max sampling s per case"
    )
    parser.add_argument(
        "--warmup-s",
        type=types.SECONDS,
        default=warmup_s,
        help="synchronised warm-up seconds per case",
    )
    parser.add_argument(
        "--warmup-next-s",
        type=types.SECONDS,
        default=warmup_next_s,
        help="warm-up seconds of a GPU case measured right after another in the same process "
        "(the device already working; default: --warmup-s; a CPU case warms up --warmup-s)",
    )
    parser.add_argument(
        "--precision",
        type=types.FRACTION,
        default=precision,
        help="stop sampling a case once its device-time median is known to this relative "
        "precision (95 %%), after 20 samples"
        + (f" (default: {precision})" if precision is not None else " (default: all samples)"),
    )


def add_out(
    parser: argparse.ArgumentParser,
    *,
    help: str,
    default: pathlib.Path | None = None,
) -> None:
    """``--out PATH``: where files are written (its directory must be writable)."""
    parser.add_argument(
        "--out", metavar=METAVARS["out"], type=types.OUTPUT, default=default, help=help
    )


def add_json(parser: argparse.ArgumentParser, *, help: str = "print machine-readable JSON") -> None:
    """``--json``: machine-readable output on stdout instead of the table."""
    parser.add_argument("--json", action="store_true", help=help)


def add_dry_run(parser: argparse.ArgumentParser, *, help: str) -> None:
    """``--dry-run``: check and print, write nothing."""
    parser.add_argument("--dry-run", action="store_true", help=help)


# --- checks that need more than the one value -------------------------------------------


def actions_of(action: argparse.Action, choices: Iterable[str]) -> set[str]:
    """The actions an option's help names as its users (``append, backfill: ...``; none: all).

    >>> opt = argparse.Action(["--x"], "x", help="append, backfill: a; list/cat: b")
    >>> sorted(actions_of(opt, ("append", "backfill", "list", "cat", "prune")))
    ['append', 'backfill', 'cat', 'list']
    """
    owners: set[str] = set()
    for part in (action.help or "").split("; "):
        found = re.match(r"([a-z][a-z-]*(?:(?:, |/| and )[a-z][a-z-]*)*)(?: \([^)]*\))?: ", part)
        if found and (words := set(re.split(r", |/| and ", found[1]))) <= set(choices):
            owners |= words
    return owners


def refuse_unused(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """One line for an option given to an action that does not use it (its help says whose).

    A command of actions (``history append|list|...``) names in each option's help the
    actions it serves; one given to another would be ignored, silently.
    """
    chosen = getattr(args, "action", None)
    found = [a for a in parser._actions if a.dest == "action" and a.choices]
    if chosen is None or not found:
        return
    for action in parser._actions:
        owners = actions_of(action, found[0].choices) if action.option_strings else set()
        if not owners or chosen in owners:
            continue
        default = parser.get_default(action.dest)
        if isinstance(default, str) and callable(action.type):
            default = action.type(default)
        if getattr(args, action.dest, default) != default:
            raise IconbenchError(
                f"{parser.prog} {chosen} does not use {action.option_strings[0]}: an option of "
                + " and ".join(f"'{parser.prog} {owner}'" for owner in sorted(owners))
                + "; leave it out"
            )


def _programs_variable(text: str) -> str:
    check_regex(text)
    select_cases(text, what="the regex")
    return text


#: The ``ICONBENCH_*`` defaults a user may set for the measuring commands and the asv suite
#: they start (:mod:`iconbench.suite`, ``benchmarks/``), each with its check.
ENVIRONMENT_DEFAULTS: dict[str, Callable[[str], Any]] = {
    "ICONBENCH_STACK": check_stack_key,
    "ICONBENCH_GRID": check_grids,
    "ICONBENCH_BACKENDS": check_backends,
    "ICONBENCH_PROGRAMS": _programs_variable,
    "ICONBENCH_SHARD": check_shard,
}


def from_environment(name: str) -> Any:
    """The checked value of the ``ICONBENCH_*`` default ``name``; ``None`` if unset or empty.

    A value that fails its check is one line naming the variable, instead of a default
    silently ignored (or an asv suite that fails to load minutes later).

    >>> import os; os.environ["ICONBENCH_GRID"] = "garbage"
    >>> from_environment("ICONBENCH_GRID")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    iconbench.errors.IconbenchError: ICONBENCH_GRID='garbage': unknown grid preset 'garbage'; \
choose one of: tiny, ...; fix or unset ICONBENCH_GRID
    >>> del os.environ["ICONBENCH_GRID"]; from_environment("ICONBENCH_GRID") is None
    True
    """
    text = os.environ.get(name, "")
    if not text.strip():
        return None
    try:
        return ENVIRONMENT_DEFAULTS[name](text)
    except IconbenchError as error:
        raise IconbenchError(f"{name}={text!r}: {error}; fix or unset {name}") from None


def check_environment() -> None:
    """Check every ``ICONBENCH_*`` default that is set (:data:`ENVIRONMENT_DEFAULTS`)."""
    for name in ENVIRONMENT_DEFAULTS:
        from_environment(name)


def resolve_stack(given: str | None = None) -> str:
    """The build-cache key a command measures with, resolved once at its command line.

    ``--stack`` (``given``), else ``$ICONBENCH_STACK``, else the stack of this environment
    (:func:`iconbench.stacks.identity.stack_key`: gt4py, dace and icon4py commits or
    versions, Python); the build cache is never keyed by a fixed name, so a changed gt4py
    does not load stale builds.
    """
    if given:
        return given
    from iconbench.stacks.identity import stack_key

    return from_environment("ICONBENCH_STACK") or stack_key()


#: argparse types of the checks above (their errors become one argparse line).
shard = types.SHARD
existing_file_type = types.FILE
existing_dir_type = types.DIRECTORY
existing_path_type = types.PATH
positive_int_type = types.COUNT
grid_type = types.GRID
output_path_type = types.OUTPUT
regex_type = types.REGEX
stack_key_type = types.STACK_KEY
ratio_type = types.RATIO

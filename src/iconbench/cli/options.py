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


# --- argparse types: each raises ArgumentTypeError with the one line to print ------------


def _type(check: Callable[[str], Any]) -> Callable[[str], Any]:
    """An argparse ``type=`` from a check that raises IconbenchError (same message)."""

    def convert(text: str) -> Any:
        try:
            return check(text)
        except IconbenchError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    convert.__name__ = check.__name__
    return convert


def check_known(what: str, name: str, known: Iterable[str]) -> str:
    """``name`` if it is one of ``known``; else one line naming it and what to choose from.

    >>> check_known("grid preset", "tiyn", ("tiny", "tiny_lam"))
    Traceback (most recent call last):
    ...
    iconbench.errors.IconbenchError: unknown grid preset 'tiyn'; choose one of: tiny, tiny_lam
    """
    known = list(known)
    if name not in known:
        raise IconbenchError(f"unknown {what} {name!r}; choose one of: {', '.join(known)}")
    return name


def check_regex(text: str) -> str:
    """``text`` if it compiles as a Python regex; else one line with the regex error.

    >>> check_regex("compute_.*wind")
    'compute_.*wind'
    >>> check_regex("[")
    Traceback (most recent call last):
    ...
    iconbench.errors.IconbenchError: bad regex '[': unterminated character set at position 0; \
e.g. 'compute_tangential_wind' or 'diffusion|vn'
    """
    try:
        re.compile(text)
    except re.error as error:
        raise IconbenchError(
            f"bad regex {text!r}: {error}; e.g. 'compute_tangential_wind' or 'diffusion|vn'"
        ) from None
    return text


def check_backends(text: str) -> tuple[str, ...]:
    """The backend names of a comma list, each one known; no gt4py import.

    >>> check_backends("embedded, gtfn_cpu")
    ('embedded', 'gtfn_cpu')
    >>> check_backends("gtfn_tpu")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    iconbench.errors.IconbenchError: unknown backend 'gtfn_tpu'; choose one of: embedded, ...
    """
    from iconbench.programs.backends import known_names

    names = tuple(n.strip() for n in text.split(","))
    if not text.strip() or not all(names):
        raise IconbenchError(f"empty backend name in {text!r}; give NAME[,NAME], e.g. gtfn_cpu")
    known = known_names()
    for name in names:
        check_known("backend", name, known)
    return names


def check_grid(text: str) -> str:
    """``text`` if it is a grid preset; else the presets to choose from.

    >>> check_grid("tiny")
    'tiny'
    >>> check_grid("tiyn")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    iconbench.errors.IconbenchError: unknown grid preset 'tiyn'; choose one of: tiny, tiny_lam, ...
    """
    from iconbench.grids.presets import PRESETS

    return check_known("grid preset", text, PRESETS)


def check_experiment(text: str) -> str:
    """``text`` if it names an experiment (a file in ``baselines/experiments/``, or a path).

    >>> check_experiment("mch_icon-ch1_medium")
    'mch_icon-ch1_medium'
    >>> check_experiment("mch_icon-ch1_mediun")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    iconbench.errors.IconbenchError: unknown experiment 'mch_icon-ch1_mediun'; choose one of: ...
    """
    from iconbench.baselines import experiments

    experiments.load(text)
    return text


def check_grids(text: str) -> tuple[str, ...]:
    """Grid presets of a comma list (``tiny,small``), each one known.

    >>> check_grids("tiny,tiny_lam")
    ('tiny', 'tiny_lam')
    """
    return tuple(check_grid(name.strip()) for name in text.split(","))


def positive_int(text: str) -> int:
    """An integer >= 1 (processes, samples, counts).

    >>> positive_int("4")
    4
    >>> positive_int("0")
    Traceback (most recent call last):
    ...
    iconbench.errors.IconbenchError: expected an integer >= 1, got '0'
    """
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise IconbenchError(f"expected an integer >= 1, got {text!r}")
    return value


def float_above(bound: float) -> Callable[[str], float]:
    """A type for a finite number > ``bound`` (e.g. a ratio > 1).

    >>> float_above(1.0)("1.05")
    1.05
    >>> float_above(1.0)("-1")
    Traceback (most recent call last):
    ...
    iconbench.errors.IconbenchError: expected a number > 1, got '-1'
    """

    def check(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = float("nan")
        if not value > bound or value == float("inf"):
            raise IconbenchError(f"expected a number > {bound:g}, got {text!r}")
        return value

    check.__name__ = f"number_above_{bound:g}"
    return check


def existing_file(text: str) -> pathlib.Path:
    """A path to a readable regular file.

    >>> existing_file("/nonexistent/x.json")
    Traceback (most recent call last):
    ...
    iconbench.errors.IconbenchError: /nonexistent/x.json: no such file
    """
    path = pathlib.Path(text)
    if path.is_dir():
        raise IconbenchError(f"{path}: is a directory, expected a file")
    if not path.is_file():
        raise IconbenchError(f"{path}: no such file")
    if not os.access(path, os.R_OK):
        raise IconbenchError(f"{path}: not readable (check its permissions)")
    return path


def existing_path(text: str) -> pathlib.Path:
    """A path to an existing file or directory."""
    path = pathlib.Path(text)
    if not path.exists():
        raise IconbenchError(f"{path}: no such file or directory")
    return path


def existing_dir(text: str | os.PathLike[str], what: str = "directory") -> pathlib.Path:
    """A path to an existing directory (``what`` names it in the error).

    >>> existing_dir("/nonexistent", "baseline store")
    Traceback (most recent call last):
    ...
    iconbench.errors.IconbenchError: baseline store /nonexistent: no such directory
    """
    path = pathlib.Path(text)
    if not path.exists():
        raise IconbenchError(f"{what} {path}: no such directory")
    if not path.is_dir():
        raise IconbenchError(f"{what} {path}: not a directory")
    return path


def git_repository(text: str | os.PathLike[str]) -> pathlib.Path:
    """``--repo``: an existing directory that is a git repository (bare is fine), or one line."""
    from iconbench.stacks import trees

    path = existing_dir(text, "--repo")
    trees.resolve_commit(path, "HEAD")  # not a repository: one line
    return path


def writable_dir(text: str | os.PathLike[str], what: str = "directory") -> pathlib.Path:
    """A directory that exists or can be created (its nearest existing ancestor is writable).

    Checked before work starts; nothing is created here.

    >>> writable_dir("/etc/passwd/x", "baseline store")
    Traceback (most recent call last):
    ...
    iconbench.errors.IconbenchError: baseline store /etc/passwd/x: /etc/passwd is not a directory
    """
    path = pathlib.Path(text)
    ancestor = path
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        if ancestor == path:
            raise IconbenchError(f"{what} {path}: not a directory")
        raise IconbenchError(f"{what} {path}: {ancestor} is not a directory")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise IconbenchError(f"{what} {path}: {ancestor} is not writable")
    return path


def output_path(text: str) -> pathlib.Path:
    """A file or directory to write: where it would go must be (or become) a directory."""
    path = pathlib.Path(text)
    if path.is_file():
        writable_dir(path.parent, "--out")
    else:
        writable_dir(path, "--out")
    return path


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
        type=_type(check_regex),
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
        "type": _type(check_backends),
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
        type=_type(check_grids if several else check_grid),
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
        type=_type(check_grid),
        default=None,
        help=preset_help or f"grid preset{shown}; 'iconbench grid' lists them",
    )
    parser.add_argument(
        "--cells",
        type=_type(positive_int),
        metavar="N",
        help="instead of a preset: a generated grid of about N cells",
    )
    parser.add_argument(
        "--grid-file",
        type=_type(existing_file),
        metavar="FILE",
        help="instead of a preset: a real ICON grid file (NetCDF)",
    )
    parser.add_argument(
        "--levels",
        type=_type(positive_int),
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
        "--experiment", metavar=METAVARS["experiment"], type=_type(check_experiment), help=help
    )


def add_store(parser: argparse.ArgumentParser, *, help: str) -> None:
    """``--store DIR`` (checked by the command: :func:`existing_dir` or :func:`writable_dir`)."""
    parser.add_argument("--store", metavar=METAVARS["store"], type=pathlib.Path, help=help)


def add_jobs(parser: argparse.ArgumentParser, *, default_help: str) -> None:
    """``--jobs N`` (compile processes, N >= 1) and ``--no-precompile``.

    ``jobs`` is ``None`` when not given (the command picks ``default_help``'s value).
    """
    parser.add_argument(
        "--jobs",
        metavar=METAVARS["jobs"],
        default=None,
        type=_type(positive_int),
        help=f"compile processes, N >= 1 (default: {default_help})",
    )
    parser.add_argument(
        "--no-precompile",
        action="store_true",
        help="do not compile up front; each program compiles on its first call",
    )


def add_devices(parser: argparse.ArgumentParser) -> None:
    """``--devices ID[,ID]``: the GPUs measured on at once (:mod:`iconbench.runner.devices`)."""
    from iconbench.runner import devices

    parser.add_argument(
        "--devices",
        metavar=METAVARS["devices"],
        type=_type(devices.parse),
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
    parser.add_argument("--samples", type=int, default=samples, help="timed calls per case")
    parser.add_argument("--max-s", type=float, default=max_s, help="max sampling s per case")
    parser.add_argument(
        "--warmup-s", type=float, default=warmup_s, help="synchronised warm-up seconds per case"
    )
    parser.add_argument(
        "--warmup-next-s",
        type=float,
        default=warmup_next_s,
        help="warm-up seconds of a GPU case measured right after another in the same process "
        "(the device already working; default: --warmup-s; a CPU case warms up --warmup-s)",
    )
    parser.add_argument(
        "--precision",
        type=float,
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
        "--out", metavar=METAVARS["out"], type=_type(output_path), default=default, help=help
    )


def add_json(parser: argparse.ArgumentParser, *, help: str = "print machine-readable JSON") -> None:
    """``--json``: machine-readable output on stdout instead of the table."""
    parser.add_argument("--json", action="store_true", help=help)


def add_dry_run(parser: argparse.ArgumentParser, *, help: str) -> None:
    """``--dry-run``: check and print, write nothing."""
    parser.add_argument("--dry-run", action="store_true", help=help)


# --- checks that need more than the one value -------------------------------------------


def select_cases(
    pattern: str,
    *,
    one_variant: bool = False,
    shard: tuple[int, int] | None = None,
    experiment: Any = None,
    what: str = "--programs",
) -> list[str] | None:
    """The case ids ``pattern`` selects, from the case index (no gt4py import, milliseconds).

    ``None`` when the installed icon4py has no index yet (a checkout of a branch): the
    selection is then checked when the catalog is discovered (:func:`iconbench.suite.case_ids`).
    A selection of no case is an error naming the nearest program names
    (:func:`iconbench.suite.select`); so is an ``experiment``
    (:class:`iconbench.baselines.experiments.Experiment`) that runs none of the selected cases.
    ``what`` names where the pattern came from (an option or a variable). An empty shard
    (more shards than cases) is not an error: the other shards measure them.
    """
    from iconbench import suite
    from iconbench.programs import caseindex
    from iconbench.timing.sharding import select_shard

    known = caseindex.case_ids()
    if known is None:
        return None
    if one_variant:
        known = suite.first_variants(known)
    selected = suite.select(pattern, known, what=what)
    if experiment is not None and not experiment.case_ids(selected):
        raise IconbenchError(
            f"experiment {experiment.name!r} runs none of the {len(selected)} cases that "
            f"{what} {pattern!r} selects (its static arguments pin other variants); "
            "widen --programs or leave it out"
        )
    return select_shard(selected, shard)


def check_shard(text: str) -> tuple[int, int] | None:
    """``"i/n"`` -> ``(i, n)``; ``""`` -> ``None`` (all cases).

    >>> check_shard("2/4"), check_shard("")
    ((2, 4), None)
    """
    from iconbench.timing.sharding import parse_shard

    return parse_shard(text) if text else None


def check_stack_key(text: str) -> str:
    """A gt4py build-cache key: ``stack-`` and a name (it names a directory of the cache).

    >>> check_stack_key("stack-cb7850622ccfe736")
    'stack-cb7850622ccfe736'
    >>> check_stack_key("garbage")
    Traceback (most recent call last):
    ...
    iconbench.errors.IconbenchError: bad stack key 'garbage': expected stack-NAME (letters, \
digits, '.', '_', '-'), e.g. the key 'iconbench stack show' prints
    """
    if not re.fullmatch(r"stack-[A-Za-z0-9._-]+", text) or ".." in text:
        raise IconbenchError(
            f"bad stack key {text!r}: expected stack-NAME (letters, digits, '.', '_', '-'), "
            "e.g. the key 'iconbench stack show' prints"
        )
    return text


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
shard = _type(check_shard)
existing_file_type = _type(existing_file)
existing_dir_type = _type(existing_dir)
existing_path_type = _type(existing_path)
positive_int_type = _type(positive_int)
grid_type = _type(check_grid)
output_path_type = _type(output_path)
regex_type = _type(check_regex)
stack_key_type = _type(check_stack_key)
ratio_type = _type(float_above(1.0))

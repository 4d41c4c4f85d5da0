"""The types of the options every ``iconbench`` command speaks, each checked while parsing.

One type per kind of value (a count, a grid preset, a directory to write, ...), declared
here once: what it accepts, and the values it refuses (:attr:`OptionType.refuses`, from
which the tests derive each option's bad values). Every ``type=`` of every command is an
:class:`OptionType` (or the option has ``choices``), so a bad value is one argparse line
and exit 2 before any work starts, never an error raised inside argparse (a traceback).
The checks raise :class:`~iconbench.errors.IconbenchError`; they serve the environment
defaults (:func:`iconbench.cli.options.from_environment`) and the commands as well.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import pathlib
import re
import tempfile
from collections.abc import Callable, Iterable
from typing import Any

from iconbench.errors import IconbenchError


@dataclasses.dataclass(frozen=True)
class OptionType:
    """An argparse ``type=``: the checked value, or :class:`argparse.ArgumentTypeError`.

    ``refuses`` are values it must refuse (placeholders such as ``{missing}`` name files a
    test makes: see ``tests/test_cli_bad_input.py``); ``()`` only for free text.
    """

    name: str
    accepts: str
    check: Callable[[str], Any]
    refuses: tuple[str, ...]

    @property
    def __name__(self) -> str:  # argparse names a type by it
        return self.name

    def __call__(self, text: str) -> Any:
        try:
            return self.check(text)
        except IconbenchError as error:
            raise argparse.ArgumentTypeError(str(error)) from None


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

    if text:  # "": not given
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
    return _int_at_least(text, 1)


def _int_at_least(text: str, bound: int) -> int:
    try:
        value = int(text)
    except ValueError:
        value = bound - 1
    if value < bound:
        raise IconbenchError(f"expected an integer >= {bound}, got {text!r}")
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

    Checked before work starts: a probe file is made in that ancestor and removed.

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
    if not _can_write_in(ancestor):
        raise IconbenchError(f"{what} {path}: {ancestor} is not writable (check its permissions)")
    return path


def _can_write_in(directory: pathlib.Path) -> bool:
    """Whether a file can be made in ``directory``: tried, not read off its mode bits.

    The mode bits do not say it for root, a read-only mount or an immutable directory;
    the probe is removed at once.
    """
    try:
        with tempfile.TemporaryFile(dir=directory, prefix=".iconbench-probe-"):
            return True
    except OSError:
        return False


def output_path(text: str) -> pathlib.Path:
    """A file or directory to write: where it would go must be (or become) a directory."""
    path = pathlib.Path(text)
    if path.is_file():
        writable_dir(path.parent, "--out")
    else:
        writable_dir(path, "--out")
    return path


def non_negative_int(text: str) -> int:
    """An integer >= 0 (a seed, a count that may be none).

    >>> non_negative_int("0"), non_negative_int("7")
    (0, 7)
    >>> non_negative_int("-1")
    Traceback (most recent call last):
    ...
    iconbench.errors.IconbenchError: expected an integer >= 0, got '-1'
    """
    return _int_at_least(text, 0)


def float_at_least(bound: float) -> Callable[[str], float]:
    """A check for a finite number >= ``bound`` (seconds: 0).

    >>> float_at_least(0.0)("1.5")
    1.5
    >>> float_at_least(0.0)("nan")
    Traceback (most recent call last):
    ...
    iconbench.errors.IconbenchError: expected a finite number >= 0, got 'nan'
    """

    def check(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and value >= bound):
            raise IconbenchError(f"expected a finite number >= {bound:g}, got {text!r}")
        return value

    check.__name__ = f"number_at_least_{bound:g}"
    return check


def fraction(text: str) -> float:
    """A number in (0, 1] (a share, a relative precision).

    >>> fraction("0.95")
    0.95
    >>> fraction("1.5")
    Traceback (most recent call last):
    ...
    iconbench.errors.IconbenchError: expected a number in (0, 1], got '1.5'
    """
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= 1:
        raise IconbenchError(f"expected a number in (0, 1], got {text!r}")
    return value


def json_file(text: str) -> pathlib.Path:
    """A readable file that parses as JSON (a truncated one is called so)."""
    from iconbench.files.decode import load_json

    path = existing_file(text)
    load_json(path, hint="give the file a command wrote whole")
    return path


#: The first bytes of a NetCDF file: classic (CDF 1, 2, 5) and NetCDF-4 (HDF5).
_NETCDF_MAGIC = (b"CDF\x01", b"CDF\x02", b"CDF\x05")
_HDF5_MAGIC = b"\x89HDF\r\n\x1a\n"


def netcdf_file(text: str) -> pathlib.Path:
    r"""A readable NetCDF file, not cut short where its header can say so (NetCDF-4).

    >>> import tempfile; f = tempfile.NamedTemporaryFile(suffix=".nc", delete=False)
    >>> superblock = b"\x89HDF\r\n\x1a\n\x02\x08\x08\x00" + b"\0" * 16
    >>> _ = f.write(superblock + (10**6).to_bytes(8, "little"))
    >>> f.close(); netcdf_file(f.name)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    iconbench.errors.IconbenchError: ...: truncated NetCDF file: 36 of its 1000000 bytes; ...
    """
    path = existing_file(text)
    with path.open("rb") as handle:
        head = handle.read(64)
    size = path.stat().st_size
    if head[:8] == _HDF5_MAGIC:
        version = head[8] if len(head) > 8 else -1
        offsets = {0: 13, 1: 13, 2: 9, 3: 9}.get(version)
        width = head[offsets] if offsets is not None and len(head) > offsets else 8
        where = {0: 24 + 2 * width, 1: 28 + 2 * width, 2: 12 + 2 * width, 3: 12 + 2 * width}
        at = where.get(version)
        if at is not None and len(head) >= at + width:
            end = int.from_bytes(head[at : at + width], "little")
            if end > size:
                raise IconbenchError(
                    f"{path}: truncated NetCDF file: {size} of its {end} bytes; copy it again"
                )
        return path
    if head[:4] not in _NETCDF_MAGIC:
        raise IconbenchError(f"{path}: not a NetCDF file (it starts with {head[:4]!r})")
    try:
        end = _classic_end(path)
    except (IndexError, ValueError):
        raise IconbenchError(f"{path}: truncated NetCDF file: its header ends early "
                             f"({size} bytes); copy it again") from None  # fmt: skip
    if end > size:
        raise IconbenchError(
            f"{path}: truncated NetCDF file: {size} of its {end} bytes; copy it again"
        )
    return path


#: Bytes of each classic NetCDF type (CDF-5 adds 7 to 11).
_NC_SIZES = {1: 1, 2: 1, 3: 2, 4: 4, 5: 4, 6: 8, 7: 1, 8: 2, 9: 4, 10: 8, 11: 8}


def _classic_end(path: pathlib.Path) -> int:
    """The size a classic NetCDF file's header says it has (IndexError: the header is cut)."""
    with path.open("rb") as handle:
        data = handle.read(16 << 20)  # a header is far smaller; its end is checked below
    version = data[3]
    count_size = 8 if version == 5 else 4
    at = 4

    def number(width: int) -> int:
        nonlocal at
        chunk = data[at : at + width]
        if len(chunk) < width:
            raise IndexError("header cut")
        at += width
        return int.from_bytes(chunk, "big")

    def skip_padded(length: int) -> None:
        nonlocal at
        at += (length + 3) // 4 * 4
        if at > len(data):
            raise IndexError("header cut")

    def attributes() -> None:
        number(4)
        for _ in range(number(count_size)):
            skip_padded(number(count_size))  # name
            kind = number(4)
            skip_padded(number(count_size) * _NC_SIZES[kind])

    records = number(count_size)
    number(4)
    lengths = []
    for _ in range(number(count_size)):
        skip_padded(number(count_size))
        lengths.append(number(count_size))
    attributes()
    number(4)
    variables = []
    for _ in range(number(count_size)):
        skip_padded(number(count_size))
        dims = [number(count_size) for _ in range(number(count_size))]
        attributes()
        kind = number(4)
        if kind not in _NC_SIZES:
            raise ValueError(f"type {kind}")
        vsize = number(count_size)
        begin = number(4 if version == 1 else 8)
        is_record = bool(dims) and lengths[dims[0]] == 0
        variables.append((begin, vsize, is_record))
    record_size = sum(v for _, v, rec in variables if rec)
    ends = [at] + [
        b + (max(records, 1) - 1) * record_size + v if rec else b + v for b, v, rec in variables
    ]
    return max(ends) if records != 0xFFFFFFFF else at


def releases(text: str) -> tuple[str, ...]:
    """Two releases or more, oldest first, each a version (``1.2.1,1.2.3``).

    Whether the package index has them is checked by ``releases plan`` before it writes.

    >>> releases("1.2.1, 1.2.3")
    ('1.2.1', '1.2.3')
    >>> releases("1.2.1,latest")
    Traceback (most recent call last):
    ...
    iconbench.errors.IconbenchError: 'latest' is no release version; give versions, oldest \
first, e.g. 1.2.1,1.2.3
    """
    from packaging.version import InvalidVersion, Version

    found = tuple(v.strip() for v in text.split(","))
    for version in found:
        try:
            Version(version)
        except InvalidVersion:
            raise IconbenchError(
                f"{version!r} is no release version; give versions, oldest first, e.g. 1.2.1,1.2.3"
            ) from None
    if len(found) < 2:
        raise IconbenchError(f"{text!r}: give two releases or more, oldest first")
    return found


def git_ref(text: str) -> str:
    """A git commit, branch or tag name, not an option (``-x`` reaches git as one); "": none.

    >>> git_ref("-x")
    Traceback (most recent call last):
    ...
    iconbench.errors.IconbenchError: bad git ref '-x': give a commit, branch or tag, e.g. HEAD~1
    """
    if text.startswith("-") or any(c in text for c in "\0\n ") or (text and not text.strip()):
        raise IconbenchError(f"bad git ref {text!r}: give a commit, branch or tag, e.g. HEAD~1")
    return text


def port(text: str) -> int:
    """A TCP port (1 to 65535)."""
    value = positive_int(text)
    if value > 65535:
        raise IconbenchError(f"expected a port 1 to 65535, got {text!r}")
    return value


def component(text: str) -> str:
    """A component of the stack: gt4py, dace, icon4py or iconbench."""
    from iconbench.selection.plan import COMPONENTS

    return check_known("component", text, COMPONENTS) if text else text


def repository(text: str) -> str:
    """A GitHub repository ``OWNER/NAME``.

    >>> repository("C2SM/icon4py")
    'C2SM/icon4py'
    >>> repository("icon4py")
    Traceback (most recent call last):
    ...
    iconbench.errors.IconbenchError: bad repository 'icon4py': give OWNER/NAME, e.g. C2SM/icon4py
    """
    if text and (not re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", text) or ".." in text):
        raise IconbenchError(f"bad repository {text!r}: give OWNER/NAME, e.g. C2SM/icon4py")
    return text


def url(text: str) -> str:
    """An http(s) URL.

    >>> url("example.org")
    Traceback (most recent call last):
    ...
    iconbench.errors.IconbenchError: bad URL 'example.org': give http(s)://HOST..., e.g. \
https://github.com
    """
    if not re.fullmatch(r"https?://[^\s/]+(/\S*)?", text):
        raise IconbenchError(f"bad URL {text!r}: give http(s)://HOST..., e.g. https://github.com")
    return text


def date(text: str) -> str:
    """A date ``YYYY-MM-DD`` or a month ``YYYY-MM``.

    >>> date("2024-13")
    Traceback (most recent call last):
    ...
    iconbench.errors.IconbenchError: bad date '2024-13': give YYYY-MM-DD or YYYY-MM, e.g. 2024-05
    """
    import datetime

    for form in ("%Y-%m-%d", "%Y-%m"):
        try:
            datetime.datetime.strptime(text, form)
            return text
        except ValueError:
            continue
    raise IconbenchError(f"bad date {text!r}: give YYYY-MM-DD or YYYY-MM, e.g. 2024-05")


def overlay(text: str) -> pathlib.Path:
    """A complete overlay: its marker read whole, its packages there (:mod:`stacks.overlay`)."""
    from iconbench.stacks import overlay as overlays

    return overlays.resolve(text).path


def path_list(text: str) -> tuple[str, ...]:
    """Paths of a repository, a comma list (``model/atmosphere,tools``); not none.

    >>> path_list("a,,b")
    ('a', 'b')
    """
    found = tuple(p.strip() for p in text.split(",") if p.strip())
    if not found:
        raise IconbenchError(f"no path in {text!r}; give PATH[,PATH]")
    return found


def text_value(text: str) -> str:
    """Free text (a label, a note): any value is valid."""
    return text


def non_empty(text: str) -> str:
    """A name (a machine, a GPU): one line of text, not blank ("": not given, the default).

    >>> non_empty(" ")
    Traceback (most recent call last):
    ...
    iconbench.errors.IconbenchError: expected a name, got ' '
    """
    if text and (not text.strip() or "\n" in text):
        raise IconbenchError(f"expected a name, got {text!r}")
    return text


def store_path(text: str) -> pathlib.Path:
    """A store: an existing directory, or a path where one can be made (the first append).

    >>> store_path("/etc/passwd")
    Traceback (most recent call last):
    ...
    iconbench.errors.IconbenchError: store /etc/passwd: not a directory
    """
    path = pathlib.Path(text)
    if not str(text).strip():
        raise IconbenchError("store '': give a directory")
    if path.exists() and not path.is_dir():
        raise IconbenchError(f"store {path}: not a directory")
    return path


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


def _devices(text: str) -> Any:
    from iconbench.runner import devices

    return devices.parse(text)


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


def _programs(text: str) -> str:
    """A regex that compiles and selects at least one case of the case index."""
    check_regex(text)
    if text:
        select_cases(text)
    return text


# --- the vocabulary: every type= of every command is one of these ----------------------

COUNT = OptionType("count", "an integer >= 1", positive_int, ("0", "-1", "x"))
NON_NEGATIVE = OptionType("count0", "an integer >= 0", non_negative_int, ("-1", "x"))
SECONDS = OptionType("seconds", "a finite number >= 0", float_at_least(0.0), ("-1", "nan", "x"))
FRACTION = OptionType("fraction", "a number in (0, 1]", fraction, ("0", "1.5", "x"))
RATIO = OptionType("ratio", "a finite number > 1", float_above(1.0), ("1", "0.5", "inf", "x"))
GRID = OptionType("grid", "a grid preset ('iconbench grid' lists them)", check_grid, ("tinyy",))
GRIDS = OptionType("grids", "grid presets, a comma list", check_grids, ("tiny,tinyy",))
BACKENDS = OptionType(
    "backends", "known backends, a comma list", check_backends, ("gtfn_tpu", "", "gtfn_cpu,")
)
REGEX = OptionType("regex", "a Python regex", check_regex, ("[", "(?P<"))
PROGRAMS = OptionType(
    "programs",
    "a Python regex that selects at least one case ('iconbench programs --cases')",
    _programs,
    ("[", "no_such_program_xyz"),
)
EXPERIMENT = OptionType(
    "experiment", "an experiment of baselines/experiments/", check_experiment, ("no_such_exp",)
)
RELEASES = OptionType(
    "releases", "two versions or more, oldest first", releases, ("1.2.1", "1.2.1,latest")
)
FILE = OptionType("file", "a readable file", existing_file, ("{missing}", "{dir}"))
JSON_FILE = OptionType(
    "json", "a readable JSON file, read whole", json_file,
    ("{missing}", "{dir}", "{truncated_json}", "{text_file}"),
)  # fmt: skip
NETCDF_FILE = OptionType(
    "netcdf", "a readable NetCDF file, whole", netcdf_file,
    ("{missing}", "{dir}", "{truncated_nc}", "{text_file}"),
)  # fmt: skip
PATH = OptionType("path", "an existing file or directory", existing_path, ("{missing}",))
STORE = OptionType(
    "store", "a directory, or where the first write makes one", store_path, ("{file}", "")
)
DIRECTORY = OptionType("dir", "an existing directory", existing_dir, ("{missing}", "{file}"))
OUTPUT = OptionType(
    "out", "a path whose directory is, or can be made, writable", output_path,
    ("{readonly}/x", "{file}/x"),
)  # fmt: skip
GIT_REPOSITORY = OptionType(
    "repo", "a git repository (a checkout or a bare one)", git_repository,
    ("{missing}", "{file}", "{plain_dir}"),
)  # fmt: skip
GIT_REF = OptionType("ref", "a commit, branch or tag", git_ref, ("-x", "a b"))
STACK_KEY = OptionType(
    "stack", "a build-cache key stack-NAME", check_stack_key, ("garbage", "stack-..")
)
SHARD = OptionType(
    "shard", "i/n with 1 <= i <= n (or empty: all)", check_shard, ("5/4", "0/2", "x")
)
DEVICES = OptionType("devices", "device ids, a comma list, each once", _devices, ("0,,0", "0,0"))
COMPONENT = OptionType("component", "gt4py, dace, icon4py or iconbench", component, ("gt5py",))
REPOSITORY = OptionType("repository", "a GitHub OWNER/NAME", repository, ("icon4py", "a/b/c"))
URL = OptionType("url", "an http(s) URL", url, ("example.org", "ftp://x"))
DATE = OptionType("date", "YYYY-MM-DD or YYYY-MM", date, ("2024-13", "yesterday"))
OVERLAY = OptionType(
    "overlay", "an overlay 'iconbench stack build' made: its name or directory", overlay,
    ("", "{missing}", "{dir}", "{garbage_overlay}", "{truncated_overlay}", "{empty_overlay}"),
)  # fmt: skip
PORT = OptionType("port", "a TCP port, 1 to 65535", port, ("0", "65536", "x"))
NAME = OptionType("name", "a name: one line, not blank", non_empty, (" ", "a\nb"))
PATH_LIST = OptionType("paths", "repository paths, a comma list", path_list, ("", ","))
TEXT = OptionType("text", "free text", text_value, ())
#: A path a process of the command itself makes and hands on (a worker's files).
LOCATION = OptionType("location", "a path the command's own processes pass", pathlib.Path, ())

#: Every type of the vocabulary, in the order docs/cli.md lists them.
VOCABULARY_TYPES: tuple[OptionType, ...] = (
    COUNT, NON_NEGATIVE, SECONDS, FRACTION, RATIO, GRID, GRIDS, BACKENDS, REGEX, PROGRAMS,
    EXPERIMENT, RELEASES, FILE, JSON_FILE, NETCDF_FILE, PATH, DIRECTORY, OUTPUT,
    STORE, GIT_REPOSITORY, GIT_REF, STACK_KEY, SHARD, DEVICES, COMPONENT, REPOSITORY, URL,
    DATE, OVERLAY, PORT, NAME, PATH_LIST, TEXT, LOCATION,
)  # fmt: skip

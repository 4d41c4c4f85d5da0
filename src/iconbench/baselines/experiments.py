"""ICON experiments as data: grid, baseline, steps and the static arguments ICON runs with.

One TOML file per experiment under ``baselines/experiments/`` (``mch_icon-ch1_medium.toml``)
says what a like-for-like comparison with the experiment's OpenACC timers needs, each value
with its source: the grid preset (:mod:`iconbench.grids.presets`), the stored baseline, the
steps and dynamics substeps, and the static arguments of the dycore and diffusion programs
under icon4py's names. ``iconbench speedup RESULTS --experiment NAME`` takes baseline, grid
and variants from it; ``iconbench suite --experiment NAME`` measures exactly those variants.

A static argument pins every program that has it; a program without it is unaffected. The
per-call variants (``at_first_substep``…) are not pinned here: the timer mapping tells them
apart. Reading a file checks every name (grid preset, static argument) before any work.
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
import tomllib
from collections.abc import Iterable, Mapping
from typing import Any

from iconbench.errors import IconbenchError

#: Where experiment files live (``$ICONBENCH_EXPERIMENTS`` overrides it).
ENV_VAR = "ICONBENCH_EXPERIMENTS"
DEFAULT_DIR = pathlib.Path(__file__).resolve().parents[3] / "baselines" / "experiments"


@dataclasses.dataclass(frozen=True)
class StaticArg:
    """One static argument of the experiment: icon4py's name, the value, and its source."""

    name: str
    value: bool | int | float | str
    source: str


@dataclasses.dataclass(frozen=True)
class Experiment:
    """What ICON ran: grid preset, OpenACC baseline, steps x substeps, static arguments."""

    name: str
    description: str
    grid: str
    baseline: str
    steps: int
    substeps: int
    static: tuple[StaticArg, ...]
    path: pathlib.Path
    steps_source: str = ""
    substeps_source: str = ""
    #: other presets of the experiment's domain, made otherwise (icon-grid-generator's
    #: ``mch_r19b08_lam`` for the lattice ``mch_icon-ch1_medium``): the speed-up compares timings
    #: on them with the OpenACC timers as it does on ``grid``
    domains: tuple[str, ...] = ()

    @property
    def grids(self) -> tuple[str, ...]:
        """The presets that stand for the experiment's domain: ``grid`` first."""
        return (self.grid, *self.domains)

    def grid_of(self, measured: Iterable[Any]) -> tuple[str, Any]:
        """(preset, counts) of the experiment's grids that timings were measured on.

        ``measured``: the counts of the timings' grids. The first of :attr:`grids` whose
        counts are among them, else ``grid`` (the comparison then says the grid differs).

        >>> exp = Experiment("x", "", "tiny", "b", 1, 1, (), pathlib.Path("x.toml"),
        ...                  domains=("tiny_torus",))
        >>> from iconbench.grids.presets import counts_of
        >>> exp.grid_of([counts_of("tiny_torus")])[0], exp.grid_of([counts_of("small")])[0]
        ('tiny', 'tiny')
        """
        from iconbench.grids.presets import counts_of

        seen = set(measured)
        found = [(name, counts_of(name)) for name in self.grids]
        return next((item for item in found if item[1] in seen), found[0])

    @property
    def pins(self) -> dict[str, Any]:
        """``{name: value}`` of the static arguments (what ``--static`` would pass)."""
        return {arg.name: arg.value for arg in self.static}

    def uses(self, static_args: Mapping[str, Any]) -> bool:
        """Whether a program variant with ``static_args`` is one the experiment runs.

        >>> exp = Experiment("x", "", "tiny", "b", 1, 1, (StaticArg("rayleigh_type", 2, ""),),
        ...                  pathlib.Path("x.toml"))
        >>> exp.uses({"rayleigh_type": 2, "at_first_substep": True}), exp.uses({"rayleigh_type": 1})
        (True, False)
        """
        pins = self.pins
        return all(pins.get(key, value) == value for key, value in static_args.items())

    def case_ids(self, cases: Iterable[str]) -> list[str]:
        """The catalog case ids ``program[variant]`` among ``cases`` the experiment runs."""
        from iconbench.baselines.gt4py_timings import parse_variant
        from iconbench.programs.catalog import split_case

        chosen = []
        for case in cases:
            _, variant = split_case(case)
            if self.uses(parse_variant(variant)):
                chosen.append(case)
        return chosen


def root() -> pathlib.Path:
    """The directory of experiment files."""
    return pathlib.Path(os.environ.get(ENV_VAR) or DEFAULT_DIR)


def names(directory: pathlib.Path | None = None) -> list[str]:
    """Every experiment name (its file's stem), sorted."""
    directory = directory or root()
    return sorted(p.stem for p in directory.glob("*.toml")) if directory.is_dir() else []


def known_static_names() -> set[str]:
    """Every static-argument name the catalog's reviewed table knows (no gt4py import)."""
    from iconbench.programs import variants

    return (
        set(variants.BY_NAME)
        | {"rayleigh_type", "divdamp_type"}
        | {name for table in variants.PER_PROGRAM.values() for name in table}
    )


def check_static_names(given: Iterable[str], extra: Iterable[str] = (), what: str = "") -> None:
    """Refuse a static argument no program has (``extra``: names seen in results, too)."""
    known = known_static_names() | set(extra)
    for name in given:
        if name not in known:
            raise IconbenchError(
                f"{what}{name}: no program has a static argument {name!r}; choose from: "
                f"{', '.join(sorted(known))}"
            )


def _field(data: Mapping[str, Any], key: str, kind: type | tuple[type, ...], origin: str) -> Any:
    value = data.get(key)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        expected = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
        raise IconbenchError(f"{origin}: key {key!r}: expected {expected}, got {value!r}")
    return value


def from_file(path: pathlib.Path) -> Experiment:
    """Read and check one experiment file (grid preset and static names must exist)."""
    from iconbench.grids.presets import PRESETS

    origin = str(path)
    try:
        data = tomllib.loads(path.read_text())
    except OSError as error:
        raise IconbenchError(f"cannot read experiment file {path}: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise IconbenchError(f"{origin}: invalid TOML ({error})") from None
    if data.get("version") != 1:
        raise IconbenchError(f"{origin}: key 'version': expected 1, got {data.get('version')!r}")
    grid = _field(data, "grid", str, origin)
    domains = data.get("domains", [])
    if not isinstance(domains, list) or not all(isinstance(d, str) for d in domains):
        raise IconbenchError(f"{origin}: key 'domains': expected a list of grid presets")
    for name in (grid, *domains):
        if name not in PRESETS:
            raise IconbenchError(
                f"{origin}: grid {name!r} is no grid preset; choose one of: {', '.join(PRESETS)}"
            )
    static = []
    for i, entry in enumerate(data.get("static", [])):
        where = f"{origin} static[{i}]"
        static.append(
            StaticArg(
                _field(entry, "name", str, where),
                _field(entry, "value", (bool, int, float, str), where),
                _field(entry, "source", str, where),
            )
        )
    check_static_names((s.name for s in static), what=f"{origin}: static ")
    if len({s.name for s in static}) != len(static):
        raise IconbenchError(f"{origin}: a static argument is given twice")
    return Experiment(
        name=_field(data, "name", str, origin),
        description=str(data.get("description", "")),
        grid=grid,
        baseline=_field(data, "baseline", str, origin),
        steps=_field(data, "steps", int, origin),
        substeps=_field(data, "substeps", int, origin),
        static=tuple(static),
        path=path,
        steps_source=str(data.get("steps_source", "")),
        substeps_source=str(data.get("substeps_source", "")),
        domains=tuple(domains),
    )


def on_grid(
    name: str, counts: Any = None, directory: pathlib.Path | None = None
) -> list[Experiment]:
    """The experiments ICON ran on the grid results call ``name``, measured with ``counts``.

    ``counts``: :class:`iconbench.grids.presets.GridCounts` (``None``: the preset's). By
    counts, as ``iconbench speedup --experiment`` compares them, so that a renamed preset
    cannot pass for the experiment's grid nor the experiment's grid go unrecognised under
    another name.

    >>> [e.name for e in on_grid("mch_icon-ch1_medium")], on_grid("tiny")
    (['mch_icon-ch1_medium'], [])
    """
    from iconbench.grids.presets import counts_of

    if counts is None:
        try:
            counts = counts_of(name)
        except IconbenchError:
            return []
    return [
        experiment
        for experiment in (load(n, directory) for n in names(directory))
        if counts in {counts_of(name) for name in experiment.grids}
    ]


def load(name: str, directory: pathlib.Path | None = None) -> Experiment:
    """The experiment called ``name`` (or the TOML file at path ``name``)."""
    candidate = pathlib.Path(name)
    if candidate.suffix == ".toml" and candidate.is_file():
        return from_file(candidate)
    directory = directory or root()
    path = directory / f"{name}.toml"
    if not path.is_file():
        known = ", ".join(names(directory)) or "none"
        raise IconbenchError(
            f"unknown experiment {name!r}; choose one of: {known} (files in {directory})"
        )
    return from_file(path)

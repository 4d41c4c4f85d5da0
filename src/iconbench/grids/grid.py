"""The grid a run measures on, resolved once at the command line and passed down as a value.

A measuring command (``iconbench suite``, ``run``, ``demo``, ``check``, ``continuous``)
resolves ``--grid PRESET``, ``--cells N`` or ``--grid-file FILE`` (each with ``--levels K``,
and ``--limited-area`` for a generated grid) into a :class:`Grid` with :func:`resolve`; the
runner's steps and the check take that value and never look a name up again. A worker that
the runner starts as a process is handed :attr:`Grid.argv`, the command-line form the same
:func:`resolve` reads back at the worker's command line: one form, written and read here.

>>> tiny = resolve("tiny")
>>> tiny.name, str(tiny.counts), tiny.argv
('tiny', '512 cells / 768 edges / 256 vertices / 10 levels', ('--grid', 'tiny'))
>>> resolve("tiny", levels=5).name, resolve(cells=5000, levels=30, limited_area=True).argv
('tiny_5l', ('--cells', '5000', '--levels', '30', '--limited-area'))
>>> resolve(cells=5000, levels=30) == resolve(cells=5000, levels=30)
True
"""

from __future__ import annotations

import dataclasses
import pathlib
from typing import TYPE_CHECKING, Any

from iconbench.errors import IconbenchError
from iconbench.grids.netcdf import file_spec
from iconbench.grids.presets import PRESETS, GridCounts, GridSpec, spec_for

if TYPE_CHECKING:
    from iconbench.grids.generator import GeneratedGrid

#: Levels of a generated size or a grid file when ``--levels`` is not given.
DEFAULT_LEVELS = 65


@dataclasses.dataclass(frozen=True)
class Grid:
    """One grid, resolved: its name, counts and source, and how to build it.

    ``spec`` holds what results record (the name, the counts); for a grid file its counts
    are the file's (``spec.grid_file`` names it). ``argv`` is the command line that
    resolves to this grid (:func:`resolve`), what a worker process is started with.
    """

    spec: GridSpec
    argv: tuple[str, ...]

    @property
    def name(self) -> str:
        """What results call this grid (ledger lines, ``summary.json``, asv's parameter)."""
        return self.spec.name

    @property
    def counts(self) -> GridCounts:
        """Cells, edges, vertices and levels: what makes two timings comparable."""
        return self.spec.counts

    @property
    def file(self) -> pathlib.Path | None:
        """The ICON grid file this grid is read from (``None``: generated)."""
        return pathlib.Path(self.spec.grid_file) if self.spec.grid_file else None

    def generate(self, *, allocator: Any = None) -> GeneratedGrid:
        """The grid itself (imports gt4py): read from its file, or generated from the spec.

        A preset icon-grid-generator makes is its file in the runner's cache, made there the
        first time (:func:`iconbench.grids.library.cached_file`), and read like any other.
        """
        if self.file is not None:
            from iconbench.grids.gridfile import load_grid_file

            return load_grid_file(self.file, num_levels=self.counts.levels, allocator=allocator)
        return generate(self.spec, allocator=allocator)


def generate(
    spec: GridSpec | str, *, allocator: Any = None, keep_skip_values: bool = False
) -> GeneratedGrid:
    """The grid of a preset or spec (imports gt4py), whichever maker makes it.

    A preset icon-grid-generator makes is its file in the runner's cache, made there the
    first time (:func:`iconbench.grids.library.cached_file`) and read through the one
    grid-file road (:func:`iconbench.grids.gridfile.load_grid_file`; netCDF4 only there: a
    runner without it still has the lattices); any other is iconbench's lattice
    (:func:`iconbench.grids.generator.generate`). ``keep_skip_values``: keep the ``-1`` of
    missing boundary neighbours.
    """
    if isinstance(spec, str):
        spec = spec_for(spec, None, None)
    if spec.made_by is not None:
        from iconbench.grids.gridfile import load_grid_file
        from iconbench.grids.library import cached_file

        path = cached_file(spec.made_by)
        try:
            return load_grid_file(path, num_levels=spec.num_levels, allocator=allocator,
                                  keep_skip_values=keep_skip_values, spec=spec)  # fmt: skip
        except IconbenchError as error:  # a file cut short, or another grid's
            raise IconbenchError(f"{error}; remove {path} so that it is made again") from None
    from iconbench.grids.generator import generate as lattice

    return lattice(spec, allocator=allocator, keep_skip_values=keep_skip_values)


def resolve(
    preset: str | None = None,
    *,
    cells: int | None = None,
    levels: int | None = None,
    limited_area: bool = False,
    grid_file: str | pathlib.Path | None = None,
) -> Grid:
    """The :class:`Grid` of a preset, a size in cells, or an ICON grid file (one of them).

    Milliseconds: a preset or a size is arithmetic, a file's counts come from its header.
    Bad input is one line naming the option and what to give instead.

    >>> resolve("tiny", cells=100)
    Traceback (most recent call last):
    ...
    iconbench.errors.IconbenchError: give one of --grid PRESET, --cells N or --grid-file FILE, \
not several
    """
    given = [o for o, v in (("--grid", preset), ("--cells", cells), ("--grid-file", grid_file))
             if v is not None]  # fmt: skip
    if len(given) > 1:
        raise IconbenchError(
            "give one of --grid PRESET, --cells N or --grid-file FILE, not several"
        )
    tail = (("--levels", str(levels)) if levels is not None else ()) + (
        ("--limited-area",) if limited_area else ()
    )
    if grid_file is not None:
        if limited_area:
            raise IconbenchError(
                "--limited-area: a grid file says itself whether it is limited-area; leave it out"
            )
        path = pathlib.Path(grid_file).resolve()
        return Grid(file_spec(path, levels or DEFAULT_LEVELS), ("--grid-file", str(path), *tail))
    if preset is None and cells is None:
        raise IconbenchError(
            f"give a grid: --grid PRESET ({', '.join(PRESETS)}), --cells N or --grid-file FILE"
        )
    spec = spec_for(preset, cells, levels, limited_area)
    if preset is not None and levels is not None and levels != PRESETS[preset].num_levels:
        # a preset at other levels is another grid: results must not carry the preset's name
        spec = dataclasses.replace(spec, name=f"{spec.name}_{levels}l")
    head = ("--grid", preset) if preset is not None else ("--cells", str(cells))
    return Grid(spec, (*head, *tail))

"""Named grid sizes, from "CI tiny" to "fills a GPU", and the spec of any other size.

A :class:`GridSpec` fixes the lattice exactly (``nx`` x ``ny`` vertices), so a preset always
generates identical arrays. Presets of real grids match their number of cells (to within the
1 % a near-square lattice allows) and levels:

* ``icon_global``, ``icon_benchmark_global``, ``icon_benchmark_regional``: the grids behind
  icon4py's own ``--grid`` presets ``icon_global`` (R02B04, 40 levels = its
  ``DEFAULT_NUM_LEVELS``), ``icon_benchmark_global`` (R02B06, 80 levels =
  ``BENCHMARK_DEFAULT_LEVELS``) and ``icon_benchmark_regional`` (``mch_opr_R19B08_DOM01``, 80
  levels), see ``icon4py.model.testing.fixtures.stencil_tests``. A global ICON grid RnBk has
  ``20 n^2 4^k`` cells (Wan et al. 2013, GMD 6, 735): R02B04 = 20 480, R02B06 = 327 680,
  R02B07 = 1 310 720. The regional benchmark domain is the MeteoSwiss R19B08 (1 km) domain;
  its size is taken as ICON-CH1's.
* ``ch1_medium``: MeteoSwiss ICON-CH1(-EPS), ~1 km, 80 levels (opendatadocs.meteoswiss.ch,
  "Numerical weather forecasting model ICON-CH1/2-EPS"), 1 147 980 cells.
* ``ch2``: MeteoSwiss ICON-CH2(-EPS), ~2.1 km, 80 levels, 283 876 cells (R19B07, icon4py
  ``Grids.R19_B07_MCH_LOCAL``, "the full icon-ch2 operational setup").

>>> spec_for("tiny", None, None).num_cells
512
>>> spec_for(None, 20000, 65).num_cells  # the nearest near-square lattice
20088
"""

from __future__ import annotations

import dataclasses
import math

from iconbench.errors import IconbenchError
from iconbench.grids.torus import ROW_HEIGHT

MIN_TORUS = (3, 4)
"""Smallest torus (nx, ny) whose neighbour tables have no repeated entries."""
MIN_LAM = (24, 24)
"""Smallest patch (nx, ny) whose boundary, nudging and interior zones are all non-empty."""
MAX_CELLS = 200_000_000


@dataclasses.dataclass(frozen=True)
class GridSpec:
    """A grid: its name, size in cells and levels, torus or limited area.

    A generated grid is fixed exactly by its lattice of ``nx`` x ``ny`` vertices; when only
    ``num_cells`` is given, the near-square lattice closest to it is chosen and ``num_cells``
    (with ``num_edges``, ``num_vertices``) becomes the exact count. A spec of a grid file
    (``grid_file`` set) keeps the counts it is given.

    >>> GridSpec("demo", 1000, 20).num_cells, GridSpec("demo", 0, 20, nx=4, ny=4).num_cells
    (1008, 32)
    """

    name: str
    num_cells: int
    num_levels: int
    limited_area: bool = False
    edge_length: float = 2000.0
    description: str = ""
    nx: int = 0
    ny: int = 0
    num_edges: int = 0
    num_vertices: int = 0
    grid_file: str | None = None

    def __post_init__(self) -> None:
        if self.grid_file is not None:
            return
        nx, ny = self.nx, self.ny
        if not nx:
            nx, ny = lattice_for_cells(self.num_cells, self.limited_area)
        cells = lattice_cell_count(nx, ny, self.limited_area)
        vertices = nx * ny
        # Euler: V - E + C = 0 on the torus, 1 on a disc.
        edges = vertices + cells - (1 if self.limited_area else 0)
        for name, value in (
            ("nx", nx), ("ny", ny), ("num_cells", cells), ("num_edges", edges),
            ("num_vertices", vertices),
        ):  # fmt: skip
            object.__setattr__(self, name, value)

    @property
    def domain_size(self) -> tuple[float, float]:
        """(length, height) in metres of the torus period or of the patch's bounding box."""
        if self.limited_area:
            return (self.nx - 0.5) * self.edge_length, (self.ny - 1) * ROW_HEIGHT * self.edge_length
        return self.nx * self.edge_length, self.ny * ROW_HEIGHT * self.edge_length


def lattice_cell_count(nx: int, ny: int, limited_area: bool) -> int:
    """Cells of the torus (2 per vertex) or of the patch (its odd rows lack one down triangle)."""
    if not limited_area:
        return 2 * nx * ny
    rows = ny - 1
    return rows * (nx - 1) + (rows - rows // 2) * (nx - 1) + rows // 2 * (nx - 2)


def lattice_for_cells(num_cells: int, limited_area: bool) -> tuple[int, int]:
    """(nx, ny) of a near-square domain with about ``num_cells`` cells."""
    # Square domain: ny * sqrt(3)/2 = nx  and  2 nx ny = cells.
    ny = max(2, 2 * round(math.sqrt(num_cells / (2 * ROW_HEIGHT)) / 2))
    nx = max(1, round(num_cells / (2 * ny)))
    if limited_area:
        return nx + 1, ny + 1
    return nx, ny


CH1_CELLS, CH2_CELLS = 1_147_980, 283_876

PRESETS: dict[str, GridSpec] = {
    spec.name: spec
    for spec in (
        GridSpec("tiny", 0, 10, description="CI: every test, seconds", nx=16, ny=16),
        GridSpec("tiny_lam", 0, 10, True, description="CI: limited area", nx=32, ny=32),
        GridSpec("small", 20_000, 65, description="laptop-size torus"),
        GridSpec("small_lam", 20_000, 65, True, description="laptop-size limited area"),
        GridSpec("icon_global", 20_480, 40, description="icon4py icon_global (R02B04) size"),
        GridSpec(
            "icon_benchmark_global", 327_680, 80, edge_length=60e3,
            description="icon4py icon_benchmark_global (R02B06) size",
        ),
        GridSpec(
            "icon_benchmark_regional", CH1_CELLS, 80, True, edge_length=1100.0,
            description="icon4py icon_benchmark_regional (R19B08 LAM) size",
        ),
        GridSpec(
            "r02b07", 1_310_720, 80, edge_length=30e3, description="global R02B07 size (~20 km)"
        ),
        GridSpec(
            "ch2", CH2_CELLS, 80, True, edge_length=2200.0,
            description="MeteoSwiss ICON-CH2 size (R19B07, 2.1 km)",
        ),
        GridSpec(
            "ch1_medium", CH1_CELLS, 80, True, edge_length=1100.0,
            description="MeteoSwiss ICON-CH1 size (R19B08, 1 km)",
        ),
        GridSpec("gpu_1m", 1_000_000, 80, description="~1M cells x 80 levels", edge_length=1e3),
        GridSpec("gpu_4m", 4_000_000, 80, description="fills an H100/H200", edge_length=500.0),
    )
}  # fmt: skip


def spec_for(
    preset: str | None,
    cells: int | None,
    levels: int | None,
    limited_area: bool = False,
) -> GridSpec:
    """The spec of a preset (``levels`` and ``limited_area`` may override it) or of any size.

    Raises :class:`IconbenchError` naming the valid presets or the valid range.
    """
    if preset is not None and cells is not None:
        raise IconbenchError("give either a preset or --cells, not both")
    if levels is not None and not 1 <= levels <= 1000:
        raise IconbenchError(f"cannot make a grid with {levels} levels; use 1 to 1000 levels")
    if preset is not None:
        if preset not in PRESETS:
            raise IconbenchError(
                f"unknown grid preset {preset!r}; choose one of: {', '.join(PRESETS)}"
            )
        spec = PRESETS[preset]
        if limited_area and not spec.limited_area:
            lam = f"{preset}_lam"
            if lam in PRESETS:
                spec = PRESETS[lam]
            else:
                spec = dataclasses.replace(spec, name=lam, nx=0, ny=0, limited_area=True)
        if levels is not None:
            spec = dataclasses.replace(spec, num_levels=levels)
        return spec
    if cells is None:
        raise IconbenchError(
            f"give a grid preset ({', '.join(PRESETS)}) or a size with --cells N --levels K"
        )
    low_nx, low_ny = MIN_LAM if limited_area else MIN_TORUS
    smallest = lattice_cell_count(low_nx, low_ny, limited_area)
    if not smallest <= cells <= MAX_CELLS:
        kind = "limited-area grid" if limited_area else "torus"
        raise IconbenchError(
            f"cannot make a {kind} with {cells} cells; use {smallest} to {MAX_CELLS} cells"
        )
    nx, ny = lattice_for_cells(cells, limited_area)
    nx, ny = max(nx, low_nx), max(ny, low_ny)
    name = f"{'lam' if limited_area else 'torus'}_{cells}c_{levels or 65}l"
    return GridSpec(name, 0, levels or 65, limited_area, nx=nx, ny=ny)

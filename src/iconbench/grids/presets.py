"""Named grid sizes, from "CI tiny" to "fills a GPU", and the spec of any other size.

A :class:`GridSpec` fixes the lattice exactly (``nx`` x ``ny`` vertices), so a preset always
generates identical arrays. A preset named after a real ICON grid carries that grid's counts
(:class:`RealGrid`, with its source) next to the counts of the generated lattice: a generated
limited-area patch has ``V - E + C = 1`` like the real domain, but a near-square lattice
reaches a given cell count only approximately, and a torus cannot have a sphere's counts
(``V - E + C = 2``). ``iconbench grid`` prints both and what is exact. A preset that
icon-grid-generator makes (``made_by``, :mod:`iconbench.grids.library`) is that library's
grid instead, ICON's own sphere or domain, with its counts given; docs/grids.md says which
presets each maker makes and why.

Real grids (icon4py ``model/common/tests/common/grid/utils.py`` ``GRID_REFERENCE_VALUES`` and
``model/testing/src/icon4py/model/testing/definitions.py`` ``Grids``, C2SM/icon4py @ 0baa415b):

* ``icon_benchmark_regional``: icon4py's ``--grid icon_benchmark_regional``
  (``model/testing/.../fixtures/stencil_tests.py``) is ``Grids.MCH_OPR_R19B08_DOMAIN01``
  (``mch_opr_R19B08_DOM01``, "suitable for running single GPU benchmarks") with
  ``BENCHMARK_DEFAULT_LEVELS`` = 80 levels: 44 528 cells, 67 096 edges, 22 569 vertices.
  No near-square lattice has exactly 44 528 cells (the exact ones are 25:1 strips), so the
  generated patch is the closest near-square one, 137 x 165 vertices: 44 526 cells (-2).
* ``mch_icon-ch1_medium``: the grid of the ``mch_icon-ch1_medium`` experiment whose OpenACC
  timers icon4py publishes. *Known*: it is a MeteoSwiss ICON-CH1 (1 km, R19B08) limited-area
  experiment, 80 levels (icon4py's benchmark levels); icon4py's divergence-damping test uses
  "for icon-ch1(_medium)" ``second_order_divdamp_scaling_coeff = 34497.62`` = 0.032 x
  1.078e6 m^2, the mean cell area of any R19B08 grid (this fixes the resolution, not the
  domain). *Inferred*: its domain is ``MCH_OPR_R19B08_DOMAIN01``, icon4py's single-GPU
  benchmark grid, not the operational ICON-CH1 domain (26 x more cells): the OpenACC
  per-call times match standalone runs on DOMAIN01 (issue 17's check), not on the big one.
* ``icon_benchmark_global``: ``Grids.R02B06_GLOBAL`` (``icon_grid_0021_R02B06_G``), 80 levels:
  327 680 cells, 491 520 edges, 163 842 vertices; ``icon_global``: R02B04, 20 480 cells,
  40 levels (icon4py's ``DEFAULT_NUM_LEVELS``). A global ICON grid RnBk has ``20 n^2 4^k``
  cells (Wan et al. 2013, GMD 6, 735).
* ``ch2``: ``Grids.R19_B07_MCH_LOCAL`` ("the full icon-ch2 operational setup"), 283 876 cells.
* ``ch1_operational``: the full operational MeteoSwiss ICON-CH1(-EPS) domain, ~1 km, 80 levels,
  1 147 980 cells (opendatadocs.meteoswiss.ch, "Numerical weather forecasting model
  ICON-CH1/2-EPS"): the preset that fills one GPU. ``ch1_medium`` is its old name, kept so
  that results recorded under it (results/h100) keep their meaning: the same 1 147 980 cells.

>>> spec_for("tiny", None, None).num_cells
512
>>> spec_for(None, 20000, 65).num_cells  # the nearest near-square lattice
20088
>>> r = PRESETS["icon_benchmark_regional"]
>>> r.real.cells, r.num_cells, str(r.counts)
(44528, 44526, '44526 cells / 67130 edges / 22605 vertices / 80 levels')
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from iconbench.errors import IconbenchError
from iconbench.grids.library import LibraryGrid, Region
from iconbench.grids.torus import ROW_HEIGHT

MIN_TORUS = (3, 4)
"""Smallest torus (nx, ny) whose neighbour tables have no repeated entries."""
MIN_LAM = (24, 24)
"""Smallest patch (nx, ny) whose boundary, nudging and interior zones are all non-empty."""
MAX_CELLS = 200_000_000


@dataclasses.dataclass(frozen=True, order=True)
class GridCounts:
    """What makes two timings comparable: cells, edges, vertices and levels of the grid.

    >>> GridCounts(44526, 67130, 22605, 80).differences(GridCounts(1147980, 1722512, 574533, 80))
    'cells 44526 vs 1147980, edges 67130 vs 1722512, vertices 22605 vs 574533'
    """

    cells: int
    edges: int
    vertices: int
    levels: int

    def __str__(self) -> str:
        return (
            f"{self.cells} cells / {self.edges} edges / {self.vertices} vertices / "
            f"{self.levels} levels"
        )

    def differences(self, other: GridCounts) -> str:
        """``cells A vs B, ...`` for every count that differs (empty when all agree)."""
        return ", ".join(
            f"{name} {a} vs {b}"
            for name, a, b in zip(
                ("cells", "edges", "vertices", "levels"),
                dataclasses.astuple(self),
                dataclasses.astuple(other),
                strict=True,
            )
            if a != b
        )

    def as_dict(self) -> dict[str, int]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GridCounts:
        return cls(*(int(data[k]) for k in ("cells", "edges", "vertices", "levels")))


@dataclasses.dataclass(frozen=True)
class RealGrid:
    """A real ICON grid a preset stands for: its name, counts and where they are published."""

    name: str
    cells: int
    edges: int | None
    vertices: int | None
    source: str
    #: what is known and what inferred about the grid being this one ("" when known)
    inferred: str = ""


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
    real: RealGrid | None = None
    #: the grid icon-grid-generator makes for this preset (its counts are given, not a lattice's)
    made_by: LibraryGrid | None = None

    def __post_init__(self) -> None:
        if self.grid_file is not None or self.made_by is not None:
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
    def counts(self) -> GridCounts:
        """The counts of the grid this spec generates (what a timing on it measured)."""
        return GridCounts(self.num_cells, self.num_edges, self.num_vertices, self.num_levels)

    def exactness(self) -> str:
        """How the generated grid's counts compare with the real grid's the preset stands for.

        ``exact``, ``approx.: <differences>``, or ``generated`` when there is no real grid.

        >>> PRESETS["icon_benchmark_regional"].exactness()
        'approx.: cells -2 (-0.004 %), edges +34, vertices +36'
        """
        if self.real is None:
            return "generated"
        diffs = []
        for name, real, ours in (
            ("cells", self.real.cells, self.num_cells),
            ("edges", self.real.edges, self.num_edges),
            ("vertices", self.real.vertices, self.num_vertices),
        ):
            if real is not None and real != ours:
                rel = (
                    f" ({(ours - real) / real:+.3%})".replace("%", " %") if name == "cells" else ""
                )
                diffs.append(f"{name} {ours - real:+d}{rel}")
        return "approx.: " + ", ".join(diffs) if diffs else "exact"

    @property
    def kind(self) -> str:
        """``global`` (a sphere), ``torus`` or ``lam``.

        >>> PRESETS["icon_global"].kind, PRESETS["tiny"].kind, PRESETS["mch_r19b08_lam"].kind
        ('global', 'torus', 'lam')
        """
        if self.made_by is not None and self.made_by.family == "global":
            return "global"
        return "lam" if self.limited_area else "torus"

    def source(self) -> str:
        """What makes this grid: icon-grid-generator's request, iconbench's lattice, or a file.

        >>> PRESETS["icon_global"].source(), PRESETS["tiny_lam"].source()
        ('icon-grid-generator: global R02B04', 'iconbench: 32 x 32 lattice')
        """
        if self.grid_file is not None:
            return f"file: {self.grid_file}"
        if self.made_by is not None:
            return f"icon-grid-generator: {self.made_by.describe()}"
        return f"iconbench: {self.nx} x {self.ny} lattice"

    @property
    def maker(self) -> str | None:
        """What made the grid, recorded with every result beside its counts.

        One name and the same counts from two makers are two grids: iconbench's 16 x 16
        torus and icon-grid-generator's have the same counts and all six neighbour tables
        compared differ, so results compare only on one maker
        (:func:`iconbench.grids.makers.check_same`). ``None`` for a grid file: its name and
        counts are what results record of it.

        >>> PRESETS["tiny_lam"].maker, PRESETS["r02b02"].maker
        ('iconbench lattice', 'icon-grid-generator 0.9.0')
        """
        if self.grid_file is not None:
            return None
        if self.made_by is not None:
            from iconbench.grids.library import version

            return f"icon-grid-generator {version()}"
        return LATTICE_MAKER

    @property
    def domain_size(self) -> tuple[float, float]:
        """(length, height) in metres of the torus period or of the patch's bounding box."""
        if self.limited_area:
            return (self.nx - 0.5) * self.edge_length, (self.ny - 1) * ROW_HEIGHT * self.edge_length
        return self.nx * self.edge_length, self.ny * ROW_HEIGHT * self.edge_length


#: The maker of every grid iconbench's own lattice generator makes (:attr:`GridSpec.maker`).
LATTICE_MAKER = "iconbench lattice"


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

#: ICON-CH1 medium's domain as icon-grid-generator makes it: R19B08 over Switzerland, cut
#: from R19B03 (43 cells of 1 024 each; 44 and 42 are the neighbouring sizes, 45 056 and
#: 43 008 cells) and bisected five times locally.
MCH_R19B08_LAM = LibraryGrid(
    "limited-area", "R19B08", region=Region(6.825, 9.175, 45.8, 47.4), cut_at=3
)
#: A limited area for CI: R02B05 over central Europe, cut from R02B04 (the library's own way).
CI_LAM = LibraryGrid("limited-area", "R2B5", region=Region(-5.0, 25.0, 38.0, 58.0))


def _library(
    name: str,
    made_by: LibraryGrid,
    levels: int,
    description: str,
    *,
    counts: tuple[int, int, int] | None = None,
    real: RealGrid | None = None,
) -> GridSpec:
    """A preset icon-grid-generator makes: its counts by arithmetic or, for a domain, given.

    A domain's counts are what the library made of it (``tests/grids/test_library.py`` makes
    each such preset and compares).
    """
    cells, edges, vertices = counts or made_by.counts() or (0, 0, 0)
    return GridSpec(name, cells, levels, made_by.family == "limited-area",
                    description=description, num_edges=edges, num_vertices=vertices, real=real,
                    made_by=made_by)  # fmt: skip


_ICON4PY = "C2SM/icon4py model/common/tests/common/grid/utils.py GRID_REFERENCE_VALUES"
R19B08_DOMAIN01 = RealGrid(
    "MCH_OPR_R19B08_DOMAIN01 (mch_opr_R19B08_DOM01)",
    44_528,
    67_096,
    22_569,
    f"{_ICON4PY}; icon_benchmark_regional in model/testing/.../fixtures/stencil_tests.py",
)
R19B07_MCH_LOCAL = RealGrid(
    "R19_B07_MCH_LOCAL (icon_grid_0002_R19B07_mch)", CH2_CELLS, 426_599, 142_724, _ICON4PY
)
#: ICON-CH1's and ICON-CH2's common domain over the Alps as icon-grid-generator makes it: the
#: box cut from R19B03 (1 134 cells), bisected 4 times (R19B07) or 5 times (R19B08).
ALPS = LibraryGrid("limited-area", "R19B08", region=Region(1.5, 15.5, 41.5, 51.5), cut_at=3)
_CH1_OPERATIONAL = dict(
    num_cells=CH1_CELLS,
    num_levels=80,
    limited_area=True,
    edge_length=1100.0,
    real=RealGrid(
        "MeteoSwiss ICON-CH1(-EPS) operational domain",
        CH1_CELLS,
        None,
        None,
        "opendatadocs.meteoswiss.ch, 'Numerical weather forecasting model ICON-CH1/2-EPS'",
    ),
)

PRESETS: dict[str, GridSpec] = {
    spec.name: spec
    for spec in (
        _library("tiny", LibraryGrid("torus", nx=16, ny=16, edge_length=2000.0), 10,
                 "CI: every test, seconds"),
        GridSpec("tiny_lam", 0, 10, True, description="CI: limited area", nx=32, ny=32),
        _library("small", LibraryGrid("torus", nx=93, ny=108, edge_length=2000.0), 65,
                 "laptop-size torus"),
        GridSpec("small_lam", 20_000, 65, True, description="laptop-size limited area"),
        _library(
            "icon_global", LibraryGrid("global", "R2B4"), 40,
            "icon4py icon_global (R02B04), global sphere",
            real=RealGrid("R02B04_GLOBAL (icon_grid_0013_R02B04_R)", 20_480, 30_720, 10_242,
                          _ICON4PY),
        ),
        _library(
            "icon_benchmark_global", LibraryGrid("global", "R2B6"), 80,
            "icon4py icon_benchmark_global (R02B06), global sphere",
            real=RealGrid("R02B06_GLOBAL (icon_grid_0021_R02B06_G)", 327_680, 491_520, 163_842,
                          _ICON4PY),
        ),
        GridSpec(
            "icon_benchmark_regional", 0, 80, True, edge_length=1100.0, nx=137, ny=165,
            description="icon4py icon_benchmark_regional (R19B08 DOMAIN01)",
            real=R19B08_DOMAIN01,
        ),
        GridSpec(
            "mch_icon-ch1_medium", 0, 80, True, edge_length=1100.0, nx=137, ny=165,
            description="grid of the mch_icon-ch1_medium experiment (inferred R19B08 DOMAIN01)",
            real=dataclasses.replace(
                R19B08_DOMAIN01,
                inferred="known: MeteoSwiss ICON-CH1 medium experiment, 1 km R19B08 (icon4py's "
                "divdamp test: coeff 34497.62 'for icon-ch1(_medium)' = 0.032 x R19B08's mean "
                "cell area), LAM, 80 levels; inferred: the MCH_OPR_R19B08_DOMAIN01 domain "
                "(icon4py's single-GPU benchmark grid; OpenACC per-call times match runs on it)",
            ),
        ),
        _library(
            "r02b07", LibraryGrid("global", "R2B7"), 80, "global R02B07 (~20 km)",
            real=RealGrid("R02B07_GLOBAL (icon_grid_0023_R02B07_G)", 1_310_720, 1_966_080,
                          655_362, _ICON4PY),
        ),
        _library(
            "mch_r19b08_lam", MCH_R19B08_LAM, 80,
            "R19B08 limited area over Switzerland of ICON-CH1 medium's size, made as ICON "
            "makes it", counts=(44_032, 66_352, 22_321), real=R19B08_DOMAIN01,
        ),
        GridSpec(
            "ch2", CH2_CELLS, 80, True, edge_length=2200.0,
            description="MeteoSwiss ICON-CH2 operational (R19B07, 2.1 km)",
            real=R19B07_MCH_LOCAL,
        ),
        _library(
            "ch2_r19b07", ALPS.with_grid("R19B07"), 80,
            "ICON-CH2's domain (R19B07, 2.1 km) as icon-grid-generator makes it",
            counts=(290_304, 436_224, 145_921), real=R19B07_MCH_LOCAL,
        ),
        _library(
            "ch1_operational_r19b08", ALPS.with_grid("R19B08"), 80,
            "ICON-CH1's operational domain (R19B08, 1 km) as icon-grid-generator makes it",
            counts=(1_161_216, 1_743_360, 582_145), real=_CH1_OPERATIONAL["real"],
        ),
        GridSpec(
            "ch1_operational", **_CH1_OPERATIONAL,
            description="full operational ICON-CH1 domain (1 km): fills one GPU",
        ),
        GridSpec(
            "ch1_medium", **_CH1_OPERATIONAL,
            description="old name of ch1_operational (results/h100 use it): NOT the "
            "mch_icon-ch1_medium experiment's grid",
        ),
        _library("r02b02", LibraryGrid("global", "R2B2"), 10, "CI: a global sphere"),
        _library("r02b05_lam", CI_LAM, 10, "CI: a limited area", counts=(892, 1_379, 488)),
        _library(
            "tiny_torus", LibraryGrid("torus", nx=16, ny=16, edge_length=2000.0), 10,
            "CI: the same grid as tiny (its name before tiny was made by the library)",
        ),
        _library("gpu_1m", LibraryGrid("torus", nx=658, ny=760, edge_length=1e3), 80,
                 "~1M cells x 80 levels"),
        GridSpec("gpu_4m", 4_000_000, 80, description="fills an H100/H200", edge_length=500.0),
    )
}  # fmt: skip


def counts_of(preset: str) -> GridCounts:
    """The counts of the grid a preset name generates (results name their grid by preset).

    >>> counts_of("ch1_medium") == counts_of("ch1_operational")
    True
    """
    return spec_for(preset, None, None).counts


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
        if limited_area and not spec.limited_area and f"{preset}_lam" in PRESETS:
            spec = PRESETS[f"{preset}_lam"]  # tiny -> tiny_lam, small -> small_lam
        elif limited_area and not spec.limited_area and spec.made_by is not None:
            raise IconbenchError(
                f"--limited-area: preset {preset} is icon-grid-generator's "
                f"{spec.made_by.describe()}; leave --limited-area out or choose a limited-area "
                "preset (iconbench grid lists them)"
            )
        elif limited_area and not spec.limited_area:
            spec = dataclasses.replace(spec, name=f"{preset}_lam", nx=0, ny=0, limited_area=True)
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

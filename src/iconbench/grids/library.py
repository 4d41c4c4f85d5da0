"""Grids made by icon-grid-generator, the field's ICON grid generator, cached as NetCDF files.

icon-grid-generator (MeteoSwiss, ``grid_generator`` on the package index) makes ICON's own
grids: global ``R<n>B<k>`` spheres with ICON's counts (``20 n^2 4^k`` cells), planar tori,
and limited-area domains with ICON's numbering and zones (``refin_c_ctrl``, ``start_idx_c``,
...). A preset made by it (:attr:`iconbench.grids.presets.GridSpec.made_by`) is a
:class:`LibraryGrid`: what to ask the library for. :func:`cached_file` makes it once per
runner into ``<cache>/grids/`` and every run reads that file through the one grid-file road
(:func:`iconbench.grids.gridfile.load_grid_file`, icon4py's ``GridManager``).

A limited-area domain is cut where ICON's own generator cuts it, from a coarser sphere, and
bisected locally from there. The library's ``refine_last`` cuts from the sphere one bisection
coarser than the domain; for R19B08 that is R19B07, 118 M cells, which does not fit a
workstation. :attr:`LibraryGrid.cut_at` cuts from a coarser sphere of the same root instead
and bisects the cut patch once per level with the library's own step (and its local spring
optimisation after each), then the library orders the boundary rows and writes the zones. The
patch's cells are those of the domain cut at the final level up to the coarse level's
granularity: a domain of ``m`` coarse cells has ``m 4^(k - cut_at)`` cells. That loop reaches
into one internal function of icon-grid-generator (``_limited_area._refine_open_grid``), which
is why the package is pinned.

>>> r2b4 = LibraryGrid("global", "R2B4")
>>> r2b4.name, r2b4.counts()
('R02B04', (20480, 30720, 10242))
>>> LibraryGrid("torus", nx=16, ny=16, edge_length=50_000.0).counts()
(512, 768, 256)
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import os
import pathlib
import re
import shutil
import sys
import threading
import time
from collections.abc import Callable, Iterator
from importlib import metadata
from typing import Any, Literal

from iconbench.errors import IconbenchError

#: The package that makes these grids, as installed (``pip install icon-grid-generator``).
PACKAGE = "icon-grid-generator"

#: A grid that takes longer than this prints a progress line every so many seconds.
PROGRESS_AFTER_S = 5.0

#: What the library makes: a sphere, a doubly periodic plane, or a domain cut from a sphere.
Family = Literal["global", "torus", "limited-area"]

_RNBK = re.compile(r"^R0?(?P<root>\d+)B0?(?P<bisections>\d+)$")


@functools.cache
def version() -> str:
    """The installed icon-grid-generator's version (one line when it is missing).

    Read once a process: a cached file's name, its key and the progress line all name it.
    """
    try:
        return metadata.version(PACKAGE)
    except metadata.PackageNotFoundError:
        raise IconbenchError(
            f"this preset is made by {PACKAGE}, which this environment lacks; install it "
            "(ci/ensure-env; a GPU runner's wheelhouse has it when made with 'ci/gpu-wheelhouse "
            "--with-grid-files' or, from 2026-11-29 on, with 'ci/gpu-wheelhouse') or give "
            "--grid-file with an ICON grid file"
        ) from None


@dataclasses.dataclass(frozen=True)
class Region:
    """A longitude-latitude box in degrees: the cells whose centres lie in it are the domain."""

    lon_min: float
    lon_max: float
    lat_min: float
    lat_max: float


@dataclasses.dataclass(frozen=True)
class LibraryGrid:
    """What icon-grid-generator is asked for: a global sphere, a torus or a limited area.

    ``grid``: ``RnBk`` of the sphere, or of the limited-area domain's resolution; ``nx``,
    ``ny``, ``edge_length`` (m): the torus's lattice; ``region`` and ``cut_at``: the domain
    and the bisection level of the sphere it is cut from (default: one level coarser, the
    library's ``refine_last``).
    """

    family: Family
    grid: str = ""
    nx: int = 0
    ny: int = 0
    edge_length: float = 0.0
    region: Region | None = None
    cut_at: int | None = None

    def __post_init__(self) -> None:
        if self.family not in ("global", "torus", "limited-area"):
            raise IconbenchError(
                f"unknown grid family {self.family!r}; give global, torus or limited-area"
            )
        if self.family != "torus" and not _RNBK.match(self.grid):
            raise IconbenchError(f"grid {self.grid!r}: give an ICON grid name such as R2B4")
        if self.family == "limited-area" and self.region is None:
            raise IconbenchError("a limited-area grid needs a region")

    @property
    def root_bisections(self) -> tuple[int, int]:
        """``(n, k)`` of ``RnBk``."""
        found = _RNBK.match(self.grid)
        assert found is not None
        return int(found["root"]), int(found["bisections"])

    @property
    def icon_name(self) -> str:
        """ICON's spelling of ``RnBk``: ``R02B04``."""
        root, bisections = self.root_bisections
        return f"R{root:02d}B{bisections:02d}"

    @property
    def name(self) -> str:
        """ICON's name of the grid (``R02B04``, ``R19B08_lam``), or the torus's lattice."""
        if self.family == "torus":
            return f"torus_{self.nx}x{self.ny}"
        return self.icon_name if self.family == "global" else f"{self.icon_name}_lam"

    def describe(self) -> str:
        """One line: the family, the grid and, for a domain, its box and where it was cut.

        >>> LibraryGrid("limited-area", "R19B08", region=Region(6.825, 9.175, 45.8, 47.4),
        ...             cut_at=3).describe()
        'limited area R19B08, lon 6.825..9.175, lat 45.8..47.4, cut from R19B03'
        """
        if self.family == "torus":
            return f"torus {self.nx} x {self.ny}, edges {self.edge_length:g} m"
        if self.family == "global":
            return f"global {self.icon_name}"
        assert self.region is not None
        box = self.region
        root, bisections = self.root_bisections
        cut = bisections - 1 if self.cut_at is None else self.cut_at
        return (f"limited area {self.icon_name}, lon {box.lon_min:g}..{box.lon_max:g}, lat "
                f"{box.lat_min:g}..{box.lat_max:g}, cut from R{root:02d}B{cut:02d}")  # fmt: skip

    def counts(self) -> tuple[int, int, int] | None:
        """Cells, edges and vertices where arithmetic gives them (a domain's: ``None``).

        A sphere ``RnBk`` has ``20 n^2 4^k`` cells, ``30 n^2 4^k`` edges and ``10 n^2 4^k + 2``
        vertices; a torus of ``nx`` x ``ny`` vertices ``2 nx ny`` cells and ``3 nx ny`` edges.
        """
        if self.family == "torus":
            return 2 * self.nx * self.ny, 3 * self.nx * self.ny, self.nx * self.ny
        if self.family == "global":
            root, bisections = self.root_bisections
            faces = root**2 * 4**bisections
            return 20 * faces, 30 * faces, 10 * faces + 2
        return None

    def with_grid(self, grid: str) -> LibraryGrid:
        """The same request at another resolution (``RnBk``): a domain's box, cut as deep."""
        return dataclasses.replace(self, grid=grid)

    def key(self) -> str:
        """What the cached file is named by: this request and the library's version."""
        text = f"{version()} {dataclasses.astuple(self)!r}"
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    def fields(self) -> str:
        """The library's field profile icon4py's reader needs (a torus has its own)."""
        return "icon4py_torus" if self.family == "torus" else "icon4py"

    def spec(self) -> Any:
        """The library's spec of this grid (imports the library)."""
        import grid_generator as gg

        if self.family == "torus":
            return gg.TorusGridSpec(nx=self.nx, ny=self.ny, edge_length=self.edge_length)
        if self.family == "global":
            return self.grid  # the library reads ICON's names ("R2B4")
        assert self.region is not None
        box = gg.Region.lonlat_box(**dataclasses.asdict(self.region))
        return gg.LimitedAreaGridSpec(parent=self.grid, region=box)


def cached_file(grid: LibraryGrid, *, log: Callable[[str], None] | None = None) -> pathlib.Path:
    """The grid's NetCDF file in the runner's cache, made first where it is not there yet.

    Processes asking at once make it once: the first holds a lock beside it, the others wait
    and find the file. The file is published whole (:func:`make` writes it under another
    name first), so a killed generation leaves no file that looks made.
    """
    from iconbench.buildcache import cache_root
    from iconbench.files.lock import exclusive

    folder = cache_root() / "grids"
    path = folder / f"{grid.name}-{PACKAGE}-{version()}-{grid.key()}.nc"
    if path.is_file():
        return path
    with exclusive(folder / f".{path.name}.lock"):
        if not path.is_file():
            make(grid, path, log=log)
    return path


def make(
    grid: LibraryGrid, path: pathlib.Path, *, log: Callable[[str], None] | None = None
) -> pathlib.Path:
    """Make ``grid`` into the ICON grid file ``path`` (written aside, then renamed into place).

    A grid that takes longer than :data:`PROGRESS_AFTER_S` says so every few seconds.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial.nc")
    say = log or _stderr
    with _progress(f"grid {grid.name}: {PACKAGE} {version()} is making it", say):
        try:
            _write(grid, partial)
            os.replace(partial, path)
        finally:
            partial.unlink(missing_ok=True)
    return path


def _write(grid: LibraryGrid, path: pathlib.Path) -> None:
    """Generate ``grid`` and write it as an ICON grid file (imports the library)."""
    import grid_generator as gg

    if grid.family != "limited-area" or grid.cut_at is None:
        # a big sphere's checkpoints go to a folder of their own, gone once the file is
        work = path.parent / f"{path.name}.work"
        try:
            gg.generate_grid_to_netcdf(grid.spec(), path, fields=grid.fields(), resume=False,
                                       work_dir=work)  # fmt: skip
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return
    from grid_generator._netcdf import write_icon_grid

    write_icon_grid(refined_domain(grid), path, fields=grid.fields())


def refined_domain(grid: LibraryGrid) -> Any:
    """The limited-area domain cut from ``R<n>B<cut_at>`` and bisected locally up to ``RnBk``.

    The library's own extraction with its ``refine_last`` construction, whose one local
    bisection becomes one per level between the cut and the domain's resolution.
    """
    import grid_generator as gg
    from grid_generator import _limited_area as cutting
    from grid_generator import grid_generator as assembly

    root, bisections = grid.root_bisections
    assert grid.cut_at is not None
    levels = bisections - grid.cut_at
    if not 1 <= levels <= bisections:
        raise IconbenchError(
            f"grid {grid.grid}: cut_at={grid.cut_at} must lie below its {bisections} bisections"
        )
    options = gg.IconGridOptions()
    spec = grid.spec()
    parent = gg.generate_grid(gg.GlobalGridSpec(root=root, bisections=grid.cut_at),
                              options=options)  # fmt: skip
    once = cutting._refine_open_grid

    def bisect_each_level(geometry: Any, topology: Any, options: Any) -> tuple[Any, Any]:
        for level in range(levels):
            if level:
                geometry = cutting._optimize_local_geometry(
                    geometry, topology, options, spec.local_optimization_iterations
                )
            geometry, topology = once(geometry, topology, options)
        return geometry, topology

    cutting._refine_open_grid = bisect_each_level
    try:
        found = cutting.LimitedAreaExtractor()._finish(
            spec, options, parent, "refine_last", compact=False
        )
    finally:
        cutting._refine_open_grid = once
    return assembly._assemble_limited_area_grid(spec, options, found)


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


@contextlib.contextmanager
def _progress(what: str, say: Callable[[str], None]) -> Iterator[None]:
    """Say ``what`` with the seconds so far every few seconds once it takes a while, then done."""
    started = time.perf_counter()
    stop = threading.Event()
    spoke = threading.Event()

    def tick() -> None:
        wait = PROGRESS_AFTER_S
        while not stop.wait(wait):
            spoke.set()
            say(f"{what}: {time.perf_counter() - started:.0f} s")
            wait = 2 * PROGRESS_AFTER_S

    ticker = threading.Thread(target=tick, daemon=True)
    ticker.start()
    try:
        yield
    finally:
        stop.set()
        ticker.join()
    if spoke.is_set():
        say(f"{what}: done in {time.perf_counter() - started:.1f} s")

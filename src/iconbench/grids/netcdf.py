"""ICON grid files' NetCDF, read without building a grid: the module and a file's counts.

:func:`iconbench.grids.grid.resolve` reads a ``--grid-file``'s counts from its header in
milliseconds, at the command line; :mod:`iconbench.grids.gridfile` writes and reads whole
grids (through icon4py, which imports gt4py). Both need the ``netCDF4`` module, which is
optional: where it is missing that is one line, here.
"""

from __future__ import annotations

import pathlib
from typing import Any

from iconbench.errors import IconbenchError
from iconbench.grids.presets import GridSpec


def netcdf4() -> Any:
    """The ``netCDF4`` module, which ICON grid files need: one line where it is not installed.

    A GPU runner's wheelhouse made before 2026-11-29 left it out unless made with
    ``--with-grid-files``; ``ci/gpu-wheelhouse`` now always has it.
    """
    try:
        import netCDF4
    except ImportError:
        raise IconbenchError(
            "ICON grid files need the netCDF4 package, which this environment lacks (a GPU "
            "runner's wheelhouse has it when made with 'ci/gpu-wheelhouse --with-grid-files' "
            "or, from 2026-11-29 on, with 'ci/gpu-wheelhouse')"
        ) from None
    return netCDF4


def _starts_as_netcdf(path: pathlib.Path) -> bool:
    """Whether ``path`` begins as a NetCDF file does (classic or NetCDF-4/HDF5)."""
    with path.open("rb") as handle:
        head = handle.read(8)
    return head[:4] in (b"CDF\x01", b"CDF\x02", b"CDF\x05") or head == b"\x89HDF\r\n\x1a\n"


def file_spec(path: pathlib.Path, levels: int) -> GridSpec:
    """The spec of the ICON grid file ``path``: its counts read from the file, no grid built."""
    if not path.is_file():
        raise IconbenchError(f"--grid-file {path}: no such file; give an ICON grid file")
    netcdf = netcdf4()
    import numpy as np

    try:
        with netcdf.Dataset(path) as ds:
            sizes = [ds.dimensions[name].size for name in ("cell", "edge", "vertex")]
            limited = bool(np.any(np.asarray(ds["refin_c_ctrl"][:]) > 0))
    except (OSError, KeyError) as error:
        if isinstance(error, OSError) and _starts_as_netcdf(path):
            raise IconbenchError(
                f"--grid-file {path}: a truncated or damaged NetCDF file ({path.stat().st_size} "
                f"bytes; {error.strerror or error}); copy it again"
            ) from None
        raise IconbenchError(
            f"--grid-file {path}: not an ICON grid file ({error}); give one with cell, edge and "
            "vertex dimensions and refin_c_ctrl"
        ) from None
    if not 1 <= levels <= 1000:
        raise IconbenchError(f"cannot make a grid with {levels} levels; use 1 to 1000 levels")
    cells, edges, vertices = sizes
    return GridSpec(
        name=f"{path.stem}_{levels}l",
        num_cells=cells,
        num_levels=levels,
        limited_area=limited,
        description=f"ICON grid file {path}",
        num_edges=edges,
        num_vertices=vertices,
        grid_file=str(path),
    )

"""Generated ICON-like grids (doubly periodic torus and limited area) and real ICON grid files.

>>> from iconbench.grids import generate
>>> grid = generate("tiny").grid
>>> grid.num_cells, grid.num_edges, grid.num_vertices, grid.num_levels
(512, 768, 256, 10)
"""

from typing import TYPE_CHECKING, Any

from iconbench.grids.grid import Grid, generate, resolve
from iconbench.grids.presets import PRESETS, GridSpec, spec_for

if TYPE_CHECKING:
    from iconbench.grids.generator import GeneratedGrid, zone_bounds
    from iconbench.grids.gridfile import load_grid_file, write_grid_file

__all__ = [
    "PRESETS",
    "GeneratedGrid",
    "Grid",
    "GridSpec",
    "generate",
    "load_grid_file",
    "resolve",
    "spec_for",
    "write_grid_file",
    "zone_bounds",
]

_LAZY = {
    "GeneratedGrid": "generator",
    "zone_bounds": "generator",
    "load_grid_file": "gridfile",
    "write_grid_file": "gridfile",
}


def __getattr__(name: str) -> Any:
    """Import gt4py/icon4py (seconds) only when a grid is made, not to list the presets."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

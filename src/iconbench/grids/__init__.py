"""Generated ICON-like grids (doubly periodic torus and limited area) and real ICON grid files.

>>> from iconbench.grids import generate
>>> grid = generate("tiny").grid
>>> grid.num_cells, grid.num_edges, grid.num_vertices, grid.num_levels
(512, 768, 256, 10)
"""

from iconbench.grids.generator import GeneratedGrid, generate, zone_bounds
from iconbench.grids.gridfile import load_grid_file, write_grid_file
from iconbench.grids.presets import PRESETS, GridSpec, spec_for

__all__ = [
    "PRESETS",
    "GeneratedGrid",
    "GridSpec",
    "generate",
    "load_grid_file",
    "spec_for",
    "write_grid_file",
    "zone_bounds",
]

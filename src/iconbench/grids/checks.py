"""Consistency checks of a grid, run by ``iconbench grid`` on every grid it makes or reads.

They catch a broken generator or a grid file that does not fit the programs' assumptions
before hours of benchmarks run on it; each returns a readable problem, never raises.
"""

from __future__ import annotations

import numpy as np
from icon4py.model.common import dimension as dims
from icon4py.model.common.grid import geometry_attributes as attrs
from icon4py.model.common.grid import horizontal as h_grid

from iconbench.grids.generator import GeneratedGrid


def check(generated: GeneratedGrid) -> list[str]:
    """All problems found in ``generated`` (empty when it is consistent)."""
    problems: list[str] = []
    grid = generated.grid
    table = {name: np.asarray(c.asnumpy()) for name, c in grid.connectivities.items()}
    c2e, e2c = table["C2E"], table["E2C"]
    cells = np.arange(grid.num_cells)
    if (np.sort(c2e, axis=1)[:, :-1] == np.sort(c2e, axis=1)[:, 1:]).any():
        problems.append("a cell lists the same edge twice in C2E")
    back = (e2c[c2e] == cells[:, None, None]).any(axis=2)
    if not back.all():
        problems.append(f"{(~back).sum()} C2E entries are not matched by E2C")
    counts = np.bincount(c2e.ravel(), minlength=grid.num_edges)
    if not grid.limited_area and not (counts == 2).all():
        problems.append("on the torus every edge must border exactly 2 cells")
    if grid.limited_area and not np.isin(counts, (1, 2)).all():
        problems.append("every edge must border 1 or 2 cells")
    if generated.geometry:
        problems += _check_geometry(generated, c2e)
    problems += _check_zones(grid)
    return problems


def _check_geometry(generated: GeneratedGrid, c2e: np.ndarray) -> list[str]:
    geometry = generated.geometry
    if attrs.EDGE_NORMAL_U not in geometry:
        return []
    problems = []
    u, v = 3.0, -2.0  # any constant wind: its discrete divergence must vanish on interior cells
    flux = geometry[attrs.EDGE_LENGTH] * (
        u * geometry[attrs.EDGE_NORMAL_U] + v * geometry[attrs.EDGE_NORMAL_V]
    )
    divergence = (flux[c2e] * geometry[attrs.CELL_NORMAL_ORIENTATION]).sum(axis=1)
    interior = np.ones(c2e.shape[0], dtype=bool)
    if generated.grid.limited_area:
        interior[
            : generated.grid.start_index(h_grid.cell_domain(h_grid.Zone.LATERAL_BOUNDARY_LEVEL_2))
        ] = False
    scale = np.abs(flux).max()
    if np.abs(divergence[interior]).max() > 1e-9 * scale:
        problems.append("divergence of a constant wind is not zero: orientation signs are wrong")
    if (geometry[attrs.CELL_AREA] <= 0).any():
        problems.append("some cells have non-positive area")
    return problems


def _check_zones(grid) -> list[str]:
    problems = []
    for dim in (dims.CellDim, dims.EdgeDim, dims.VertexDim):
        size = grid.size[dim]
        previous_end = 0
        for domain in h_grid.get_ordered_domains(dim):
            start, end = int(grid.start_index(domain)), int(grid.end_index(domain))
            if grid.limited_area and not previous_end == start < end:
                problems.append(f"{dim.value} zone {domain.zone} [{start}, {end}) is not next")
            previous_end = end
        interior = h_grid.domain(dim)(h_grid.Zone.INTERIOR)
        start, end = int(grid.start_index(interior)), int(grid.end_index(interior))
        if not 0 <= start < end <= size:
            problems.append(f"{dim.value} interior [{start}, {end}) is empty or out of range")
    return problems

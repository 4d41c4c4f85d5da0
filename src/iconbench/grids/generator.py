"""Assemble a generated grid: lattice -> topology -> (LAM ordering) -> icon4py ``IconGrid``.

The start/end index of every horizontal zone is computed by icon4py itself
(``grid_refinement.compute_domain_bounds``) from the refin_ctrl fields, exactly as its grid
manager does for a grid file, so the generated grid and a real ICON grid answer
``grid.start_index(domain)`` by the same rule.
"""

from __future__ import annotations

import dataclasses
import functools
import sys
import time
import uuid

import gt4py.next as gtx
import gt4py.next.typing as gtx_typing
import numpy as np
from icon4py.model.common import dimension as dims
from icon4py.model.common.decomposition import halo
from icon4py.model.common.grid import base, grid_refinement, icon
from icon4py.model.common.grid import horizontal as h_grid

from iconbench.grids import lateral_boundary
from iconbench.grids.connectivity import Topology, derive_topology
from iconbench.grids.geometry import compute_geometry
from iconbench.grids.presets import GridSpec, spec_for
from iconbench.grids.torus import Lattice, patch_lattice, torus_lattice
from iconbench.grids.vertical import VerticalSetup, build_vertical

PROGRESS_FROM_CELLS = 200_000
"""Grids at least this big report their generation steps on stderr."""


@dataclasses.dataclass(frozen=True)
class GeneratedGrid:
    """A grid ready for the programs: icon4py grid, geometry fields, vertical grid, its spec."""

    spec: GridSpec
    grid: icon.IconGrid
    geometry: dict[str, np.ndarray]
    vertical: VerticalSetup
    topology: Topology
    refinement_control: lateral_boundary.RefinementControl

    def zone_bounds(self) -> dict[str, dict[str, tuple[int, int]]]:
        """``{dim: {zone: (start, end)}}`` for every zone icon4py defines on each dimension."""
        return zone_bounds(self.grid)


def zone_bounds(grid: icon.IconGrid) -> dict[str, dict[str, tuple[int, int]]]:
    """Start and end index of every horizontal zone of ``grid``, by dimension name."""
    bounds: dict[str, dict[str, tuple[int, int]]] = {}
    for dim in (dims.CellDim, dims.EdgeDim, dims.VertexDim):
        bounds[dim.value] = {
            str(domain.zone): (int(grid.start_index(domain)), int(grid.end_index(domain)))
            for domain in h_grid.get_domains_for_dim(dim)
        }
    return bounds


def generate(
    spec: GridSpec | str,
    *,
    allocator: gtx_typing.Allocator | None = None,
    keep_skip_values: bool = False,
) -> GeneratedGrid:
    """Generate the lattice of ``spec`` (a :class:`GridSpec` or a preset name); deterministic.

    iconbench's own lattice: :func:`iconbench.grids.generate` makes any preset, the ones
    icon-grid-generator makes included.

    ``allocator`` places the connectivities (None: numpy on the host; a cupy allocator: on
    the GPU). On a limited-area grid the ``-1`` of missing boundary neighbours are replaced
    by a valid neighbour, as in icon4py's test and benchmark grids (which all use
    ``keep_skip_values=False``); ``keep_skip_values=True`` keeps them, as ICON's file has them.
    Geometry stays numpy, ``allocator``-independent.
    """
    if isinstance(spec, str):
        spec = spec_for(spec, None, None)
    progress = _Progress(enabled=spec.num_cells >= PROGRESS_FROM_CELLS, name=spec.name)
    lattice = _lattice(spec)
    progress.step("lattice")
    topology = derive_topology(lattice)
    progress.step("topology")
    vertex_x, vertex_y = lattice.vertex_x, lattice.vertex_y
    if spec.limited_area:
        topology, control, (_, _, vertex_order) = lateral_boundary.order_like_icon(topology)
        vertex_x, vertex_y = vertex_x[vertex_order], vertex_y[vertex_order]
        progress.step("lateral boundary zones")
    else:
        control = lateral_boundary.RefinementControl(
            cells=np.zeros(topology.num_cells, dtype=np.int32),
            edges=np.zeros(topology.num_edges, dtype=np.int32),
            vertices=np.zeros(topology.num_vertices, dtype=np.int32),
        )
    geometry = compute_geometry(topology, vertex_x, vertex_y, lattice.period)
    progress.step("geometry")
    vertical = build_vertical(spec.num_levels, allocator)
    grid = build_icon_grid(
        spec,
        topology.neighbor_tables(),
        control,
        allocator=allocator,
        keep_skip_values=keep_skip_values,
        grid_params=_grid_params(spec),
    )
    progress.step("icon4py grid")
    return GeneratedGrid(
        spec=spec,
        grid=grid,
        geometry=geometry,
        vertical=vertical,
        topology=topology,
        refinement_control=control,
    )


def build_icon_grid(
    spec: GridSpec,
    neighbor_tables: dict[gtx.FieldOffset, np.ndarray],
    control: lateral_boundary.RefinementControl,
    *,
    allocator: gtx_typing.Allocator | None,
    keep_skip_values: bool,
    grid_params: icon.GridParams,
) -> icon.IconGrid:
    """An icon4py ``IconGrid`` with zone bounds computed by icon4py from ``control``."""
    size = base.HorizontalGridSize(
        num_vertices=control.vertices.size,
        num_edges=control.edges.size,
        num_cells=control.cells.size,
    )
    refinement_fields = {
        dims.CellDim: gtx.as_field((dims.CellDim,), control.cells, allocator=allocator),
        dims.EdgeDim: gtx.as_field((dims.EdgeDim,), control.edges, allocator=allocator),
        dims.VertexDim: gtx.as_field((dims.VertexDim,), control.vertices, allocator=allocator),
    }
    decomposition_info = halo.NoHalos(horizontal_size=size, allocator=allocator)(None)
    start_index, end_index = icon.get_start_and_end_index(
        functools.partial(
            grid_refinement.compute_domain_bounds,
            refinement_fields=refinement_fields,
            decomposition_info=decomposition_info,
        )
    )
    config = base.GridConfig(
        horizontal_config=size,
        vertical_size=spec.num_levels,
        limited_area=spec.limited_area,
        keep_skip_values=keep_skip_values,
    )
    return icon.icon_grid(
        id_=str(uuid.uuid5(uuid.NAMESPACE_URL, f"iconbench:{spec}")),
        allocator=allocator,
        config=config,
        neighbor_tables=neighbor_tables,
        start_index=start_index,
        end_index=end_index,
        grid_params=grid_params,
        refinement_control=refinement_fields,
    )


def _lattice(spec: GridSpec) -> Lattice:
    if spec.limited_area:
        return patch_lattice(spec.nx, spec.ny, edge_length=spec.edge_length)
    return torus_lattice(spec.nx, spec.ny, edge_length=spec.edge_length)


def _grid_params(spec: GridSpec) -> icon.GridParams:
    length, height = spec.domain_size
    return icon.GridParams(icon.TorusParams(domain_length=length, domain_height=height))


class _Progress:
    """Prints ``name: step (seconds)`` on stderr for big grids, so a long wait is explained."""

    def __init__(self, *, enabled: bool, name: str) -> None:
        self.enabled, self.name, self.start = enabled, name, time.perf_counter()

    def step(self, what: str) -> None:
        if self.enabled:
            elapsed = time.perf_counter() - self.start
            print(f"grid {self.name}: {what} done ({elapsed:.1f} s)", file=sys.stderr, flush=True)

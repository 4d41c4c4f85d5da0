"""Every neighbour table of a triangulation, derived from its cell->vertex table alone.

Deriving all tables from ``C2V`` (and vertex positions for the counter-clockwise order around a
vertex) keeps them consistent by construction: the torus and the limited-area patch share this
code, and a renumbering (the LAM zone ordering) is applied to the primary tables only. The
tables that icon4py derives itself when it reads a grid file (E2C2V, E2C2E, C2E2C2E, ...) are
derived by icon4py's grid manager code, so a generated grid and the same grid read back from a
file have identical connectivities.

Conventions (those of ICON grid files, zero-based, ``-1`` for a missing neighbour):

* ``C2V[c]`` counter-clockwise; ``C2E[c, k]`` joins ``C2V[c, k]`` and ``C2V[c, k+1]``;
  ``C2E2C[c, k]`` is the cell across ``C2E[c, k]``.
* ``E2V[e] = (lower, higher)`` vertex number; ``E2C[e, 0]`` is the lower cell number (the only
  cell on the lateral boundary) and the edge's primal normal points from ``E2C[e, 0]`` to
  ``E2C[e, 1]``.
* ``V2C`` and ``V2E`` counter-clockwise starting east, padded with ``-1`` on the boundary;
  ``V2E2V[v, k]`` is the far end of ``V2E[v, k]``.
"""

from __future__ import annotations

import dataclasses

import gt4py.next as gtx
import numpy as np
from icon4py.model.common import dimension as dims
from icon4py.model.common.grid import grid_manager

from iconbench.grids.torus import Lattice

MISSING = -1
"""ICON's (zero-based) index of a missing neighbour, on the lateral boundary."""

MAX_VERTEX_NEIGHBOURS = 6


@dataclasses.dataclass(frozen=True)
class Topology:
    """The primary neighbour tables, as an ICON grid file stores them (zero-based)."""

    c2v: np.ndarray
    c2e: np.ndarray
    c2e2c: np.ndarray
    e2v: np.ndarray
    e2c: np.ndarray
    v2c: np.ndarray
    v2e: np.ndarray
    v2e2v: np.ndarray

    @property
    def num_cells(self) -> int:
        return self.c2v.shape[0]

    @property
    def num_edges(self) -> int:
        return self.e2v.shape[0]

    @property
    def num_vertices(self) -> int:
        return self.v2c.shape[0]

    def renumbered(
        self, cell_order: np.ndarray, edge_order: np.ndarray, vertex_order: np.ndarray
    ) -> Topology:
        """The same topology with ``new[i] = old[order[i]]`` for cells, edges and vertices.

        Row order changes with the rows' own ``order``; entries are mapped to the new numbers
        of their targets (missing neighbours stay missing).
        """
        new_number = {}
        for name, order in (("c", cell_order), ("e", edge_order), ("v", vertex_order)):
            inverse = np.empty(order.size + 1, dtype=np.int64)
            inverse[order] = np.arange(order.size)
            inverse[-1] = MISSING  # table value -1 indexes the last slot
            new_number[name] = inverse
        row_order = {"c": cell_order, "e": edge_order, "v": vertex_order}

        def remap(table: np.ndarray, source: str, target: str) -> np.ndarray:
            return new_number[target][table[row_order[source]]]

        return Topology(
            c2v=remap(self.c2v, "c", "v"),
            c2e=remap(self.c2e, "c", "e"),
            c2e2c=remap(self.c2e2c, "c", "c"),
            e2v=remap(self.e2v, "e", "v"),
            e2c=remap(self.e2c, "e", "c"),
            v2c=remap(self.v2c, "v", "c"),
            v2e=remap(self.v2e, "v", "e"),
            v2e2v=remap(self.v2e2v, "v", "v"),
        )

    def primary_tables(self) -> dict[gtx.FieldOffset, np.ndarray]:
        """The tables an ICON grid file holds, keyed by icon4py offset."""
        return {
            dims.C2V: self.c2v,
            dims.C2E: self.c2e,
            dims.C2E2C: self.c2e2c,
            dims.E2V: self.e2v,
            dims.E2C: self.e2c,
            dims.V2C: self.v2c,
            dims.V2E: self.v2e,
            dims.V2E2V: self.v2e2v,
        }

    def neighbor_tables(self) -> dict[gtx.FieldOffset, np.ndarray]:
        """Primary tables plus the ones icon4py derives (E2C2V, E2C2E(O), C2E2CO, C2E2C2E(2C))."""
        tables = {k: v.astype(gtx.int32) for k, v in self.primary_tables().items()}
        tables.update(grid_manager._get_derived_connectivities(tables))
        return {k: np.ascontiguousarray(v, dtype=gtx.int32) for k, v in tables.items()}


def periodic_difference(delta: np.ndarray, period: float | None) -> np.ndarray:
    """``delta`` wrapped into ``[-period/2, period/2)`` (minimum image), unchanged without one."""
    if period is None:
        return delta
    return delta - period * np.floor(delta / period + 0.5)


def derive_topology(lattice: Lattice) -> Topology:
    """All primary tables of ``lattice`` following the conventions of the module docstring."""
    c2v = lattice.cell_vertices.astype(np.int64)
    num_cells = c2v.shape[0]
    num_vertices = lattice.vertex_x.size

    # Half-edges (c, k) from C2V[c, k] to C2V[c, k+1]; an edge is an unordered vertex pair.
    start = c2v.ravel()
    end = np.roll(c2v, -1, axis=1).ravel()
    low, high = np.minimum(start, end), np.maximum(start, end)
    keys, c2e_flat = np.unique(low * num_vertices + high, return_inverse=True)
    num_edges = keys.size
    c2e = c2e_flat.reshape(num_cells, 3)
    e2v = np.stack(np.divmod(keys, num_vertices), axis=1)

    # E2C: cells of each edge in increasing cell number (the stable sort keeps cell order).
    by_edge = np.argsort(c2e_flat, kind="stable")
    counts = np.bincount(c2e_flat, minlength=num_edges)
    first = np.concatenate([[0], np.cumsum(counts)[:-1]])
    e2c = np.full((num_edges, 2), MISSING, dtype=np.int64)
    e2c[:, 0] = by_edge[first] // 3
    two = counts == 2
    e2c[two, 1] = by_edge[first[two] + 1] // 3

    other = np.where(e2c[c2e, 0] == np.arange(num_cells)[:, None], e2c[c2e, 1], e2c[c2e, 0])
    c2e2c = other

    v2c = _around_vertices(
        c2v.ravel(), np.repeat(np.arange(num_cells), 3), _cell_angles(lattice, c2v), num_vertices
    )
    edge_angle_from_low, edge_angle_from_high = _edge_angles(lattice, e2v)
    v2e = _around_vertices(
        e2v.T.ravel(),
        np.tile(np.arange(num_edges), 2),
        np.concatenate([edge_angle_from_low, edge_angle_from_high]),
        num_vertices,
    )
    far_end = np.where(e2v[v2e, 0] == np.arange(num_vertices)[:, None], e2v[v2e, 1], e2v[v2e, 0])
    v2e2v = np.where(v2e == MISSING, MISSING, far_end)
    return Topology(c2v=c2v, c2e=c2e, c2e2c=c2e2c, e2v=e2v, e2c=e2c, v2c=v2c, v2e=v2e, v2e2v=v2e2v)


def _cell_angles(lattice: Lattice, c2v: np.ndarray) -> np.ndarray:
    """Angle of each cell's centre seen from each of its vertices, shape ``(3 * num_cells,)``."""
    lx, ly = lattice.period if lattice.period else (None, None)
    dx = periodic_difference(lattice.vertex_x[c2v] - lattice.vertex_x[c2v][:, :1], lx)
    dy = periodic_difference(lattice.vertex_y[c2v] - lattice.vertex_y[c2v][:, :1], ly)
    cx, cy = dx.mean(axis=1, keepdims=True), dy.mean(axis=1, keepdims=True)
    return np.arctan2(cy - dy, cx - dx).ravel()


def _edge_angles(lattice: Lattice, e2v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Direction of each edge seen from its lower and from its higher vertex."""
    lx, ly = lattice.period if lattice.period else (None, None)
    dx = periodic_difference(lattice.vertex_x[e2v[:, 1]] - lattice.vertex_x[e2v[:, 0]], lx)
    dy = periodic_difference(lattice.vertex_y[e2v[:, 1]] - lattice.vertex_y[e2v[:, 0]], ly)
    return np.arctan2(dy, dx), np.arctan2(-dy, -dx)


def _around_vertices(
    vertex: np.ndarray, neighbour: np.ndarray, angle: np.ndarray, num_vertices: int
) -> np.ndarray:
    """``(num_vertices, 6)`` table of ``neighbour``, counter-clockwise from east, -1 padded."""
    angle = np.mod(angle + 1e-9, 2 * np.pi)  # east (0) first, round-off must not wrap to 2 pi
    order = np.lexsort((angle, vertex))
    vertex, neighbour = vertex[order], neighbour[order]
    counts = np.bincount(vertex, minlength=num_vertices)
    first = np.concatenate([[0], np.cumsum(counts)[:-1]])
    slot = np.arange(vertex.size) - first[vertex]
    table = np.full((num_vertices, MAX_VERTEX_NEIGHBOURS), MISSING, dtype=np.int64)
    table[vertex, slot] = neighbour
    return table

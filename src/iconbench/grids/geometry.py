"""Planar geometry of a generated grid, under icon4py's attribute names.

The fields are computed from vertex coordinates with the conventions icon4py's own torus
geometry uses (``geometry_stencils.cartesian_coordinates_of_edge_tangent_torus`` and
``..._edge_normal_torus``): the tangent is ``edge_orientation * (v1 - v0)`` normalised and the
primal normal is ``z x tangent``, pointing from ``E2C[e, 0]`` to ``E2C[e, 1]``. On a plane the
eastward/northward components are the x/y components, the same at cells and vertices.

Lateral-boundary edges have one cell; their dual edge length is twice the edge-to-cell
distance (as if mirrored), and a boundary vertex's dual area is a third of its cells' areas,
so that areas still add up to the domain area.
"""

from __future__ import annotations

import numpy as np
from icon4py.model.common.grid import geometry_attributes as attrs

from iconbench.grids.connectivity import MISSING, Topology, periodic_difference


def compute_geometry(
    topology: Topology,
    vertex_x: np.ndarray,
    vertex_y: np.ndarray,
    period: tuple[float, float] | None,
) -> dict[str, np.ndarray]:
    """All geometry fields of the grid, keyed by icon4py attribute name (float64, numpy)."""
    lx, ly = period if period else (None, None)
    c2v, e2v, e2c = topology.c2v, topology.e2v, topology.e2c

    def wrap_x(values: np.ndarray) -> np.ndarray:
        return np.mod(values, lx) if lx else values

    def wrap_y(values: np.ndarray) -> np.ndarray:
        return np.mod(values, ly) if ly else values

    # Cells: offsets of the vertices from vertex 0, minimum image on the torus.
    dx = periodic_difference(vertex_x[c2v] - vertex_x[c2v[:, :1]], lx)
    dy = periodic_difference(vertex_y[c2v] - vertex_y[c2v[:, :1]], ly)
    cell_area = 0.5 * (
        (dx[:, 1] - dx[:, 0]) * (dy[:, 2] - dy[:, 0])
        - (dx[:, 2] - dx[:, 0]) * (dy[:, 1] - dy[:, 0])
    )
    cell_x = wrap_x(vertex_x[c2v[:, 0]] + dx.mean(axis=1))
    cell_y = wrap_y(vertex_y[c2v[:, 0]] + dy.mean(axis=1))

    # Edges: d = v1 - v0, midpoint, normal pointing from E2C[0] to E2C[1].
    ex = periodic_difference(vertex_x[e2v[:, 1]] - vertex_x[e2v[:, 0]], lx)
    ey = periodic_difference(vertex_y[e2v[:, 1]] - vertex_y[e2v[:, 0]], ly)
    edge_length = np.hypot(ex, ey)
    mid_x = vertex_x[e2v[:, 0]] + 0.5 * ex
    mid_y = vertex_y[e2v[:, 0]] + 0.5 * ey
    to_cell0_x = periodic_difference(cell_x[e2c[:, 0]] - mid_x, lx)
    to_cell0_y = periodic_difference(cell_y[e2c[:, 0]] - mid_y, ly)
    # Candidate normal d rotated by -90 degrees; flip it where it points into cell 0.
    nx, ny = ey / edge_length, -ex / edge_length
    flip = np.where(nx * to_cell0_x + ny * to_cell0_y > 0.0, -1.0, 1.0)
    nx, ny = nx * flip, ny * flip
    tx, ty = ny, -nx  # normal = z x tangent  <=>  tangent = normal x z
    tangent_orientation = np.sign(tx * ex + ty * ey)

    distance_cell0 = np.hypot(to_cell0_x, to_cell0_y)
    has_two = e2c[:, 1] != MISSING
    to_cell1_x = periodic_difference(cell_x[e2c[:, 1]] - mid_x, lx)
    to_cell1_y = periodic_difference(cell_y[e2c[:, 1]] - mid_y, ly)
    distance_cell1 = np.where(has_two, np.hypot(to_cell1_x, to_cell1_y), distance_cell0)
    dual_edge_length = distance_cell0 + distance_cell1

    # Cell normal orientation: +1 where the edge's normal points out of the cell.
    cell_normal_orientation = np.where(
        e2c[topology.c2e, 0] == np.arange(topology.num_cells)[:, None], 1.0, -1.0
    )
    # Orientation of edges around a vertex: +1 where the normal runs counter-clockwise around it.
    v2e = topology.v2e
    valid = v2e != MISSING
    radial_x = periodic_difference(mid_x[v2e] - vertex_x[:, None], lx)
    radial_y = periodic_difference(mid_y[v2e] - vertex_y[:, None], ly)
    ccw = nx[v2e] * -radial_y + ny[v2e] * radial_x  # normal . (z x radial)
    vertex_edge_orientation = np.where(valid, np.sign(ccw), 0.0)

    v2c = topology.v2c
    dual_area = np.where(v2c != MISSING, cell_area[v2c], 0.0).sum(axis=1) / 3.0
    far = _far_vertices(topology)
    vv_x = periodic_difference(vertex_x[far[:, 1]] - vertex_x[far[:, 0]], lx)
    vv_y = periodic_difference(vertex_y[far[:, 1]] - vertex_y[far[:, 0]], ly)
    vertex_vertex_length = np.where(
        (far >= 0).all(axis=1), np.hypot(vv_x, vv_y), np.sqrt(3.0) * edge_length
    )

    zeros_c, zeros_e, zeros_v = (np.zeros(n) for n in (cell_x.size, ex.size, vertex_x.size))
    on_cells = np.stack([nx, nx], axis=1), np.stack([ny, ny], axis=1)
    on_verts = np.stack([nx] * 4, axis=1), np.stack([ny] * 4, axis=1)
    return {
        attrs.VERTEX_X: vertex_x.astype(np.float64),
        attrs.VERTEX_Y: vertex_y.astype(np.float64),
        attrs.VERTEX_Z: zeros_v,
        attrs.CELL_CENTER_X: cell_x,
        attrs.CELL_CENTER_Y: cell_y,
        attrs.CELL_CENTER_Z: zeros_c,
        attrs.EDGE_CENTER_X: wrap_x(mid_x),
        attrs.EDGE_CENTER_Y: wrap_y(mid_y),
        attrs.EDGE_CENTER_Z: zeros_e,
        attrs.CELL_AREA: cell_area,
        attrs.DUAL_AREA: dual_area,
        attrs.EDGE_AREA: 0.5 * edge_length * dual_edge_length,
        attrs.EDGE_LENGTH: edge_length,
        "inverse_of_edge_length": 1.0 / edge_length,
        attrs.DUAL_EDGE_LENGTH: dual_edge_length,
        "inverse_of_length_of_dual_edge": 1.0 / dual_edge_length,
        attrs.VERTEX_VERTEX_LENGTH: vertex_vertex_length,
        attrs.INVERSE_VERTEX_VERTEX_LENGTH: 1.0 / vertex_vertex_length,
        attrs.EDGE_CELL_DISTANCE: np.stack([distance_cell0, distance_cell1], axis=1),
        attrs.EDGE_VERTEX_DISTANCE: np.stack([0.5 * edge_length, 0.5 * edge_length], axis=1),
        attrs.EDGE_NORMAL_X: nx,
        attrs.EDGE_NORMAL_Y: ny,
        attrs.EDGE_NORMAL_Z: zeros_e,
        attrs.EDGE_NORMAL_U: nx,
        attrs.EDGE_NORMAL_V: ny,
        attrs.EDGE_TANGENT_X: tx,
        attrs.EDGE_TANGENT_Y: ty,
        attrs.EDGE_TANGENT_Z: zeros_e,
        attrs.EDGE_DUAL_U: tx,
        attrs.EDGE_DUAL_V: ty,
        attrs.EDGE_NORMAL_CELL_U: on_cells[0],
        attrs.EDGE_NORMAL_CELL_V: on_cells[1],
        attrs.EDGE_NORMAL_VERTEX_U: on_verts[0],
        attrs.EDGE_NORMAL_VERTEX_V: on_verts[1],
        attrs.EDGE_TANGENT_CELL_U: np.stack([tx, tx], axis=1),
        attrs.EDGE_TANGENT_CELL_V: np.stack([ty, ty], axis=1),
        attrs.EDGE_TANGENT_VERTEX_U: np.stack([tx] * 4, axis=1),
        attrs.EDGE_TANGENT_VERTEX_V: np.stack([ty] * 4, axis=1),
        attrs.TANGENT_ORIENTATION: tangent_orientation,
        attrs.CELL_NORMAL_ORIENTATION: cell_normal_orientation,
        attrs.VERTEX_EDGE_ORIENTATION: vertex_edge_orientation,
        attrs.CORIOLIS_PARAMETER: zeros_e,
        attrs.MEAN_EDGE_LENGTH: np.asarray(edge_length.mean()),
        attrs.MEAN_DUAL_EDGE_LENGTH: np.asarray(dual_edge_length.mean()),
        attrs.MEAN_CELL_AREA: np.asarray(cell_area.mean()),
        attrs.MEAN_DUAL_AREA: np.asarray(dual_area.mean()),
        attrs.CHARACTERISTIC_LENGTH: np.asarray(np.sqrt(cell_area.mean())),
    }


def _far_vertices(topology: Topology) -> np.ndarray:
    """The vertex of each of the edge's two cells not on the edge (E2C2V[:, 2:4]), -1 if none."""
    e2v, e2c, c2v = topology.e2v, topology.e2c, topology.c2v
    far = np.full(e2c.shape, MISSING, dtype=np.int64)
    for side in (0, 1):
        cells = e2c[:, side]
        verts = c2v[cells]
        is_far = (verts != e2v[:, :1]) & (verts != e2v[:, 1:])
        pick = verts[np.arange(verts.shape[0]), is_far.argmax(axis=1)]
        far[:, side] = np.where(cells != MISSING, pick, MISSING)
    return far

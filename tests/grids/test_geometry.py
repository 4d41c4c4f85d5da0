"""Geometry of generated grids against the analytic equilateral triangulation.

iconbench's lattice torus: 16 x 16 vertices, edge a = 2000 m. An equilateral triangle of side a
has area sqrt(3)/4 a^2 = 1 732 050.8 m^2, its centre is a/(2 sqrt 3) = 577.35 m from each
edge, so the dual edge (centre to centre) is a/sqrt(3) = 1154.70 m; the torus is 16 a = 32 km
long and 16 rows x sqrt(3)/2 a = 27 712.8 m high.
"""

import math

import numpy as np
import pytest
from icon4py.model.common.grid import geometry_attributes as attrs
from icon4py.model.common.grid import horizontal as h_grid
from tests.grids.conftest import tables

A = 2000.0
CELL_AREA = math.sqrt(3.0) / 4.0 * A**2
DOMAIN_AREA = 32000.0 * 16 * math.sqrt(3.0) / 2.0 * A


def wrap(delta, period):
    return delta - period * np.round(delta / period)


def test_lengths_and_areas_of_the_torus(lattice_torus):
    g = lattice_torus.geometry
    assert g[attrs.EDGE_LENGTH] == pytest.approx(np.full(768, 2000.0))
    assert g[attrs.DUAL_EDGE_LENGTH] == pytest.approx(np.full(768, 1154.7005), rel=1e-6)
    assert g[attrs.CELL_AREA] == pytest.approx(np.full(512, 1_732_050.8), rel=1e-7)
    assert g[attrs.DUAL_AREA] == pytest.approx(np.full(256, 2 * 1_732_050.8), rel=1e-7)
    assert g[attrs.EDGE_CELL_DISTANCE] == pytest.approx(np.full((768, 2), 577.35027), rel=1e-6)
    assert g[attrs.EDGE_VERTEX_DISTANCE] == pytest.approx(np.full((768, 2), 1000.0))
    assert g[attrs.VERTEX_VERTEX_LENGTH] == pytest.approx(np.full(768, 3464.1016), rel=1e-6)
    assert g["inverse_of_edge_length"] == pytest.approx(np.full(768, 1 / 2000.0))
    assert g[attrs.CELL_AREA].sum() == pytest.approx(DOMAIN_AREA, rel=1e-12)
    assert g[attrs.DUAL_AREA].sum() == pytest.approx(DOMAIN_AREA, rel=1e-12)
    assert g[attrs.EDGE_AREA].sum() == pytest.approx(DOMAIN_AREA, rel=1e-12)


def test_lam_areas_add_up_to_the_area_of_its_cells(tiny_lam):
    g = tiny_lam.geometry
    # Every cell is the same equilateral triangle, so the patch area is cells x triangle.
    patch_area = tiny_lam.grid.num_cells * CELL_AREA
    assert g[attrs.CELL_AREA].sum() == pytest.approx(patch_area, rel=1e-12)
    assert g[attrs.DUAL_AREA].sum() == pytest.approx(patch_area, rel=1e-12)


@pytest.mark.parametrize("which", ["lattice_torus", "tiny_lam"])
def test_normals_are_unit_perpendicular_and_point_from_cell0_to_cell1(which, request):
    generated = request.getfixturevalue(which)
    g, t = generated.geometry, tables(generated)
    length, height = generated.spec.domain_size
    period = (length, height) if not generated.spec.limited_area else (np.inf, np.inf)
    nx, ny = g[attrs.EDGE_NORMAL_U], g[attrs.EDGE_NORMAL_V]
    tx, ty = g[attrs.EDGE_DUAL_U], g[attrs.EDGE_DUAL_V]
    assert np.hypot(nx, ny) == pytest.approx(np.ones_like(nx))
    vx, vy = g[attrs.VERTEX_X], g[attrs.VERTEX_Y]
    e2v, e2c = t["E2V"], t["E2C"]
    dx = wrap(vx[e2v[:, 1]] - vx[e2v[:, 0]], period[0]) if period[0] != np.inf else None
    if dx is None:
        dx = vx[e2v[:, 1]] - vx[e2v[:, 0]]
    dy = vy[e2v[:, 1]] - vy[e2v[:, 0]]
    if period[1] != np.inf:
        dy = wrap(dy, period[1])
    assert np.abs(nx * dx + ny * dy).max() < 1e-9 * A  # normal is perpendicular to the edge
    # icon4py: tangent = edge_orientation * (v1 - v0) / |v1 - v0|, normal = z x tangent.
    orientation = g[attrs.TANGENT_ORIENTATION]
    assert set(np.unique(orientation)) == {-1.0, 1.0}
    assert tx == pytest.approx(orientation * dx / A)
    assert ty == pytest.approx(orientation * dy / A)
    assert nx == pytest.approx(-ty)
    assert ny == pytest.approx(tx)
    cx, cy = g[attrs.CELL_CENTER_X], g[attrs.CELL_CENTER_Y]
    both = e2c[:, 1] >= 0
    ddx = cx[e2c[both, 1]] - cx[e2c[both, 0]]
    ddy = cy[e2c[both, 1]] - cy[e2c[both, 0]]
    if period[0] != np.inf:
        ddx, ddy = wrap(ddx, period[0]), wrap(ddy, period[1])
    # Cell 1 lies one dual edge (a / sqrt 3) along the normal from cell 0.
    assert nx[both] * ddx + ny[both] * ddy == pytest.approx(np.full(both.sum(), A / math.sqrt(3)))


@pytest.mark.parametrize("which", ["lattice_torus", "tiny_lam"])
def test_divergence_of_a_constant_wind_is_zero(which, request):
    generated = request.getfixturevalue(which)
    g, c2e = generated.geometry, tables(generated)["C2E"]
    u, v = 7.0, -3.0
    flux = g[attrs.EDGE_LENGTH] * (u * g[attrs.EDGE_NORMAL_U] + v * g[attrs.EDGE_NORMAL_V])
    divergence = (flux[c2e] * g[attrs.CELL_NORMAL_ORIENTATION]).sum(axis=1)
    assert np.abs(divergence).max() < 1e-9 * abs(flux).max()
    assert set(np.unique(g[attrs.CELL_NORMAL_ORIENTATION])) == {-1.0, 1.0}


def test_divergence_of_a_linear_wind_is_its_analytic_value(tiny_lam):
    """Gauss: div (x, 2y) = 3, so the outward flux through a cell is 3 x its area."""
    g, c2e = tiny_lam.geometry, tables(tiny_lam)["C2E"]
    ex, ey = g[attrs.EDGE_CENTER_X], g[attrs.EDGE_CENTER_Y]
    flux = g[attrs.EDGE_LENGTH] * (ex * g[attrs.EDGE_NORMAL_U] + 2 * ey * g[attrs.EDGE_NORMAL_V])
    outward = (flux[c2e] * g[attrs.CELL_NORMAL_ORIENTATION]).sum(axis=1)
    assert outward == pytest.approx(3.0 * g[attrs.CELL_AREA], rel=1e-9)


def test_circulation_of_a_constant_wind_around_vertices_is_zero(lattice_torus):
    g, v2e = lattice_torus.geometry, tables(lattice_torus)["V2E"]
    u, v = 7.0, -3.0
    normal_wind = u * g[attrs.EDGE_NORMAL_U] + v * g[attrs.EDGE_NORMAL_V]
    circulation = (
        normal_wind[v2e] * g[attrs.DUAL_EDGE_LENGTH][v2e] * g[attrs.VERTEX_EDGE_ORIENTATION]
    ).sum(axis=1)
    assert np.abs(circulation).max() < 1e-9 * A * 10
    # Solid-body rotation has constant vorticity 2: circulation = 2 x dual area... on a
    # regular hexagon too, checked with the rotation (-y, x) around each vertex itself.
    vx, vy = g[attrs.VERTEX_X], g[attrs.VERTEX_Y]
    rx = wrap(g[attrs.EDGE_CENTER_X][v2e] - vx[:, None], 32000.0)
    ry = wrap(g[attrs.EDGE_CENTER_Y][v2e] - vy[:, None], lattice_torus.spec.domain_size[1])
    rot_normal = -ry * g[attrs.EDGE_NORMAL_U][v2e] + rx * g[attrs.EDGE_NORMAL_V][v2e]
    rot = (rot_normal * g[attrs.DUAL_EDGE_LENGTH][v2e] * g[attrs.VERTEX_EDGE_ORIENTATION]).sum(1)
    assert rot == pytest.approx(2.0 * g[attrs.DUAL_AREA], rel=1e-9)


def test_zone_cells_are_where_icon_puts_them(tiny_lam):
    """Cells of LATERAL_BOUNDARY touch the rim; INTERIOR cells are >= 5 rows away from it."""
    t = tables(tiny_lam)
    grid = tiny_lam.grid
    rim_edges = np.flatnonzero(np.bincount(t["C2E"].ravel()) == 1)
    rim_vertices = set(t["E2V"][rim_edges].ravel().tolist())
    boundary = h_grid.cell_domain(h_grid.Zone.LATERAL_BOUNDARY)
    start, end = grid.start_index(boundary), grid.end_index(boundary)
    touching = [bool(set(row) & rim_vertices) for row in t["C2V"].tolist()]
    assert all(touching[start:end])
    assert not any(touching[end:])
    # Walk 5 vertex-neighbour rings inwards by hand: interior cells are beyond them.
    near = set(rim_vertices)
    for _ in range(4):
        near |= {v for row in t["C2V"].tolist() if set(row) & near for v in row}
    interior = h_grid.cell_domain(h_grid.Zone.INTERIOR)
    for row in t["C2V"][grid.start_index(interior) : grid.end_index(interior)].tolist():
        assert not set(row) & near

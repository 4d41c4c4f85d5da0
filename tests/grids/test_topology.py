"""Topology invariants of generated grids, checked from the icon4py grid's own tables.

Expectations are counted here from first principles (Euler's formula, six triangles around
a vertex of an equilateral lattice), never with generator code.
"""

import gt4py.next as gtx
import numpy as np
import pytest
from gt4py.next import neighbor_sum
from icon4py.model.common import dimension as dims
from tests.grids.conftest import tables


def rows_as_sets(table):
    return [set(row[row >= 0].tolist()) for row in table]


def test_tiny_torus_sizes(lattice_torus):
    grid = lattice_torus.grid
    # 16 x 16 vertices; a triangulated torus has E = 3V and C = 2V (Euler: V - E + C = 0).
    assert (grid.num_vertices, grid.num_edges, grid.num_cells, grid.num_levels) == (
        256,
        768,
        512,
        10,
    )
    assert not grid.limited_area


def test_lam_sizes_satisfy_euler_for_a_disc(tiny_lam):
    grid = tiny_lam.grid
    assert grid.num_vertices - grid.num_edges + grid.num_cells == 1
    assert grid.limited_area


def test_every_offset_the_programs_use_is_present(lattice_torus):
    expected = {
        "C2E", "E2C", "C2V", "V2C", "E2V", "V2E", "C2E2C", "C2E2CO", "E2C2V", "E2C2E",
        "E2C2EO", "C2E2C2E", "C2E2C2E2C", "V2E2V",
    }  # fmt: skip
    assert expected <= set(lattice_torus.grid.connectivities)
    shapes = {name: c.asnumpy().shape for name, c in lattice_torus.grid.connectivities.items()}
    assert shapes["C2E2C2E"] == (512, 9)
    assert shapes["E2C2V"] == (768, 4)
    assert shapes["V2E"] == (256, 6)


@pytest.mark.parametrize("which", ["lattice_torus", "tiny_lam"])
def test_cells_have_three_distinct_edges_vertices_and_edges_two_cells(which, request):
    generated = request.getfixturevalue(which)
    t = tables(generated)
    for name in ("C2E", "C2V"):
        assert all(len(set(row)) == 3 for row in t[name].tolist()), name
    cells_per_edge = np.bincount(t["C2E"].ravel(), minlength=generated.grid.num_edges)
    if which == "lattice_torus":
        assert (cells_per_edge == 2).all()
    else:
        assert set(np.unique(cells_per_edge)) == {1, 2}
        # The rim of a triangulated disc is one cycle: as many rim edges as rim vertices
        # (those with fewer than 6 cells), and every rim vertex on exactly 2 rim edges.
        rim_edges = np.flatnonzero(cells_per_edge == 1)
        rim_vertices = np.flatnonzero((t["V2C"] >= 0).sum(axis=1) < 6)
        assert rim_edges.size == rim_vertices.size > 0
        on_rim = np.bincount(t["E2V"][rim_edges].ravel(), minlength=generated.grid.num_vertices)
        assert set(np.flatnonzero(on_rim)) == set(rim_vertices)
        assert (on_rim[rim_vertices] == 2).all()


def test_torus_vertices_have_six_cells_and_six_edges(lattice_torus):
    t = tables(lattice_torus)
    for name in ("V2C", "V2E", "V2E2V"):
        assert (t[name] >= 0).all(), name
        assert all(len(set(row)) == 6 for row in t[name].tolist()), name


@pytest.mark.parametrize("which", ["lattice_torus", "tiny_lam"])
def test_neighbour_relations_are_mutual(which, request):
    generated = request.getfixturevalue(which)
    t = tables(generated)
    c2e, e2c, c2v, v2c = (rows_as_sets(t[n]) for n in ("C2E", "E2C", "C2V", "V2C"))
    e2v, v2e = rows_as_sets(t["E2V"]), rows_as_sets(t["V2E"])
    for cell, edges in enumerate(c2e):
        assert all(cell in e2c[e] for e in edges)
    for edge, cells in enumerate(e2c):
        assert all(edge in c2e[c] for c in cells)
        # An edge's two vertices are vertices of each of its cells.
        assert all(e2v[edge] <= c2v[c] for c in cells)
    for cell, verts in enumerate(c2v):
        assert all(cell in v2c[v] for v in verts)
    for vertex, edges in enumerate(v2e):
        assert all(vertex in e2v[e] for e in edges)
    c2e2c = rows_as_sets(t["C2E2C"])
    for cell, neighbours in enumerate(c2e2c):
        assert all(cell in c2e2c[n] for n in neighbours)
        # Neighbours share exactly one edge.
        assert all(len(c2e[cell] & c2e[n]) == 1 for n in neighbours)
    v2e2v = rows_as_sets(t["V2E2V"])
    for vertex, neighbours in enumerate(v2e2v):
        assert all(vertex in v2e2v[n] for n in neighbours)


def test_c2e2c_is_across_the_matching_c2e_edge(lattice_torus):
    t = tables(lattice_torus)
    c2e, c2e2c, e2c = t["C2E"], t["C2E2C"], t["E2C"]
    for cell in range(c2e.shape[0]):
        for k in range(3):
            assert set(e2c[c2e[cell, k]]) == {cell, c2e2c[cell, k]}


def test_derived_tables_agree_with_primary_ones(lattice_torus):
    t = tables(lattice_torus)
    n_cells, n_edges = t["C2E"].shape[0], t["E2C"].shape[0]
    assert (t["C2E2CO"][:, 0] == np.arange(n_cells)).all()
    assert (t["C2E2CO"][:, 1:] == t["C2E2C"]).all()
    assert (t["E2C2EO"][:, 0] == np.arange(n_edges)).all()
    assert (t["E2C2V"][:, :2] == t["E2V"]).all()
    for edge in range(n_edges):
        c0, c1 = t["E2C"][edge]
        diamond = set(t["C2V"][c0]) | set(t["C2V"][c1])
        assert set(t["E2C2V"][edge]) == diamond
        assert set(t["E2C2E"][edge]) == (set(t["C2E"][c0]) | set(t["C2E"][c1])) - {edge}
    for cell in range(n_cells):
        expected = set()
        for n in t["C2E2C"][cell]:
            expected |= set(t["C2E"][n])
        assert set(t["C2E2C2E"][cell]) == expected


def test_generation_is_deterministic(lattice_torus, tiny_lam):
    from iconbench import grids

    for generated in (lattice_torus, tiny_lam):
        again = grids.generate(
            generated.spec, keep_skip_values=generated.grid.config.keep_skip_values
        )
        for name, table in tables(generated).items():
            assert np.array_equal(table, again.grid.connectivities[name].asnumpy()), name
        for name, values in generated.geometry.items():
            assert np.array_equal(values, again.geometry[name]), name
        assert np.array_equal(generated.vertical.vct_a, again.vertical.vct_a)


@gtx.field_operator
def edges_per_cell(
    ones: gtx.Field[gtx.Dims[dims.EdgeDim], float],
) -> gtx.Field[gtx.Dims[dims.CellDim], float]:
    return neighbor_sum(ones(dims.C2E), axis=dims.C2EDim)


def test_connectivities_work_as_offset_provider(lattice_torus):
    """The embedded gt4py backend (no compilation) sums over C2E with the grid's provider."""
    ones = gtx.as_field([dims.EdgeDim], np.ones(lattice_torus.grid.num_edges))
    out = gtx.as_field([dims.CellDim], np.zeros(lattice_torus.grid.num_cells))
    edges_per_cell(ones, out=out, offset_provider=lattice_torus.grid.connectivities)
    assert (out.asnumpy() == 3.0).all()

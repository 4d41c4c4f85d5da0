"""ICON's lateral-boundary zones of a limited-area grid: refin_ctrl rows and their ordering.

Rows are counted from the lateral boundary as ``icon4py.model.common.grid.grid_refinement``
documents them: cell row 1 = cells with a vertex on the boundary, row n+1 = cells sharing a
vertex with row n; vertex row 1 = boundary vertices, row n+1 = the other vertices of row-n
cells; edge row 1 = boundary edges, ``2n`` = edges between two row-n cells, ``2n+1`` = edges
between a row-n and a row-(n+1) cell. Rows up to the boundary width plus the nudging zone
(4 + 8 for cells and vertices, twice that for edges) are labelled, as ICON labels them.

ICON moves the first rows to the front of every array, in row order: cells and vertices up to
row 5 (``grf_bdywidth_c + 1``), edges up to row 10 (``grf_bdywidth_e + 1``); the rest keep
their natural order. That is what makes icon4py's start/end indices of LATERAL_BOUNDARY_*,
NUDGING and INTERIOR contiguous index ranges.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from iconbench.grids.connectivity import MISSING, Topology

BOUNDARY_WIDTH_CELLS = 4
NUDGING_WIDTH = 8
LABELLED_ROWS_CELLS = BOUNDARY_WIDTH_CELLS + NUDGING_WIDTH
ORDERED_ROWS_CELLS = BOUNDARY_WIDTH_CELLS + 1
ORDERED_ROWS_EDGES = 2 * BOUNDARY_WIDTH_CELLS + 2


@dataclasses.dataclass(frozen=True)
class RefinementControl:
    """refin_ctrl per cell, edge and vertex (0 = interior), in the topology's numbering."""

    cells: np.ndarray
    edges: np.ndarray
    vertices: np.ndarray


def refinement_rows(topology: Topology) -> RefinementControl:
    """Distance from the lateral boundary, in ICON rows, of every cell, edge and vertex.

    A vertex of no cell (the corner a patch with an odd number of vertex rows leaves unused)
    is on the rim: row 1, where nothing is computed. Labelled interior, icon4py's RBF
    coefficients at vertices (computed from LATERAL_BOUNDARY_LEVEL_2 on) solve a system of
    six copies of its filled-in neighbour index: a singular matrix.
    """
    boundary_edge = topology.e2c[:, 1] == MISSING
    vertex_row = np.zeros(topology.num_vertices, dtype=np.int32)
    vertex_row[topology.e2v[boundary_edge].ravel()] = 1
    in_no_cell = np.ones(topology.num_vertices, dtype=bool)
    in_no_cell[topology.c2v.ravel()] = False
    vertex_row[in_no_cell] = 1
    cell_row = np.zeros(topology.num_cells, dtype=np.int32)
    c2v = topology.c2v
    for row in range(1, LABELLED_ROWS_CELLS + 1):
        touching = (vertex_row[c2v] == row).any(axis=1) & (cell_row == 0)
        cell_row[touching] = row
        if row == LABELLED_ROWS_CELLS:
            break
        new_vertices = c2v[touching].ravel()
        fresh = new_vertices[vertex_row[new_vertices] == 0]
        vertex_row[fresh] = row + 1

    e2c = topology.e2c
    first = cell_row[e2c[:, 0]]
    second = np.where(e2c[:, 1] == MISSING, 0, cell_row[e2c[:, 1]])
    both = (first > 0) & (second > 0)
    low = np.minimum(first, second)
    edge_row = np.where(both & (first == second), 2 * low, 0)
    edge_row = np.where(both & (first != second), 2 * low + 1, edge_row)
    edge_row = np.where(boundary_edge, 1, edge_row)
    # An edge between a last-row cell and an unlabelled cell is the next edge row.
    last = (np.maximum(first, second) == LABELLED_ROWS_CELLS) & ~both & ~boundary_edge
    edge_row = np.where(last, 2 * LABELLED_ROWS_CELLS + 1, edge_row)
    return RefinementControl(cells=cell_row, edges=edge_row.astype(np.int32), vertices=vertex_row)


def icon_order(rows: np.ndarray, ordered_rows: int) -> np.ndarray:
    """Permutation putting rows ``1..ordered_rows`` first, in row order, the rest after.

    >>> icon_order(np.array([0, 2, 1, 0, 1, 7]), ordered_rows=2).tolist()
    [2, 4, 1, 0, 3, 5]
    """
    key = np.where((rows >= 1) & (rows <= ordered_rows), rows, ordered_rows + 1)
    return np.argsort(key, kind="stable")


def order_like_icon(
    topology: Topology,
) -> tuple[Topology, RefinementControl, tuple[np.ndarray, ...]]:
    """The topology renumbered as ICON orders a LAM grid, its refin_ctrl, and the orders used.

    The returned orders are ``(cell_order, edge_order, vertex_order)`` with
    ``new[i] = old[order[i]]`` (apply them to coordinates too).
    """
    rows = refinement_rows(topology)
    cell_order = icon_order(rows.cells, ORDERED_ROWS_CELLS)
    edge_order = icon_order(rows.edges, ORDERED_ROWS_EDGES)
    vertex_order = icon_order(rows.vertices, ORDERED_ROWS_CELLS)
    ordered = topology.renumbered(cell_order, edge_order, vertex_order)
    control = RefinementControl(
        cells=rows.cells[cell_order],
        edges=rows.edges[edge_order],
        vertices=rows.vertices[vertex_order],
    )
    return ordered, control, (cell_order, edge_order, vertex_order)

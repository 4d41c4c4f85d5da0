"""The doubly periodic triangular lattice: vertex positions and the vertices of each cell.

ICON's planar torus grids (``grid_geometry = 2``) tile a rectangle of
``nx * edge_length`` by ``ny * edge_length * sqrt(3) / 2`` with equilateral triangles: ``ny``
rows of vertices, every odd row shifted by half an edge, so the rectangle is periodic in both
directions only when ``ny`` is even. Everything else (edges, neighbour tables, zones) is derived
from these two arrays by :mod:`iconbench.grids.connectivity`, for the torus and the limited-area
patch alike, so there is one code path to trust.

>>> lattice = torus_lattice(4, 4, edge_length=1.0)
>>> lattice.vertex_x.size, lattice.cell_vertices.shape
(16, (32, 3))
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

ROW_HEIGHT = math.sqrt(3.0) / 2.0
"""Height of one row of triangles, in edge lengths."""


@dataclasses.dataclass(frozen=True)
class Lattice:
    """Vertex coordinates and cell->vertex table (counter-clockwise) of a planar triangulation.

    ``period`` is ``(domain_length, domain_height)`` for the torus (differences of coordinates are
    taken modulo it) or ``None`` for a limited-area patch.
    """

    vertex_x: np.ndarray
    vertex_y: np.ndarray
    cell_vertices: np.ndarray
    edge_length: float
    period: tuple[float, float] | None


def torus_lattice(nx: int, ny: int, *, edge_length: float) -> Lattice:
    """The periodic lattice of ``nx`` x ``ny`` vertices (``2 nx ny`` cells, ``3 nx ny`` edges).

    Cells are numbered row by row, alternating up and down triangles, which is the
    locality an unordered ICON grid has (neighbours are close in memory, but not adjacent).
    """
    if ny % 2 or nx < 3 or ny < 4:
        # Smaller tori connect a vertex to the same neighbour twice (repeated table entries).
        raise ValueError(f"torus needs nx >= 3 and an even ny >= 4, got {nx=} {ny=}")
    return _lattice(nx, ny, edge_length=edge_length, periodic=True)


def patch_lattice(nx: int, ny: int, *, edge_length: float) -> Lattice:
    """The same lattice without wrap-around: a rectangular limited-area patch.

    It has ``nx`` x ``ny`` vertices and zig-zag left and right rims; vertices on its rim have
    fewer than six cells, as the vertices on the lateral boundary of an ICON LAM grid do.
    """
    if nx < 2 or ny < 2:
        raise ValueError(f"patch needs nx >= 2 and ny >= 2, got {nx=} {ny=}")
    return _lattice(nx, ny, edge_length=edge_length, periodic=False)


def _lattice(nx: int, ny: int, *, edge_length: float, periodic: bool) -> Lattice:
    j, i = np.divmod(np.arange(nx * ny, dtype=np.int64), nx)
    vertex_x = (i + 0.5 * (j % 2)) * edge_length
    vertex_y = j * ROW_HEIGHT * edge_length

    rows = ny if periodic else ny - 1
    cols = nx if periodic else nx - 1
    jj, ii = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    jj, ii = jj.ravel(), ii.ravel()
    odd = jj % 2
    jn = (jj + 1) % ny

    def vid(col: np.ndarray, row: np.ndarray) -> np.ndarray:
        return row * nx + col % nx

    # Up triangle: base (i, j), (i+1, j), apex in row j+1 above the middle of the base.
    up = np.stack([vid(ii, jj), vid(ii + 1, jj), vid(ii + odd, jn)], axis=1)
    # Down triangle: apex (i+1, j), base in row j+1 between the apexes of two up triangles.
    down = np.stack([vid(ii + 1, jj), vid(ii + odd + 1, jn), vid(ii + odd, jn)], axis=1)
    keep_down = np.ones(ii.shape, dtype=bool) if periodic else ii + odd + 1 <= nx - 1
    # Interleave up and down triangles by position along the row (row-major cell order).
    cells = np.empty((ii.size + int(keep_down.sum()), 3), dtype=np.int64)
    slot_up = np.arange(ii.size) + np.concatenate([[0], np.cumsum(keep_down)[:-1]])
    cells[slot_up] = up
    cells[(slot_up + 1)[keep_down]] = down[keep_down]
    return Lattice(
        vertex_x=vertex_x,
        vertex_y=vertex_y,
        cell_vertices=cells,
        edge_length=edge_length,
        period=(nx * edge_length, ny * ROW_HEIGHT * edge_length) if periodic else None,
    )

"""Vertical index offsets and masks over mountains, computed as icon4py computes them.

Over flat ground every vertical offset is 0 and every "steep point" mask is empty, so the
programs that read ``theta_v(Koff[ikoffset])`` gather along one level (coalesced) and skip
their extrapolation and truly-horizontal-diffusion branches. A limited-area domain over the
Alps has neither: at the lowest levels the pressure gradient reads neighbouring columns several
levels apart, extrapolates below the ground at some edges, and diffusion of theta runs along
height surfaces at steep cells. Those change memory traffic and branch density, i.e. the time.

The fields follow icon4py's metrics (``icon4py.model.common.metrics``), with the same rules:

* topography: Alpine-like hills on the generated domain (one Gaussian peak per (30 km)^2,
  300-2500 m high, 3-15 km wide, capped at 4000 m: slopes up to ~0.5 at 1 km spacing, as 1 km
  Alpine topography has; on icon_benchmark_regional about 60 % of the edges get a nonzero
  offset somewhere below the flat level, 1 % of the edge-levels extrapolate);
  heights of the levels: Gal-Chen terrain following below the flat level
  ``z = vct_a + h (1 - vct_a / vct_a[nflatlev])`` (ICON ``ivctype=1``; SLEVE decays faster
  aloft, the lowest levels, where the offsets live, are alike);
* ``vertoffset_gradp``/``ikoffset`` and ``zdiff_gradp``: ``compute_zdiff_gradp.py``: for each
  edge below its flat level, the level of each neighbour cell containing the edge's height
  ``z_me``, and below ``max(h) - 5 m`` (downward extrapolation) the level containing that;
* ``pg_exdist`` (nonzero = the extrapolation mask, ICON's ``pg_edgeidx``):
  ``metric_fields._compute_pressure_gradient_downward_extrapolation_mask_distance``;
* ``zd_vertoffset``, ``zd_intcoef``, ``zd_diffcoef``, ``mask_hdiff``: icon4py's own
  ``compute_diffusion_metrics`` functions (called here), with DiffusionConfig's defaults
  ``thslp_zdiffu = 0.025``, ``thhgtd_zdiffu = 200 m``.

The vectorised search below replaces icon4py's per-edge Python loops (1M edges x 80 levels);
``tests/programs/test_orography.py`` checks it against a direct transcription of the loops.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from iconbench.programs.overrides import Context

#: icon4py's geometry names of the cell centres (``geometry_attributes.CELL_CENTER_X/Y``).
CELL_X, CELL_Y = "x_component_of_cell_center", "y_component_of_cell_center"
#: DiffusionConfig defaults (icon4py 0.4.1 diffusion.py: thslp_zdiffu, thhgtd_zdiffu).
THSLP_ZDIFFU, THHGTD_ZDIFFU = 0.025, 200.0
#: icon4py's ``extrapol_dist`` (metric_fields.py, compute_zdiff_gradp.py), metres.
EXTRAPOLATION_DISTANCE = 5.0


@dataclasses.dataclass(frozen=True)
class Orography:
    """Topography and the metric fields derived from it (host arrays, icon4py layouts)."""

    topography: np.ndarray  # (cells,) m
    z_ifc: np.ndarray  # (cells, nlev + 1)
    z_mc: np.ndarray  # (cells, nlev)
    vertoffset_gradp: np.ndarray  # (edges, 2, nlev) int32
    zdiff_gradp: np.ndarray  # (edges, 2, nlev)
    pg_exdist: np.ndarray  # (edges, nlev)
    zd_vertoffset: np.ndarray  # (cells, 3, nlev) int32
    zd_intcoef: np.ndarray  # (cells, 3, nlev)
    zd_diffcoef: np.ndarray  # (cells, nlev)
    mask_hdiff: np.ndarray  # (cells, nlev) bool

    def summary(self) -> dict[str, float]:
        """Shares that decide the time: offsets, extrapolation points, steep cells."""
        return {
            "max_height_m": float(self.topography.max()),
            "edges_with_offset": float(np.any(self.vertoffset_gradp != 0, axis=(1, 2)).mean()),
            "edge_levels_extrapolated": float((self.pg_exdist != 0).mean()),
            "cells_steep": float(self.mask_hdiff.any(axis=1).mean()),
        }


def topography(x: np.ndarray, y: np.ndarray, edge_length: float, seed: int = 0) -> np.ndarray:
    """Alpine-like heights (m) at points ``x``, ``y`` (m): a sum of Gaussian peaks.

    One peak per (30 km)^2 of domain, at least 4, 3-15 km wide (at least 3 grid spacings),
    300-2500 m high, capped at 4000 m; deterministic for a seed.
    """
    rng = np.random.default_rng(seed)
    x0, x1, y0, y1 = x.min(), x.max(), y.min(), y.max()
    count = max(4, int((x1 - x0) * (y1 - y0) / 30e3**2))
    heights = np.zeros_like(x, dtype=float)
    for _ in range(count):
        cx, cy = rng.uniform(x0, x1), rng.uniform(y0, y1)
        width = max(rng.uniform(3e3, 15e3), 3 * edge_length)
        heights += rng.uniform(300.0, 2500.0) * np.exp(
            -((x - cx) ** 2 + (y - cy) ** 2) / (2 * width**2)
        )
    return np.minimum(heights, 4000.0)


def level_heights(
    topo: np.ndarray, vct_a: np.ndarray, nflatlev: int
) -> tuple[np.ndarray, np.ndarray]:
    """``z_ifc`` (cells, nlev + 1) and ``z_mc`` (cells, nlev): Gal-Chen terrain following."""
    z_flat = vct_a[nflatlev] if vct_a[nflatlev] > 0 else vct_a[0]
    decay = np.clip(1.0 - vct_a / z_flat, 0.0, 1.0)
    z_ifc = vct_a[None, :] + topo[:, None] * decay[None, :]
    return z_ifc, 0.5 * (z_ifc[:, :-1] + z_ifc[:, 1:])


def containing_level(z_ifc_columns: np.ndarray, z: np.ndarray, lowest: np.ndarray) -> np.ndarray:
    """Per row: the level ``jk1 >= lowest`` with ``z_ifc[jk1] >= z >= z_ifc[jk1 + 1]``.

    ``nlev - 1`` when there is none (below the ground, or above level ``lowest``), as
    icon4py's loops. ``z_ifc_columns``:
    (n, nlev + 1) decreasing heights; ``z``: (n, m) heights; ``lowest``: (n,) levels.
    """
    n, interfaces = z_ifc_columns.shape
    # one sorted array for all rows: row r's negated heights shifted by r x span (ascending,
    # rows apart), searched at once (icon4py's compute_diffusion_metrics does the same)
    low, high = min(z_ifc_columns.min(), z.min()), max(z_ifc_columns.max(), z.max())
    span = 2.0 * (high - low) + 10.0
    shift = np.arange(n, dtype=float)[:, None] * span
    ascending = (-z_ifc_columns + shift).ravel()
    count = np.searchsorted(ascending, (-z + shift).ravel(), side="right").reshape(z.shape)
    above = count - np.arange(n)[:, None] * interfaces  # interfaces at or above z
    found = np.clip(above - 1, 0, interfaces - 2)
    # icon4py searches from ``lowest`` down and falls through to the last level
    return np.where(found < lowest[:, None], interfaces - 2, found)


def _gradp_offsets(  # noqa: PLR0917 [icon4py's inputs, in its order]
    z_ifc: np.ndarray,
    z_mc: np.ndarray,
    topo: np.ndarray,
    e2c: np.ndarray,
    c_lin_e: np.ndarray,
    starts: tuple[int, int],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    nedges, nlev = e2c.shape[0], z_mc.shape[1]
    z_me = (z_mc[e2c] * c_lin_e[:, :, None]).sum(axis=1)  # (edges, nlev)
    # flat_idx: the lowest level at which the edge's height lies in both neighbours' layers
    both = np.ones_like(z_me, dtype=bool)
    for side in (0, 1):
        column = z_ifc[e2c[:, side]]
        both &= (z_me <= column[:, :-1]) & (z_me >= column[:, 1:])
    flat_idx = np.where(both, np.arange(nlev)[None, :], 0).max(axis=1)
    z_aux2 = np.maximum(topo[e2c[:, 0]], topo[e2c[:, 1]]) - EXTRAPOLATION_DISTANCE
    levels = np.arange(nlev)[None, :]
    below_flat = levels > flat_idx[:, None]
    extrapolate = below_flat & (z_me < z_aux2[:, None])
    extrapolate[: starts[1]] = False
    vertidx = np.broadcast_to(levels[:, None, :], (nedges, 2, nlev)).copy()
    zdiff = np.zeros((nedges, 2, nlev))
    rows = slice(starts[0], nedges)
    for side in (0, 1):
        cells = e2c[rows, side]
        column = z_ifc[cells]
        target = np.where(extrapolate[rows], z_aux2[rows, None], z_me[rows])
        jk1 = containing_level(column, target, flat_idx[rows])
        inside = below_flat[rows]
        vertidx[rows, side] = np.where(inside, jk1, levels)
        zdiff[rows, side] = np.where(
            inside,
            target - np.take_along_axis(z_mc[cells], jk1, axis=1),
            z_me[rows] - z_mc[cells],
        )
    pg_exdist = np.where(extrapolate, z_me - z_aux2[:, None], 0.0)
    return (vertidx - levels[:, None, :]).astype(np.int32), zdiff, pg_exdist


def _slopes(topo: np.ndarray, c2e2c: np.ndarray, x: np.ndarray, y: np.ndarray) -> tuple:
    """``maxslp``, ``maxhgtd``: the largest slope and height difference to a neighbour."""
    valid = c2e2c >= 0
    neighbours = np.where(valid, c2e2c, np.arange(topo.size)[:, None])
    dh = np.abs(topo[neighbours] - topo[:, None])
    dist = np.hypot(x[neighbours] - x[:, None], y[neighbours] - y[:, None])
    slope = np.where(dist > 0, dh / np.maximum(dist, 1.0), 0.0)
    return slope.max(axis=1), dh.max(axis=1)


def compute(context: Context, e2c: np.ndarray, c2e2c: np.ndarray, seed: int = 0) -> Orography:
    """The orography fields of a generated grid, from its input-rule context."""
    from icon4py.model.common.metrics import compute_diffusion_metrics as diffusion

    x = np.asarray(context.geometry[CELL_X], dtype=float)
    y = np.asarray(context.geometry[CELL_Y], dtype=float)
    spacing = float(np.median(context.geometry.get("edge_length", np.array([1e3]))))
    topo = topography(x, y, spacing, seed)
    nlev = context.nlev
    z_ifc, z_mc = level_heights(topo, np.asarray(context.vct_a, dtype=float), context.nflatlev)
    c_lin_e = np.full(e2c.shape, 0.5)
    lb2 = context.zones.get("Edge", {}).get("LATERAL_BOUNDARY_LEVEL_2", (0, 0))[0]
    nudging2 = context.zones.get("Edge", {}).get("NUDGING_LEVEL_2", (lb2, 0))[0]
    vertoffset, zdiff, pg_exdist = _gradp_offsets(z_ifc, z_mc, topo, e2c, c_lin_e, (lb2, nudging2))
    maxslp, maxhgtd = _slopes(topo, c2e2c, x, y)
    # icon4py smooths maxslp/maxhgtd per level (compute_weighted_cell_neighbor_sum); over
    # the lowest levels, where the criterion acts, the surface value stands for it
    maxslp_avg = np.repeat(maxslp[:, None], nlev, axis=1)
    maxhgtd_avg = np.repeat(maxhgtd[:, None], nlev, axis=1)
    neighbours = np.where(c2e2c >= 0, c2e2c, np.arange(topo.size)[:, None])
    max_nbhgt = diffusion.compute_max_nbhgt_array_ns(neighbours, z_mc, nlev)
    nudging = context.zones.get("Cell", {}).get("NUDGING", (0, 0))[0]
    common = dict(
        c2e2c=neighbours,
        z_mc=z_mc,
        max_nbhgt=max_nbhgt,
        c_owner_mask=np.ones(topo.size, dtype=bool),
        maxslp_avg=maxslp_avg,
        maxhgtd_avg=maxhgtd_avg,
        thslp_zdiffu=THSLP_ZDIFFU,
        thhgtd_zdiffu=THHGTD_ZDIFFU,
        cell_nudging=nudging,
        nlev=nlev,
    )
    zd_intcoef, zd_vertoffset = diffusion.compute_diffusion_intcoef_and_vertoffset(**common)
    zd_diffcoef = diffusion.compute_diffusion_mask_and_coef(**common)
    return Orography(
        topography=topo,
        z_ifc=z_ifc,
        z_mc=z_mc,
        vertoffset_gradp=vertoffset,
        zdiff_gradp=zdiff,
        pg_exdist=pg_exdist,
        zd_vertoffset=np.asarray(zd_vertoffset, dtype=np.int32),
        zd_intcoef=np.asarray(zd_intcoef),
        zd_diffcoef=np.asarray(zd_diffcoef),
        mask_hdiff=np.asarray(zd_diffcoef) > 0,
    )

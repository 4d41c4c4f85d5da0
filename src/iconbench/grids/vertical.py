"""ICON's vertical grid for a generated grid: icon4py's own ``vct_a``/``vct_b`` and nflatlev.

The coordinate is computed by icon4py (``vertical.get_vct_a_and_vct_b``), with namelist values
close to the MeteoSwiss ICON-CH setups (``sleve_nml``: model top 22 km, flat above 16 km,
stretching 0.65, lowest layer 20 m; ``nonhydrostatic_nml``: Rayleigh damping from 12.5 km), so
level thicknesses, ``nflatlev`` and the damping index are as in production. The terrain is
flat, so the interface heights ``z_ifc`` are ``vct_a`` in every column.
"""

from __future__ import annotations

import dataclasses

import gt4py.next.typing as gtx_typing
import numpy as np
from icon4py.model.common.grid import vertical as v_grid

MODEL_TOP_HEIGHT = 22000.0
FLAT_HEIGHT = 16000.0
STRETCH_FACTOR = 0.65
LOWEST_LAYER_THICKNESS = 20.0
RAYLEIGH_DAMPING_HEIGHT = 12500.0


@dataclasses.dataclass(frozen=True)
class VerticalSetup:
    """The vertical grid: ``num_levels`` full levels, ``num_levels + 1`` interfaces (top first)."""

    num_levels: int
    nflatlev: int
    vct_a: np.ndarray
    vct_b: np.ndarray
    vertical_grid: v_grid.VerticalGrid

    @property
    def config(self) -> v_grid.VerticalGridConfig:
        return self.vertical_grid.config

    def z_ifc(self, num_cells: int) -> np.ndarray:
        """Interface heights ``(num_cells, num_levels + 1)``, flat terrain (a read-only view)."""
        return np.broadcast_to(self.vct_a, (num_cells, self.vct_a.size))

    def z_mc(self, num_cells: int) -> np.ndarray:
        """Full-level heights ``(num_cells, num_levels)`` (a read-only view)."""
        full = 0.5 * (self.vct_a[:-1] + self.vct_a[1:])
        return np.broadcast_to(full, (num_cells, full.size))


def vertical_config(num_levels: int) -> v_grid.VerticalGridConfig:
    """The ICON-CH-like namelist for ``num_levels`` levels."""
    return v_grid.VerticalGridConfig(
        num_levels=num_levels,
        model_top_height=MODEL_TOP_HEIGHT,
        flat_height=FLAT_HEIGHT,
        stretch_factor=STRETCH_FACTOR,
        lowest_layer_thickness=LOWEST_LAYER_THICKNESS,
        rayleigh_damping_height=RAYLEIGH_DAMPING_HEIGHT,
    )


def build_vertical(num_levels: int, allocator: gtx_typing.Allocator | None = None) -> VerticalSetup:
    """icon4py's vertical grid for ``num_levels`` levels (fields on ``allocator``'s device).

    >>> setup = build_vertical(65)
    >>> setup.vct_a.size, float(setup.vct_a[0]), float(setup.vct_a[-1])
    (66, 22000.0, 0.0)
    """
    config = vertical_config(num_levels)
    vct_a, vct_b = v_grid.get_vct_a_and_vct_b(config, allocator)
    grid = v_grid.VerticalGrid(config=config, vct_a=vct_a, vct_b=vct_b)
    return VerticalSetup(
        num_levels=num_levels,
        nflatlev=int(grid.nflatlev),
        vct_a=vct_a.asnumpy(),
        vct_b=vct_b.asnumpy(),
        vertical_grid=grid,
    )

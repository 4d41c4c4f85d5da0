"""Geometry, interpolation and metric fields of a generated grid, from icon4py's own factories.

The granules need the same derived fields ICON computes at start-up. They are computed here by
icon4py's factories (``grid.geometry.GridGeometry``, ``interpolation.interpolation_factory``,
``metrics.metrics_factory``), as icon4py's granule benchmarks do, but fed with the generated
grid instead of a grid file: its coordinates, its edge lengths, areas and orientations
(:mod:`iconbench.grids.geometry`), its vertical coordinate (:mod:`iconbench.grids.vertical`)
and flat topography. The factories run on the ``embedded`` backend (numpy, no compilation, about
one second on the tiny grid), so building a granule on a GPU backend compiles only the granule's
own programs; the fields are then copied to the granule backend's memory (:func:`on_backend`).

Four metric fields fail on the embedded backend in icon4py 0.4.1 ("Cannot compute length of open
UnitRange", the ``concat_where`` of their programs; icon4py marks its own granule benchmarks
``embedded_remap_error`` for the same reason). They are computed in numpy from the same formulas
(:data:`NUMPY_PORTS`, each names its icon4py program) and registered in the factory before any
field that depends on them is requested.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import gt4py.next as gtx
import numpy as np
from icon4py.model.common import dimension as dims
from icon4py.model.common.decomposition import definitions as decomposition
from icon4py.model.common.decomposition import halo
from icon4py.model.common.grid import (
    geometry as grid_geometry,
)
from icon4py.model.common.grid import (
    geometry_attributes as geometry_attrs,
)
from icon4py.model.common.grid import (
    geometry_config,
    gridfile,
)
from icon4py.model.common.grid import (
    horizontal as h_grid,
)
from icon4py.model.common.interpolation import interpolation_attributes, interpolation_factory
from icon4py.model.common.metrics import metrics_attributes, metrics_factory
from icon4py.model.common.states import factory

from iconbench.errors import IconbenchError
from iconbench.grids.generator import GeneratedGrid

_G = gridfile.GeometryName


@dataclasses.dataclass(frozen=True)
class FieldSources:
    """icon4py's three field factories for one generated grid (host memory, embedded backend)."""

    grid: GeneratedGrid
    geometry: grid_geometry.GridGeometry
    interpolation: interpolation_factory.InterpolationFieldsFactory
    metrics: metrics_factory.MetricsFieldsFactory


def _field(dimensions: tuple[gtx.Dimension, ...], values: np.ndarray) -> Any:
    return gtx.as_field(dimensions, np.ascontiguousarray(values))


def _coordinates(grid: GeneratedGrid) -> dict[gtx.Dimension, dict[str, Any]]:
    """Planar x/y/z of cell centres, edge midpoints and vertices; lat/lon zero (a plane)."""
    geometry = grid.geometry
    names = {
        dims.CellDim: (geometry_attrs.CELL_CENTER_X, geometry_attrs.CELL_CENTER_Y,
                       geometry_attrs.CELL_CENTER_Z),
        dims.EdgeDim: (geometry_attrs.EDGE_CENTER_X, geometry_attrs.EDGE_CENTER_Y,
                       geometry_attrs.EDGE_CENTER_Z),
        dims.VertexDim: (geometry_attrs.VERTEX_X, geometry_attrs.VERTEX_Y,
                         geometry_attrs.VERTEX_Z),
    }  # fmt: skip
    coordinates = {}
    for dim, (x, y, z) in names.items():
        zero = np.zeros_like(geometry[x])
        coordinates[dim] = {
            "lat": _field((dim,), zero),
            "lon": _field((dim,), zero),
            "x": _field((dim,), geometry[x]),
            "y": _field((dim,), geometry[y]),
            "z": _field((dim,), geometry[z]),
        }
    return coordinates


def _grid_file_fields(grid: GeneratedGrid) -> dict[gridfile.GeometryName, Any]:
    """The fields icon4py reads off a grid file rather than computing them."""
    g = grid.geometry
    return {
        _G.EDGE_LENGTH: _field((dims.EdgeDim,), g[geometry_attrs.EDGE_LENGTH]),
        _G.DUAL_EDGE_LENGTH: _field((dims.EdgeDim,), g[geometry_attrs.DUAL_EDGE_LENGTH]),
        _G.EDGE_CELL_DISTANCE: _field(
            (dims.EdgeDim, dims.E2CDim), g[geometry_attrs.EDGE_CELL_DISTANCE]
        ),
        _G.EDGE_VERTEX_DISTANCE: _field(
            (dims.EdgeDim, dims.E2VDim), g[geometry_attrs.EDGE_VERTEX_DISTANCE]
        ),
        _G.CELL_AREA: _field((dims.CellDim,), g[geometry_attrs.CELL_AREA]),
        _G.DUAL_AREA: _field((dims.VertexDim,), g[geometry_attrs.DUAL_AREA]),
        _G.TANGENT_ORIENTATION: _field((dims.EdgeDim,), g[geometry_attrs.TANGENT_ORIENTATION]),
        _G.CELL_NORMAL_ORIENTATION: _field(
            (dims.CellDim, dims.C2EDim), g[geometry_attrs.CELL_NORMAL_ORIENTATION]
        ),
        _G.EDGE_ORIENTATION_ON_VERTEX: _field(
            (dims.VertexDim, dims.V2EDim), g[geometry_attrs.VERTEX_EDGE_ORIENTATION]
        ),
    }


def build(grid: GeneratedGrid) -> FieldSources:
    """The three factories for ``grid`` (a host-memory grid; fields computed on first use).

    They compute from a plane's geometry by component (normals, tangents), which iconbench's
    lattice and a torus file have (:func:`iconbench.grids.gridfile.load_grid_file`); a
    limited area or a sphere read from a file has not, which is one line here rather than a
    missing key deep in icon4py.
    """
    if geometry_attrs.EDGE_NORMAL_U not in grid.geometry:
        raise IconbenchError(
            f"granules need a plane's geometry; grid {grid.spec.name} is read from a file of a "
            "sphere's limited area or of a sphere: give a torus or a lattice preset (iconbench "
            "grid lists them) or --cells N"
        )
    icon_grid = grid.grid
    decomposition_info = halo.NoHalos(
        horizontal_size=icon_grid.config.horizontal_config, allocator=None
    )(None)
    exchange = decomposition.single_node_exchange
    geometry = grid_geometry.GridGeometry(
        grid=icon_grid,
        decomposition_info=decomposition_info,
        backend=None,
        coordinates=_coordinates(grid),
        extra_fields=_grid_file_fields(grid),
        metadata=geometry_attrs.attrs,
        config=geometry_config.GeometryConfig(),
        process_props=decomposition.SingleNodeProcessProperties(),
        exchange=exchange,
    )
    interpolation = interpolation_factory.InterpolationFieldsFactory(
        config=interpolation_factory.InterpolationConfig(),
        grid=icon_grid,
        decomposition_info=decomposition_info,
        exchange=exchange,
        geometry_source=geometry,
        backend=None,
        metadata=interpolation_attributes.attrs,
    )
    metrics = metrics_factory.MetricsFieldsFactory(
        grid=icon_grid,
        vertical_grid=grid.vertical.vertical_grid,
        decomposition_info=decomposition_info,
        exchange=exchange,
        geometry_source=geometry,
        topography=_field((dims.CellDim,), np.zeros(icon_grid.num_cells)),
        interpolation_source=interpolation,
        config=metrics_factory.MetricsConfig(),
        backend=None,
        metadata=metrics_attributes.attrs,
    )
    sources = FieldSources(grid, geometry, interpolation, metrics)
    for name, port in NUMPY_PORTS.items():
        metrics.register_provider(_LazyNumpyProvider(name, port, sources))
    return sources


class _LazyNumpyProvider(factory.PrecomputedFieldProvider):
    """A factory provider computing one field with a numpy port on first request."""

    def __init__(
        self, name: str, port: Callable[[FieldSources], Any], sources: FieldSources
    ) -> None:
        super().__init__(fields={})
        self._name, self._port, self._sources = name, port, sources
        self._value: Any = None

    @property
    def fields(self) -> dict[str, Any]:
        if self._value is None:
            self._value = self._port(self._sources)
        return {self._name: self._value}

    def __call__(self, *, field_name: str, **_: Any) -> Any:
        return self.fields[field_name]


def _heights(sources: FieldSources) -> tuple[np.ndarray, np.ndarray]:
    z_ifc = sources.metrics.get(metrics_attributes.CELL_HEIGHT_ON_HALF_LEVEL).asnumpy()
    z_mc = sources.metrics.get(metrics_attributes.Z_MC).asnumpy()
    return z_ifc, z_mc


def ddqz_z_half(sources: FieldSources) -> Any:
    """``metric_fields.compute_ddqz_z_half``: layer thickness around half levels."""
    z_ifc, z_mc = _heights(sources)
    out = np.empty_like(z_ifc)
    out[:, 0] = 2.0 * (z_ifc[:, 0] - z_mc[:, 0])
    out[:, 1:-1] = z_mc[:, :-1] - z_mc[:, 1:]
    out[:, -1] = 2.0 * (z_mc[:, -1] - z_ifc[:, -1])
    return _field((dims.CellDim, dims.KDim), out)


def wgtfac_c(sources: FieldSources) -> Any:
    """``compute_weight_factors.compute_wgtfac_c``: weights full -> half levels."""
    z, _ = _heights(sources)
    out = np.empty_like(z)
    out[:, 0] = (z[:, 1] - z[:, 0]) / (z[:, 2] - z[:, 0])
    out[:, 1:-1] = (z[:, :-2] - z[:, 1:-1]) / (z[:, :-2] - z[:, 2:])
    out[:, -1] = (z[:, -2] - z[:, -1]) / (z[:, -3] - z[:, -1])
    return _field((dims.CellDim, dims.KDim), out)


def exner_exfac(sources: FieldSources) -> Any:
    """``metric_fields.compute_exner_exfac``: Exner extrapolation factor from the slopes."""
    maxslp = sources.metrics.get(metrics_attributes.MAXSLP).asnumpy()
    maxhgtd = sources.metrics.get(metrics_attributes.MAXHGTD).asnumpy()
    expol = metrics_factory.MetricsConfig().exner_expol
    start = sources.grid.grid.start_index(
        h_grid.domain(dims.CellDim)(h_grid.Zone.LATERAL_BOUNDARY_LEVEL_2)
    )
    inside = (np.arange(maxslp.shape[0]) >= start)[:, None]
    out = np.where(
        inside,
        expol * np.minimum(1.0 - (4.0 * maxslp) ** 2, 1.0 - (0.002 * maxhgtd) ** 2),
        expol,
    )
    out = np.maximum(0.0, out)
    out = np.where(maxslp > 1.5, np.maximum(-1.0 / 6.0, 1.0 / 9.0 * (1.5 - maxslp)), out)
    return _field((dims.CellDim, dims.KDim), out)


def pg_exdist_dsl(sources: FieldSources) -> Any:
    """``metric_fields.compute_pressure_gradient_downward_extrapolation_mask_distance``."""
    icon_grid = sources.grid.grid
    _, z_mc = _heights(sources)
    e2c = icon_grid.get_connectivity("E2C").asnumpy()
    c_lin_e = sources.interpolation.get(interpolation_attributes.C_LIN_E).asnumpy()
    flat_idx_max = sources.metrics.get(metrics_attributes.FLAT_IDX_MAX).asnumpy()
    edge = h_grid.domain(dims.EdgeDim)
    z_me = np.einsum("ej,ejk->ek", c_lin_e, z_mc[e2c])
    topography = np.zeros(icon_grid.num_cells)  # the flat terrain of :func:`build`
    downward = topography[e2c].max(axis=1) - 5.0
    index = np.arange(icon_grid.num_edges)
    start, end = (
        icon_grid.end_index(edge(h_grid.Zone.NUDGING)),
        icon_grid.end_index(edge(h_grid.Zone.LOCAL)),
    )
    distance = np.where((index >= start) & (index < end), downward, 0.0)[:, None]
    levels = np.arange(z_mc.shape[1])[None, :]
    mask = (levels >= flat_idx_max[:, None] + 1) & (z_me < distance)
    out = np.where(mask, z_me - distance, 0.0)
    out[: icon_grid.start_index(edge(h_grid.Zone.NUDGING_LEVEL_2))] = 0.0
    return _field((dims.EdgeDim, dims.KDim), out)


#: Metric fields whose icon4py program fails on the embedded backend, and their numpy ports.
NUMPY_PORTS: dict[str, Callable[[FieldSources], Any]] = {
    metrics_attributes.DDQZ_Z_HALF: ddqz_z_half,
    metrics_attributes.WGTFAC_C: wgtfac_c,
    metrics_attributes.EXNER_EXFAC: exner_exfac,
    metrics_attributes.PG_EXDIST_DSL: pg_exdist_dsl,
}


def on_backend(value: Any, allocator: Any) -> Any:
    """``value`` (a host field or a scalar) in the memory of ``allocator`` (cupy on GPUs)."""
    if not hasattr(value, "ndarray"):
        return value
    return gtx.as_field(value.domain, value.asnumpy(), allocator=allocator)

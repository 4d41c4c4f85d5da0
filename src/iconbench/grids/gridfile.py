"""ICON grid NetCDF files: write a generated grid as one, read any through icon4py.

Writing follows the layout icon4py's ``gridfile.GridFile`` reads (and ICON's grid generators
write): Fortran (1-based) indices, ``(neighbour, element)`` storage order, ``0`` for a
missing neighbour, ``refin_*_ctrl`` fields, torus attributes (``grid_geometry = 2``,
``domain_length``, ``domain_height``) and the planar cartesian coordinates. Reading goes
through icon4py's ``GridManager`` only, so a real ICON grid file is used exactly as icon4py
would use it.
"""

from __future__ import annotations

import os
import pathlib
import tempfile

import gt4py.next.typing as gtx_typing
import numpy as np
from icon4py.model.common import exceptions as icon_exceptions
from icon4py.model.common.grid import geometry_attributes as attrs
from icon4py.model.common.grid import grid_manager as gm
from icon4py.model.common.grid import gridfile as icon_gridfile
from icon4py.model.common.grid import icon

from iconbench.errors import IconbenchError
from iconbench.grids.connectivity import Topology
from iconbench.grids.generator import GeneratedGrid
from iconbench.grids.geometry import compute_geometry
from iconbench.grids.lateral_boundary import RefinementControl
from iconbench.grids.netcdf import netcdf4
from iconbench.grids.presets import GridSpec
from iconbench.grids.vertical import build_vertical, vertical_config

netcdf = netcdf4()  # one line where it is not installed

# (file variable, topology attribute, file dimension of the neighbour axis)
_TABLES = (
    ("vertex_of_cell", "c2v", "nv", "cell"),
    ("edge_of_cell", "c2e", "nv", "cell"),
    ("neighbor_cell_index", "c2e2c", "nv", "cell"),
    ("edge_vertices", "e2v", "nc", "edge"),
    ("adjacent_cell_of_edge", "e2c", "nc", "edge"),
    ("cells_of_vertex", "v2c", "ne", "vertex"),
    ("edges_of_vertex", "v2e", "ne", "vertex"),
    ("vertices_of_vertex", "v2e2v", "ne", "vertex"),
)


def write_grid_file(generated: GeneratedGrid, path: str | os.PathLike) -> pathlib.Path:
    """Write ``generated`` as an ICON grid file at ``path`` (atomically) and return the path."""
    path = pathlib.Path(path)
    topology, geometry, spec = generated.topology, generated.geometry, generated.spec
    handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".nc.tmp")
    os.close(handle)
    try:
        with netcdf.Dataset(temporary, "w", format="NETCDF4") as ds:
            ds.createDimension("cell", topology.num_cells)
            ds.createDimension("edge", topology.num_edges)
            ds.createDimension("vertex", topology.num_vertices)
            for name, size in (("nv", 3), ("nc", 2), ("ne", 6)):
                ds.createDimension(name, size)
            length, height = spec.domain_size
            ds.setncatts(
                {
                    "title": f"iconbench generated grid {spec.name}",
                    "institution": "iconbench",
                    "source": "iconbench.grids",
                    "uuidOfHGrid": generated.grid.id,
                    "grid_root": 0,
                    "grid_level": 0,
                    "grid_geometry": icon.GeometryType.TORUS.value,
                    "domain_length": length,
                    "domain_height": height,
                    "mean_edge_length": float(geometry[attrs.MEAN_EDGE_LENGTH]),
                    "mean_cell_area": float(geometry[attrs.MEAN_CELL_AREA]),
                    "number_of_grid_used": 0,
                }
            )
            for name, attribute, neighbour_dim, element_dim in _TABLES:
                table = getattr(topology, attribute)
                fortran = np.where(table < 0, 0, table + 1).astype(np.int32)
                ds.createVariable(name, "i4", (neighbour_dim, element_dim))[:] = fortran.T
            control = generated.refinement_control
            for name, values, dim in (
                ("refin_c_ctrl", control.cells, "cell"),
                ("refin_e_ctrl", control.edges, "edge"),
                ("refin_v_ctrl", control.vertices, "vertex"),
            ):
                ds.createVariable(name, "i4", (dim,))[:] = values
            _write_coordinates(ds, geometry)
            _write_geometry(ds, geometry)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
    return path


#: Where ICON's planar (torus) files keep the coordinates of cell centres, edge midpoints and
#: vertices: each element's dimension, the letter of its ``lon``/``lat``, the file variable of
#: each axis and the geometry keys of x, y, z (what :func:`_write_coordinates` writes and
#: :func:`_planar_coordinates` reads back).
_PLANAR = (
    ("cell", "c", "cell_circumcenter_cartesian_{}",
     (attrs.CELL_CENTER_X, attrs.CELL_CENTER_Y, attrs.CELL_CENTER_Z)),
    ("edge", "e", "edge_middle_cartesian_{}",
     (attrs.EDGE_CENTER_X, attrs.EDGE_CENTER_Y, attrs.EDGE_CENTER_Z)),
    ("vertex", "v", "cartesian_{}_vertices", (attrs.VERTEX_X, attrs.VERTEX_Y, attrs.VERTEX_Z)),
)  # fmt: skip


def _write_coordinates(ds: netcdf.Dataset, geometry: dict[str, np.ndarray]) -> None:
    for dim, letter, pattern, (x_key, y_key, _) in _PLANAR:
        x, y = geometry[x_key], geometry[y_key]
        # A plane has no longitudes and latitudes; ICON's torus files hold zeros there too.
        ds.createVariable(f"{letter}lon", "f8", (dim,))[:] = np.zeros_like(x)
        ds.createVariable(f"{letter}lat", "f8", (dim,))[:] = np.zeros_like(x)
        for axis, values in zip("xyz", (x, y, np.zeros_like(x)), strict=True):
            ds.createVariable(pattern.format(axis), "f8", (dim,))[:] = values


def _write_geometry(ds: netcdf.Dataset, geometry: dict[str, np.ndarray]) -> None:
    for name, key, dims in (
        ("cell_area", attrs.CELL_AREA, ("cell",)),
        ("dual_area", attrs.DUAL_AREA, ("vertex",)),
        ("edge_length", attrs.EDGE_LENGTH, ("edge",)),
        ("dual_edge_length", attrs.DUAL_EDGE_LENGTH, ("edge",)),
        ("edge_system_orientation", attrs.TANGENT_ORIENTATION, ("edge",)),
        ("edge_cell_distance", attrs.EDGE_CELL_DISTANCE, ("nc", "edge")),
        ("edge_vert_distance", attrs.EDGE_VERTEX_DISTANCE, ("nc", "edge")),
        ("orientation_of_normal", attrs.CELL_NORMAL_ORIENTATION, ("nv", "cell")),
        ("edge_primal_normal_cartesian_x", attrs.EDGE_NORMAL_X, ("edge",)),
        ("edge_primal_normal_cartesian_y", attrs.EDGE_NORMAL_Y, ("edge",)),
        ("edge_primal_normal_cartesian_z", attrs.EDGE_NORMAL_Z, ("edge",)),
        ("edge_dual_normal_cartesian_x", attrs.EDGE_TANGENT_X, ("edge",)),
        ("edge_dual_normal_cartesian_y", attrs.EDGE_TANGENT_Y, ("edge",)),
        ("edge_dual_normal_cartesian_z", attrs.EDGE_TANGENT_Z, ("edge",)),
    ):
        values = geometry[key]
        ds.createVariable(name, "f8", dims)[:] = values.T if values.ndim == 2 else values
    orientation = geometry[attrs.VERTEX_EDGE_ORIENTATION].astype(np.int32)
    ds.createVariable("edge_orientation", "i4", ("ne", "vertex"))[:] = orientation.T


def load_grid_file(
    path: str | os.PathLike,
    *,
    num_levels: int = 65,
    allocator: gtx_typing.Allocator | None = None,
    keep_skip_values: bool = False,
    spec: GridSpec | None = None,
) -> GeneratedGrid:
    """Read an ICON grid file with icon4py's ``GridManager`` into a :class:`GeneratedGrid`.

    ``geometry`` holds what the file provides (areas, lengths, orientations, distances) under
    icon4py's attribute names; ``topology`` is the file's primary tables (zero-based).
    ``spec``: the preset the file is made for (its name and counts; default: the file's).
    A preset's file whose counts are not the preset's is refused, naming both (the caller
    says what to do: :meth:`iconbench.grids.Grid.generate`).
    """
    path = pathlib.Path(path)
    if not path.is_file():
        raise IconbenchError(
            f"grid file '{path}' does not exist; give the path of an ICON grid file"
        )
    try:
        manager = gm.GridManager(
            grid_file=path,
            config=vertical_config(num_levels),
            offset_transformation=icon_gridfile.ToZeroBasedIndexTransformation(),
        )
        manager(allocator=allocator, keep_skip_values=keep_skip_values)
    except (OSError, KeyError, icon_exceptions.IconGridError) as error:
        raise IconbenchError(
            f"cannot read ICON grid file '{path}' ({error}); is it an ICON horizontal grid file?"
        ) from error
    grid = manager.grid
    with netcdf.Dataset(path) as ds:
        topology = _read_topology(ds)
        control = RefinementControl(
            cells=np.asarray(ds["refin_c_ctrl"][:], dtype=np.int32),
            edges=np.asarray(ds["refin_e_ctrl"][:], dtype=np.int32),
            vertices=np.asarray(ds["refin_v_ctrl"][:], dtype=np.int32),
        )
        planar = _planar_coordinates(ds, grid.limited_area)
        period = _torus_period(ds)
    fields = {name: field.asnumpy() for name, field in manager.geometry_fields.items()}
    geometry = {
        attrs.CELL_AREA: fields["cell_area"],
        attrs.DUAL_AREA: fields["dual_area"],
        attrs.EDGE_LENGTH: fields["edge_length"],
        attrs.DUAL_EDGE_LENGTH: fields["dual_edge_length"],
        attrs.EDGE_CELL_DISTANCE: fields["edge_cell_distance"],
        attrs.EDGE_VERTEX_DISTANCE: fields["edge_vert_distance"],
        attrs.TANGENT_ORIENTATION: fields["edge_system_orientation"],
        attrs.CELL_NORMAL_ORIENTATION: fields["orientation_of_normal"],
        attrs.VERTEX_EDGE_ORIENTATION: fields["edge_orientation"].astype(np.float64),
    }
    geometry |= planar
    if period is not None and attrs.VERTEX_X in planar:
        # a torus: the plane's geometry by component, as the lattice generator computes it
        # (icon4py's field factories need it), from the file's own tables and coordinates;
        # what the file holds stays the file's
        derived = compute_geometry(topology, planar[attrs.VERTEX_X], planar[attrs.VERTEX_Y], period)
        geometry = derived | geometry
    found = GridSpec(
        name=path.stem,
        num_cells=grid.num_cells,
        num_levels=num_levels,
        limited_area=grid.limited_area,
        description=f"ICON grid file {path}",
        num_edges=grid.num_edges,
        num_vertices=grid.num_vertices,
        grid_file=str(path),
    )
    if spec is not None and (differ := spec.counts.differences(found.counts)):
        raise IconbenchError(f"grid file '{path}' is not preset {spec.name}'s grid ({differ})")
    spec = spec or found
    return GeneratedGrid(
        spec=spec,
        grid=grid,
        geometry=geometry,
        vertical=build_vertical(num_levels, allocator),
        topology=topology,
        refinement_control=control,
    )


#: The sphere's radius ICON and icon4py use (``constants.EARTH_RADIUS``), metres.
EARTH_RADIUS = 6.371229e6


def _planar_coordinates(ds: netcdf.Dataset, limited_area: bool) -> dict[str, np.ndarray]:
    """Planar coordinates in metres, where the programs' inputs raise their mountains.

    :mod:`iconbench.programs.orography` places its hills by the cell centres, and icon4py's
    field factories (:mod:`iconbench.granules.fields`) read all three: a torus file's own
    coordinates, every one it has; a limited area's cell centres on a sinusoidal projection
    about the domain's middle meridian (neighbouring centres as far apart as the file's dual
    edges, within 1 % on ``mch_r19b08_lam``, within 11 % over Europe on ``r02b05_lam``).
    None for a global sphere, which no plane holds: its inputs stay on flat terrain.

    Without them a file's grid had no orography at all, so the programs that extrapolate
    below the ground or diffuse over steep points measured flat terrain there.
    """
    if getattr(ds, "grid_geometry", 1) == 2:
        return {
            key: np.asarray(ds[pattern.format(axis)][:], dtype=float)
            for _, _, pattern, keys in _PLANAR
            for axis, key in zip("xyz", keys, strict=True)
            if pattern.format(axis) in ds.variables
        }
    if not limited_area or not {"clon", "clat"} <= ds.variables.keys():
        return {}
    lon = np.asarray(ds["clon"][:], dtype=float)
    lat = np.asarray(ds["clat"][:], dtype=float)
    if str(getattr(ds["clon"], "units", "radian")).startswith("deg"):
        lon, lat = np.radians(lon), np.radians(lat)
    lon0 = np.angle(np.mean(np.exp(1j * lon)))  # the middle, also across the date line
    return {
        attrs.CELL_CENTER_X: EARTH_RADIUS * np.cos(lat) * np.angle(np.exp(1j * (lon - lon0))),
        attrs.CELL_CENTER_Y: EARTH_RADIUS * (lat - float(np.mean(lat))),
    }


def _torus_period(ds: netcdf.Dataset) -> tuple[float, float] | None:
    """A torus file's period (``domain_length``, ``domain_height``); ``None`` for others."""
    if getattr(ds, "grid_geometry", 1) != 2 or not {"domain_length", "domain_height"} <= set(
        ds.ncattrs()
    ):
        return None
    return float(ds.getncattr("domain_length")), float(ds.getncattr("domain_height"))


def _read_topology(ds: netcdf.Dataset) -> Topology:
    tables = {}
    for name, attribute, _, _ in _TABLES:
        fortran = np.asarray(ds[name][:], dtype=np.int64).T
        tables[attribute] = np.where(fortran <= 0, -1, fortran - 1)
    return Topology(**tables)

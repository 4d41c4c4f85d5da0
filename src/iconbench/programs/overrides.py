"""Reviewed per-program input values: index ranges, masks, offsets and namelist scalars.

The input builder derives everything from the signature; this table holds the values that
matter for validity or performance and cannot be derived: which zone of the grid a program
runs on (ICON never runs the dycore on the whole grid: the lateral boundary is set by
nudging, the halo by communication), the vertical range, masks and index fields.

Sources, cited per entry (paths inside the installed ``icon4py`` 0.4.1):

- ``dycore/solve_nonhydro.py``: ``SolveNonhydro.__init__`` (``setup_program`` calls with
  ``horizontal_sizes``/``vertical_sizes``) and ``_determine_local_domains`` (zone per index);
- ``dycore/velocity_advection.py``: ``VelocityAdvection.__init__`` and its domains;
- ``diffusion/diffusion.py``: ``Diffusion.__init__`` and ``_determine_horizontal_domains``.

Index parameters named after a zone (``start_edge_lateral_boundary_level_7``,
``end_cell_index_halo_lvl1``) are read from their name (:func:`zone_from_name`), because the
granules pass exactly that zone under that name. Programs not called by any granule (legacy
single stencils kept for the upstream StencilTests) run on the whole local domain; the
catalog marks them ``reviewed=False``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from iconbench.programs import orography
from iconbench.programs.orography import CELL_X, CELL_Y

SOLVE_NONHYDRO = "dycore/solve_nonhydro.py"
VELOCITY_ADVECTION = "dycore/velocity_advection.py"
DIFFUSION = "diffusion/diffusion.py"

#: Density of a boolean field no rule covers (half the points selected).
DEFAULT_MASK_DENSITY = 0.5

#: ICON-CH-like dynamics time step [s] (1 km setups use 10 s).
DTIME = 10.0
#: Dynamics substeps per physics step (``ndyn_substeps``, ICON default 5).
NDYN_SUBSTEPS = 5


@dataclasses.dataclass(frozen=True)
class Context:
    """What the rules may depend on: level counts, zone bounds, vertical coordinate, geometry."""

    nlev: int
    nflatlev: int
    end_index_of_damping_layer: int
    kstart_moist: int
    #: ``{dim: {zone: (start, end)}}``, dim ``Cell``/``Edge``/``Vertex``, zone as ``Zone.name``.
    zones: dict[str, dict[str, tuple[int, int]]]
    vct_a: np.ndarray
    geometry: dict[str, np.ndarray]
    #: neighbour tables by icon4py name (``E2C``, ``C2E2C``): what the orography rules need
    connectivities: dict[str, np.ndarray] = dataclasses.field(default_factory=dict)

    @classmethod
    def of(cls, grid: Any) -> Context:
        """The context of a :class:`iconbench.grids.GeneratedGrid` (or a bare icon4py grid)."""
        from icon4py.model.common import dimension as dims
        from icon4py.model.common.grid import horizontal as h_grid

        icon_grid = getattr(grid, "grid", grid)
        zones: dict[str, dict[str, tuple[int, int]]] = {}
        for dim in (dims.CellDim, dims.EdgeDim, dims.VertexDim):
            zones[dim.value] = {}
            for zone in h_grid.Zone:
                # icon4py rejects a zone a dimension lacks with an assert (gone under -O)
                # or, past the assert, with a KeyError from the index lookup.
                try:
                    domain = h_grid.domain(dim)(zone)
                    bounds = (int(icon_grid.start_index(domain)), int(icon_grid.end_index(domain)))
                except (AssertionError, KeyError, ValueError):
                    continue
                zones[dim.value][zone.name] = bounds
        nlev = icon_grid.num_levels
        vertical = getattr(grid, "vertical", None)
        if vertical is not None:
            vgrid = vertical.vertical_grid
            return cls(
                nlev,
                int(vertical.nflatlev),
                int(vgrid.end_index_of_damping_layer),
                int(vgrid.kstart_moist),
                zones,
                np.asarray(vertical.vct_a, dtype=float),
                dict(getattr(grid, "geometry", {})),
                _tables(icon_grid, ("E2C", "C2E2C")),
            )
        vct_a = np.linspace(22000.0, 0.0, nlev + 1)
        return cls(nlev, 0, 0, 0, zones, vct_a, {})

    def orography(self) -> Any:
        """The Alpine orography fields of this grid (:mod:`iconbench.programs.orography`).

        Computed once per grid; ``None`` without geometry or neighbour tables.
        """
        if not {CELL_X, CELL_Y} <= self.geometry.keys():
            return None
        if not {"E2C", "C2E2C"} <= self.connectivities.keys():
            return None
        key = (id(self.geometry[CELL_X]), self.nlev, self.nflatlev)
        if key not in _OROGRAPHY:
            _OROGRAPHY.clear()  # one grid per process: keep one
            _OROGRAPHY[key] = orography.compute(
                self, self.connectivities["E2C"], self.connectivities["C2E2C"]
            )
        return _OROGRAPHY[key]

    def start(self, dim: str, zone: str) -> int:
        return self.zones[dim][zone][0]

    def end(self, dim: str, zone: str) -> int:
        return self.zones[dim][zone][1]


_OROGRAPHY: dict[tuple[int, int, int], Any] = {}


def _tables(icon_grid: Any, names: tuple[str, ...]) -> dict[str, np.ndarray]:
    """Host copies of the neighbour tables ``names`` of ``icon_grid`` (those it has)."""
    found = {}
    tables = getattr(icon_grid, "connectivities", {}) or {}
    for name in names:
        if name not in tables:
            continue
        array = getattr(tables[name], "ndarray", tables[name])
        found[name] = np.asarray(array.get() if hasattr(array, "get") else array)
    return found


# ---------------------------------------------------------------------------------------------
# Index ranges


@dataclasses.dataclass(frozen=True)
class Zone:
    """``start``/``end`` index of a zone of ``dim`` (``grid.start_index(domain(dim)(zone))``)."""

    dim: str
    side: str
    zone: str

    def value(self, context: Context) -> int:
        return (context.start if self.side == "start" else context.end)(self.dim, self.zone)

    def __str__(self) -> str:
        return f"{self.side}_index({self.dim}, {self.zone})"


@dataclasses.dataclass(frozen=True)
class Level:
    """A vertical index: ``base + offset``, ``base`` one of ``0 nlev nflatlev ...``."""

    base: str
    offset: int = 0

    def value(self, context: Context) -> int:
        base = 0 if self.base == "0" else int(getattr(context, self.base))
        return base + self.offset

    def __str__(self) -> str:
        return self.base + (f"{self.offset:+d}" if self.offset else "")


Index = Zone | Level

_ZONE_WORDS = (
    (r"lateral_boundary_level_(\d)|lateral_lvl(\d)", "LATERAL_BOUNDARY_LEVEL_{}"),
    (r"lateral_boundary", "LATERAL_BOUNDARY"),
    (r"nudging_level_2", "NUDGING_LEVEL_2"),
    (r"nudging", "NUDGING"),
    (r"halo_level_2|halo_lvl2", "HALO_LEVEL_2"),
    (r"halo(_lvl1)?", "HALO"),
    (r"interior", "INTERIOR"),
    (r"local", "LOCAL"),
    (r"end$", "END"),
)


def zone_from_name(name: str) -> Zone | None:
    """The zone an index parameter names, as the granules name them.

    >>> str(zone_from_name("start_edge_lateral_boundary_level_7"))
    'start_index(Edge, LATERAL_BOUNDARY_LEVEL_7)'
    >>> str(zone_from_name("end_cell_index_halo_lvl1"))
    'end_index(Cell, HALO)'
    >>> zone_from_name("horizontal_start") is None
    True
    """
    match = re.fullmatch(r"(start|end)_(cell|edge|vertex)_(?:index_)?(\w+)", name)
    if not match:
        return None
    side, dim, rest = match.groups()
    for pattern, zone in _ZONE_WORDS:
        found = re.fullmatch(pattern, rest)
        if found:
            level = next((g for g in found.groups() if g), None) if found.groups() else None
            zone_name = zone.format(level) if level else zone
            if zone_name == "LATERAL_BOUNDARY_LEVEL_1":
                zone_name = "LATERAL_BOUNDARY"
            return Zone(dim.capitalize(), side, zone_name)
    return None


def _h(dim: str, start: str, end: str) -> dict[str, Index]:
    return {"horizontal_start": Zone(dim, "start", start), "horizontal_end": Zone(dim, "end", end)}


def _v(start: Level, end: Level) -> dict[str, Index]:
    return {"vertical_start": start, "vertical_end": end}


ZERO, NLEV, NLEV1 = Level("0"), Level("nlev"), Level("nlev", 1)


@dataclasses.dataclass(frozen=True)
class CallSite:
    """The index arguments a granule passes to a program, and where."""

    source: str
    indices: dict[str, Index]


#: Programs called by the granules, with the indices of that call (icon4py 0.4.1).
CALL_SITES: dict[str, CallSite] = {
    "compute_exner_from_rhotheta": CallSite(
        f"{SOLVE_NONHYDRO}: _compute_exner_from_rhotheta_in_lateral_boundary",
        {**_h("Cell", "LATERAL_BOUNDARY", "LATERAL_BOUNDARY_LEVEL_4"), **_v(ZERO, NLEV)},
    ),
    "update_theta_and_exner_in_halo": CallSite(
        f"{SOLVE_NONHYDRO}: _update_theta_and_exner_in_halo",
        {**_h("Cell", "HALO", "END"), **_v(ZERO, NLEV)},
    ),
    "compute_hydrostatic_correction_term": CallSite(
        f"{SOLVE_NONHYDRO}: _compute_hydrostatic_correction_term",
        {**_h("Edge", "NUDGING_LEVEL_2", "LOCAL"), **_v(Level("nlev", -1), NLEV)},
    ),
    "compute_rho_theta_pgrad_and_update_vn": CallSite(
        f"{SOLVE_NONHYDRO}: _compute_rho_theta_pgrad_and_update_vn",
        {
            "horizontal_start": Level("0"),
            "horizontal_end": Zone("Edge", "end", "HALO_LEVEL_2"),
            "nflatlev": Level("nflatlev"),
            "nflat_gradp": Level("nflatlev"),
            **_v(ZERO, NLEV),
        },
    ),
    "apply_divergence_damping_and_update_vn": CallSite(
        f"{SOLVE_NONHYDRO}: _apply_divergence_damping_and_update_vn",
        {**_h("Edge", "NUDGING_LEVEL_2", "LOCAL"), **_v(ZERO, NLEV)},
    ),
    "compute_horizontal_velocity_quantities_and_fluxes": CallSite(
        f"{SOLVE_NONHYDRO}: _compute_horizontal_velocity_quantities_and_fluxes",
        {
            **_h("Edge", "LATERAL_BOUNDARY_LEVEL_5", "HALO_LEVEL_2"),
            "nflatlev": Level("nflatlev"),
            **_v(ZERO, NLEV1),
        },
    ),
    "compute_averaged_vn_and_fluxes": CallSite(
        f"{SOLVE_NONHYDRO}: _compute_averaged_vn_and_fluxes",
        {**_h("Edge", "LATERAL_BOUNDARY_LEVEL_5", "HALO_LEVEL_2"), **_v(ZERO, NLEV)},
    ),
    "vertically_implicit_solver_at_predictor_step": CallSite(
        f"{SOLVE_NONHYDRO}: _vertically_implicit_solver_at_predictor_step",
        {
            "flat_level_index_plus1": Level("nflatlev", 1),
            "vertical_start_index_model_top": ZERO,
            "vertical_end_index_model_surface": NLEV1,
        },
    ),
    "vertically_implicit_solver_at_corrector_step": CallSite(
        f"{SOLVE_NONHYDRO}: _vertically_implicit_solver_at_corrector_step",
        {"vertical_start_index_model_top": ZERO, "vertical_end_index_model_surface": NLEV1},
    ),
    "compute_dwdz_for_divergence_damping": CallSite(
        f"{SOLVE_NONHYDRO}: _compute_dwdz_for_divergence_damping",
        {**_h("Cell", "LATERAL_BOUNDARY", "LATERAL_BOUNDARY_LEVEL_4"), **_v(ZERO, NLEV)},
    ),
    "init_cell_kdim_field_with_zero_wp": CallSite(
        f"{SOLVE_NONHYDRO}: _init_cell_kdim_field_with_zero_wp",
        {**_h("Cell", "LATERAL_BOUNDARY", "LATERAL_BOUNDARY_LEVEL_4"), **_v(ZERO, NLEV1)},
    ),
    "update_mass_flux_weighted": CallSite(
        f"{SOLVE_NONHYDRO}: _update_mass_flux_weighted",
        {**_h("Cell", "LATERAL_BOUNDARY", "LATERAL_BOUNDARY_LEVEL_4"), **_v(Level("0", 1), NLEV)},
    ),
    "compute_perturbed_quantities_and_interpolation": CallSite(
        f"{SOLVE_NONHYDRO}: _compute_perturbed_quantities_and_interpolation",
        {
            "nflatlev": Level("nflatlev"),
            "nflat_gradp": Level("nflatlev"),
            "model_top": ZERO,
            "surface_level": NLEV1,
        },
    ),
    "compute_interpolation_and_nonhydro_buoy": CallSite(
        f"{SOLVE_NONHYDRO}: _compute_interpolation_and_nonhydro_buoy",
        {**_h("Cell", "LATERAL_BOUNDARY_LEVEL_3", "LOCAL"), **_v(Level("0", 1), NLEV)},
    ),
    "stencils_61_62": CallSite(
        f"{SOLVE_NONHYDRO}: _stencils_61_62",
        {**_h("Cell", "LATERAL_BOUNDARY", "LATERAL_BOUNDARY_LEVEL_4"), **_v(ZERO, NLEV1)},
    ),
    "init_test_fields": CallSite(
        f"{SOLVE_NONHYDRO}: _init_test_fields",
        {
            "edges_start": Zone("Edge", "start", "LATERAL_BOUNDARY"),
            "edges_end": Zone("Edge", "end", "LOCAL"),
            "cells_start": Zone("Cell", "start", "LATERAL_BOUNDARY"),
            "cells_end": Zone("Cell", "end", "END"),
            **_v(ZERO, NLEV),
        },
    ),
    "compute_diagnostics_from_normal_wind": CallSite(
        f"{VELOCITY_ADVECTION}: _compute_diagnostics_from_normal_wind",
        {
            **_h("Edge", "LATERAL_BOUNDARY_LEVEL_5", "HALO_LEVEL_2"),
            "nflatlev": Level("nflatlev"),
            **_v(ZERO, NLEV1),
        },
    ),
    "compute_advection_in_predictor_vertical_momentum": CallSite(
        f"{VELOCITY_ADVECTION}: _compute_advection_in_predictor_vertical_momentum",
        {
            **_h("Cell", "LATERAL_BOUNDARY_LEVEL_4", "HALO"),
            "nflatlev": Level("nflatlev"),
            **_v(ZERO, NLEV),
        },
    ),
    "compute_advection_in_corrector_vertical_momentum": CallSite(
        f"{VELOCITY_ADVECTION}: _compute_advection_in_corrector_vertical_momentum",
        {**_h("Cell", "LATERAL_BOUNDARY_LEVEL_4", "HALO"), **_v(ZERO, NLEV)},
    ),
    "compute_advection_in_horizontal_momentum": CallSite(
        f"{VELOCITY_ADVECTION}: _compute_advection_in_horizontal_momentum",
        {**_h("Edge", "NUDGING_LEVEL_2", "LOCAL"), **_v(ZERO, NLEV)},
    ),
    "mo_intp_rbf_rbf_vec_interpol_vertex": CallSite(
        f"{DIFFUSION}: mo_intp_rbf_rbf_vec_interpol_vertex",
        {**_h("Vertex", "LATERAL_BOUNDARY_LEVEL_2", "LOCAL"), **_v(ZERO, NLEV)},
    ),
    "calculate_nabla2_and_smag_coefficients_for_vn": CallSite(
        f"{DIFFUSION}: calculate_nabla2_and_smag_coefficients_for_vn",
        {**_h("Edge", "LATERAL_BOUNDARY_LEVEL_5", "HALO_LEVEL_2"), **_v(ZERO, NLEV)},
    ),
    "calculate_diagnostic_quantities_for_turbulence": CallSite(
        f"{DIFFUSION}: calculate_diagnostic_quantities_for_turbulence",
        {**_h("Cell", "NUDGING", "LOCAL"), **_v(Level("0", 1), NLEV)},
    ),
    "apply_diffusion_to_vn": CallSite(
        f"{DIFFUSION}: apply_diffusion_to_vn",
        {
            **_h("Edge", "LATERAL_BOUNDARY_LEVEL_5", "LOCAL"),
            "start_2nd_nudge_line_idx_e": Zone("Edge", "start", "NUDGING_LEVEL_2"),
            **_v(ZERO, NLEV),
        },
    ),
    "apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence": CallSite(
        f"{DIFFUSION}: apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence"
        " (start: NUDGING on a limited-area grid, LATERAL_BOUNDARY_LEVEL_4 global; we use NUDGING)",
        {
            **_h("Cell", "NUDGING", "HALO"),
            "halo_idx": Zone("Cell", "end", "LOCAL"),
            "interior_idx": Zone("Cell", "start", "INTERIOR"),
            "nrdmax": Level("end_index_of_damping_layer", 1),
            **_v(ZERO, NLEV),
        },
    ),
    "calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools": CallSite(
        f"{DIFFUSION}: calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools",
        {**_h("Edge", "NUDGING", "HALO"), **_v(Level("nlev", -2), NLEV)},
    ),
    "apply_diffusion_to_theta_and_exner": CallSite(
        f"{DIFFUSION}: apply_diffusion_to_theta_and_exner",
        {**_h("Cell", "NUDGING", "LOCAL"), **_v(ZERO, NLEV)},
    ),
    "init_nabla2_factor_in_upper_damping_zone": CallSite(
        f"{DIFFUSION}: init_nabla2_factor_in_upper_damping_zone",
        {
            "vertical_start": Level("0", 1),
            "vertical_end": Level("end_index_of_damping_layer", 1),
            "end_index_of_damping_layer": Level("end_index_of_damping_layer"),
            "nshift": ZERO,
        },
    ),
}

UPSTREAM_TESTS = "upstream StencilTest (icon4py v0.4.1 model/atmosphere/*/tests/*/stencil_tests)"
ICON_SURFACE = "ICON mo_solve_nonhydro: the lowest half level (jk = nlevp1) only"

#: Legacy single stencils (no granule calls them in 0.4.1) whose vertical range is not
#: ``[0, nlev)``: they read ``k - 1`` or live on half levels. Ranges as the upstream
#: StencilTest (which mirrors the Fortran loop bounds) or ICON's call.
LEGACY_VERTICAL: dict[str, CallSite] = {
    name: CallSite(source, _v(start, end))
    for name, start, end, source in (
        ("compute_advective_vertical_wind_tendency", Level("0", 1), NLEV, UPSTREAM_TESTS),
        ("compute_contravariant_correction_of_w", Level("0", 1), NLEV, UPSTREAM_TESTS),
        ("compute_contravariant_correction_of_w_for_lower_boundary", NLEV, NLEV1, UPSTREAM_TESTS),
        (
            "compute_perturbation_of_rho_and_theta_and_rho_interface_cell_centers",
            Level("0", 1),
            NLEV,
            UPSTREAM_TESTS,
        ),
        (
            "compute_rho_virtual_potential_temperatures_and_pressure_gradient",
            Level("0", 1),
            NLEV,
            UPSTREAM_TESTS,
        ),
        (
            "compute_virtual_potential_temperatures_and_pressure_gradient",
            Level("0", 1),
            NLEV,
            UPSTREAM_TESTS,
        ),
        ("extrapolate_at_top", NLEV, NLEV1, UPSTREAM_TESTS),
        ("extrapolate_quadratically_to_surface", NLEV, NLEV1, ICON_SURFACE),
        ("set_theta_v_prime_ic_at_lower_boundary", NLEV, NLEV1, ICON_SURFACE),
        (
            "interpolate_vn_and_vt_to_ie_and_compute_ekin_on_edges",
            Level("0", 1),
            NLEV,
            UPSTREAM_TESTS,
        ),
        (
            "interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges",
            Level("0", 1),
            NLEV,
            UPSTREAM_TESTS,
        ),
        ("interpolate_vt_to_interface_edges", Level("0", 1), NLEV, UPSTREAM_TESTS),
        ("solve_tridiagonal_matrix_for_w_forward_sweep", Level("0", 1), NLEV, UPSTREAM_TESTS),
        ("solve_tridiagonal_matrix_for_w_back_substitution", Level("0", 1), NLEV, UPSTREAM_TESTS),
    )
}

#: Vertical index parameters by name, wherever they appear (granules use one name, one value).
LEVELS_BY_NAME: dict[str, Level] = {
    "vertical_start": ZERO,
    "vertical_end": NLEV,
    "model_top": ZERO,
    "vertical_start_index_model_top": ZERO,
    "surface_level": NLEV1,
    "vertical_end_index_model_surface": NLEV1,
    "nflatlev": Level("nflatlev"),
    "nflat_gradp": Level("nflatlev"),
    "flat_level_index_plus1": Level("nflatlev", 1),
    "end_index_of_damping_layer": Level("end_index_of_damping_layer"),
    "kstart_moist": Level("kstart_moist"),
    "nrdmax": Level("end_index_of_damping_layer", 1),
    "nshift": ZERO,
}


# ---------------------------------------------------------------------------------------------
# Scalars

#: Scalars the granules pass in ``constant_args`` (``setup_program`` compiles every scalar
#: constant in, next to ``horizontal_sizes``/``vertical_sizes``): compile-time for the
#: programs of :data:`CALL_SITES`, exactly as in ICON.
ICON_STATIC_SCALARS: frozenset[str] = frozenset(
    {
        "rd_o_cvd",
        "rd_o_p0ref",
        "grav_o_cpd",
        "dbl_eps",
        "smallest_vpfloat",
        "divdamp_order",
        "igradp_method",
        "max_nudging_coefficient",
        "mean_cell_area",
        "advection_explicit_weight_parameter",
        "advection_implicit_weight_parameter",
        "rhotheta_explicit_weight_parameter",
        "rhotheta_implicit_weight_parameter",
        "nudgezone_diff",
        "fac_bdydiff_v",
        "diff_multfac_w",
        "type_shear",
        "thresh_tdiff",
        "nshift",
        *(f"hdiff_smag_{k}" for k in ("fac", "fac2", "fac3", "fac4", "z", "z2", "z3", "z4")),
    }
)


def _constant(name: str) -> float | None:
    from icon4py.model.common import constants

    value = getattr(constants, name.upper(), None)
    return float(value) if isinstance(value, int | float) else None


#: Namelist-derived scalars (ICON defaults unless said otherwise) and their source.
SCALARS: dict[str, tuple[Callable[[Context], Any], str]] = {
    "dtime": (lambda c: DTIME, "ICON-CH1 dynamics time step"),
    "cfl_w_limit": (lambda c: 0.65, f"{VELOCITY_ADVECTION}: self._cfl_w_limit"),
    "scalfac_exdiff": (lambda c: 0.05, f"{VELOCITY_ADVECTION}: self._scalfac_exdiff"),
    "r_nsubsteps": (lambda c: 1.0 / NDYN_SUBSTEPS, "1/ndyn_substeps (ICON default 5)"),
    "ndyn_substeps_var": (lambda c: float(NDYN_SUBSTEPS), "ndyn_substeps (ICON default 5)"),
    "dyn_substeps": (lambda c: float(NDYN_SUBSTEPS), "ndyn_substeps (ICON default 5)"),
    "wgt_nnow_vel": (lambda c: 0.25, "veladv_offctr = 0.25 (nonhydrostatic_nml default)"),
    "wgt_nnew_vel": (lambda c: 0.75, "1 - veladv_offctr"),
    "wgt_nnow_rth": (lambda c: 0.6, "0.5 - rhotheta_offctr (-0.1, default)"),
    "wgt_nnew_rth": (lambda c: 0.4, "0.5 + rhotheta_offctr"),
    "advection_explicit_weight_parameter": (lambda c: 0.25, "veladv_offctr"),
    "advection_implicit_weight_parameter": (lambda c: 0.75, "1 - veladv_offctr"),
    "rhotheta_explicit_weight_parameter": (lambda c: 0.6, "0.5 - rhotheta_offctr"),
    "rhotheta_implicit_weight_parameter": (lambda c: 0.4, "0.5 + rhotheta_offctr"),
    "iau_wgt_dyn": (lambda c: 1.0, "IAU weight inside the IAU window"),
    "dbl_eps": (lambda c: _constant("dbl_eps"), "icon4py constants.DBL_EPS"),
    "smallest_vpfloat": (lambda c: _constant("dbl_eps"), f"{DIFFUSION}: constants.DBL_EPS"),
    "mean_cell_area": (
        lambda c: float(np.asarray(c.geometry.get("mean_cell_area", 2.0e6)).reshape(-1)[0]),
        "grid geometry mean_cell_area",
    ),
    "max_nudging_coefficient": (lambda c: 0.375, "nudge_max_coeff (ICON-CH LAM)"),
    "second_order_divdamp_factor": (lambda c: 0.025, "divdamp_fac_o2 (ICON default)"),
    "second_order_divdamp_scaling_coeff": (lambda c: 0.025 * 2.0e6, "divdamp_fac_o2 * area"),
    "scal_divdamp_o2": (lambda c: 0.025 * 2.0e6, "divdamp_fac_o2 * area"),
    "k4": (lambda c: 1.0 / 128.0, "hdiff_k4 (diffusion_nml default 1/128)"),
    "diff_multfac_w": (lambda c: 1.0 / 48.0, f"{DIFFUSION}: min(1/48, K4W * substeps)"),
    "nudgezone_diff": (lambda c: 0.04 / (0.375 + 1e-16), f"{DIFFUSION}: nudgezone_diff"),
    "fac_bdydiff_v": (lambda c: 1.0 / 200.0, f"{DIFFUSION}: fac_bdydiff_v"),
    "smag_offset": (lambda c: 0.25 / 128.0, f"{DIFFUSION}: 0.25 * K4 * substeps"),
    "thresh_tdiff": (lambda c: -5.0, f"{DIFFUSION}: thresh_tdiff"),
    "hdiff_efdt_ratio": (lambda c: 24.0, "hdiff_efdt_ratio (diffusion_nml)"),
    "factor": (lambda c: 0.5, "a plausible scaling factor"),
    "hdiff_smag_fac": (lambda c: 0.15, "hdiff_smag_fac (diffusion_nml)"),
    "hdiff_smag_fac2": (lambda c: 0.2, "hdiff_smag_fac2"),
    "hdiff_smag_fac3": (lambda c: 0.0, "hdiff_smag_fac3"),
    "hdiff_smag_fac4": (lambda c: 1.0, "hdiff_smag_fac4"),
    "hdiff_smag_z": (lambda c: 32500.0, "hdiff_smag_z"),
    "hdiff_smag_z2": (lambda c: 45000.0, "hdiff_smag_z2"),
    "hdiff_smag_z3": (lambda c: 50000.0, "hdiff_smag_z3"),
    "hdiff_smag_z4": (lambda c: 85000.0, "hdiff_smag_z4"),
    "heights_1": (lambda c: float(c.vct_a[1]), f"{DIFFUSION}: interface_physical_height[1]"),
    "heights_nrd_shift": (
        lambda c: float(c.vct_a[min(c.end_index_of_damping_layer + 1, c.nlev)]),
        f"{DIFFUSION}: interface_physical_height[end_index_of_damping_layer + 1]",
    ),
    "igradp_method": (lambda c: 3, "igradp_method = 3 (taylor_hydro, ICON default)"),
    "divdamp_order": (lambda c: 24, "divdamp_order = 24 (ICON default)"),
    "type_shear": (lambda c: 0, "itype_sher = 0 (turbdiff_nml default)"),
}


def scalar_values(spec: Any, context: Context) -> tuple[dict[str, tuple[Any, str]], bool]:
    """``{scalar: (value, source)}`` of each scalar of ``spec``; whether a call site covers it."""
    values, reviewed, _ = scalar_values_and_static(spec, context)
    return values, reviewed


def scalar_values_and_static(
    spec: Any, context: Context
) -> tuple[dict[str, tuple[Any, str]], bool, frozenset[str]]:
    """As :func:`scalar_values`, plus the scalars ICON compiles in (for call-site programs)."""
    import gt4py.next as gtx

    site = CALL_SITES.get(spec.name)
    legacy = LEGACY_VERTICAL.get(spec.name)
    static: set[str] = set()
    horizontal = _horizontal_dims(spec)
    values: dict[str, tuple[Any, str]] = {}
    for param in spec.params:
        if param.is_field or param.name in spec.static_params:
            continue
        name = param.name
        index: Index | None = None
        source = ""
        if site and name in site.indices:
            index, source = site.indices[name], f"override: {site.source}"
        elif legacy and name in legacy.indices:
            index, source = legacy.indices[name], f"legacy range: {legacy.source}"
        elif zone_from_name(name) is not None:
            index, source = zone_from_name(name), "zone named by the parameter"
        elif name in LEVELS_BY_NAME:
            index, source = LEVELS_BY_NAME[name], "vertical index by name"
        elif name in ("horizontal_start", "horizontal_end") and horizontal:
            side = "start" if name.endswith("start") else "end"
            index = Zone(horizontal, side, "LATERAL_BOUNDARY" if side == "start" else "LOCAL")
            source = "default: whole local domain"
        if index is not None:
            values[name] = (gtx.int32(index.value(context)), f"{source}: {index}")
            if site is not None:
                static.add(name)
            continue
        if name in SCALARS:
            make, why = SCALARS[name]
            value, source = make(context), f"namelist: {why}"
        elif _constant(name) is not None:
            value, source = _constant(name), f"icon4py constants.{name.upper()}"
        elif param.dtype.startswith("int"):
            value, source = 0, "default: 0 (unreviewed integer)"
        elif param.dtype == "bool":
            value, source = False, "default: False"
        else:
            value, source = 0.5, "default: 0.5 (unreviewed)"
        values[name] = (_typed(value, param.dtype), source)
        if site is not None and name in ICON_STATIC_SCALARS:
            static.add(name)
    return values, site is not None, frozenset(static)


def _typed(value: Any, dtype: str) -> Any:
    import gt4py.next as gtx

    if dtype == "bool":
        return bool(value)
    return getattr(gtx, dtype)(value)


def _horizontal_dims(spec: Any) -> str | None:
    for bound in spec.domain_bounds:
        if bound.dim in ("Cell", "Edge", "Vertex"):
            return bound.dim
    return spec.horizontal_dim


# ---------------------------------------------------------------------------------------------
# Fields


@dataclasses.dataclass(frozen=True)
class FieldRule:
    """How to fill one field: ``make(shape, rng, context) -> values``, and why.

    ``orography``: the values come from the grid's orography (:meth:`Context.orography`),
    seconds of host work once per process (:func:`reads_orography`).
    """

    make: Callable[[tuple[int, ...], np.random.Generator, Context], np.ndarray]
    source: str
    orography: bool = False


def _mask(density: float) -> Callable[[tuple[int, ...], np.random.Generator, Context], np.ndarray]:
    return lambda shape, rng, context: rng.random(shape) < density


def _constant_fill(value: Any, dtype: Any) -> Callable[..., np.ndarray]:
    return lambda shape, rng, context: np.full(shape, value, dtype=dtype)


_OVER_MOUNTAINS = "Alpine orography, icon4py's metric rules (programs/orography.py)"


def _orography(name: str, flat: Any) -> Callable[..., np.ndarray]:
    """The orography field ``name`` where its shape fits, else the flat-terrain value."""

    def make(shape: tuple[int, ...], rng: np.random.Generator, context: Context) -> np.ndarray:
        dtype = np.int32 if isinstance(flat, int) else float
        fields = context.orography()
        values = None if fields is None else getattr(fields, name)
        out = np.full(shape, flat, dtype=dtype)
        if values is None or values.shape[:-1] != shape[:-1] or values.shape[-1] > shape[-1]:
            return out
        # fields allocated with nlev + 1 levels keep the flat value on the extra level
        out[..., : values.shape[-1]] = values
        return out

    return make


def _over_mountains(name: str, flat: Any, note: str = "") -> FieldRule:
    """The rule of an orography field (``note``: what its values mean besides)."""
    source = _OVER_MOUNTAINS + (f" ({note})" if note else "")
    return FieldRule(_orography(name, flat), source, orography=True)


def _heights(shape: tuple[int, ...], rng: np.random.Generator, context: Context) -> np.ndarray:
    column = np.resize(context.vct_a, shape[-1])
    return np.broadcast_to(column, shape).astype(float).copy()


def _geometry(key: str, fallback: tuple[float, float]) -> Callable[..., np.ndarray]:
    def make(shape: tuple[int, ...], rng: np.random.Generator, context: Context) -> np.ndarray:
        values = context.geometry.get(key)
        if values is not None and np.shape(values) == shape:
            return np.asarray(values, dtype=float).copy()
        return rng.uniform(*fallback, size=shape)

    return make


#: Rules by field name (all programs).
FIELDS: dict[str, FieldRule] = {
    "owner_mask": FieldRule(
        _constant_fill(True, bool), "generated grids have no halo: every cell is owned"
    ),
    "c_owner_mask": FieldRule(_constant_fill(True, bool), "no halo: every cell is owned"),
    "mask_prog_halo_c": FieldRule(
        _constant_fill(False, bool), "no halo: no prognostic halo cells (metric mask_prog_halo_c)"
    ),
    "levelmask": FieldRule(_mask(0.1), "CFL-exceeding levels are rare: density 0.1"),
    "cfl_clipping": FieldRule(_mask(0.05), "CFL clipping is rare: density 0.05"),
    "ikoffset": _over_mountains("vertoffset_gradp", 0),
    "vertoffset_gradp": _over_mountains("vertoffset_gradp", 0),
    "zdiff_gradp": _over_mountains("zdiff_gradp", 0.0),
    "pg_exdist": _over_mountains("pg_exdist", 0.0, "mask: != 0"),
    "zd_vertoffset": _over_mountains("zd_vertoffset", 0),
    "zd_diffcoef": _over_mountains("zd_diffcoef", 0.0, "mask: != 0"),
    "vcoef": _over_mountains("zd_intcoef", 0.0, "zd_intcoef"),
    "zd_intcoef": _over_mountains("zd_intcoef", 0.0),
    "vect_a": FieldRule(_heights, "grid vct_a (interface heights)"),
    "physical_heights": FieldRule(_heights, "grid vct_a (interface heights)"),
    "area": FieldRule(_geometry("cell_area", (1e6, 4e6)), "grid geometry cell_area"),
    "area_edge": FieldRule(_geometry("edge_area", (1e6, 4e6)), "grid geometry edge_area"),
    "inv_dual_edge_length": FieldRule(
        _geometry("inverse_of_length_of_dual_edge", (5e-4, 2e-3)), "grid geometry"
    ),
    "inv_primal_edge_length": FieldRule(
        _geometry("inverse_of_edge_length", (5e-4, 2e-3)), "grid geometry"
    ),
    "inv_vert_vert_length": FieldRule(
        _geometry("inverse_of_vertex_vertex_length", (5e-4, 2e-3)), "grid geometry"
    ),
    "tangent_orientation": FieldRule(
        _geometry("edge_orientation", (-1.0, 1.0)), "grid geometry edge_orientation"
    ),
}

#: Fields with ``nlev`` levels instead of ``nlev + 1``, for programs without a vertical
#: ``domain=`` (they compute the whole field, so its size is the range): as the granule
#: allocates them.
FULL_LEVEL_FIELDS: dict[str, tuple[str, ...]] = {
    # diffusion.py _allocate_local_fields: zero_field(grid, dims.KDim) (nlev levels); the
    # program reads physical_heights (nlev + 1 interfaces) at k and k + 1.
    "init_diffusion_local_fields_for_regular_timestep": (
        "diff_multfac_vn",
        "smag_limit",
        "enh_smag_fac",
    ),
}


def _uniform(low: float, high: float) -> Callable[..., np.ndarray]:
    return lambda shape, rng, context: rng.uniform(low, high, size=shape)


#: Contravariant vertical wind near the CFL limit: ICON only calls the "approaching CFL"
#: stencils on levels where ``|w_con| * dtime / dz > cfl_w_limit`` somewhere
#: (velocity_advection: levelmask / cfl_clipping), so a few points must exceed it.
_NEAR_CFL = FieldRule(
    _uniform(-40.0, 40.0), "w_con up to 40 m/s: some points exceed cfl_w_limit * dz / dtime"
)

#: Rules for one program's field (``{program: {field: rule}}``), overriding :data:`FIELDS`.
PROGRAM_FIELDS: dict[str, dict[str, FieldRule]] = {
    "add_extra_diffusion_for_normal_wind_tendency_approaching_cfl": {
        "z_w_con_c_full": _NEAR_CFL,
        "levelmask": FieldRule(_constant_fill(True, bool), "levels flagged by the CFL check"),
    },
    "compute_maximum_cfl_and_clip_contravariant_vertical_velocity": {"z_w_con_c": _NEAR_CFL},
    "add_extra_diffusion_for_w_con_approaching_cfl": {
        "z_w_con_c": _NEAR_CFL,
        "levelmask": FieldRule(_constant_fill(True, bool), "levels flagged by the CFL check"),
    },
}


def field_rule(program: str, name: str) -> FieldRule | None:
    """The reviewed rule for field ``name`` of ``program``, if any."""
    return PROGRAM_FIELDS.get(program, {}).get(name) or FIELDS.get(name)


def reads_orography(program: str, names: Iterable[str]) -> bool:
    """Whether any field of ``names`` of ``program`` is filled from the grid's orography.

    A measuring worker computes the orography while it waits for its turn, not inside it
    (:func:`iconbench.suite.preload`): on mch_icon-ch1_medium it is 2.3-3.8 s of numpy, and
    the first such case of every process of an H100 check paid it on the device's time.

    >>> reads_orography("compute_rho_theta_pgrad_and_update_vn", ["vn", "ikoffset"])
    True
    >>> reads_orography("compute_tangential_wind", ["vn", "rbf_vec_coeff_e"])
    False
    """
    return any((rule := field_rule(program, name)) is not None and rule.orography for name in names)

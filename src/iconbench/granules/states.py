"""The diffusion and non-hydrostatic granules of icon4py 0.4.1, built on a generated grid.

Configurations are those of icon4py's own granule benchmarks
(``model/atmosphere/diffusion/tests/.../test_benchmark_diffusion.py``,
``model/atmosphere/dycore/tests/.../test_benchmark_solve_nonhydro.py`` at v0.4.1):
Smagorinsky 4th-order diffusion of vn, w and theta with 5 dynamics substeps, and the solver
with combined divergence damping; ``dtime`` 10 s on a limited-area grid, 90 s on a torus, at
most 10 s per 1.1 km of edge length (:func:`dtime_for`).

Where the values come from:

* geometry, interpolation and metric fields: icon4py's factories on the generated grid
  (:mod:`iconbench.granules.fields`), flat terrain;
* prognostic state: the factories' reference atmosphere (``rho_ref_mc``, ``theta_ref_mc``,
  ``exner_ref_mc``) with 0.1 % noise, ``vn`` uniform in (-10, 10) m/s and ``w`` in (-1, 1) m/s,
  zero at the model top and the ground;
* diagnostic state: zeros for the solver's tendencies and increments (as upstream), the
  diffusion diagnostics (``hdef_ic``, ``div_ic``, ``dwdx``, ``dwdy``) uniform in (-1e-4, 1e-4)
  1/s, the order of a km-scale deformation.

Random values come from one seeded generator per field name (same on every machine).
"""

from __future__ import annotations

import dataclasses
import zlib
from typing import TYPE_CHECKING, Any

import gt4py.next as gtx
import numpy as np
from icon4py.model.atmosphere.diffusion import diffusion_states
from icon4py.model.atmosphere.dycore import dycore_states
from icon4py.model.common import dimension as dims
from icon4py.model.common import utils as common_utils
from icon4py.model.common.decomposition import definitions as decomposition
from icon4py.model.common.grid import geometry_attributes as geo
from icon4py.model.common.grid import states as grid_states
from icon4py.model.common.interpolation import interpolation_attributes as intp
from icon4py.model.common.metrics import metrics_attributes as metrics
from icon4py.model.common.states import nonhydro_states
from icon4py.model.common.states import prognostic_state as prognostics

from iconbench.grids.generator import GeneratedGrid

if TYPE_CHECKING:  # the granules and the field factories: imported where they are built
    # (5.5 s of imports: pytest imports this module in every worker for its examples)
    from icon4py.model.atmosphere.diffusion import diffusion
    from icon4py.model.atmosphere.dycore import solve_nonhydro as solve_nh

    from iconbench.granules import fields

#: Dynamics substeps per time step (ICON's ndyn_substeps, upstream's benchmark value).
NDYN_SUBSTEPS = 5
SECOND_ORDER_DIVDAMP_FACTOR = 0.02


#: ICON-CH1's time step at its edge length: the acoustic CFL limit the solver's horizontally
#: explicit sound-wave terms need, scaled with the edge length below.
CH1_DTIME_S, CH1_EDGE_LENGTH_M = 10.0, 1100.0


def dtime_for(grid: GeneratedGrid) -> float:
    """Upstream's benchmark time step (10 s limited area, 90 s torus), capped by resolution.

    A finer grid needs a shorter step: at most ICON-CH1's 10 s per 1.1 km of edge length. On
    the 2 km ``tiny`` torus, 90 s (18 s substeps, c dt / dx = 3 for sound) blows the drawn
    state up to NaN within one time step; the cap gives 18.2 s (stable over many steps).

    >>> import types
    >>> spec = lambda area, edge: types.SimpleNamespace(
    ...     spec=types.SimpleNamespace(limited_area=area, edge_length=edge))
    >>> dtime_for(spec(True, 1100.0)), round(dtime_for(spec(False, 2000.0)), 1)
    (10.0, 18.2)
    >>> dtime_for(spec(False, 60e3))
    90.0
    """
    upstream = 10.0 if grid.spec.limited_area else 90.0
    return min(upstream, CH1_DTIME_S * grid.spec.edge_length / CH1_EDGE_LENGTH_M)


class Draw:
    """Seeded random host arrays, one generator per field name (deterministic everywhere).

    >>> a = Draw(0).uniform("vn", -1.0, 1.0, (3,))
    >>> bool((a == Draw(0).uniform("vn", -1.0, 1.0, (3,))).all()), a.shape
    (True, (3,))
    """

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def uniform(self, name: str, low: float, high: float, shape: tuple[int, ...]) -> np.ndarray:
        rng = np.random.default_rng([self.seed, zlib.crc32(name.encode())])
        return rng.uniform(low, high, size=shape)


@dataclasses.dataclass(frozen=True)
class Context:
    """What every state builder needs: host grid, device grid, factories, allocator, draw."""

    host: GeneratedGrid
    device: GeneratedGrid
    sources: fields.FieldSources
    backend_like: Any
    allocator: Any
    draw: Draw

    @property
    def num_levels(self) -> int:
        return self.host.grid.num_levels

    def field(self, dimensions: tuple[gtx.Dimension, ...], values: np.ndarray) -> Any:
        return gtx.as_field(dimensions, np.ascontiguousarray(values), allocator=self.allocator)

    def zeros(self, dim: gtx.Dimension, *, half: bool = False) -> Any:
        size = {dims.CellDim: self.host.grid.num_cells, dims.EdgeDim: self.host.grid.num_edges}
        return self.field((dim, dims.KDim), np.zeros((size[dim], self.num_levels + int(half))))

    def get(self, source: Any, name: str) -> Any:
        """A factory field in the granule backend's memory."""
        from iconbench.granules import fields

        return fields.on_backend(source.get(name), self.allocator)

    def geometry(self, name: str) -> Any:
        return self.get(self.sources.geometry, name)

    def interpolation(self, name: str) -> Any:
        return self.get(self.sources.interpolation, name)

    def metric(self, name: str) -> Any:
        return self.get(self.sources.metrics, name)


def edge_params(ctx: Context) -> grid_states.EdgeParams:
    """Edge geometry from the factory (dual normals at vertices are the tangent).

    Upstream's benchmark passes the primal normal for ``dual_normal_vert_y`` and fac1 for
    ``d2dexdz2_fac2_mc``; both are taken as their names say here.
    """
    g = ctx.geometry
    return grid_states.EdgeParams(
        edge_center_lat=g(geo.EDGE_LAT),
        edge_center_lon=g(geo.EDGE_LON),
        tangent_orientation=g(geo.TANGENT_ORIENTATION),
        coriolis_frequency=g(geo.CORIOLIS_PARAMETER),
        edge_areas=g(geo.EDGE_AREA),
        primal_edge_lengths=g(geo.EDGE_LENGTH),
        inverse_primal_edge_lengths=g(f"inverse_of_{geo.EDGE_LENGTH}"),
        dual_edge_lengths=g(geo.DUAL_EDGE_LENGTH),
        inverse_dual_edge_lengths=g(f"inverse_of_{geo.DUAL_EDGE_LENGTH}"),
        inverse_vertex_vertex_lengths=g(f"inverse_of_{geo.VERTEX_VERTEX_LENGTH}"),
        primal_normal_x=g(geo.EDGE_NORMAL_U),
        primal_normal_y=g(geo.EDGE_NORMAL_V),
        primal_normal_cell_x=g(geo.EDGE_NORMAL_CELL_U),
        primal_normal_cell_y=g(geo.EDGE_NORMAL_CELL_V),
        primal_normal_vert_x=g(geo.EDGE_NORMAL_VERTEX_U),
        primal_normal_vert_y=g(geo.EDGE_NORMAL_VERTEX_V),
        dual_normal_cell_x=g(geo.EDGE_TANGENT_CELL_U),
        dual_normal_cell_y=g(geo.EDGE_TANGENT_CELL_V),
        dual_normal_vert_x=g(geo.EDGE_TANGENT_VERTEX_U),
        dual_normal_vert_y=g(geo.EDGE_TANGENT_VERTEX_V),
    )


def cell_params(ctx: Context) -> grid_states.CellParams:
    """Cell geometry from the geometry factory."""
    g = ctx.geometry
    return grid_states.CellParams(
        cell_center_lat=g(geo.CELL_LAT),
        cell_center_lon=g(geo.CELL_LON),
        area=g(geo.CELL_AREA),
        mean_cell_area=g(geo.MEAN_CELL_AREA),
    )


def prognostic_state(ctx: Context, tag: str) -> prognostics.PrognosticState:
    """Reference atmosphere plus noise; vn and w uniform (see the module docstring)."""
    cells, edges, nlev = ctx.host.grid.num_cells, ctx.host.grid.num_edges, ctx.num_levels
    m = ctx.sources.metrics

    def noisy(name: str, reference: str, relative: float) -> np.ndarray:
        ref = m.get(reference).asnumpy()
        return ref * (1.0 + ctx.draw.uniform(f"{tag}:{name}", -relative, relative, ref.shape))

    w = ctx.draw.uniform(f"{tag}:w", -1.0, 1.0, (cells, nlev + 1))
    w[:, 0] = w[:, -1] = 0.0
    return prognostics.PrognosticState(
        rho=ctx.field((dims.CellDim, dims.KDim), noisy("rho", metrics.RHO_REF_MC, 1e-3)),
        theta_v=ctx.field((dims.CellDim, dims.KDim), noisy("theta_v", metrics.THETA_REF_MC, 1e-3)),
        exner=ctx.field((dims.CellDim, dims.KDim), noisy("exner", metrics.EXNER_REF_MC, 1e-3)),
        vn=ctx.field(
            (dims.EdgeDim, dims.KDim), ctx.draw.uniform(f"{tag}:vn", -10, 10, (edges, nlev))
        ),
        w=ctx.field((dims.CellDim, dims.KDim), w),
    )


# ------------------------------------------------------------------------------- diffusion


def diffusion_config() -> diffusion.DiffusionConfig:
    """icon4py's diffusion benchmark configuration (MCH-like: Smagorinsky, 4th order)."""
    from icon4py.model.atmosphere.diffusion import diffusion

    return diffusion.DiffusionConfig(
        diffusion_type=diffusion.DiffusionType.SMAGORINSKY_4TH_ORDER,
        apply_to_vertical_wind=True,
        apply_to_horizontal_wind=True,
        type_t_diffu=diffusion.TemperatureDiscretizationType.HETEROGENEOUS,
        type_vn_diffu=diffusion.SmagorinskyStencilType.DIAMOND_VERTICES,
        hdiff_efdt_ratio=24.0,
        hdiff_w_efdt_ratio=15.0,
        smagorinski_scaling_factor=0.025,
        apply_zdiffusion_t=False,
        velocity_boundary_diffusion_denominator=150.0,
        max_nudging_coefficient=0.375,
        ndyn_substeps=NDYN_SUBSTEPS,
        shear_type=diffusion.TurbulenceShearForcingType.VERTICAL_HORIZONTAL_OF_HORIZONTAL_VERTICAL_WIND,
    )


@dataclasses.dataclass
class DiffusionSetup:
    """The diffusion granule with its states; ``run`` is one ICON diffusion step."""

    granule: diffusion.Diffusion
    diagnostic: diffusion_states.DiffusionDiagnosticState
    prognostic: prognostics.PrognosticState
    dtime: float

    def run(self, *, initial_run: bool = False) -> None:
        self.granule.run(self.diagnostic, self.prognostic, self.dtime, initial_run=initial_run)

    def outputs(self) -> dict[str, Any]:
        """The fields a step writes, for finiteness checks."""
        p = self.prognostic
        return {"vn": p.vn, "w": p.w, "theta_v": p.theta_v, "exner": p.exner}


def _diffusion_coefficients(i: Any) -> dict[str, Any]:
    """The interpolation fields both granules' states take under the same names."""
    return {
        "e_bln_c_s": i(intp.E_BLN_C_S),
        "rbf_coeff_1": i(intp.RBF_VEC_COEFF_V1),
        "rbf_coeff_2": i(intp.RBF_VEC_COEFF_V2),
        "geofac_div": i(intp.GEOFAC_DIV),
        "geofac_n2s": i(intp.GEOFAC_N2S),
        "geofac_grg_x": i(intp.GEOFAC_GRG_X),
        "geofac_grg_y": i(intp.GEOFAC_GRG_Y),
        "nudgecoeff_e": i(intp.NUDGECOEFFS_E),
    }


def build_diffusion(ctx: Context) -> DiffusionSetup:
    """The diffusion granule on ``ctx``'s grid and backend (compiles its programs here)."""
    from icon4py.model.atmosphere.diffusion import diffusion

    config = diffusion_config()
    i, m = ctx.interpolation, ctx.metric
    interpolation_state = diffusion_states.DiffusionInterpolationState(**_diffusion_coefficients(i))
    metric_state = diffusion_states.DiffusionMetricState(
        theta_ref_mc=m(metrics.THETA_REF_MC),
        wgtfac_c=m(metrics.WGTFAC_C),
        zd_intcoef=m(metrics.ZD_INTCOEF),
        zd_vertoffset=m(metrics.ZD_VERTOFFSET),
        zd_diffcoef=m(metrics.ZD_DIFFCOEF),
    )
    shape = (ctx.host.grid.num_cells, ctx.num_levels + 1)

    def small(name: str) -> Any:
        return ctx.field((dims.CellDim, dims.KDim), ctx.draw.uniform(name, -1e-4, 1e-4, shape))

    diagnostic = diffusion_states.DiffusionDiagnosticState(
        hdef_ic=small("hdef_ic"), div_ic=small("div_ic"), dwdx=small("dwdx"), dwdy=small("dwdy")
    )
    granule = diffusion.Diffusion(
        grid=ctx.device.grid,
        config=config,
        params=diffusion.DiffusionParams(config),
        vertical_grid=ctx.device.vertical.vertical_grid,
        metric_state=metric_state,
        interpolation_state=interpolation_state,
        edge_params=edge_params(ctx),
        cell_params=cell_params(ctx),
        backend=ctx.backend_like,
        exchange=decomposition.single_node_exchange,
    )
    return DiffusionSetup(
        granule, diagnostic, prognostic_state(ctx, "diffusion"), dtime_for(ctx.host)
    )


# ------------------------------------------------------------------------------- solve_nonhydro


def nonhydro_config() -> solve_nh.NonHydrostaticConfig:
    """icon4py's solver benchmark configuration (combined divergence damping)."""
    from icon4py.model.atmosphere.dycore import solve_nonhydro as solve_nh

    return solve_nh.NonHydrostaticConfig(
        divdamp_order=dycore_states.DivergenceDampingOrder.COMBINED,
        fourth_order_divdamp_factor=0.004,
        max_nudging_coefficient=0.375,
    )


@dataclasses.dataclass
class SolveNonhydroSetup:
    """The non-hydrostatic solver with its states; one substep or ICON's substep loop."""

    granule: solve_nh.SolveNonhydro
    diagnostic: nonhydro_states.DiagnosticStateNonHydro
    prognostics: common_utils.TimeStepPair[prognostics.PrognosticState]
    prep_adv: dycore_states.PrepAdvection
    dtime: float
    ndyn_substeps: int = NDYN_SUBSTEPS

    def substep(self, *, at_first_substep: bool, at_last_substep: bool) -> None:
        """One ``time_step`` call: predictor + corrector of one dynamics substep."""
        self.granule.time_step(
            diagnostic_state_nh=self.diagnostic,
            prognostic_states=self.prognostics,
            prep_adv=self.prep_adv,
            second_order_divdamp_factor=SECOND_ORDER_DIVDAMP_FACTOR,
            dtime=self.dtime / self.ndyn_substeps,
            ndyn_substeps_var=self.ndyn_substeps,
            at_initial_timestep=False,
            lprep_adv=True,
            at_first_substep=at_first_substep,
            at_last_substep=at_last_substep,
        )

    def substeps(self) -> None:
        """The dynamics substep loop of one time step, as icon4py's driver runs it.

        ``driver.Icon4pyDriver._do_dyn_substepping`` (v0.4.1): per substep the advective
        tendencies' time levels are swapped (not at the initial time step's first substep),
        ``time_step`` runs, and the prognostic time levels are swapped except after the last.
        """
        for substep in range(self.ndyn_substeps):
            first, last = substep == 0, substep == self.ndyn_substeps - 1
            self.diagnostic.vertical_wind_advective_tendency.swap()
            if not first:
                self.diagnostic.normal_wind_advective_tendency.swap()
            self.substep(at_first_substep=first, at_last_substep=last)
            if not last:
                self.prognostics.swap()

    def outputs(self) -> dict[str, Any]:
        p = self.prognostics.next
        return {"vn": p.vn, "w": p.w, "rho": p.rho, "theta_v": p.theta_v, "exner": p.exner}


def _diagnostic_nonhydro(ctx: Context) -> nonhydro_states.DiagnosticStateNonHydro:
    from icon4py.model.common.utils import data_allocation as data_alloc

    c, e = dims.CellDim, dims.EdgeDim
    return nonhydro_states.DiagnosticStateNonHydro(
        max_vertical_cfl=data_alloc.scalar_like_array(0.0, ctx.allocator),
        theta_v_at_cells_on_half_levels=ctx.zeros(c, half=True),
        perturbed_exner_at_cells_on_model_levels=ctx.zeros(c),
        rho_at_cells_on_half_levels=ctx.zeros(c, half=True),
        exner_tendency_due_to_slow_physics=ctx.zeros(c),
        grf_tend_rho=ctx.zeros(c),
        grf_tend_thv=ctx.zeros(c),
        grf_tend_w=ctx.zeros(c, half=True),
        mass_flux_at_edges_on_model_levels=ctx.zeros(e),
        normal_wind_tendency_due_to_slow_physics_process=ctx.zeros(e),
        grf_tend_vn=ctx.zeros(e),
        normal_wind_advective_tendency=common_utils.PredictorCorrectorPair(
            ctx.zeros(e), ctx.zeros(e)
        ),
        vertical_wind_advective_tendency=common_utils.PredictorCorrectorPair(
            ctx.zeros(c, half=True), ctx.zeros(c, half=True)
        ),
        tangential_wind=ctx.zeros(e),
        vn_on_half_levels=ctx.zeros(e, half=True),
        contravariant_correction_at_cells_on_half_levels=ctx.zeros(c, half=True),
        rho_iau_increment=ctx.zeros(c),
        normal_wind_iau_increment=ctx.zeros(e),
        exner_iau_increment=ctx.zeros(c),
        exner_dynamical_increment=ctx.zeros(c),
    )


def build_solve_nonhydro(ctx: Context) -> SolveNonhydroSetup:
    """The non-hydrostatic solver on ``ctx``'s grid and backend (compiles its programs here)."""
    from icon4py.model.atmosphere.dycore import solve_nonhydro as solve_nh

    config = nonhydro_config()
    i, m = ctx.interpolation, ctx.metric
    interpolation_state = dycore_states.InterpolationState(
        c_lin_e=i(intp.C_LIN_E),
        c_intp=i(intp.CELL_AW_VERTS),
        e_flx_avg=i(intp.E_FLX_AVG),
        geofac_grdiv=i(intp.GEOFAC_GRDIV),
        geofac_rot=i(intp.GEOFAC_ROT),
        pos_on_tplane_e_1=i(intp.POS_ON_TPLANE_E_X),
        pos_on_tplane_e_2=i(intp.POS_ON_TPLANE_E_Y),
        rbf_vec_coeff_e=i(intp.RBF_VEC_COEFF_E),
        **_diffusion_coefficients(i),
    )
    metric_state = dycore_states.MetricStateNonHydro(
        mask_prog_halo_c=m(metrics.MASK_PROG_HALO_C),
        rayleigh_w=m(metrics.RAYLEIGH_W),
        time_extrapolation_parameter_for_exner=m(metrics.EXNER_EXFAC),
        reference_exner_at_cells_on_model_levels=m(metrics.EXNER_REF_MC),
        wgtfac_c=m(metrics.WGTFAC_C),
        wgtfacq_c=m(metrics.WGTFACQ_C),
        inv_ddqz_z_full=m(metrics.INV_DDQZ_Z_FULL),
        reference_rho_at_cells_on_model_levels=m(metrics.RHO_REF_MC),
        reference_theta_at_cells_on_model_levels=m(metrics.THETA_REF_MC),
        exner_w_explicit_weight_parameter=m(metrics.EXNER_W_EXPLICIT_WEIGHT_PARAMETER),
        ddz_of_reference_exner_at_cells_on_half_levels=m(metrics.D_EXNER_DZ_REF_IC),
        ddqz_z_half=m(metrics.DDQZ_Z_HALF),
        reference_theta_at_cells_on_half_levels=m(metrics.THETA_REF_IC),
        d2dexdz2_fac1_mc=m(metrics.D2DEXDZ2_FAC1_MC),
        d2dexdz2_fac2_mc=m(metrics.D2DEXDZ2_FAC2_MC),
        reference_rho_at_edges_on_model_levels=m(metrics.RHO_REF_ME),
        reference_theta_at_edges_on_model_levels=m(metrics.THETA_REF_ME),
        ddxn_z_full=m(metrics.DDXN_Z_FULL),
        zdiff_gradp=m(metrics.ZDIFF_GRADP),
        vertoffset_gradp=m(metrics.VERTOFFSET_GRADP),
        nflat_gradp=ctx.sources.metrics.get_int32(metrics.NFLAT_GRADP),
        pg_exdist=m(metrics.PG_EXDIST_DSL),
        ddqz_z_full_e=m(metrics.DDQZ_Z_FULL_E),
        ddxt_z_full=m(metrics.DDXT_Z_FULL),
        wgtfac_e=m(metrics.WGTFAC_E),
        wgtfacq_e=m(metrics.WGTFACQ_E),
        exner_w_implicit_weight_parameter=m(metrics.EXNER_W_IMPLICIT_WEIGHT_PARAMETER),
        horizontal_mask_for_3d_divdamp=m(metrics.HORIZONTAL_MASK_FOR_3D_DIVDAMP),
        scaling_factor_for_3d_divdamp=m(metrics.SCALING_FACTOR_FOR_3D_DIVDAMP),
        coeff1_dwdz=m(metrics.COEFF1_DWDZ),
        coeff2_dwdz=m(metrics.COEFF2_DWDZ),
        coeff_gradekin=m(metrics.COEFF_GRADEKIN),
    )
    granule = solve_nh.SolveNonhydro(
        grid=ctx.device.grid,
        config=config,
        params=solve_nh.NonHydrostaticParams(config),
        metric_state_nonhydro=metric_state,
        interpolation_state=interpolation_state,
        vertical_params=ctx.device.vertical.vertical_grid,
        edge_geometry=edge_params(ctx),
        cell_geometry=cell_params(ctx),
        owner_mask=ctx.geometry("cell_owner_mask"),
        exchange=decomposition.single_node_exchange,
        backend=ctx.backend_like,
    )
    c, e = dims.CellDim, dims.EdgeDim
    prep_adv = dycore_states.PrepAdvection(
        vn_traj=ctx.zeros(e),
        mass_flx_me=ctx.zeros(e),
        dynamical_vertical_mass_flux_at_cells_on_half_levels=ctx.zeros(c, half=True),
        dynamical_vertical_volumetric_flux_at_cells_on_half_levels=ctx.zeros(c, half=True),
    )
    pair = common_utils.TimeStepPair(prognostic_state(ctx, "now"), prognostic_state(ctx, "new"))
    return SolveNonhydroSetup(
        granule, _diagnostic_nonhydro(ctx), pair, prep_adv, dtime_for(ctx.host)
    )

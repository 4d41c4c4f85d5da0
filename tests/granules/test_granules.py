"""Whole-granule benchmarks: field factories, call counting, overhead, measured call counts."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import gt4py.next as gtx
import numpy as np
import pytest
from icon4py.model.common import dimension as dims

from iconbench.baselines import importers, mapping, speedup
from iconbench.baselines.gt4py_timings import GT4PyTiming
from iconbench.errors import IconbenchError

BENCHER = (
    Path(__file__).parents[1] / "baselines" / "data"
    / "bencher=mch_icon-ch1_medium_stencils=0.5=OPENACC.json"
)  # fmt: skip


@pytest.fixture(scope="module")
def sources():
    from iconbench.granules import fields
    from iconbench.grids import generate

    return fields.build(generate("tiny"))  # icon-grid-generator's torus, read from its file


def test_granules_on_a_limited_area_read_from_a_file_are_one_line():
    """A torus file holds its plane (the factories' geometry is derived from it), a limited
    area's file a sphere's: granules need the former."""
    from iconbench.granules import fields
    from iconbench.grids import generate

    with pytest.raises(IconbenchError, match=r"^granules need .* grid r02b05_lam is read from"):
        fields.build(generate("r02b05_lam"))


def test_factory_fields_on_the_generated_grid_are_finite_and_consistent(sources):
    from icon4py.model.common.interpolation import interpolation_attributes as intp
    from icon4py.model.common.metrics import metrics_attributes as ma

    z_ifc = sources.metrics.get(ma.CELL_HEIGHT_ON_HALF_LEVEL).asnumpy()
    z_mc = sources.metrics.get(ma.Z_MC).asnumpy()
    ddqz = sources.metrics.get(ma.DDQZ_Z_HALF).asnumpy()
    np.testing.assert_allclose(ddqz[:, 1:-1], z_mc[:, :-1] - z_mc[:, 1:])
    assert (ddqz > 0).all()
    wgtfac = sources.metrics.get(ma.WGTFAC_C).asnumpy()
    assert ((wgtfac > 0) & (wgtfac < 1)).all()
    # interpolating z_ifc's neighbours with wgtfac_c gives back the full-level midpoint weights
    k = 5
    interp = wgtfac[:, k] * z_mc[:, k] + (1 - wgtfac[:, k]) * z_mc[:, k - 1]
    np.testing.assert_allclose(interp, z_ifc[:, k], rtol=0.05)
    # flat terrain: no downward extrapolation, full Exner extrapolation factor
    assert not sources.metrics.get(ma.PG_EXDIST_DSL).asnumpy().any()
    np.testing.assert_allclose(sources.metrics.get(ma.EXNER_EXFAC).asnumpy(), 1.0 / 3.0)
    # the divergence of a constant wind vanishes: sum_e geofac_div * (u . n_e) = 0
    geofac_div = sources.interpolation.get(intp.GEOFAC_DIV).asnumpy()
    c2e = sources.grid.grid.get_connectivity("C2E").asnumpy()
    geometry = sources.grid.geometry
    normal_wind = (
        3.0 * geometry["eastward_component_of_edge_normal"]
        - 2.0 * geometry["northward_component_of_edge_normal"]
    )
    divergence = (geofac_div * normal_wind[c2e]).sum(axis=1)
    assert np.abs(divergence).max() < 1e-12 * np.abs(geofac_div).max() * 10
    for name in (ma.WGTFAC_E, ma.COEFF_GRADEKIN, ma.RHO_REF_ME, ma.ZDIFF_GRADP):
        assert np.isfinite(sources.metrics.get(name).asnumpy()).all(), name


def _copy_program():
    @gtx.field_operator
    def _scaled(
        a: gtx.Field[gtx.Dims[dims.CellDim], float], s: float
    ) -> gtx.Field[gtx.Dims[dims.CellDim], float]:
        return a * s

    @gtx.program
    def scaled(
        a: gtx.Field[gtx.Dims[dims.CellDim], float],
        out: gtx.Field[gtx.Dims[dims.CellDim], float],
        s: float,
        at_first_substep: bool,
    ):
        _scaled(a, s, out=out)

    return scaled


def test_counter_and_measure_count_program_calls_through_gt4pys_hook():
    from iconbench.granules import calls, measure

    program = _copy_program()
    a = gtx.as_field((dims.CellDim,), np.arange(8.0))
    out = gtx.as_field((dims.CellDim,), np.zeros(8))

    def fake_granule():
        for first in (True, False, False):
            program(a, out, 2.0, first)

    m = measure.measure(
        fake_granule, case="fake", backend="embedded", grid="tiny", samples=3, on_gpu=False
    )
    assert m.calls == {
        calls.ProgramKey("scaled", "at_first_substep=False"): 2.0,
        calls.ProgramKey("scaled", "at_first_substep=True"): 1.0,
    }
    assert m.metric == "total"  # embedded programs have no compute metric
    assert len(m.wall_s) == len(m.device_s) == 3
    assert all(0 < d <= w for d, w in zip(m.device_s, m.metered_wall_s, strict=True))
    assert m.overhead_s == pytest.approx(m.wall_median_s - m.device_median_s)
    np.testing.assert_allclose(out.asnumpy(), 2.0 * np.arange(8.0))
    # outside a measurement nothing is counted
    counter = calls.CallCounter()
    program(a, out, 1.0, True)
    assert not counter.counts


def test_measured_calls_replace_the_assumed_counts_in_the_estimate():
    provenance = importers.Provenance(
        experiment="MCH-R04B09", grid="R04B09", gpu="A100", machine="balfrin",
        date="2024-05-29", timesteps=6, icon_build="openacc",
    )  # fmt: skip
    baseline = importers.import_file(BENCHER, provenance)
    samples = tuple(3.0e-4 * np.random.default_rng(1).lognormal(0.0, 0.05, 30))
    timings = [
        GT4PyTiming(
            "vertically_implicit_solver_at_predictor_step", (("at_first_substep", False),),
            "gtfn_gpu", "R04B09", "A100", samples,
        )
    ]  # fmt: skip
    shipped = mapping.load()
    plain = speedup.compare(baseline, shipped, timings)
    timer = baseline.timer("vertically_implicit_solver_at_predictor_step")
    per_step = timer.calls / baseline.timesteps
    measured = speedup.MeasuredCalls(
        per_step={
            (
                "vertically_implicit_solver_at_predictor_step",
                (("at_first_substep", False),),
            ): 2 * per_step
        }
    )
    counted = speedup.compare(baseline, shipped, timings, measured_calls=measured)
    (row_plain,) = [r for r in plain.backends[0].rows if r.timer == timer.name]
    (row,) = [r for r in counted.backends[0].rows if r.timer == timer.name]
    assert row.gt4py_s == pytest.approx(2 * row_plain.gt4py_s)
    assert row.calls_replaced == (
        ("vertically_implicit_solver_at_predictor_step[at_first_substep=False]", 1.0, 2.0),
    )
    assert counted.backends[0].estimate.value == pytest.approx(plain.backends[0].estimate.value / 2)
    # counts equal to the assumption change nothing
    same = speedup.MeasuredCalls(per_step={k: per_step for k in measured.per_step})
    unchanged = speedup.compare(baseline, shipped, timings, measured_calls=same)
    assert unchanged.backends[0].estimate.value == pytest.approx(plain.backends[0].estimate.value)


def test_result_file_is_never_overwritten(tmp_path):
    from iconbench.granules import results

    data = {"grid": "tiny", "backend": "gtfn_cpu", "created": "2025-01-02T03:04:05Z",
            "schema": results.SCHEMA, "version": results.VERSION, "cases": []}  # fmt: skip
    path = results.write(data, tmp_path)
    assert json.loads(path.read_text())["backend"] == "gtfn_cpu"
    with pytest.raises(IconbenchError, match="never overwritten"):
        results.write(data, tmp_path)
    assert results.read(path).cases == {}
    (tmp_path / "bad.json").write_text('{"schema": "other"}')
    with pytest.raises(IconbenchError, match=r"bad\.json: schema"):
        results.read(tmp_path / "bad.json")


def test_cli_rejects_bad_input_before_any_work(capsys):
    from iconbench.cli import main

    for argv, message in (
        (["granules", "measure", "--grid", "nope", "--out", "x"], "unknown grid preset"),
        (["granules", "measure", "--cases", "zzz", "--out", "x"], "no granule case matches"),
        (["granules", "measure", "--backends", "embedded", "--out", "x"], "do not run on embedded"),
        (["granules", "measure", "--backends", "gtfn_cpux", "--out", "x"], "unknown backend"),
    ):
        try:
            status = main(argv)
        except SystemExit as exit_:  # names the shared options check while parsing
            status = exit_.code
        assert status == 2
        assert message in capsys.readouterr().err


def _wrap_granule_programs(granule, issued, seen=None):
    """Count, by program and variant, the calls the granule code makes to the programs it holds.

    Independent of gt4py's hook: every ``setup_program`` partial held by the granule, or by a
    granule object inside it (solve_nonhydro's velocity advection), is replaced by a wrapper
    that counts the call the granule issues (the partial's bound keywords + the call's) into
    ``issued[-1]``, the current case call's counts.
    """
    from iconbench.granules import calls

    seen = set() if seen is None else seen
    if id(granule) in seen:
        return
    seen.add(id(granule))
    for name, value in list(vars(granule).items()):
        if isinstance(value, functools.partial) and hasattr(value.func, "definition_stage"):
            program = value.func.definition_stage.definition.__name__

            def counting(*args, _inner=value, _program=program, **kwargs):
                key = calls.ProgramKey(_program, calls.variant_of({**_inner.keywords, **kwargs}))
                issued[-1][key] = issued[-1].get(key, 0) + 1
                return _inner(*args, **kwargs)

            setattr(granule, name, counting)
        elif type(value).__module__.startswith("icon4py.model.atmosphere"):
            _wrap_granule_programs(value, issued, seen)


def _check_granules(backend: str, samples: int, pattern: str | None = None) -> dict:
    """The granule cases ``pattern`` selects (all without one) on tiny: every case finite,
    hook counts == the granule code's calls.

    ``measure`` calls a case 1 + 2 * ``samples`` times (warm-up, wall, metered) and counts
    through the hook in the last ``samples``; those are the calls compared.
    """
    from iconbench.granules import cases, measure

    chosen = cases.select(pattern)
    prepared = cases.prepare(chosen, backend, "tiny")
    issued: list[dict] = []
    for setup in prepared.setups.values():
        _wrap_granule_programs(setup.granule, issued)
    counted = {}
    for case in chosen:
        issued.clear()
        call = prepared.call(case)

        def one_call(call=call):
            issued.append({})
            call()

        m = measure.measure(
            one_call, case=case, backend=backend, grid="tiny", samples=samples, on_gpu=False
        )
        assert len(issued) == 1 + 2 * samples, case
        metered: dict = {}
        for per_call in issued[-samples:]:
            for key, n in per_call.items():
                metered[key] = metered.get(key, 0) + n
        assert metered, case
        assert m.calls == {k: n / samples for k, n in sorted(metered.items())}, case
        assert m.metric == "compute"
        # the programs' times lie inside the calls they were taken in (the metered calls; the
        # unmetered wall is another set of calls, which load on a shared runner can make faster)
        assert all(0 < d <= w for d, w in zip(m.device_s, m.metered_wall_s, strict=True)), case
        for name, field in prepared.outputs().items():
            assert np.isfinite(field.asnumpy()).all(), (case, name)
        counted[case] = m.calls
    if "solve_nonhydro" in prepared.setups:
        assert prepared.setups["solve_nonhydro"].prognostics.next.vn.asnumpy().std() > 0
    return {"calls": counted, "fallback": prepared.fallback_programs}


def _program_calls(calls, program):
    return {k.variant: n for k, n in calls.items() if k.program == program}


@pytest.mark.slow  # a whole granule on the CPU: 31-37 s on 2 cores
def test_the_diffusion_granule_runs_on_tiny_and_counts_the_calls_the_granule_code_issues():
    """CI's granule check: diffusion on embedded, gtfn_cpu for its 2 programs embedded cannot
    run (2 compiles; solve_nonhydro's 14, serial, took 12 of a fresh clone's 25 minutes on
    two cores: that check is ``slow``, below)."""
    from iconbench.granules import program_backends

    checked = _check_granules("embedded+gtfn_cpu", samples=1, pattern="^diffusion")
    assert (
        set(checked["fallback"])
        == {
            "apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence",
            "init_nabla2_factor_in_upper_damping_zone",
        }
        < program_backends.EMBEDDED_CANNOT_RUN
    )
    for case in ("diffusion.run", "diffusion.initial_run"):
        calls = checked["calls"][case]
        assert sum(_program_calls(calls, "apply_diffusion_to_vn").values()) == 1, case
        turbulence = "apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence"
        assert sum(_program_calls(calls, turbulence).values()) == 1, case


@pytest.mark.slow
def test_both_granules_run_on_tiny_and_count_the_calls_the_granule_code_issues():
    """Both granules: embedded, with gtfn_cpu for the 7 programs embedded cannot run."""
    from iconbench.granules import program_backends

    checked = _check_granules("embedded+gtfn_cpu", samples=1)
    assert set(checked["fallback"]) == program_backends.EMBEDDED_CANNOT_RUN
    step = checked["calls"]["integrate_nh"]
    # one ICON step: 5 substeps, the first with at_first_substep, the last with
    # at_last_substep; the corrector prepares advection in every substep (lprep_adv)
    corrector = _program_calls(step, "vertically_implicit_solver_at_corrector_step")
    assert sum(corrector.values()) == 5
    assert sum(n for v, n in corrector.items() if "at_first_substep=True" in v) == 1
    assert sum(n for v, n in corrector.items() if "at_last_substep=True" in v) == 1
    assert sum(_program_calls(step, "apply_diffusion_to_vn").values()) == 1
    substep = _program_calls(
        checked["calls"]["solve_nonhydro.substep"], "vertically_implicit_solver_at_corrector_step"
    )
    assert list(substep.values()) == [1]
    assert "at_first_substep=False" in next(iter(substep))


@pytest.mark.slow
def test_both_granules_run_on_gtfn_cpu_and_counts_match_the_granules_programs():
    _check_granules("gtfn_cpu", samples=2)

"""Speed-up per timer with bootstrap CI, the integrate_nh estimate, coverage, grid/GPU checks."""

from __future__ import annotations

import numpy as np
import pytest

from iconbench.baselines import importers, mapping, speedup
from iconbench.errors import IconbenchError

from .conftest import BENCHER, DATA, lognormal_samples, timing


@pytest.fixture
def shipped_mapping():
    return mapping.load()


@pytest.fixture
def bencher_baseline(provenance):
    return importers.import_file(BENCHER, provenance)


@pytest.fixture
def solver_timings(rng):
    return [
        timing(
            "vertically_implicit_solver_at_predictor_step",
            lognormal_samples(rng, 3.0e-4),
            at_first_substep=False,
        ),
        timing(
            "vertically_implicit_solver_at_predictor_step",
            lognormal_samples(rng, 5.0e-4),
            at_first_substep=True,
        ),
        timing("apply_diffusion_to_vn", lognormal_samples(rng, 2.0e-4)),
    ]


def test_per_timer_speedup_matches_definition(bencher_baseline, shipped_mapping, solver_timings):
    report = speedup.compare(bencher_baseline, shipped_mapping, solver_timings)
    (backend,) = report.backends
    rows = {r.timer: r for r in backend.rows}
    for timer_name, t in [
        ("vertically_implicit_solver_at_predictor_step", solver_timings[0]),
        ("vertically_implicit_solver_at_predictor_step_first", solver_timings[1]),
        ("apply_diffusion_to_vn", solver_timings[2]),
    ]:
        row, acc = rows[timer_name], bencher_baseline.timer(timer_name)
        assert row.status == "ok"
        assert row.gt4py_s == pytest.approx(np.median(t.samples_s))
        assert row.speedup == pytest.approx(acc.t_avg_s / np.median(t.samples_s))
        low, high = row.ci
        assert low < row.speedup < high
        assert high / low < 1.1  # 30 samples with 5 % spread: a tight interval
    # sorted by share of the OpenACC step (integrate_nh)
    shares = [r.share for r in backend.rows]
    assert shares == sorted(shares, reverse=True)
    step = bencher_baseline.timer("integrate_nh").time_s
    first = rows["vertically_implicit_solver_at_predictor_step"]
    assert first.share == pytest.approx(first.calls * first.openacc_s / step)


def test_estimate_is_calls_weighted_ratio(bencher_baseline, shipped_mapping, solver_timings):
    report = speedup.compare(bencher_baseline, shipped_mapping, solver_timings)
    (backend,) = report.backends
    counted = [r for r in backend.rows if r.counted]
    assert {r.timer for r in counted} == {
        "vertically_implicit_solver_at_predictor_step",
        "vertically_implicit_solver_at_predictor_step_first",
        "apply_diffusion_to_vn",
    }
    acc = sum(r.calls * r.openacc_s for r in counted)
    gt4py = sum(r.calls * r.gt4py_s for r in counted)
    est = backend.estimate
    assert est.value == pytest.approx(acc / gt4py)
    assert est.ci[0] < est.value < est.ci[1]
    assert est.reference == "integrate_nh"
    assert est.coverage == pytest.approx(acc / bencher_baseline.timer("integrate_nh").time_s)
    assert est.distance_to_goal == pytest.approx(est.value - 1.5)
    assert est.reduction_needed == pytest.approx(max(0, 1 - est.value / 1.5))
    # the unmapped list names the radiation timer; enclosing timers are not in it
    unmapped = {name for name, _, _ in report.unmapped}
    assert "nwp_radiation" in unmapped
    assert not unmapped & {"integrate_nh", "nh_hdiff"}


def test_granule_timer_sums_programs_and_compares_direct_measurement(provenance, rng):
    baseline = importers.import_file(DATA / "report.md", provenance)  # the seed-004 layout
    m = mapping.load()
    programs = {
        r.program: lognormal_samples(rng, 1e-4 * (i + 1))
        for i, r in enumerate(m.timers["nh_hdiff_run"].programs)
    }
    timings = [timing(p, s) for p, s in programs.items()]
    timings.append(timing("diffusion_granule", lognormal_samples(rng, 6.5e-3)))
    report = speedup.compare(baseline, m, timings)
    (backend,) = report.backends
    (row,) = backend.rows
    expected = sum(
        r.calls * np.median(programs[r.program]) for r in m.timers["nh_hdiff_run"].programs
    )
    assert row.gt4py_s == pytest.approx(expected)
    assert row.speedup == pytest.approx(0.00178 / expected)
    # no integrate_nh in this baseline: coverage is over all non-enclosing timers
    est = backend.estimate
    assert est.coverage == pytest.approx(6 * 0.00178 / (6 * 0.00178 + 0.00198))
    assert est.value == pytest.approx(row.speedup)
    (granule,) = backend.granules
    direct = np.median(timings[-1].samples_s)
    assert granule.direct_speedup == pytest.approx(0.00178 / direct)
    assert granule.overhead_s == pytest.approx(direct - expected)
    assert report.unmapped[0][0] == "nh_hdiff_run_initial"


def test_missing_optional_program_is_partial_missing_required_is_not_measured(provenance, rng):
    baseline = importers.import_file(DATA / "report.md", provenance)
    m = mapping.load()
    required = [r.program for r in m.timers["nh_hdiff_run"].programs if not r.optional]
    timings = [timing(p, lognormal_samples(rng, 1e-4)) for p in required]
    (row,) = speedup.compare(baseline, m, timings).backends[0].rows
    assert row.status == "partial"
    assert "2x copy_field" in row.missing
    (row,) = speedup.compare(baseline, m, timings[1:]).backends[0].rows
    assert row.status == "not measured"
    assert row.speedup is None


def test_enclosing_granule_is_not_counted_twice(bencher_baseline, rng):
    m = mapping.load()
    extra = importers.import_file(
        DATA / "icon_run.log",
        importers.Provenance(
            experiment="x", grid="R04B09", gpu="A100", machine="m", date="2024-05", timesteps=6
        ),
    )
    # the log has nh_hdiff_run but none of the stencils it encloses: it is counted
    timings = [
        timing(r.program, lognormal_samples(rng, 1e-4)) for r in m.timers["nh_hdiff_run"].programs
    ]
    rows = {r.timer: r for r in speedup.compare(extra, m, timings).backends[0].rows}
    assert rows["nh_hdiff_run"].status == "ok"
    # a baseline with a stencil timer inside the granule: the granule is shown, not counted
    import dataclasses

    vn = bencher_baseline.timer("apply_diffusion_to_vn")
    both = dataclasses.replace(extra, timers=(*extra.timers, vn))
    rows = {r.timer: r for r in speedup.compare(both, m, timings).backends[0].rows}
    assert rows["nh_hdiff_run"].status == "enclosed"
    assert rows["apply_diffusion_to_vn"].counted


def test_other_grid_or_gpu_refused_unless_forced(bencher_baseline, shipped_mapping, rng):
    timings = [
        timing("apply_diffusion_to_vn", lognormal_samples(rng, 2e-4), grid="tiny", gpu="H100")
    ]
    with pytest.raises(
        IconbenchError,
        match=r"grid differs: .*'R04B09'.*'tiny'; GPU differs.*"
        r"pass --force",
    ):
        speedup.compare(bencher_baseline, shipped_mapping, timings)
    report = speedup.compare(bencher_baseline, shipped_mapping, timings, force=True)
    assert len(report.forced) == 2
    same_gpu_other_case = [
        timing("apply_diffusion_to_vn", lognormal_samples(rng, 2e-4), gpu="a100")
    ]
    assert speedup.compare(bencher_baseline, shipped_mapping, same_gpu_other_case).forced == ()


def test_one_table_per_backend_and_unknown_backend(bencher_baseline, shipped_mapping, rng):
    timings = [
        timing("apply_diffusion_to_vn", lognormal_samples(rng, 2e-4), backend=b)
        for b in ("gtfn_gpu", "dace_gpu")
    ]
    report = speedup.compare(bencher_baseline, shipped_mapping, timings)
    assert [b.backend for b in report.backends] == ["dace_gpu", "gtfn_gpu"]
    with pytest.raises(IconbenchError, match=r"backend\(s\) \['roundtrip'\] not in the results"):
        speedup.compare(bencher_baseline, shipped_mapping, timings, backends=["roundtrip"])


def test_ambiguous_variant_is_an_error(bencher_baseline, rng):
    m = mapping.load()
    timings = [
        timing("apply_diffusion_to_vn", lognormal_samples(rng, 2e-4), limited_area=v)
        for v in (True, False)
    ]
    with pytest.raises(IconbenchError, match=r"matches several variants .* add static_args"):
        speedup.compare(bencher_baseline, m, timings)


def test_too_few_samples_give_no_interval(bencher_baseline, shipped_mapping):
    report = speedup.compare(
        bencher_baseline, shipped_mapping, [timing("apply_diffusion_to_vn", (2e-4,))]
    )
    row = next(r for r in report.backends[0].rows if r.timer == "apply_diffusion_to_vn")
    assert row.speedup == pytest.approx(
        bencher_baseline.timer("apply_diffusion_to_vn").t_avg_s / 2e-4
    )
    assert row.ci is None


def test_pins_select_the_experiments_configuration(bencher_baseline, rng):
    """The suite measures every variant; --static pins the experiment's configuration."""
    m = mapping.load()
    timings = [
        timing(
            "vertically_implicit_solver_at_predictor_step",
            lognormal_samples(rng, 3e-4 * r),
            at_first_substep=first,
            rayleigh_type=r,
        )
        for first in (False, True)
        for r in (1, 2)
    ]
    with pytest.raises(IconbenchError, match=r"several variants .* --static KEY=VALUE"):
        speedup.compare(bencher_baseline, m, timings)
    report = speedup.compare(bencher_baseline, m, timings, pins={"rayleigh_type": 2})
    rows = {r.timer: r for r in report.backends[0].rows}
    chosen = timings[1]  # at_first_substep=False, rayleigh_type=2
    row = rows["vertically_implicit_solver_at_predictor_step"]
    assert row.gt4py_s == pytest.approx(np.median(chosen.samples_s))


def test_cli_static_pins(tmp_path, capsys):
    from iconbench import cli

    dump = tmp_path / "x.json"
    dump.write_text("{}")
    assert cli.main(["speedup", str(dump), "--baseline", "b", "--static", "oops"]) == 2
    assert "--static 'oops': expected KEY=VALUE" in capsys.readouterr().err

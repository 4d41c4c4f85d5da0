"""The OpenACC part a check's gate gives every comment on an experiment's grid.

``results/pr-check-h100/gt4py-blocks-2026-11-26a`` is an H100 check on mch_icon-ch1_medium
(gtfn's GPU blocks 8x4 instead of 32x8: gtfn_gpu slower, dace_gpu unchanged), its base and
head result directories as the check wrote them. Without an experiment named, the gate finds
the experiment ICON ran on that grid, compares the GPU backends with its GH200 baseline and
says that the GPU differs; its figures are those of ``iconbench speedup`` on each side's asv
results.
"""

from __future__ import annotations

import dataclasses
import json

import pytest
from tests.archived_results import restored

from iconbench.cli import main
from iconbench.gate import openacc
from iconbench.records import resultset
from iconbench.records.resultset import Grid
from iconbench.records.summary import Summary

#: whole, its raw files restored from git history (tests/archived_results.py)
CHECK = restored("results/pr-check-h100/gt4py-blocks-2026-11-26a")


@pytest.fixture(scope="module")
def sides():
    return [resultset.resolve(str(CHECK / name), label=name) for name in ("base", "head")]


def _speedup(side: str, capsys) -> dict:
    """``iconbench speedup`` on one side's asv results: {backend: report}."""
    capsys.readouterr()
    argv = ["speedup", str(CHECK / side / "asv"), "--experiment", "mch_icon-ch1_medium",
            "--force", "--json"]  # fmt: skip
    assert main(argv) in (0, None)
    return {b["backend"]: b for b in json.loads(capsys.readouterr().out)["backends"]}


def test_the_figures_are_iconbench_speedups_on_the_same_results(sides, capsys):
    found, why_not = openacc.for_grid(*sides)
    assert why_not is None
    assert found is not None
    assert (found.baseline, found.experiment) == (
        "mch-icon-ch1-medium/unknown_gh200_2026-07",
        "mch_icon-ch1_medium",
    )
    # the GPU differs: said, with the bandwidth factor; the grid is the experiment's
    assert found.forced == (
        "GPU differs: baseline mch-icon-ch1-medium/unknown_gh200_2026-07 has 'GH200', "
        "GT4Py timings have 'NVIDIA H100 80GB HBM3'",
    )
    assert found.gpu["measured"] == "NVIDIA H100 80GB HBM3"
    assert 0.72 < found.gpu["bandwidth_scale"] < 0.77  # 2.97 TB/s measured / 4 TB/s datasheet
    compared = 0
    for name, side in (("base", found.base), ("head", found.head)):
        reports = _speedup(name, capsys)
        assert set(side.integrate_nh) == set(reports) == {"gtfn_gpu", "dace_gpu"}
        for backend, report in reports.items():
            estimate = report["estimate"]
            assert side.integrate_nh[backend] == pytest.approx(estimate["value"], abs=1e-4)
            assert side.coverage[backend] == pytest.approx(estimate["coverage"], abs=1e-4)
            scaled = estimate["value_bandwidth_scaled"]
            assert side.integrate_nh_scaled[backend] == pytest.approx(scaled, abs=1e-4)
            rows = {r["timer"]: r for r in report["rows"]}
            for program in (p for p in side.programs if p.backend == backend):
                row = rows[program.timer]
                assert program.status == row["status"]
                assert program.share == pytest.approx(row["share"], abs=1e-4)
                assert program.openacc_s == pytest.approx(row["openacc_s"], rel=1e-9)
                if row["gt4py_s"] is None:
                    assert program.gt4py_s is None
                    continue
                compared += 1
                assert program.gt4py_s == pytest.approx(row["gt4py_s"], rel=1e-9)
                assert program.speedup == pytest.approx(row["speedup"], abs=1e-4)
                scaled = row["speedup_bandwidth_scaled"]
                assert program.speedup_scaled == pytest.approx(scaled, abs=1e-4)
    assert compared == 12  # 3 timers measured in ICON's variant, 2 backends, 2 sides
    # gtfn_gpu got slower against OpenACC, dace_gpu did not move
    assert found.base.integrate_nh["gtfn_gpu"] == pytest.approx(0.9009, abs=1e-4)
    assert found.head.integrate_nh["gtfn_gpu"] == pytest.approx(0.5297, abs=1e-4)
    assert found.head.coverage["gtfn_gpu"] == pytest.approx(0.0932, abs=1e-4)
    # a program measured in another variant than ICON's has no speed-up, and says what is missing
    timer = "compute_rho_theta_pgrad_and_update_vn"
    (rho,) = [p for p in found.head.programs if (p.timer, p.backend) == (timer, "gtfn_gpu")]
    assert (rho.status, rho.missing) == ("not measured", (timer,))


def test_the_compare_command_and_the_summary_keep_it(tmp_path, capsys):
    out = tmp_path / "s.json"
    assert main(["compare", str(CHECK / "base"), str(CHECK / "head"), "--out", str(out)]) == 1
    summary = Summary.read(out)
    assert summary.openacc is not None
    assert summary.openacc_note == ""
    assert Summary.from_json(summary.to_json()) == summary
    (row,) = [p for p in summary.openacc.head.programs
              if p.timer == "compute_horizontal_velocity_quantities_and_fluxes"
              and p.backend == "gtfn_gpu"]  # fmt: skip
    assert (row.speedup, row.speedup_scaled) == (0.5741, 0.7722)


def test_a_grid_no_experiment_ran_on_is_one_line(sides):
    tiny = Grid("tiny", 320, 480, 160, 10)
    moved = [dataclasses.replace(side, grid=tiny) for side in sides]
    found, why_not = openacc.for_grid(*moved)
    assert found is None
    assert why_not == (
        "no ICON experiment ran on grid tiny: no OpenACC comparison "
        "(experiments: mch_icon-ch1_medium on mch_icon-ch1_medium)"
    )
    # a CPU backend is not compared with the GPU baseline
    cpu = {k: dataclasses.replace(e, backend="gtfn_cpu") for k, e in sides[1].entries.items()}
    found, why_not = openacc.for_grid(sides[0], dataclasses.replace(sides[1], entries=cpu))
    assert found is None
    assert why_not.startswith("no GPU backend measured: no OpenACC comparison with mch_icon")


@pytest.fixture
def catalog(monkeypatch):
    """The program catalog, not the harness's one reference program (tests/timing's default)."""
    from iconbench import suite

    monkeypatch.delenv("ICONBENCH_CATALOG", raising=False)
    suite._has_catalog.cache_clear()
    suite.all_case_ids.cache_clear()
    yield
    suite._has_catalog.cache_clear()
    suite.all_case_ids.cache_clear()


def test_a_check_on_the_experiments_grid_measures_what_icon_times(catalog):
    """An icon4py change of compute_rho_theta_pgrad_and_update_vn (icon4py #1405) measures
    all its variants and the program ICON's timer times with it; a gt4py change's subset (one
    variant a program) the variant ICON's timers time most, not the catalog's first."""
    from iconbench import grids, suite
    from iconbench.check.run import on_experiment_grid

    medium, tiny = grids.resolve("mch_icon-ch1_medium"), grids.resolve("tiny")
    rho = "compute_rho_theta_pgrad_and_update_vn"
    change = {"scope": "programs", "programs": [rho], "programs_regex": rf"^(?:{rho})\[",
              "reason": "1 programs use the 1 changed icon4py modules"}  # fmt: skip
    regex, one_variant, reason = on_experiment_grid(medium, change, False)
    assert suite.case_ids(regex, None) == [
        "compute_hydrostatic_correction_term[default]",
        *(f"{rho}[is_iau_active={iau}-limited_area={lam}]"
          for iau in (False, True) for lam in (False, True)),
    ]  # fmt: skip
    assert not one_variant
    assert reason.endswith(
        "; and compute_hydrostatic_correction_term (ICON's timer "
        "compute_rho_theta_pgrad_and_update_vn times it with them)"
    )
    assert on_experiment_grid(tiny, change, False) == (change["programs_regex"], False,
                                                       change["reason"])  # fmt: skip
    solver = "vertically_implicit_solver_at_predictor_step"
    subset = {"scope": "representative", "programs": [solver, rho],
              "programs_regex": rf"^(?:{solver}|{rho})\[", "reason": "a gt4py change"}  # fmt: skip
    regex, one_variant, _ = on_experiment_grid(medium, subset, True)
    assert not one_variant  # the cases are named
    assert suite.case_ids(regex, None) == [
        "compute_hydrostatic_correction_term[default]",
        f"{rho}[is_iau_active=False-limited_area=True]",
        f"{solver}[is_iau_active=False-rayleigh_type=2-divdamp_type=3-at_first_substep=False]",
    ]
    assert suite.case_ids(on_experiment_grid(tiny, subset, True)[0], None, one_variant=True) == [
        f"{rho}[is_iau_active=False-limited_area=False]",
        f"{solver}[is_iau_active=False-rayleigh_type=1-divdamp_type=2-at_first_substep=True]",
    ]  # elsewhere: the catalog's first variants

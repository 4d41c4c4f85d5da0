"""Experiments as data: the mch_icon-ch1_medium file, its baseline, grid and variants."""

from __future__ import annotations

import json

import numpy as np
import pytest
from tests.archived_results import restored

from iconbench.baselines import experiments, gpu_scaling, mapping, speedup, store
from iconbench.baselines.gt4py_timings import GT4PyTiming, parse_variant
from iconbench.cli import main
from iconbench.errors import IconbenchError
from iconbench.grids.presets import counts_of

#: The suite's case ids as the committed H100 results list them (no catalog import needed).
H100 = restored("results/h100")  # raw files from git history (tests/archived_results.py)
CASES = json.loads((H100 / "asv" / "benchmarks.json").read_text())["programs.Programs.time_device"][
    "params"
][0]
CASES = [c.strip("'") for c in CASES]


@pytest.fixture
def ch1() -> experiments.Experiment:
    return experiments.load("mch_icon-ch1_medium")


def test_experiment_file_names_grid_baseline_and_sources(ch1):
    assert (ch1.grid, ch1.steps, ch1.substeps) == ("mch_icon-ch1_medium", 360, 5)
    baseline = store.load(store.default_root(), ch1.baseline)
    assert (baseline.timesteps, len(baseline.timers), baseline.machine.gpu) == (360, 84, "GH200")
    assert baseline.timer("nh_solve").calls == ch1.steps * ch1.substeps
    assert baseline.source.sha256.startswith("97635e7bb67a")
    assert "c2da9e05868ac88f0b663230eee0bb738d1734b1" in baseline.source.note
    assert all(arg.source for arg in ch1.static)
    assert ch1.pins["is_iau_active"] is False
    assert ch1.pins["limited_area"] is True


def test_every_mapped_timer_maps_to_exactly_one_variant_of_the_experiment(ch1):
    # one timing per case the experiment runs: the mapping and the pins must pick exactly one
    # per program reference, or compare() raises "matches several variants"
    chosen = ch1.case_ids(CASES)
    assert 100 < len(chosen) < len(CASES)
    assert "apply_divergence_damping_and_update_vn[is_iau_active=True" not in " ".join(chosen)
    counts = counts_of(ch1.grid)
    timings = []
    for case in chosen:
        program, _, rest = case.partition("[")
        variant = rest.removesuffix("]")
        static = parse_variant(variant)
        timings.append(
            GT4PyTiming(
                program, tuple(sorted(static.items())), "gtfn_gpu", ch1.grid, "GH200",
                tuple(np.linspace(1e-4, 1.1e-4, 5)), "time_device", counts,
            )
        )  # fmt: skip
    baseline = store.load(store.default_root(), ch1.baseline)
    report = speedup.compare(
        baseline,
        mapping.load(mapping.DEFAULT_FILE),
        timings,
        pins=ch1.pins,
        grid=(ch1.grid, counts),
    )
    rows = report.backends[0].rows
    assert report.forced == ()
    not_measured = [r.timer for r in rows if r.status == "not measured"]
    assert not_measured == []
    assert len(rows) >= 30
    assert report.backends[0].estimate.coverage > 0.3


def test_static_override_and_unknown_key(tmp_path, capsys):
    results = H100 / "asv"
    assert main(["speedup", str(results), "--experiment", "mch_icon-ch1_medium",
                 "--static", "rayleigh_typo=2"]) == 2  # fmt: skip
    assert (
        "--static rayleigh_typo: no program has a static argument 'rayleigh_typo'"
        in capsys.readouterr().err
    )
    with pytest.raises(SystemExit) as refused:  # refused while parsing (one argparse line)
        main(["speedup", str(results), "--experiment", "nope"])
    assert refused.value.code == 2
    assert "unknown experiment 'nope'; choose one of: mch_icon-ch1_medium" in (
        capsys.readouterr().err
    )
    assert main(["speedup", str(results)]) == 2
    assert "give --experiment NAME" in capsys.readouterr().err


def test_results_of_another_grid_are_refused_then_scaled_with_force(capsys):
    results = str(H100 / "asv")
    # the directory holds several commits' results (one H100 run each): one is picked
    assert main(["speedup", results, "--experiment", "mch_icon-ch1_medium"]) == 2
    assert "would be mixed; pick one with --commit SHA" in capsys.readouterr().err
    run = ["speedup", results, "--experiment", "mch_icon-ch1_medium", "--commit", "0e8595e4"]
    assert main(run) == 2
    err = capsys.readouterr().err
    assert "no timings on experiment mch_icon-ch1_medium's grid" in err
    assert "only on ch1_medium (1147333 cells" in err
    assert main([*run, "--force", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    scaling = report["gpu_scaling"]
    assert scaling["estimate"] is True
    assert scaling["baseline"] == {"gpu": "GH200", "bytes_per_s": 4.0e12, "kind": "datasheet"}
    assert scaling["gt4py"]["kind"] == "measured copy peak"
    assert 2.85e12 < scaling["gt4py"]["bytes_per_s"] < 3.0e12  # copy-peak.jsonl: 2.95 TB/s
    row = next(r for b in report["backends"] for r in b["rows"] if r["speedup"])
    assert row["speedup_bandwidth_scaled"] == pytest.approx(row["speedup"] * scaling["factor"])
    assert any("grid differs" in m for m in report["forced"])


def test_gpu_scaling_falls_back_to_datasheets():
    s = gpu_scaling.scaling("GH200", "NVIDIA H100 80GB HBM3")
    assert s.factor == pytest.approx(4.0 / 3.35)
    assert gpu_scaling.scaling("GH200", "mystery") is None


def test_broken_experiment_files_are_one_line_errors(tmp_path):
    bad = tmp_path / "x.toml"
    bad.write_text('version = 1\nname = "x"\ngrid = "nogrid"\n')
    with pytest.raises(IconbenchError, match="grid 'nogrid' is no grid preset"):
        experiments.from_file(bad)
    bad.write_text(
        'version = 1\nname = "x"\ngrid = "tiny"\nbaseline = "b"\nsteps = 1\nsubsteps = 1\n'
        '[[static]]\nname = "no_such_arg"\nvalue = 1\nsource = "s"\n'
    )
    with pytest.raises(IconbenchError, match="no program has a static argument 'no_such_arg'"):
        experiments.from_file(bad)


def test_the_domain_made_by_icon_grid_generator_compares_like_the_grid(ch1, capsys):
    # ICON-CH1 medium's domain, as the lattice and as icon-grid-generator makes it
    assert ch1.grids == ("mch_icon-ch1_medium", "mch_r19b08_lam")
    domain = counts_of("mch_r19b08_lam")
    assert [e.name for e in experiments.on_grid("mch_r19b08_lam", domain)] == [ch1.name]
    assert ch1.grid_of([domain]) == ("mch_r19b08_lam", domain)
    assert ch1.grid_of([counts_of("ch1_medium")])[0] == "mch_icon-ch1_medium"
    # the H200 record on the domain: forced for the GPU only, not for the grid
    results = restored("results/h200-mch_r19b08_lam") / "asv"
    run = ["speedup", str(results), "--experiment", ch1.name, "--gpu", "h200", "--json"]
    assert main(run) == 2
    assert "GPU differs" in capsys.readouterr().err
    assert main([*run, "--force"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["gt4py_grids"] == ["mch_r19b08_lam"]
    assert [m for m in report["forced"] if "grid differs" in m] == []
    estimates = {b["backend"]: round(b["estimate"]["value"], 2) for b in report["backends"]}
    assert estimates == {"dace_gpu": 1.62, "gtfn_gpu": 1.34}


def test_a_domain_that_is_no_preset_is_refused(tmp_path):
    bad = tmp_path / "x.toml"
    bad.write_text('version = 1\nname = "x"\ngrid = "tiny"\ndomains = ["nogrid"]\n')
    with pytest.raises(IconbenchError, match="grid 'nogrid' is no grid preset"):
        experiments.from_file(bad)
    bad.write_text('version = 1\nname = "x"\ngrid = "tiny"\ndomains = "tiny_torus"\n')
    with pytest.raises(IconbenchError, match="key 'domains': expected a list of grid presets"):
        experiments.from_file(bad)

"""``iconbench baseline import|list|show`` and ``iconbench speedup`` end to end."""

from __future__ import annotations

import json

import numpy as np
import pytest
from gt4py.next.instrumentation import metrics

from iconbench import cli
from iconbench.baselines import mapping

from .conftest import DATA, lognormal_samples

IMPORT = [
    "--experiment",
    "MCH-R04B09",
    "--grid",
    "R04B09",
    "--gpu",
    "A100",
    "--machine",
    "balfrin",
    "--date",
    "2024-05-29",
    "--timesteps",
    "6",
]


def _import(store, path, *extra):
    return cli.main(["baseline", "import", str(path), *IMPORT, *extra, "--store", str(store)])


def test_import_list_show(tmp_path, capsys):
    assert _import(tmp_path, DATA / "report.md") == 0
    assert "stored mch-r04b09/balfrin_a100_2024-05-29 (2 timers)" in capsys.readouterr().out
    assert cli.main(["baseline", "list", "--store", str(tmp_path)]) == 0
    assert "mch-r04b09/balfrin_a100_2024-05-29" in capsys.readouterr().out
    assert (
        cli.main(
            ["baseline", "show", "mch-r04b09/balfrin_a100_2024-05-29", "--store", str(tmp_path)]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "nh_hdiff_run" in out
    assert "0.00178" in out
    # a second import of the same experiment x machine x date is refused
    assert _import(tmp_path, DATA / "report.md") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "never overwritten" in err


def test_broken_input_is_one_line_error(tmp_path, capsys):
    broken = tmp_path / "broken.log"
    broken.write_text("name # calls t_min t_avg t_max total\nnh_hdiff_run 6 1s 2s 3x 4\n")
    assert _import(tmp_path, broken) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"iconbench: error: {broken}: line 2: timer 'nh_hdiff_run'")
    assert err.count("\n") == 1


def _dump(tmp_path, rng):
    """A metrics dump (gt4py's writer) of every program of the diffusion granule."""
    sources = {}
    for i, ref in enumerate(mapping.load().timers["nh_hdiff_run"].programs):
        source = metrics.Source(
            metadata={"name": ref.program, "backend": "gtfn_gpu", "static_args": {}}
        )
        for value in lognormal_samples(rng, 1e-4 * (i + 1), 20):
            source.metrics["compute"].add_sample(value)
        sources[f"{ref.program}<gtfn_gpu>#0[{i}]"] = source
    path = tmp_path / "gt4py_timers.json"
    path.write_text(metrics.dumps_json(sources))
    return path


def test_speedup_table_and_estimate(tmp_path, capsys, rng):
    store = tmp_path / "store"
    assert _import(store, DATA / "report.md") == 0
    dump = _dump(tmp_path, rng)
    capsys.readouterr()
    args = [
        "speedup",
        str(dump),
        "--store",
        str(store),
        "--baseline",
        "mch-r04b09/balfrin_a100_2024-05-29",
    ]
    # a metrics dump does not say which grid: refused without --grid/--gpu
    assert cli.main(args) == 2
    assert "pass --grid and --gpu" in capsys.readouterr().err
    assert cli.main([*args, "--grid", "R04B09", "--gpu", "A100"]) == 0
    out = capsys.readouterr().out
    assert "backend gtfn_gpu" in out
    assert "integrate_nh estimate:" in out
    assert "coverage: 84.4%" in out
    assert "nh_hdiff_run_initial" in out.split("unmapped OpenACC timers")[1]
    assert "WARNING" not in out
    # another grid: refused, then forced with a warning in the report
    assert cli.main([*args, "--grid", "tiny", "--gpu", "A100"]) == 2
    assert "grid differs" in capsys.readouterr().err
    assert cli.main([*args, "--grid", "tiny", "--gpu", "A100", "--force", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["forced"]
    assert "grid differs" in report["forced"][0]
    (backend,) = report["backends"]
    (row,) = backend["rows"]
    assert row["timer"] == "nh_hdiff_run"
    assert backend["estimate"]["value"] == row["speedup"]
    assert np.isfinite(backend["estimate"]["ci"]).all()


MEASURED = DATA / "measured" / "diffusion_gtfn_gpu_small_h100.json"
SEED = "mch-r04b09/unknown_unknown_2024-05"


def _expected_granule(dump: dict, metric: str) -> float:
    """sum(calls x median) over the nh_hdiff_run programs, first sample dropped."""
    by_name = {v["metadata"]["name"]: v["metrics"] for v in dump.values()}
    return sum(
        ref.calls * float(np.median(by_name[ref.program][metric][1:]))
        for ref in mapping.load().timers["nh_hdiff_run"].programs
    )


def test_seed_004_against_measured_gtfn_gpu_run(capsys):
    """The Done-when run: seed 004's OpenACC nh_hdiff_run vs a real gtfn_gpu metrics dump."""
    args = ["speedup", str(MEASURED), "--baseline", SEED, "--grid", "small", "--gpu", "H100"]
    assert cli.main(args) == 2  # other grid and GPU: refused
    capsys.readouterr()
    assert cli.main([*args, "--force", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert len(report["forced"]) == 2
    (backend,) = report["backends"]
    assert backend["backend"] == "gtfn_gpu"
    (row,) = backend["rows"]
    dump = json.loads(MEASURED.read_text())
    gt4py = _expected_granule(dump, "compute")
    assert row["gt4py_s"] == pytest.approx(gt4py)
    assert row["speedup"] == pytest.approx(0.00178 / gt4py)
    assert row["ci"][0] <= row["speedup"] <= row["ci"][1]
    (granule,) = backend["granules"]
    direct = float(np.median(dump["diffusion_granule<gtfn_gpu>"]["metrics"]["total"][1:]))
    assert granule["direct_s"] == pytest.approx(direct)
    assert granule["overhead_s"] == pytest.approx(direct - gt4py)
    assert backend["estimate"]["coverage"] == pytest.approx(6 * 0.00178 / (6 * 0.00178 + 0.00198))


@pytest.mark.gpu
def test_run_script_produces_a_dump_that_compares(tmp_path):
    """On a GPU runner: run the diffusion programs for real and compare the fresh dump."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    from iconbench.baselines import gt4py_timings, speedup, store

    dump = tmp_path / "metrics.json"
    env = {
        **os.environ,
        "GT4PY_COLLECT_METRICS_LEVEL": "10",
        "GT4PY_DUMP_METRICS_AT_EXIT": str(dump),
    }
    script = Path(__file__).parent / "run_diffusion_programs.py"
    subprocess.run(
        [sys.executable, str(script), "--grid", "tiny", "--backend", "gtfn_gpu", "--calls", "5"],
        env=env,
        check=True,
    )
    timings = gt4py_timings.load(dump, grid="tiny", gpu="H100")
    report = speedup.compare(
        store.load(store.default_root(), SEED), mapping.load(), timings, force=True
    )
    (backend,) = report.backends
    assert backend.backend == "gtfn_gpu"
    assert backend.rows[0].status == "ok"
    assert backend.estimate.value > 0
    (granule,) = backend.granules
    assert granule.direct_s > granule.programs_s  # the step from Python includes overhead

"""``iconbench compare --experiment``: the summary's ``openacc`` part from the H100 results
measured on the experiment's grid (results/h100-mch_icon-ch1_medium) and the shipped baseline."""

import json
import pathlib
import statistics

import pytest
from tests.archived_results import restored

from iconbench.cli import main
from iconbench.records.summary import Summary

REPO = pathlib.Path(__file__).resolve().parents[2]
MCH = restored("results/h100-mch_icon-ch1_medium")  # raw files from git history
BASELINE = REPO / "baselines" / "mch-icon-ch1-medium" / "unknown_gh200_2026-07.json"


def _device_median(case: str) -> float:
    """The case's gtfn_gpu device median from the ledger's newest line (the newest line wins)."""
    rows = [json.loads(line) for line in (MCH / "work" / "session.jsonl").read_text().splitlines()]
    mine = [r for r in rows if r["case"] == case and r["backend"] == "gtfn_gpu"]
    assert mine, case
    return statistics.median(mine[-1]["measurement"]["device_s"])


def test_experiment_fills_openacc_with_forced_gpu(tmp_path, capsys):
    out = tmp_path / "s.json"
    args = ["compare", str(MCH), str(MCH), "--experiment", "mch_icon-ch1_medium"]
    assert main([*args, "--force", "--out", str(out)]) == 0
    summary = Summary.read(out)
    acc = summary.openacc
    assert acc is not None
    assert (acc.baseline, acc.experiment) == (
        "mch-icon-ch1-medium/unknown_gh200_2026-07",
        "mch_icon-ch1_medium",
    )
    # same grid (by counts): only the GPU is forced, and the times' scale is recorded
    assert len(acc.forced) == 1
    assert acc.forced[0].startswith("GPU differs")
    assert 0.70 < acc.gpu["bandwidth_scale"] < 0.78  # 2.95 TB/s measured / 4.0 TB/s datasheet
    # one timer recomputed from the baseline file and the raw session samples
    timers = {t["name"]: t for t in json.loads(BASELINE.read_text())["timers"]}
    rows = [p for p in acc.head.programs if p.timer == "apply_diffusion_to_vn"]
    row = next(p for p in rows if p.backend == "gtfn_gpu")
    openacc_per_call = timers["apply_diffusion_to_vn"]["t_avg_s"]  # the baseline's mean
    assert abs(row.openacc_s - openacc_per_call) / openacc_per_call < 1e-9
    gt4py = _device_median("apply_diffusion_to_vn[limited_area=True]")
    assert abs(row.gt4py_s - gt4py) / gt4py < 1e-9
    assert abs(row.speedup - openacc_per_call / gt4py) < 1e-3
    # the estimate equals iconbench speedup's on the same results
    capsys.readouterr()
    speedup_args = ["speedup", str(MCH / "asv"), "--experiment", "mch_icon-ch1_medium"]
    assert main([*speedup_args, "--force", "--json", "--commit", summary.head.short]) in (0, None)
    backends = json.loads(capsys.readouterr().out)["backends"]
    estimate = next(b for b in backends if b["backend"] == "gtfn_gpu")["estimate"]["value"]
    assert abs(acc.head.integrate_nh["gtfn_gpu"] - estimate) < 1e-3
    assert acc.base == acc.head  # the same result set on both sides


def test_without_force_openacc_stays_empty_and_says_why(tmp_path, capsys):
    out = tmp_path / "s.json"
    args = ["compare", str(MCH), str(MCH), "--experiment", "mch_icon-ch1_medium", "--out", str(out)]
    assert main(args) == 0
    assert Summary.read(out).openacc is None
    assert "GPU differs" in capsys.readouterr().err  # a note: stdout is the report


def test_unknown_experiment_is_one_line(tmp_path, capsys):
    out = tmp_path / "s.json"
    with pytest.raises(SystemExit) as exit_:  # checked while the arguments are parsed
        main(["compare", str(MCH), str(MCH), "--experiment", "ch1", "--out", str(out)])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "unknown experiment 'ch1'" in err
    assert err.count("\n") == 1
    assert not out.exists()

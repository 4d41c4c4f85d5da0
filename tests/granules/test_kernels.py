"""Granule kernel sums from the suite's CUDA-event times, on the committed H100 results."""

import json
import pathlib

import pytest
from tests.archived_results import restored

from iconbench.errors import IconbenchError
from iconbench.granules import kernels, results

REPO = pathlib.Path(__file__).resolve().parents[2]
MCH = restored("results/h100-mch_icon-ch1_medium")  # raw files from git history


def _granules(backend: str) -> results.GranuleResults:
    (path,) = sorted((MCH / "granules").glob(f"*_{backend}_*.json"))
    return results.read(path)


def test_kernel_sum_of_integrate_nh_adds_up_the_suite_medians():
    granule = _granules("dace_gpu")
    times = kernels.suite_times(MCH, grid=granule.grid, gpu=granule.gpu)
    step = granule.cases["integrate_nh"]
    k = kernels.kernel_sum(step.calls, "dace_gpu", times)
    # recomputed by hand from summary.json for two calls the suite measured
    medians = {
        c["case"]: c["device_median_s"]
        for c in json.loads((MCH / "summary.json").read_text())["cases"]
        if c["backend"] == "dace_gpu"
    }
    key = next(k for k in step.calls if k.program == "compute_rho_theta_pgrad_and_update_vn")
    assert step.calls[key] == 5
    part = (
        5 * medians["compute_rho_theta_pgrad_and_update_vn[is_iau_active=False-limited_area=True]"]
    )
    assert part < k.seconds < step.wall_median_s  # kernels fit inside the measured wall
    # the granule's default configs call two variants the experiment run did not measure
    assert "compute_advection_in_horizontal_momentum[apply_extra_diffusion_on_vn=True]" in (
        k.unmatched
    )
    assert 0.85 < k.coverage < 1.0
    assert k.calls == sum(step.calls.values()) == 95


def test_suite_of_another_grid_is_one_line():
    granule = _granules("gtfn_gpu")
    with pytest.raises(IconbenchError, match="measured on grid 'ch1_medium'"):
        kernels.suite_times(restored("results/h100"), grid=granule.grid, gpu=granule.gpu)


def test_a_directory_gives_its_newest_summary(tmp_path):
    """Each ``suite asv`` adds a summary.N.json from the whole ledger: the newest one counts."""
    summary = json.loads((MCH / "summary.json").read_text())
    (tmp_path / "summary.json").write_text(json.dumps({**summary, "cases": []}))
    (tmp_path / "summary.1.json").write_text(json.dumps(summary))
    granule = _granules("dace_gpu")
    newest = kernels.suite_times(tmp_path, grid=granule.grid, gpu=granule.gpu)
    assert newest == kernels.suite_times(MCH, grid=granule.grid, gpu=granule.gpu)
    assert sum(len(v) for k, v in newest.items() if k[0] == "dace_gpu") == 119

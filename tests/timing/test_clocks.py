"""Each backend is timed by the clock of its device, decided by the resolved backend."""

from __future__ import annotations

import pytest

from iconbench.programs import backend_variants, backends
from iconbench.timing import clocks


@pytest.mark.parametrize("name", sorted(backend_variants.variants()))
def test_every_variant_of_backends_toml_is_timed_by_its_device(name):
    variant = backend_variants.variants()[name]
    clock = clocks.clock_type_for(backends.backend(name))
    if variant.device == "gpu":
        assert clock is clocks.CudaEventClock
    else:
        assert clock is clocks.Gt4pyComputeClock


def test_the_shipped_file_has_gpu_variants_whose_names_do_not_end_in_gpu():
    # the bug this guards against: a clock chosen by the suffix "_gpu" timed these with
    # gt4py's host-side compute metric instead of CUDA events
    gpu = [n for n, v in backend_variants.variants().items() if v.device == "gpu"]
    assert {"dace_gpu_noauto", "dace_gpu_block64x4", "dace_gpu_block128_1d"} <= set(gpu)
    assert all(clocks.clock_type_for(backends.backend(n)) is clocks.CudaEventClock for n in gpu)


@pytest.mark.parametrize(
    ("name", "clock"),
    [
        ("embedded", clocks.HostClock),
        ("gtfn_cpu", clocks.Gt4pyComputeClock),
        ("dace_cpu", clocks.Gt4pyComputeClock),
        ("gtfn_gpu", clocks.CudaEventClock),
        ("dace_gpu", clocks.CudaEventClock),
    ],
)
def test_icon4py_backends(name, clock):
    assert clocks.clock_type_for(backends.backend(name)) is clock


def test_a_users_gpu_variant_is_timed_by_cuda_events(tmp_path, monkeypatch):
    mine = tmp_path / "backends.toml"
    mine.write_text('version = 1\n[dace_tuned]\ndevice = "gpu"\noptions = {}\n')
    monkeypatch.setenv(backend_variants.ENV_VAR, str(mine))
    assert clocks.clock_type_for(backends.backend("dace_tuned")) is clocks.CudaEventClock

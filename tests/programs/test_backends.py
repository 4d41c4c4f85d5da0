"""Backend names resolve as icon4py builds them; unknown names fail with the valid ones."""

from __future__ import annotations

import pytest

from iconbench.errors import IconbenchError
from iconbench.programs import backends


def test_embedded_is_none_and_gtfn_is_a_backend():
    assert backends.resolve("embedded") is None
    gtfn = backends.resolve("gtfn_cpu")
    assert "gtfn" in gtfn.name.lower()
    assert "cpu" in gtfn.name.lower()


def test_custom_dace_variant_turns_auto_optimize_off():
    assert backends.descriptor("dace_gpu_noauto")["auto_optimize"] is False
    assert backends.backend("dace_gpu_noauto").on_gpu
    assert not backends.backend("dace_cpu_noauto").on_gpu


def test_unknown_backend_names_the_valid_ones():
    with pytest.raises(IconbenchError, match=r"unknown backend 'gtfn_tpu'.*gtfn_cpu.*dace_gpu"):
        backends.resolve("gtfn_tpu")
    with pytest.raises(IconbenchError, match=r"unknown backend 'gtfn_tpu'.*gtfn_cpu.*dace_gpu"):
        backends.backend("gtfn_tpu")


def test_a_variant_resolves_to_its_base_device_and_options():
    noauto = backends.backend("dace_gpu_noauto")
    assert (noauto.name, noauto.base, noauto.device) == ("dace_gpu_noauto", "dace_gpu", "gpu")
    assert noauto.options == {"auto_optimize": False}
    cpu = backends.backend("dace_cpu_noauto")
    assert (cpu.base, cpu.device, cpu.on_gpu) == ("dace_cpu", "cpu", False)
    gtfn = backends.backend("gtfn_gpu")
    assert (gtfn.base, gtfn.on_gpu, gtfn.options, gtfn.is_embedded) == ("gtfn_gpu", True, {}, False)
    assert backends.backend("embedded").is_embedded
    # a value: equal when resolved twice, usable as a key
    assert {noauto: 1}[backends.backend("dace_gpu_noauto")] == 1


def test_availability_says_why_not():
    usable, why = backends.available("gtfn_cpu")
    assert usable
    assert why == ""
    usable, why = backends.available("dace_gpu")
    assert usable or why  # no GPU here: the reason is given


def test_variants_come_from_the_file_users_edit(tmp_path, monkeypatch):
    from iconbench.programs import backend_variants

    # the shipped backends.toml: the old names keep working, block sizes are options
    assert {"dace_cpu_noauto", "dace_gpu_noauto", "dace_gpu_sync", "dace_gpu_nometrics"} <= set(
        backends.names()
    )
    block = backends.descriptor("dace_gpu_block64x4")
    assert block["optimization_args"] == {"gpu_block_size": [64, 4, 1]}
    assert backends.backend("dace_gpu_block128_1d").on_gpu
    assert backend_variants.options_of(["gtfn_gpu", "dace_gpu_sync"]) == {
        "dace_gpu_sync": {"async_sdfg_call": False}
    }
    # a user's own file; a misspelt option is refused (icon4py's factory would swallow it)
    mine = tmp_path / "backends.toml"
    mine.write_text(
        'version = 1\n[dace_gpu_mine]\ndevice = "gpu"\noptions = { auto_optimise = false }\n'
    )
    monkeypatch.setenv(backend_variants.ENV_VAR, str(mine))
    assert "dace_gpu_mine" in backends.names()
    assert "dace_gpu_noauto" not in backends.names()
    with pytest.raises(IconbenchError, match=r"unknown option 'auto_optimise'.*auto_optimize"):
        backends.descriptor("dace_gpu_mine")

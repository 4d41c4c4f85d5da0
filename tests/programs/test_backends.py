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
    assert backends.is_gpu("dace_gpu_noauto")
    assert not backends.is_gpu("dace_cpu_noauto")


def test_unknown_backend_names_the_valid_ones():
    with pytest.raises(IconbenchError, match=r"unknown backend 'gtfn_tpu'.*gtfn_cpu.*dace_gpu"):
        backends.resolve("gtfn_tpu")


def test_availability_says_why_not():
    usable, why = backends.available("gtfn_cpu")
    assert usable
    assert why == ""
    usable, why = backends.available("dace_gpu")
    assert usable or why  # no GPU here: the reason is given

import pytest

from iconbench import suite
from iconbench.errors import IconbenchError

REFERENCE = "compute_tangential_wind[default]"


def test_reference_case_is_listed_and_selectable(monkeypatch):
    monkeypatch.setenv("ICONBENCH_PROGRAMS", "tangential")
    assert suite.case_ids() == [REFERENCE]
    assert suite.case_ids("nothing-matches") == []
    assert suite.case_ids("", (2, 2)) == []


def test_unknown_backend_is_a_user_error():
    with pytest.raises(IconbenchError, match="unknown backend"):
        suite.resolve_backend("gtfn_tpu")


def test_prepared_case_is_cached_per_process(gtfn_cpu_case):
    assert suite.prepare(REFERENCE, "gtfn_cpu", "tiny") is gtfn_cpu_case
    assert gtfn_cpu_case.load_s > 0
    assert not gtfn_cpu_case.on_gpu


def test_codegen_fingerprint_is_stable_and_backend_specific(gtfn_cpu_case):
    first = suite.codegen_fingerprint(REFERENCE, "gtfn_cpu")
    assert first is not None
    assert len(first) == 16
    assert suite.codegen_fingerprint(REFERENCE, "gtfn_cpu") == first
    assert suite.codegen_fingerprint(REFERENCE, "embedded") is None

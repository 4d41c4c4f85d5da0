import pytest

from iconbench import suite
from iconbench.errors import IconbenchError

REFERENCE = "compute_tangential_wind[default]"


def test_reference_case_is_listed_and_selectable(monkeypatch):
    monkeypatch.setenv("ICONBENCH_PROGRAMS", "tangential")
    assert suite.case_ids() == [REFERENCE]
    with pytest.raises(IconbenchError, match="'nothing-matches' matches none of the 1 cases"):
        suite.case_ids("nothing-matches")
    assert suite.case_ids("", (2, 2)) == []  # an empty shard is no typo


def test_unknown_backend_is_a_user_error():
    with pytest.raises(IconbenchError, match="unknown backend"):
        suite.resolve_backend("gtfn_tpu")


def test_prepared_case_is_cached_per_process(gtfn_cpu_case):
    assert suite.prepare(REFERENCE, "gtfn_cpu", "tiny") is gtfn_cpu_case
    assert gtfn_cpu_case.load_s > 0
    assert not gtfn_cpu_case.on_gpu


def test_prepared_case_knows_its_build_and_fingerprint(gtfn_cpu_case, embedded_case):
    build = gtfn_cpu_case.build
    assert build is not None
    assert len(gtfn_cpu_case.fingerprint) == 16
    int(gtfn_cpu_case.fingerprint, 16)
    # the recorded library is the loadable file, relative to gt4py's cache directory
    assert (suite.build_cache_dir() / build.library).is_file()
    assert build.library.endswith(".so")
    assert embedded_case.fingerprint is None


def _walked(obj: object) -> bool:
    """Whether the garbage collector's walk meets ``obj`` (frozen objects it does not)."""
    import gc

    return any(found is obj for found in gc.get_objects())


def test_loaded_program_is_frozen_and_a_case_fields_are_not(gtfn_cpu_case):
    """The program's objects leave the collector's walk; the case's fields stay in it."""
    import gc
    import weakref

    suite.forget(REFERENCE, "gtfn_cpu", "tiny")
    frozen = gc.get_freeze_count()
    prepared = suite.prepare(REFERENCE, "gtfn_cpu", "tiny")
    assert gc.get_freeze_count() > frozen  # loaded (from the cache) and frozen
    assert not _walked(prepared.program)
    field = next(value for value in prepared.kwargs.values() if hasattr(value, "ndarray"))
    assert _walked(field)  # drawn after the freeze: collected with its case
    alive = weakref.ref(field)
    del field, prepared
    suite.forget(REFERENCE, "gtfn_cpu", "tiny")
    gc.collect()
    assert alive() is None

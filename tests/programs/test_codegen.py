"""Codegen fingerprints belong to one compiled variant and survive a reload from the cache."""

from __future__ import annotations

import pytest

from iconbench import suite

VARIANTS = ("apply_diffusion_to_vn[limited_area=False]", "apply_diffusion_to_vn[limited_area=True]")


@pytest.fixture(scope="module")
def catalog():
    """The program catalog on (the harness tests in tests/timing switch it off per process)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("ICONBENCH_CATALOG", raising=False)
        suite._has_catalog.cache_clear()
        yield
    suite._has_catalog.cache_clear()


@pytest.fixture(scope="module")
def dace_builds(catalog):
    """Both variants of one program compiled for dace_cpu on tiny_lam (cached after one run)."""
    builds = {}
    for case in VARIANTS:
        builds[case] = suite.prepare(case, "dace_cpu", "tiny_lam").build
        suite.forget(case, "dace_cpu", "tiny_lam")
    return builds


@pytest.mark.slow  # two dace_cpu compiles: 78-111 s on 2 cores
def test_each_static_variant_has_its_own_build_and_fingerprint(dace_builds):
    first, second = (dace_builds[case] for case in VARIANTS)
    assert first is not None
    assert second is not None
    assert first.library != second.library
    assert first.fingerprint != second.fingerprint
    for build in (first, second):
        assert (suite.build_cache_dir() / build.library).is_file()


@pytest.mark.slow  # the same two dace_cpu compiles
def test_loading_from_the_cache_gives_the_same_fingerprint(dace_builds):
    case = VARIANTS[1]
    again = suite.prepare(case, "dace_cpu", "tiny_lam")
    try:
        assert again.load_s < 15  # a cache hit, not a compile
        assert again.build == dace_builds[case]
    finally:
        suite.forget(case, "dace_cpu", "tiny_lam")


def test_a_gt4py_without_the_runner_seam_records_nothing_and_says_so(monkeypatch):
    from gt4py.next.otf import runners

    from iconbench.timing import codegen

    monkeypatch.delattr(runners, "_default_runner_lock")
    with pytest.warns(UserWarning, match="no codegen fingerprint"), codegen.recording() as found:
        pass
    assert found == []

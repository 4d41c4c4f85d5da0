"""A program is translated and loaded with fewer collections; what is measured runs without."""

from __future__ import annotations

import gc

import pytest

from iconbench import collector, provenance, suite

CASE = "compute_tangential_wind[default]"


@pytest.fixture
def thresholds_seen(monkeypatch):
    """The collector's thresholds each time ``suite._compile`` runs (a real compile after)."""
    seen: list[tuple[int, ...]] = []
    real = suite._compile

    def compile_and_note(*args, **kwargs):
        seen.append(gc.get_threshold())
        return real(*args, **kwargs)

    monkeypatch.setattr(suite, "_compile", compile_and_note)
    return seen


def test_a_build_and_a_load_run_with_fewer_collections(thresholds_seen) -> None:
    before = gc.get_threshold()
    assert before != collector.THRESHOLDS
    frozen = gc.get_freeze_count()
    suite.compile_case(CASE, "gtfn_cpu", "tiny")
    assert thresholds_seen == [collector.THRESHOLDS]
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() >= frozen  # what lived before the build is out of the way
    suite.forget(CASE, "gtfn_cpu", "tiny")
    suite._LOADED.pop((CASE, suite.as_backend("gtfn_cpu"), suite.as_grid("tiny")), None)
    suite.preload(CASE, "gtfn_cpu", "tiny")
    assert thresholds_seen == [collector.THRESHOLDS] * 2
    assert gc.get_threshold() == before  # the case's calls are measured with the defaults


def test_the_thresholds_come_back_when_a_build_fails() -> None:
    before = gc.get_threshold()
    with pytest.raises(RuntimeError), collector.fewer_collections():
        raise RuntimeError("a crashed compile")
    assert gc.get_threshold() == before


def test_results_record_how_the_collector_ran() -> None:
    info = provenance.collect()
    assert info.collector == collector.DESCRIPTION
    assert "50000/20/100" in info.as_dict()["collector"]
    recorded_before = {k: v for k, v in info.as_dict().items() if k != "collector"}
    assert provenance.StackInfo.from_dict(recorded_before).collector == "Python's defaults"

"""A worker computes the host-side inputs of its cases while it waits, not in its turn.

The grid's orography (``programs/orography.py``) is seconds of numpy on an experiment grid,
once per process: :func:`iconbench.suite.preload` computes it for a case that reads it, so
:func:`iconbench.suite.prepare` (inside the measuring turn) finds it done.
"""

from __future__ import annotations

import pytest

from iconbench import suite
from iconbench.grids import resolve
from iconbench.programs import orography, overrides
from iconbench.programs.backends import backend

TINY = resolve("tiny")
READS = "compute_hydrostatic_correction_term[default]"  # ikoffset, zdiff_gradp, ...
FLAT = "compute_tangential_wind[default]"


@pytest.fixture
def computed(monkeypatch):
    """The orography computations of this test, from an empty per-process cache."""
    calls: list[int] = []
    real = orography.compute
    monkeypatch.setattr(orography, "compute", lambda *a, **k: calls.append(1) or real(*a, **k))
    monkeypatch.setattr(overrides, "_OROGRAPHY", {})
    monkeypatch.setattr(suite, "_compile", lambda *args: None)  # the inputs are the point here
    monkeypatch.setattr(suite, "_has_catalog", lambda: True)  # cached off by an earlier test
    yield calls
    for case in (READS, FLAT):
        suite.forget(case, backend("gtfn_cpu"), TINY)
        suite._LOADED.pop((case, backend("gtfn_cpu"), TINY), None)


def test_preload_computes_the_orography_a_case_reads_and_prepare_finds_it(computed):
    suite.preload(READS, backend("gtfn_cpu"), TINY)
    assert computed == [1]
    prepared = suite.prepare(READS, backend("gtfn_cpu"), TINY)
    assert computed == [1]  # not again inside the turn
    offsets = prepared.kwargs["ikoffset"]
    assert (offsets.asnumpy() != 0).any()  # over mountains: the orography's, not flat zeros


def test_a_case_that_reads_no_orography_computes_none(computed):
    suite.preload(FLAT, backend("gtfn_cpu"), TINY)
    suite.prepare(FLAT, backend("gtfn_cpu"), TINY)
    assert computed == []


def test_prepare_binds_no_program_in_the_turn(computed, monkeypatch):
    """The loaded program is measured: binding another (gt4py fingerprints its source) cost
    0.04-0.3 s of every measuring turn's case on the H100 host."""
    from iconbench.programs import catalog

    program_type = type(catalog.lookup(FLAT)[0].program)
    binds: list[int] = []
    real = program_type.with_backend
    monkeypatch.setattr(program_type, "with_backend",
                        lambda self, target: binds.append(1) or real(self, target))  # fmt: skip
    suite.preload(FLAT, backend("gtfn_cpu"), TINY)
    assert binds == [1]
    prepared = suite.prepare(FLAT, backend("gtfn_cpu"), TINY)
    assert binds == [1]
    assert prepared.program is not None

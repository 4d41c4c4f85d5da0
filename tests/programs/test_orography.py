"""Offsets and masks over mountains: icon4py's rules, vectorised, on a generated LAM."""

from __future__ import annotations

import numpy as np
import pytest

from iconbench.programs import orography, overrides


def _loop_containing_level(column: np.ndarray, z: float, lowest: int) -> int:
    """icon4py compute_zdiff_gradp.py's inner loop, transcribed (the reference)."""
    nlev = column.size - 1
    for jk1 in range(lowest, nlev):
        if jk1 == nlev - 1 or column[jk1] >= z >= column[jk1 + 1]:
            return jk1
    return nlev - 1


def test_vectorised_search_equals_icon4pys_loop():
    rng = np.random.default_rng(3)
    nlev = 12
    vct_a = np.linspace(20000.0, 0.0, nlev + 1)
    topo = rng.uniform(0.0, 3000.0, 50)
    z_ifc, _ = orography.level_heights(topo, vct_a, 4)
    targets = rng.uniform(-50.0, 6000.0, (50, nlev))
    lowest = rng.integers(0, nlev - 1, 50)
    found = orography.containing_level(z_ifc, targets, lowest)
    expected = [
        [_loop_containing_level(z_ifc[i], targets[i, k], lowest[i]) for k in range(nlev)]
        for i in range(50)
    ]
    assert found.tolist() == expected


def test_a_lam_over_mountains_has_offsets_and_sparse_masks(tiny_lam):
    context = overrides.Context.of(tiny_lam)
    fields = context.orography()
    nlev = context.nlev
    summary = fields.summary()
    assert 1000.0 < summary["max_height_m"] <= 4000.0
    # offsets exist, stay inside the column (icon4py reads k + offset and k + offset + 1)
    k = np.arange(nlev)
    assert summary["edges_with_offset"] > 0.1
    assert (k + fields.vertoffset_gradp >= 0).all()
    assert (k + fields.vertoffset_gradp <= nlev - 1).all()
    assert (k + fields.zd_vertoffset >= 0).all()
    shifted = (k + fields.zd_vertoffset)[fields.zd_vertoffset != 0]
    assert shifted.size > 0
    assert (shifted <= nlev - 2).all()  # the interpolation reads k + offset + 1 too
    # the branches they guard are taken at a minority of points, near the ground
    assert 0.0 < summary["edge_levels_extrapolated"] < 0.2
    extrapolated_levels = np.nonzero((fields.pg_exdist != 0).any(axis=0))[0]
    assert extrapolated_levels.min() >= nlev // 2
    assert (fields.pg_exdist <= 0).all()  # below the downward extrapolation height
    assert 0.0 < (fields.zd_diffcoef != 0).mean() < 0.7
    assert fields.zd_diffcoef.max() <= 0.002  # icon4py's cap
    # no offsets, masks or coefficients in the lateral boundary and nudging zones
    nudging = context.zones["Cell"]["NUDGING"][0]
    assert not fields.zd_diffcoef[:nudging].any()


def test_flat_fallback_without_geometry():
    context = overrides.Context(4, 0, 0, 0, {}, np.linspace(100.0, 0.0, 5), {})
    rule = overrides.field_rule("any", "vertoffset_gradp")
    values = rule.make((3, 2, 4), np.random.default_rng(0), context)
    assert values.dtype == np.int32
    assert not values.any()


@pytest.mark.parametrize("name", ["ikoffset", "pg_exdist", "zd_diffcoef", "vcoef"])
def test_input_rules_name_their_source(name):
    assert "orography" in overrides.field_rule("any", name).source

"""A DaCe fingerprint that differs on a stack whose DaCe translation is not reproducible.

Real H100 results: two neighbouring commits of the icon4py backfill on gt4py 1.2.0 + dace
2.0.0a5 (results/backfill-h100). There `apply_diffusion_to_w_and_compute_horizontal_gradients_
for_turbulence` on dace_gpu was built afresh at each commit and ran 93.2 µs, then 85.7 µs.
"""

from __future__ import annotations

import dataclasses
import tarfile

import pytest
from tests.archived_results import restored

from iconbench.gate import verdict
from iconbench.records import resultset

PACKS = restored("results/backfill-h100")  # the packs, from git history
BEFORE, AFTER = (
    "f62c4e835fb3ab49b90893e85dd50ad9e1f7ef96",
    "4624345ed2141d85bc56ba7893d4531747b83283",
)
PROGRAM = "apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence"
KEY = f"{PROGRAM}[default]|dace_gpu|device_time"
NOTE = (
    "the DaCe translation of gt4py 1.2.0 is not reproducible: "
    "a build of unchanged code can differ too"
)


@pytest.fixture(scope="module")
def sides(tmp_path_factory):
    out = tmp_path_factory.mktemp("backfill")
    for commit in (BEFORE, AFTER):
        with tarfile.open(PACKS / f"{commit}.tar.xz") as pack:
            pack.extractall(out, filter="data")
    return resultset.resolve(str(out / BEFORE)), resultset.resolve(str(out / AFTER))


def _by_id(summary):
    return {b.id: b for b in summary.benchmarks}


def test_a_dace_build_draw_is_named_as_one(sides):
    base, head = sides
    assert base.stack["gt4py"] == head.stack["gt4py"] == "1.2.0"
    results = _by_id(verdict.compare(base, head))
    step = results[KEY]
    assert step.verdict == "improvement"
    assert 0.90 < step.ratio < 0.94
    assert "code generation differs" in step.notes
    assert NOTE in step.notes
    changed = [b for b in results.values() if "code generation differs" in b.notes]
    dace = [b for b in changed if b.backend == "dace_gpu"]
    gtfn = [b for b in changed if b.backend == "gtfn_gpu"]
    assert len(dace) >= 30
    assert gtfn
    assert all(NOTE in b.notes for b in dace)
    assert not any(NOTE in b.notes for b in gtfn)
    assert not any(NOTE in b.notes for b in results.values() if b not in changed)


def test_no_such_note_where_both_sides_translate_reproducibly(sides):
    base, head = (
        dataclasses.replace(side, stack={**side.stack, "gt4py": "1.2.1"}) for side in sides
    )
    step = _by_id(verdict.compare(base, head))[KEY]
    assert "code generation differs" in step.notes
    assert not any("not reproducible" in note for note in step.notes)

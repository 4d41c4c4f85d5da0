"""Each build's seconds by stage, from real builds on the CPU (timing/compile_stages)."""

import pathlib

import pytest

from iconbench.grids import resolve
from iconbench.records.build_stages import STAGES
from iconbench.records.compilation import CompileLedger
from iconbench.runner import precompile

CASE = "compute_tangential_wind[default]"  # the harness's own program (tests/timing)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The program built on gtfn_cpu and dace_cpu into a build cache of its own."""
    tmp = tmp_path_factory.mktemp("stages")
    ledger = CompileLedger(tmp / "compile.jsonl")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ICONBENCH_CACHE_DIR", str(tmp / "cache"))
        patch.setenv("GT4PY_BUILD_CACHE_DIR", str(tmp / "cache" / "gt4py"))  # the workers' too
        records = precompile.compile_pairs(
            [(CASE, "gtfn_cpu"), (CASE, "dace_cpu")], grid=resolve("tiny"),
            stack="stack-stages", ledger=ledger, processes=2,
            progress=lambda *_: None,
        )  # fmt: skip
    return {record.backend: record for record in records}, ledger, tmp


def test_a_build_is_split_into_its_stages_and_they_add_up(built):
    records, _, _ = built
    for backend, record in records.items():
        assert record.error is None, record.error
        stages = record.stages
        assert stages, backend
        assert set(stages) <= set(STAGES)
        assert sum(stages.values()) == pytest.approx(record.seconds, abs=0.05), stages
        assert stages["gt4py passes"] > 0
        # the compiles: timed by the launcher, or (a DaCe build replaying the commands it
        # recorded on this machine before the launcher was there) as one
        assert stages.get("host compiler", 0) + stages.get("compile", 0) > 0, stages
    assert records["gtfn_cpu"].stages["host compiler"] > 0
    assert records["dace_cpu"].stages["dace passes"] > 0
    assert "dace passes" not in records["gtfn_cpu"].stages


def test_the_ledger_keeps_the_stages_and_a_line_without_them_reads_as_before(built):
    records, ledger, _ = built
    kept = {record.backend: record.stages for record in ledger.records()}
    assert kept == {backend: record.stages for backend, record in records.items()}
    text = ledger.path.read_text()
    assert text.count('"stages"') == 2


def test_the_launcher_is_left_in_the_cache_and_no_times_file_behind(built):
    _, _, tmp = built
    left = sorted(p.name for p in pathlib.Path(tmp / "cache").rglob("compiler-times-*"))
    assert left == []
    assert list(pathlib.Path(tmp / "cache").rglob("iconbench-compiler-launcher"))

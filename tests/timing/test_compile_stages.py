"""Each build's seconds by stage, from real builds on the CPU (timing/compile_stages)."""

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
        patch.setenv("DACE_BUILD_CACHE_DIR", str(tmp / "dace"))  # DaCe configures with CMake
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
        assert stages["host compiler"] > 0, stages  # the launcher timed the build's compiles
        assert stages["link"] > 0, stages
    assert records["dace_cpu"].stages["dace passes"] > 0
    assert "dace passes" not in records["gtfn_cpu"].stages


def test_the_ledger_keeps_the_stages_and_a_line_without_them_reads_as_before(built):
    records, ledger, _ = built
    kept = {record.backend: record.stages for record in ledger.records()}
    assert kept == {backend: record.stages for backend, record in records.items()}
    text = ledger.path.read_text()
    assert text.count('"stages"') == 2


def test_no_launcher_file_and_no_times_file_is_left_behind(built):
    """The launcher is a line of shell in CMake's cache: removing a cache breaks no build."""
    _, _, tmp = built
    assert not [p for p in tmp.rglob("*") if p.name.startswith("compiler-times-")]
    assert not [p for p in tmp.rglob("*") if p.name == "iconbench-compiler-launcher"]
    lines = [line for path in tmp.rglob("CMakeCache.txt") for line in path.read_text().splitlines()]
    launchers = [line.split("=", 1)[1] for line in lines if "_LAUNCHER:STRING=" in line]
    assert len(launchers) >= 4  # DaCe's configure and gtfn's compile-command prototype
    assert all(value.startswith("/bin/sh;-c;") for value in launchers), launchers

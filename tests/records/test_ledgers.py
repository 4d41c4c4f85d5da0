"""The ledgers' one rule, through every reader: a torn last line skipped, any other an error."""

import pathlib

import pytest

from iconbench import grids
from iconbench.errors import IconbenchError
from iconbench.files import ledger as lines
from iconbench.records import resultdir, resultset
from iconbench.records.compilation import CompileLedger, CompileRecord
from iconbench.records.session import CaseResult, Measurement, SessionLedger


def _measured(case: str, device: list[float]) -> CaseResult:
    m = Measurement([d + 2e-5 for d in device], device, "cuda-events-held")
    return CaseResult(case, "gtfn_gpu", "tiny", m, 8, 0.0, None, "f" * 12, None, None, 1.0, 2.0)


def _session(root: pathlib.Path) -> SessionLedger:
    ledger = SessionLedger(root / "work" / "session.jsonl")
    ledger.append(_measured("a[default]", [1e-3, 1.1e-3, 1.2e-3]))
    ledger.append(_measured("b[default]", [2e-3, 2.1e-3, 2.2e-3]))
    return ledger


def test_a_torn_last_line_is_skipped_and_counted_by_every_reader(tmp_path):
    ledger = _session(tmp_path)
    whole = ledger.path.read_text()
    with ledger.path.open("a") as out:  # a worker killed while writing its third case
        out.write(whole.splitlines()[0][:70])
    assert lines.read(ledger.path).torn == 1
    assert [r.case for r in ledger.results()] == ["a[default]", "b[default]"]
    side = resultset.ledger_set(tmp_path, label="s", commit="c", grid=grids.resolve("tiny"))
    assert side.entries["a[default]|gtfn_gpu|device_time"].samples == (1e-3, 1.1e-3, 1.2e-3)
    assert side.entries["b[default]|gtfn_gpu|device_time"].median == 2.1e-3

    # the next append cuts the torn line off: the ledger reads whole again, nothing torn
    ledger.append(_measured("c[default]", [3e-3]))
    assert lines.read(ledger.path).torn == 0
    assert ledger.path.read_text() == whole + ledger.path.read_text()[len(whole) :]
    assert [r.case for r in ledger.results()] == ["a[default]", "b[default]", "c[default]"]


def test_merged_shards_keep_whole_lines_of_a_shard_killed_while_appending(tmp_path):
    """A shard's torn last line is left out of the union, not put between whole lines."""
    first, second = _session(tmp_path / "s1").path, _session(tmp_path / "s2").path
    second.write_text(second.read_text().replace("a[default]", "c[default]"))
    with first.open("a") as out:  # the first shard was killed writing a third case
        out.write(first.read_text().splitlines()[0][:70])
    resultdir.merge_ledgers([tmp_path / "s1", tmp_path / "s2"], tmp_path / "out")
    merged = SessionLedger(tmp_path / "out" / "session.jsonl")
    assert lines.read(merged.path).torn == 0
    assert [r.case for r in merged.results()] == ["a[default]", "b[default]", "c[default]"]
    assert merged.path.read_text().splitlines() == [
        *lines.whole_lines(first),
        second.read_text().splitlines()[0],
    ]


def test_a_bad_line_elsewhere_is_one_error_naming_file_and_line(tmp_path):
    ledger = _session(tmp_path)
    first, second = ledger.path.read_text().splitlines()
    ledger.path.write_text(f"{first}\n{second[:70]}\n{first}\n")
    expected = f"{ledger.path}: line 2: invalid JSON"
    with pytest.raises(IconbenchError, match="^" + expected):
        ledger.results()
    with pytest.raises(IconbenchError, match="^" + expected):
        resultset.ledger_set(tmp_path, label="s", commit="c", grid=grids.resolve("tiny"))

    compile_ledger = CompileLedger(tmp_path / "compile.jsonl")
    compile_ledger.append(CompileRecord("a[default]", "gtfn_gpu", "tiny", "s", 41.0))
    with compile_ledger.path.open("a") as out:
        out.write('{"case": "b[default]", "backend"\n{"seconds": 3.0}\n')
    with pytest.raises(IconbenchError, match=f"^{compile_ledger.path}: line 2: invalid JSON"):
        compile_ledger.records()
    kept = compile_ledger.path.read_text().splitlines()[0]
    compile_ledger.path.write_text(f'{kept}\n{{"seconds": 3.0}}\n')  # JSON, but no compile
    with pytest.raises(IconbenchError, match=f"^{compile_ledger.path}: line 2: not a compile"):
        compile_ledger.records()


def test_ledger_is_append_only_and_first_compile_is_cold(tmp_path: pathlib.Path):
    ledger = CompileLedger(tmp_path / "compile.jsonl")
    ledger.append(CompileRecord("p[a]", "gtfn_cpu", "tiny", "s1", 0.0, error="boom"))
    ledger.append(CompileRecord("p[a]", "gtfn_cpu", "tiny", "s1", 42.5, "abc"))
    ledger.append(CompileRecord("p[a]", "gtfn_cpu", "tiny", "s1", 0.4, "abc"))
    ledger.append(CompileRecord("p[a]", "gtfn_cpu", "tiny", "s2", 39.0, "def"))
    with ledger.path.open("a") as handle:  # a writer killed mid-line
        handle.write('{"case": "p[b]", "back')
    assert len(ledger.records()) == 4
    assert ledger.cold_seconds("p[a]", "gtfn_cpu", "s1") == 42.5
    assert ledger.cold_seconds("p[a]", "gtfn_cpu", "s2") == 39.0
    assert ledger.cold_seconds("p[a]", "dace_cpu", "s1") is None
    assert ledger.compiled("s1") == {("p[a]", "gtfn_cpu")}

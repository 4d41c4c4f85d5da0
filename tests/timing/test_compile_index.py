"""The compile index: a precompile whose builds it knows starts no pool."""

from __future__ import annotations

import concurrent.futures
import pathlib

import pytest

from iconbench.grids import resolve
from iconbench.records.compilation import CompileLedger, CompileRecord
from iconbench.runner import precompile
from iconbench.timing.compile_index import CompileIndex, Sources

TINY = resolve("tiny")
JOBS = [("a[default]", "gtfn_cpu"), ("b[default]", "gtfn_cpu"), ("a[default]", "embedded")]


class InlinePool:
    """A process pool that runs each job at once, here; counts the pools started."""

    started = 0

    def __init__(self, *args, **kwargs) -> None:
        InlinePool.started += 1

    def __enter__(self) -> InlinePool:
        return self

    def __exit__(self, *exc) -> None:
        return None

    def submit(self, function, job) -> concurrent.futures.Future:
        future: concurrent.futures.Future = concurrent.futures.Future()
        future.set_result(function(job))
        return future


def _compile(job) -> CompileRecord:
    """A compile that builds ``<case>/lib.so`` in the cache (the pool worker's stand-in)."""
    case, backend, grid, stack, _defer = job
    return CompileRecord(case, backend, grid.name, stack, 30.0, f"f-{case}",
                         library=f"{case}/lib.so")  # fmt: skip


@pytest.fixture
def cache(tmp_path, monkeypatch) -> pathlib.Path:
    """gt4py's cache folder, where the stand-in compiles leave their libraries."""
    monkeypatch.setattr(precompile.concurrent.futures, "ProcessPoolExecutor", InlinePool)
    monkeypatch.setattr(precompile, "_worker", _compile)
    monkeypatch.setattr(InlinePool, "started", 0)
    folder = tmp_path / "gt4py" / ".gt4py_cache"
    for case in ("a[default]", "b[default]"):
        (folder / case).mkdir(parents=True)
        (folder / case / "lib.so").touch()
    return folder


def _precompile(tmp_path, index, name: str) -> tuple[list[CompileRecord], CompileLedger]:
    ledger = CompileLedger(tmp_path / name / "compile.jsonl")
    records = precompile.compile_pairs(
        JOBS, grid=TINY, stack="s", ledger=ledger, processes=2, index=index,
        cache_dir=index.cache_dir,
    )  # fmt: skip
    return records, ledger


def test_every_build_known_means_no_pool_and_the_ledger_says_so(tmp_path, cache):
    tree = Sources((tmp_path / "tree",), "code-1")
    index = CompileIndex(cache.parent, cache, "s", tree)
    first, _ = _precompile(tmp_path, index, "first")
    assert InlinePool.started == 1
    assert sorted((r.case, r.from_index) for r in first) == [("a[default]", False),
                                                             ("b[default]", False)]  # fmt: skip
    again, ledger = _precompile(tmp_path, index, "again")  # a new check's result directory
    assert InlinePool.started == 1  # no pool for the second
    assert [(r.case, r.from_index, r.seconds, r.fingerprint) for r in ledger.records()] == [
        ("a[default]", True, 30.0, "f-a[default]"), ("b[default]", True, 30.0, "f-b[default]"),
    ]  # fmt: skip
    assert again == ledger.records()
    assert ledger.in_cache("s", cache) == {("a[default]", "gtfn_cpu"), ("b[default]", "gtfn_cpu")}


def test_another_path_other_code_or_a_removed_build_compiles_again(tmp_path, cache):
    tree = Sources((tmp_path / "tree",), "code-1")
    _precompile(tmp_path, CompileIndex(cache.parent, cache, "s", tree), "first")
    elsewhere = Sources((tmp_path / "other-tree",), "code-1")
    changed = Sources((tmp_path / "tree",), "code-2")
    for sources, name in ((elsewhere, "moved"), (changed, "changed")):
        records, _ = _precompile(tmp_path, CompileIndex(cache.parent, cache, "s", sources), name)
        assert [r.from_index for r in records] == [False, False], name
    (cache / "b[default]" / "lib.so").unlink()
    records, _ = _precompile(tmp_path, CompileIndex(cache.parent, cache, "s", tree), "removed")
    assert [(r.case, r.from_index) for r in records] == [("a[default]", True),
                                                          ("b[default]", False)]  # fmt: skip
    assert InlinePool.started == 4


def test_the_running_environments_code_is_keyed_by_the_stack_alone(tmp_path):
    assert Sources.of([]) == Sources()
    root = tmp_path / "src"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "m.py").write_text("x = 1\n")
    first = Sources.of([root])
    (root / "pkg" / "m.py").write_text("x = 2\n")
    assert Sources.of([root]).identity != first.identity
    assert Sources.of([root], "given").identity == "given"
    assert first.roots == (root.absolute(),)

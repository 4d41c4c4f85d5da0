"""A check's first workers load each program once its build is entered in the compile index,
while the precompile still runs, and the rest once it has ended."""

from __future__ import annotations

import pathlib
import threading
import time

from iconbench import suite
from iconbench.grids import resolve
from iconbench.programs.backends import backend
from iconbench.records.compilation import CompileRecord
from iconbench.runner import measure
from iconbench.runner.options import RunOptions
from iconbench.timing.compile_index import CompileIndex, Sources

TINY = resolve("tiny")
BUILT, LATE = ("a[default]", "gtfn_cpu"), ("b[default]", "gtfn_cpu")


def test_a_program_loads_once_its_build_is_in_the_index_not_before(tmp_path, monkeypatch):
    directory = tmp_path / "stack-s"
    cache_dir = directory / ".gt4py_cache"
    monkeypatch.setenv("GT4PY_BUILD_CACHE_DIR", str(directory))
    monkeypatch.setattr(suite, "build_cache_dir", lambda: cache_dir)
    sources = Sources((tmp_path / "tree" / "src",), "code-1")
    index = CompileIndex(directory, cache_dir, "stack-s", sources)
    loaded: list[tuple[str, float]] = []
    monkeypatch.setattr(
        suite, "preload", lambda case, b, grid: loaded.append((case, time.monotonic()))
    )
    load_after = tmp_path / "precompiled"
    options = RunOptions(
        out=tmp_path / "out", backends=(backend("gtfn_cpu"),), grid=TINY, stack="stack-s",
        load_after=load_after, sources=sources.roots, sources_identity=sources.identity,
    )  # fmt: skip
    times: dict[str, float] = {}

    def precompile() -> None:
        time.sleep(0.3)
        (cache_dir / "a").mkdir(parents=True)
        (cache_dir / "a" / "lib.so").touch()
        index.record(CompileRecord(*BUILT, "tiny", "stack-s", 30.0, "f1", library="a/lib.so"), TINY)
        times["entered"] = time.monotonic()
        time.sleep(0.8)  # b's compile: still running when the precompile is stopped
        times["ended"] = time.monotonic()
        load_after.write_text("done")

    driver = threading.Thread(target=precompile)
    driver.start()
    left = measure._load_while_precompiling(
        [BUILT, LATE], options, {"gtfn_cpu": backend("gtfn_cpu")}
    )
    driver.join()
    assert left == [LATE]  # never loaded before its build is there
    ((case, at),) = loaded
    assert case == "a[default]"
    assert times["entered"] <= at < times["ended"]  # during the precompile


def test_without_the_code_identity_it_only_waits(tmp_path, monkeypatch):
    monkeypatch.setattr(suite, "preload", lambda *args: pytest_fail())
    load_after = tmp_path / "precompiled"
    load_after.write_text("done")
    options = RunOptions(
        out=tmp_path / "out", backends=(backend("gtfn_cpu"),), grid=TINY, stack="s",
        load_after=load_after, sources=(pathlib.Path("/t/src"),),
    )  # fmt: skip
    assert measure._load_while_precompiling([BUILT], options, {}) == [BUILT]


def pytest_fail() -> None:
    raise AssertionError("loaded without knowing its build")

"""How a check's two precompile pools share the host: busy builds, order, processes.

A pool worker does not wait on a build another process holds (the job comes back later); a
side's pool takes the longest compiles first by the runner's ledger; the compile processes are
shared by what each side has left to compile.
"""

from __future__ import annotations

import pytest
from tests.timing.test_compile_index import InlinePool

from iconbench.grids import resolve
from iconbench.records.compilation import CompileLedger, CompileRecord
from iconbench.runner import busy_builds, precompile

TINY = resolve("tiny")


def test_a_held_build_folder_raises_and_other_locks_are_gt4pys(tmp_path):
    from gt4py._core import locking

    cache = tmp_path / ".gt4py_cache"
    build = cache / "apply_pyext_0123456789abcdef_1.2.1"
    translations = cache / "gtfn_cache"
    for folder in (build, translations):
        folder.mkdir(parents=True)
    held = locking.lock(build)  # another process's build: its lock file, taken
    held.acquire()
    try:
        with busy_builds.deferring(cache):
            same = locking.lock(build)
            assert same._lock.lock_file == held.lock_file  # the lock file every process takes
            with pytest.raises(busy_builds.BusyBuildError, match=build.name), same:
                pass
            assert not isinstance(locking.lock(translations), busy_builds._NotWaiting)
    finally:
        held.release()
    with busy_builds.deferring(cache), locking.lock(build):  # free: taken at once
        pass
    assert locking._lock_constructor.__name__ == type(held).__name__  # restored


def test_a_build_linked_from_another_stack_is_not_waited_on_either(tmp_path):
    """gt4py resolves a linked build folder and locks it where it lies: in the other stack's
    cache (iconbench.stacks.shared_builds), where another stack's process may be building it."""
    from gt4py._core import locking

    cache, others = tmp_path / "stack-a" / ".gt4py_cache", tmp_path / "stack-b" / ".gt4py_cache"
    build = others / "apply_pyext_0123456789abcdef_1.2.1"
    build.mkdir(parents=True)
    cache.mkdir(parents=True)
    (cache / build.name).symlink_to(build)
    held = locking.lock(build)
    held.acquire()
    try:
        with busy_builds.deferring(cache):
            same = locking.lock((cache / build.name).resolve())
            assert isinstance(same, busy_builds._NotWaiting)  # not gt4py's waiting lock
            with pytest.raises(busy_builds.BusyBuildError, match=build.name), same:
                pass
    finally:
        held.release()


def test_a_busy_build_is_taken_up_again_waiting_after_the_other_jobs(tmp_path, monkeypatch, capsys):
    calls: list[tuple[str, bool]] = []

    def worker(job):
        case, backend, grid, stack, defer = job
        calls.append((case, defer))
        if case == "b[default]" and defer:  # another process is building b's code
            return busy_builds.Deferred(case, backend, "b_pyext_0123456789abcdef_1.2.1", 97.54)
        return CompileRecord(case, backend, grid.name, stack, 1.0, "f", library=f"{case}/l.so")

    monkeypatch.setattr(precompile.concurrent.futures, "ProcessPoolExecutor", InlinePool)
    monkeypatch.setattr(precompile, "_worker", worker)
    ledger = CompileLedger(tmp_path / "compile.jsonl")
    jobs = [(f"{name}[default]", "gtfn_cpu") for name in "abc"]
    records = precompile.compile_pairs(jobs, grid=TINY, stack="s", ledger=ledger, processes=1)
    assert calls == [("c[default]", True), ("b[default]", True), ("a[default]", True),
                     ("b[default]", False)]  # fmt: skip
    assert sorted(r.case for r in records) == sorted(case for case, _ in jobs)
    assert {r.case for r in ledger.records()} == {case for case, _ in jobs}
    # the seconds spent before going back are in the log: no compile record holds them
    assert (
        "b[default] on gtfn_cpu: b_pyext_0123456789abcdef_1.2.1 is being built by another "
        "process; taken up again later (after 97.5 s)" in capsys.readouterr().err
    )


def test_a_fresh_result_directory_orders_by_the_runners_ledger(tmp_path, monkeypatch):
    calls: list[str] = []

    def worker(job):
        calls.append(job[0])
        return CompileRecord(job[0], job[1], job[2].name, job[3], 1.0, "f", library="x/l.so")

    monkeypatch.setattr(precompile.concurrent.futures, "ProcessPoolExecutor", InlinePool)
    monkeypatch.setattr(precompile, "_worker", worker)
    runner = CompileLedger(tmp_path / "runner" / "compile.jsonl")
    for case, seconds in [("solver[x=1]", 190.0), ("small[default]", 20.0)]:
        runner.append(CompileRecord(case, "gtfn_cpu", "tiny", "other-stack", seconds))
    jobs = [
        ("small[default]", "gtfn_cpu"),
        ("solver[x=2]", "gtfn_cpu"),
        ("new[default]", "gtfn_cpu"),
    ]
    fresh = CompileLedger(tmp_path / "side" / "compile.jsonl")  # a check's side knows nothing
    precompile.compile_pairs(jobs, grid=TINY, stack="s", ledger=fresh, processes=1,
                             runner_ledgers=[runner])  # fmt: skip
    assert calls == ["solver[x=2]", "new[default]", "small[default]"]  # 190 s, median 105 s, 20 s


def test_the_compile_processes_go_where_the_compiles_are(tmp_path, monkeypatch):
    from iconbench.check import run
    from iconbench.stacks.sides import Side, build_cache
    from iconbench.timing.compile_index import CompileIndex, Sources

    monkeypatch.setenv("ICONBENCH_CACHE_DIR", str(tmp_path / "cache"))
    pairs = [(f"p{i}[default]", "gtfn_cpu") for i in range(3)]
    base, head = (Side(name, name, name[0] * 40, (tmp_path / name,), tmp_path / "out" / name,
                       "s", f"code-{name}") for name in ("base", "head"))  # fmt: skip
    cache = build_cache("s")
    index = CompileIndex(cache.parent, cache, "s", Sources.of(base.sources, base.identity))
    for case, backend in pairs:  # main's builds are in the cache
        (cache / case).mkdir(parents=True)
        (cache / case / "l.so").touch()
        index.record(CompileRecord(case, backend, "tiny", "s", 30.0, "f", library=f"{case}/l.so"),
                     TINY)  # fmt: skip
    left = [run._compile_seconds_left(side, pairs, TINY, None) for side in (base, head)]
    assert left == [0.0, 3.0]  # head's three compiles, of unknown length
    assert precompile.split_processes(left, 16) == [1, 16]

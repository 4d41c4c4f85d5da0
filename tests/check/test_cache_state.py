"""check.json's ``builds``: what each side of a check met in the build cache."""

from __future__ import annotations

import os
import pathlib
import time

import pytest

from iconbench.check import cache_state
from iconbench.records.compilation import CompileLedger, CompileRecord
from iconbench.records.session import CaseResult, Measurement, SessionLedger
from iconbench.stacks.sides import Side, build_cache


@pytest.fixture
def cache(tmp_path, monkeypatch) -> pathlib.Path:
    monkeypatch.setenv("ICONBENCH_CACHE_DIR", str(tmp_path / "cache"))
    return build_cache("s")


def _library(cache: pathlib.Path, folder: str, age_s: float) -> str:
    """A build's library in the cache, last written ``age_s`` seconds ago."""
    (cache / folder).mkdir(parents=True, exist_ok=True)
    library = cache / folder / "lib.so"
    library.touch()
    then = time.time() - age_s
    os.utime(library, (then, then))
    return f"{folder}/lib.so"


def _side(tmp_path, name: str, compiles: list[tuple[str, str, bool]], measured=()) -> Side:
    """A side whose precompile recorded ``(case, library, from_index)`` on gtfn_cpu."""
    side = Side(name, name, name[0] * 40, (), tmp_path / name, "s")
    ledger = CompileLedger(side.out / "work" / "compile.jsonl")
    for case, library, from_index in compiles:
        ledger.append(CompileRecord(case, "gtfn_cpu", "tiny", "s", 12.0, "f", library=library,
                                    from_index=from_index))  # fmt: skip
    session = SessionLedger(side.out / "work" / "session.jsonl")
    for case in measured:
        timed = Measurement(host_s=[2e-5], device_s=[], device_source="none")
        session.append(CaseResult(case, "gtfn_cpu", "tiny", timed, 0, 0.1, None, None, None,
                                  None, time.time(), 0.5, worker="r01-" + name))  # fmt: skip
    return side


def test_a_cold_side_a_warm_side_and_a_build_both_use(tmp_path, cache):
    # an earlier record of the same result directory is not this check's
    old = _side(tmp_path, "base", [("z[default]", _library(cache, "z", 7200), False)])
    since = time.time()
    fresh, shared, known = (_library(cache, name, 0) for name in ("a", "b", "c"))
    older = _library(cache, "d", 3600)
    base = _side(tmp_path, "base", [
        ("p[x=1]", fresh, False), ("p[x=2]", fresh, False),  # two variants, one code
        ("q[default]", shared, False), ("r[default]", known, True),  # the index's: found
    ], measured=["p[x=1]", "p[x=2]", "q[default]", "r[default]"])  # fmt: skip
    assert old.out == base.out
    head = _side(tmp_path, "head", [
        ("q[default]", shared, False),  # built by base's pool in this check
        ("s[default]", older, False),  # loaded through gt4py from an older build folder
    ], measured=["q[default]", "s[default]", "t[default]"])  # t: no precompile record  # fmt: skip
    states = [cache_state.side_builds(base, since),
              cache_state.side_builds(head, since, linked=5)]  # fmt: skip
    builds = cache_state.check_builds(states, ("base", "head"))
    assert builds == {
        "base": {"pairs": 4, "compiled": 2, "found": 1, "linked": 0, "in_measuring": 0},
        "head": {"pairs": 2, "compiled": 1, "found": 1, "linked": 5, "in_measuring": 1},
        "compiled": 2,  # the build both sides use counts once
    }


def test_a_build_index_found_is_never_counted_compiled(tmp_path, cache):
    since = time.time()
    library = _library(cache, "a", 0)  # written just now, but the index knew it
    side = _side(tmp_path, "head", [("a[default]", library, True)])
    state = cache_state.side_builds(side, since)
    assert (state.compiled, state.found, state.pairs) == (0, 1, 1)

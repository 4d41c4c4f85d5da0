"""A runner that keeps its cache (``ICONBENCH_SHARED_BUILD_CACHE=1``), with real compiles.

The night's precompile (``iconbench suite precompile`` after ``ci/runner-env.sh``, as
``ci/gpu/nightly-host`` runs it) builds ``compute_tangential_wind`` on gtfn_cpu, tiny grid, into
an empty cache, once for the module. Then:

- another stack on the same runner gets the night's build folder linked, not its translation
  cache: it translates for itself and compiles nothing;
- the nightly's confirmation on the same stack (both sides tonight's stack, as on a host whose
  nights measure one stack: ``iconbench.check.confirm.Stacks.sides``) precompiles through the
  check's own phase and finds the night's build: ``check.json``'s ``builds`` say found, 0
  compiled. (Before, the night built into ``gt4py/shared`` and the confirmation, choosing its
  cache by the stack, compiled every case again.)
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import time

import pytest
from tests.ci.test_nightly_host import ENV, REPO

from iconbench.grids import resolve as resolve_grid
from iconbench.records.compilation import CompileLedger
from iconbench.stacks.identity import stack_key
from iconbench.stacks.shared_builds import CACHE_FOLDER, TRANSLATION_CACHES

CASE = "compute_tangential_wind[default]"
SELECTION = ["--backends", "gtfn_cpu", "--grid", "tiny", "--one-variant", "--jobs", "1",
             "--programs", r"^compute_tangential_wind\["]  # fmt: skip
#: the runner's environment: its cache, shared builds; no build cache of the tests' session
RUNNER = {**{k: v for k, v in ENV.items() if k != "GT4PY_BUILD_CACHE_DIR"},
          "ICONBENCH_SHARED_BUILD_CACHE": "1"}  # fmt: skip


def _suite(cache: pathlib.Path, *args: str) -> subprocess.CompletedProcess:
    """``iconbench suite ARGS`` in the runner's environment (``ci/runner-env.sh``)."""
    command = f'source "{REPO}/ci/runner-env.sh" && iconbench suite "$@"'
    env = {**RUNNER, "ICONBENCH_CACHE_DIR": str(cache)}
    return subprocess.run(["bash", "-c", command, "suite", *args], env=env,
                          capture_output=True, text=True, check=False)  # fmt: skip


def _translations(cache: pathlib.Path) -> dict[str, float]:
    return {f"{p.parent.name}/{p.name}": p.stat().st_mtime
            for name in TRANSLATION_CACHES for p in (cache / name).glob("*.pkl")}  # fmt: skip


@pytest.fixture(scope="module")
def night(tmp_path_factory):
    """The runner's cache after the night's precompile; its stack's gt4py cache folder."""
    root = tmp_path_factory.mktemp("runner")
    done = _suite(root / "cache", "precompile", "--out", str(root / "night"), *SELECTION)
    assert done.returncode == 0, done.stderr[-3000:]
    (record,) = CompileLedger(root / "night" / "work" / "compile.jsonl").records()
    assert (record.case, record.error, record.from_index) == (CASE, None, False)
    return root / "cache", root / "cache" / "gt4py" / stack_key() / CACHE_FOLDER


@pytest.mark.slow  # a cold compile of one program, then two precompiles: about 45 s on 2 cores
def test_another_stack_gets_the_nights_build_folder_and_translates_for_itself(night, tmp_path):
    cache, tonight = night
    (build,) = [p for p in tonight.iterdir() if p.name.startswith("compute_tangential_wind_")]
    translated = _translations(tonight)
    assert translated  # the night's gtfn translation
    start = time.time()
    done = _suite(cache, "precompile", "--out", str(tmp_path / "other"), "--stack",
                  "stack-other", *SELECTION)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "1 build folders of this runner's other stacks" in done.stderr

    other = cache / "gt4py" / "stack-other" / CACHE_FOLDER
    linked = other / build.name
    assert linked.is_symlink()
    assert pathlib.Path(os.readlink(linked)) == build
    for name in TRANSLATION_CACHES:  # its own, never a link to the night's
        assert not (other / name).is_symlink()
    assert set(_translations(other)) == set(translated)  # the same IR, translated again here
    assert _translations(tonight) == translated  # the night's untouched
    (record,) = CompileLedger(tmp_path / "other" / "work" / "compile.jsonl").records()
    library = other / record.library
    assert build in library.resolve().parents  # loaded from the night's folder ...
    assert library.stat().st_mtime < start  # ... built before this precompile started


@pytest.mark.slow  # with the module's night: two precompile processes, about 10 s on 2 cores
def test_the_confirmation_on_the_nights_stack_finds_the_nights_builds(night, tmp_path, monkeypatch):
    from iconbench.check.confirm import Stacks
    from iconbench.check.phases import Timeline
    from iconbench.check.run import Precompile, case_selection

    cache, _ = night
    for name in set(os.environ) - set(RUNNER):
        monkeypatch.delenv(name)
    for name, value in {**RUNNER, "ICONBENCH_CACHE_DIR": str(cache)}.items():
        monkeypatch.setenv(name, value)
    commits = {"gt4py": "a" * 40, "dace": "b" * 40, "icon4py": "c" * 40}
    work = tmp_path / "confirm"
    base, head = Stacks(commits, dict(commits), tmp_path).sides(work, stack_key())
    grid = resolve_grid("tiny")
    timeline = Timeline(work)
    selection = case_selection([CASE], ["gtfn_cpu"], grid.argv)
    precompile = Precompile(base, head, selection, 1, timeline, [(CASE, "gtfn_cpu")], grid)
    precompile()
    precompile.record()
    timeline.write()

    builds = json.loads((work / "check.json").read_text())["builds"]
    side = {"pairs": 1, "compiled": 0, "found": 1, "linked": 0, "in_measuring": 0}
    assert builds == {"base": side, "head": side, "compiled": 0}
    for name in ("base", "head"):  # found in the night's compile index: no pool started
        (record,) = CompileLedger(work / name / "work" / "compile.jsonl").records()
        assert record.from_index

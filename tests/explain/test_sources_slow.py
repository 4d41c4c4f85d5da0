"""Each side's generated code, from its own environment, for real (``-m slow``, ~5 min).

Base is the installed icon4py; head is a tree with a copy of its dycore package in which
``compute_tangential_wind`` halves its result (a planted change of the program). Each side
builds the program in its own process with its sources first on the path, as the
pull-request check runs them: on gtfn_cpu the code is read from the build folder its
precompile recorded in its ledger; on dace_cpu (whose production builds keep no source) it
is generated again from the program's SDFG by ``iconbench suite sources``. The diff shows
the planted multiplication and nothing else of the program changed.
"""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import sys

import pytest

from iconbench import grids
from iconbench.explain import codediff, sources
from iconbench.stacks import trees
from iconbench.stacks.sides import Side

CASE = "compute_tangential_wind[default]"
STENCIL = "stencils/compute_tangential_wind.py"
ORIGINAL = "vt_wp = neighbor_sum(rbf_vec_coeff_e * vn(E2C2E), axis=dims.E2C2EDim)"


@pytest.mark.slow
def test_each_side_writes_the_code_it_built(tmp_path, monkeypatch):
    from icon4py.model.atmosphere import dycore

    monkeypatch.setenv("ICONBENCH_CACHE_DIR", str(tmp_path / "cache"))
    package = tmp_path / "head-tree" / "model/atmosphere/dycore/src/icon4py/model/atmosphere/dycore"
    shutil.copytree(
        pathlib.Path(dycore.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__")
    )
    stencil = package / STENCIL
    assert stencil.read_text().count(ORIGINAL) == 1
    stencil.write_text(stencil.read_text().replace(ORIGINAL, ORIGINAL + " * 0.5"))
    stack = "stack-explain-slow"
    base = Side("base", "main", "a" * 40, (), tmp_path / "base", stack)
    roots = tuple(trees.source_roots(tmp_path / "head-tree"))
    head = Side("head", "pr", "b" * 40, roots, tmp_path / "head", stack)
    found = {}
    for side in (base, head):
        # the side's runner options name its code: without them the compile index takes the
        # stack alone as the key, and head found base's build of the unchanged stencil
        precompile = [sys.executable, "-m", "iconbench", "suite", "precompile",
                      "--out", str(side.out), *side.runner_options(), "--backends", "gtfn_cpu",
                      "--grid", "tiny", "--programs", r"^compute_tangential_wind\[",
                      "--jobs", "1"]  # fmt: skip
        done = subprocess.run(precompile, env=side.environment(), capture_output=True,
                              text=True, timeout=900, check=False)  # fmt: skip
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        gtfn = sources.from_build_folder(side, CASE, "gtfn_cpu")
        assert gtfn is not None
        assert gtfn.origin == "build folder"
        dace = sources.generated_again(
            side, CASE, "dace_cpu", grids.resolve("tiny"), work=tmp_path / "work", timeout_s=900
        )
        assert dace.origin == "generated again from the SDFG"
        found[side.name] = (gtfn, dace)
    for index, backend in enumerate(("gtfn_cpu", "dace_cpu")):
        diff = codediff.diff(found["base"][index], found["head"][index])
        assert diff.files, backend
        assert diff.base != diff.head  # the codegen fingerprints tell the builds apart
        added = [ln for ln in diff.excerpt.splitlines() if ln.startswith("+") and "0.5" in ln]
        removed = [ln for ln in diff.excerpt.splitlines() if ln.startswith("-") and "0.5" in ln]
        assert added, (backend, diff.excerpt)
        assert not removed, (backend, diff.excerpt)

"""The code diff of two real builds in which the generators renumbered their names.

Head's ``compute_tangential_wind`` computes its first level with a new field operator (its
result halved) and the other levels with the old one: a new functor before the old one, so
gtfn numbers the old functor ``_fun_1`` (was ``_fun_0``) and its fold ``_step_1``, and DaCe
its reduction, temporaries and tasklets anew, as the reviewer of icon4py #1405 saw on the
H100. Each side builds on gtfn_cpu and writes DaCe's code again on dace_cpu, in its own
process, as the check runs them (gtfn_cpu and dace_cpu name things as their GPU builds do).
The raw diff shows renamed lines; the normalised one starts at the real change.

Builds go to the runner's shared build cache under a stack of their own and head's tree to a
fixed place under the iconbench cache: a second run finds every build (about 20 s on a
2-core workstation; the first run compiles, about 90 s).
"""

from __future__ import annotations

import difflib
import pathlib
import shutil
import subprocess
import sys

import pytest

from iconbench import grids
from iconbench.buildcache import cache_root
from iconbench.explain import codediff, sources
from iconbench.stacks import trees
from iconbench.stacks.sides import Side

CASE = "compute_tangential_wind[default]"
STACK = "stack-explain-renumbered"
STENCIL = "stencils/compute_tangential_wind.py"
CALL = """    _compute_tangential_wind(
        vn=vn,
        rbf_vec_coeff_e=rbf_vec_coeff_e,
        out=vt,
        domain={
            dims.EdgeDim: (horizontal_start, horizontal_end),
            dims.KDim: (vertical_start, vertical_end),
        },
    )"""
#: the first level by a new field operator, the others by the old one
TWO_CALLS = (
    CALL.replace("_compute_tangential_wind(", "_compute_tangential_wind_top(").replace(
        "(vertical_start, vertical_end)", "(vertical_start, vertical_start + 1)"
    )
    + "\n"
    + CALL.replace("(vertical_start, vertical_end)", "(vertical_start + 1, vertical_end)")
)
TOP = """

@gtx.field_operator
def _compute_tangential_wind_top(
    vn: fa.EdgeKField[wpfloat],
    rbf_vec_coeff_e: gtx.Field[gtx.Dims[dims.EdgeDim, dims.E2C2EDim], wpfloat],
) -> fa.EdgeKField[vpfloat]:
    vt_wp = neighbor_sum(rbf_vec_coeff_e * vn(E2C2E), axis=dims.E2C2EDim) * 0.5
    return astype(vt_wp, vpfloat)


@gtx.program"""


def _head_tree() -> pathlib.Path:
    """icon4py's dycore package with the planted change, at a fixed place (found again)."""
    from icon4py.model.atmosphere import dycore

    installed = pathlib.Path(dycore.__file__).parent
    original = (installed / STENCIL).read_text()
    assert original.count(CALL) == 1, "icon4py's compute_tangential_wind changed: update CALL"
    changed = original.replace(CALL, TWO_CALLS).replace("\n\n@gtx.program", TOP, 1)
    root = cache_root() / "test-trees" / "explain-renumbered"
    package = root / "model/atmosphere/dycore/src/icon4py/model/atmosphere/dycore"
    if not package.is_dir() or (package / STENCIL).read_text() != changed:
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(installed, package, ignore=shutil.ignore_patterns("__pycache__"))
        (package / STENCIL).write_text(changed)
    return root


def _built(side: Side, work: pathlib.Path) -> tuple[sources.Sources, sources.Sources]:
    """gtfn_cpu's code from the side's build folder, DaCe's written again (dace_cpu)."""
    precompile = [
        sys.executable,
        "-m",
        "iconbench",
        "suite",
        "precompile",
        "--out",
        str(side.out),
        *side.runner_options(),
        "--backends",
        "gtfn_cpu",
        "--grid",
        "tiny",
        "--programs",
        r"^compute_tangential_wind\[",
        "--jobs",
        "1",
    ]
    done = subprocess.run(precompile, env=side.environment(), capture_output=True, text=True,
                          timeout=900, check=False)  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    gtfn = sources.from_build_folder(side, CASE, "gtfn_cpu")
    assert gtfn is not None
    dace = sources.generated_again(
        side, CASE, "dace_cpu", grids.resolve("tiny"), work=work, timeout_s=900
    )
    return gtfn, dace


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("renumbered")
    roots = tuple(trees.source_roots(_head_tree()))
    base = Side("base", "main", "a" * 40, (), tmp / "base", STACK)
    head = Side("head", "pr", "b" * 40, roots, tmp / "head", STACK, trees.code_identity(roots))
    return {side.name: _built(side, tmp / "work") for side in (base, head)}


def _changed(lines: list[str]) -> list[str]:
    return [ln for ln in lines if ln[:1] in "+-" and not ln.startswith(("+++", "---"))]


@pytest.mark.parametrize(("backend", "index"), [("gtfn_cpu", 0), ("dace_cpu", 1)])
def test_a_renumbering_is_no_change_and_the_diff_starts_at_the_real_one(builds, backend, index):
    base, head = builds["base"][index], builds["head"][index]
    assert base.fingerprint != head.fingerprint
    # the raw diff has lines that differ only in the generators' numbers
    raw = []
    for path in sorted(base.files.keys() & head.files.keys()):
        before, after = base.files[path].splitlines(), head.files[path].splitlines()
        raw += _changed(list(difflib.unified_diff(before, after, lineterm="")))
    removed = {codediff.normalise(ln[1:]) for ln in raw if ln.startswith("-")}
    renamed = [ln for ln in raw if ln.startswith("+") and codediff.normalise(ln[1:]) in removed]
    assert renamed, f"{backend}: the planted change renumbered nothing; plant another one"
    diff = codediff.diff(base, head)
    assert diff.renamed_lines >= 1
    whole = codediff.full(base, head).splitlines()
    changed = _changed(whole)
    # no line is shown as changed that is the same on the other side once renamed
    olds = {codediff.normalise(ln[1:]) for ln in changed if ln.startswith("-")}
    assert not [ln for ln in changed if ln.startswith("+") and codediff.normalise(ln[1:]) in olds]
    assert any("0.5" in ln for ln in changed if ln.startswith("+"))
    assert not any("0.5" in ln for ln in changed if ln.startswith("-"))
    first = changed[0]
    if backend == "gtfn_cpu":  # the new functor: its fold of the halved sum
        assert first.startswith("+"), first
        assert "* 0.5" in first, first
    else:  # the first map now covers the first level only
        assert first.startswith("-"), first
        assert "i_K_gtx_vertical < vertical_end" in first, first
        assert "i_K_gtx_vertical < (vertical_start + 1)" in changed[1], changed[1]
    # the excerpt is the whole diff's beginning, cut
    excerpt = diff.excerpt.splitlines()
    assert _changed(excerpt)[0][:40] == first[:40]
    assert diff.changed_lines == len(changed)

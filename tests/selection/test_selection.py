"""PR cost control: changed icon4py files -> programs; gt4py/dace -> representative subset."""

import pathlib
import subprocess

import pytest
from tests.archived_results import restored

from iconbench.errors import IconbenchError
from iconbench.programs.catalog import PACKAGES
from iconbench.programs.imports import ProgramIndex
from iconbench.records import session
from iconbench.records.compilation import CompileLedger
from iconbench.selection import cost, plan, scenarios, subset
from iconbench.timing import compilation

REPO = pathlib.Path(__file__).resolve().parents[2]
WORK = restored("results/h100") / "work"  # the ledgers, from git history
STENCILS = "model/atmosphere/dycore/src/icon4py/model/atmosphere/dycore/stencils"


@pytest.fixture(scope="module")
def index():
    return ProgramIndex.installed()


@pytest.fixture(scope="module")
def catalog(index):
    return index.catalog_programs(PACKAGES)


@pytest.fixture(scope="module")
def shares():
    return subset.measured_shares(session.SessionLedger(WORK / "session.jsonl").results(),
                                  "gtfn_gpu")  # fmt: skip


def _select(component, files, index, catalog, shares, **kw):
    return plan.select(component, files, index=index, catalog=catalog, shares=shares, **kw)


def test_the_source_index_finds_the_catalogs_programs(catalog):
    # the programs the H100 runner compiled (from the catalog, which imports icon4py)
    ledger = CompileLedger(WORK / "compile.jsonl").records()
    assert set(catalog) == {r.case.split("[")[0] for r in ledger}
    assert len(catalog) == 112


def test_a_stencil_file_selects_its_program_and_the_programs_importing_it(index, catalog, shares):
    changed = f"{STENCILS}/compute_tangential_wind.py"
    chosen = _select("icon4py", [changed, "model/atmosphere/dycore/tests/x.py"], index,
                     catalog, shares)  # fmt: skip
    assert chosen.scope == "programs"
    assert not chosen.one_variant
    assert "compute_tangential_wind" in chosen.programs
    module = "icon4py.model.atmosphere.dycore.stencils.compute_tangential_wind"
    users = index.dependents([module])
    # every chosen program's module imports the changed one (maybe through others), and the
    # module of one of them names it in its own source
    assert all(catalog[program] in users for program in chosen.programs)
    assert any(module in index.imports[catalog[p]] for p in chosen.programs if catalog[p] != module)
    assert not any(catalog[p] in users for p in set(catalog) - set(chosen.programs))
    cases = ["compute_tangential_wind[default]", "compute_tangential_winds[default]"]
    assert chosen.cases(cases) == ["compute_tangential_wind[default]"]


def test_gt4py_dace_and_dependency_changes_run_the_representative_subset(index, catalog, shares):
    for component, files in (("gt4py", ["src/gt4py/next/x.py"]), ("dace", []),
                             ("icon4py", ["model/common/pyproject.toml"])):  # fmt: skip
        chosen = _select(component, files, index, catalog, shares)
        assert chosen.scope == "representative"
        assert chosen.one_variant
        covered = sum(shares.by_program[p] for p in chosen.programs)
        assert covered >= 0.8 * sum(shares.by_program.values())
        # the smallest chosen share is at least the largest left out
        left = [s for p, s in shares.by_program.items() if p not in chosen.programs]
        assert min(shares.by_program[p] for p in chosen.programs) >= max(left)
    assert _select("gt4py", [], index, catalog, shares, full=True).programs_regex == ""
    docs = _select("icon4py", ["README.md", "docs/x.md", "model/common/tests/t.py"], index,
                   catalog, shares)  # fmt: skip
    assert docs.scope == "none"
    assert docs.cases(["a[default]"]) == []
    with pytest.raises(IconbenchError, match="unknown component 'gt4pi'"):
        _select("gt4pi", [], index, catalog, shares)


def test_changed_files_come_from_the_merge_base(tmp_path):
    def git(*args):
        subprocess.run(["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t",
                        *args], check=True, capture_output=True)  # fmt: skip

    git("init", "-q", "-b", "main")
    (tmp_path / "a.py").write_text("1")
    git("add", "-A"), git("commit", "-qm", "a")
    git("checkout", "-qb", "pr")
    (tmp_path / "b.py").write_text("2")
    git("add", "-A"), git("commit", "-qm", "b")
    assert plan.changed_files(tmp_path, "main", "pr") == ["b.py"]
    with pytest.raises(IconbenchError, match="unknown ref 'nosuchbranch'") as missing:
        plan.changed_files(tmp_path, "nosuchbranch", "pr")
    assert "\n" not in str(missing.value), "git's usage text in the error"


def test_cost_table_follows_the_ledgers(index, catalog, shares):
    ledger = CompileLedger(WORK / "compile.jsonl")
    records = ledger.records()
    all_cases = sorted({r.case for r in records})
    failing = ledger.failed(records[0].stack)
    rows = scenarios.scenarios(model=cost.CostModel.from_ledgers(str(WORK)), index=index,
                               catalog=catalog, shares=shares, all_cases=all_cases,
                               backends=["gtfn_gpu", "dace_gpu"], failing=failing,
                               processes=14)  # fmt: skip
    by_change = {r.change.split(" (")[0]: r for r in rows}
    nightly = by_change["nightly, per main"]
    expect = ledger.expected_seconds()
    pairs = [(c, b) for c in all_cases for b in ("gtfn_gpu", "dace_gpu")]
    assert nightly.cases == 192
    assert nightly.estimate.compile_s == compilation.makespan([expect(*p) for p in pairs], 14)
    assert nightly.estimate.measured == len(pairs) - len(failing)
    full = by_change["'/benchmark full' on a gt4py or dace PR"]
    assert full.estimate.measured == 2 * nightly.estimate.measured
    assert by_change["icon4py: tests, docs or CI files only"].estimate.total_s == 0
    subset_row = by_change["gt4py or dace"]
    assert 0 < subset_row.estimate.total_s < nightly.estimate.total_s / 5

import pathlib

from iconbench.grids import resolve
from iconbench.records import compilation
from iconbench.runner import precompile

TINY = resolve("tiny")

REFERENCE = "compute_tangential_wind[default]"


def test_precompile_in_a_process_pool_and_resume(tmp_path: pathlib.Path, gtfn_cpu_case):
    """A spawn worker compiles into the shared persistent cache; a rerun skips done work."""
    ledger = compilation.CompileLedger(tmp_path / "compile.jsonl")
    seen = []
    jobs = [(REFERENCE, "gtfn_cpu"), ("no_such_program[default]", "gtfn_cpu")]
    records = precompile.compile_pairs(
        jobs,
        grid=TINY,
        stack="default",
        ledger=ledger,
        processes=2,
        progress=lambda n, total, record: seen.append((n, total, record.case)),
    )
    by_case = {r.case: r for r in records}
    assert by_case[REFERENCE].error is None
    assert by_case[REFERENCE].seconds > 0
    assert by_case[REFERENCE].fingerprint  # the generated code is in the cache
    assert "unknown program" in by_case["no_such_program[default]"].error
    assert sorted(n for n, _, _ in seen) == [1, 2]
    again = precompile.compile_pairs(
        jobs[:1], grid=TINY, stack="default", ledger=ledger, processes=1
    )
    assert again == []


def test_precompile_skips_known_failures_unless_retried(tmp_path: pathlib.Path):
    """A compile that failed for this stack is not tried again on a resumed run by default."""
    ledger = compilation.CompileLedger(tmp_path / "compile.jsonl")
    job = ("no_such_program[default]", "gtfn_cpu")
    ledger.append(compilation.CompileRecord(*job, "tiny", "default", 0.0, error="boom"))
    kwargs = {"grid": TINY, "stack": "default", "ledger": ledger, "processes": 1}
    assert precompile.compile_pairs([job], skip_failed=True, **kwargs) == []
    again = precompile.compile_pairs([job], skip_failed=False, **kwargs)
    assert [r.case for r in again] == [job[0]]
    assert "unknown program" in again[0].error
    assert ledger.failed("default") == {job}


def test_precompile_starts_nothing_expected_to_end_after_its_budget(tmp_path: pathlib.Path):
    """A compile the ledger expects to take 170 s does not start with 60 s of budget left."""
    ledger = compilation.CompileLedger(tmp_path / "compile.jsonl")
    for variant, seconds in [("x=1", 170.0), ("x=2", 160.0)]:
        ledger.append(compilation.CompileRecord(f"solver[{variant}]", "gtfn_cpu", "tiny",
                                                "old-stack", seconds))  # fmt: skip
    jobs = [("solver[x=3]", "gtfn_cpu"), ("solver[x=4]", "gtfn_cpu")]
    records = precompile.compile_pairs(
        jobs, grid=TINY, stack="s", ledger=ledger, processes=2, budget_s=60.0
    )
    assert records == []
    assert ledger.pending(jobs, "s") == jobs

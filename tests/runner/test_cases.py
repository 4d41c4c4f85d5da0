"""Which pairs a run works on first: with an experiment, the variants ICON's timers map to."""

from __future__ import annotations

import pytest

from iconbench import suite
from iconbench.baselines import experiments, mapping, store
from iconbench.grids import resolve
from iconbench.programs.backends import backend
from iconbench.programs.catalog import split_case
from iconbench.runner import cases
from iconbench.runner.options import RunOptions

TINY = resolve("tiny")


@pytest.fixture
def catalog_on(monkeypatch):
    """The whole catalog, also when tests/timing switched it off for this session."""
    monkeypatch.delenv("ICONBENCH_CATALOG", raising=False)
    suite._has_catalog.cache_clear()
    suite.all_case_ids.cache_clear()
    yield
    monkeypatch.undo()
    suite._has_catalog.cache_clear()
    suite.all_case_ids.cache_clear()


def _experiment() -> experiments.Experiment:
    return experiments.from_file(experiments.root() / "mch_icon-ch1_medium.toml")


def test_timer_order_puts_mapped_variants_first_by_openacc_share(catalog_on) -> None:
    experiment = _experiment()
    chosen = experiment.case_ids(suite.case_ids("", None, one_variant=False))
    ordered = cases.timer_order(chosen, experiment)
    assert sorted(ordered) == sorted(chosen)
    timers = mapping.load()
    baseline = store.load(store.default_root(), experiment.baseline)

    def share(case: str) -> float:
        program, variant = split_case(case)
        from iconbench.baselines.gt4py_timings import parse_variant

        static = parse_variant(variant)
        return sum(
            baseline.timer(name).time_s
            for name, entry in timers.timers.items()
            if baseline.timer(name) and any(r.matches(program, static) for r in entry.programs)
        )

    shares = [share(case) for case in ordered]
    mapped = [s for s in shares if s > 0]
    # every mapped variant precedes every unmapped one, largest OpenACC time first
    assert len(mapped) >= 30
    assert shares[: len(mapped)] == sorted(mapped, reverse=True)
    assert all(s == 0 for s in shares[len(mapped) :])


def test_jobs_give_both_backends_the_same_case_before_the_next(tmp_path, catalog_on) -> None:
    options = RunOptions(
        out=tmp_path, backends=(backend("gtfn_gpu"), backend("dace_gpu")), grid=TINY,
        compile_grid=TINY, programs="", shard="", stack="s", processes=1, build_jobs=1,
        budget=None, samples=1, max_s=1.0, warmup_s=0.0, crosscheck=0, retry_failed=False,
        remeasure_cv_above=None, one_variant=False, compiled_only=False, machine="m",
        provenance=None, case="", ncu_calls=1, experiment=_experiment(),
    )  # fmt: skip
    pairs = cases.jobs(options)
    assert [b for _, b in pairs[:4]] == ["gtfn_gpu", "dace_gpu", "gtfn_gpu", "dace_gpu"]
    assert pairs[0][0] == pairs[1][0] != pairs[2][0]


def test_a_catalog_that_does_not_import_is_one_line_not_the_reference_program(
    catalog_on, monkeypatch
) -> None:
    import sys

    import iconbench.programs
    from iconbench.errors import IconbenchError

    monkeypatch.setitem(sys.modules, "iconbench.programs.inputs", None)  # import fails
    monkeypatch.delattr(iconbench.programs, "inputs", raising=False)  # also once imported
    with pytest.raises(IconbenchError, match=r"program catalog \(iconbench\.programs\) does not "
                       r"import: .*check that iconbench's sources are complete"):  # fmt: skip
        suite._has_catalog()  # what every path to a program asks first

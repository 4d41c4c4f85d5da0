"""Which (case, backend) pairs a step works on: the selection, then what the ledgers leave."""

from __future__ import annotations

from iconbench.runner.options import RunOptions

Pair = tuple[str, str]


def jobs(options: RunOptions) -> list[Pair]:
    """The selected pairs, every program's first variant before any other variant.

    A run its budget cuts short still covers every program.
    """
    from iconbench import suite
    from iconbench.timing.compilation import jobs_for
    from iconbench.timing.sharding import parse_shard

    shard = parse_shard(options.shard) if options.shard else None
    cases = suite.case_ids(options.programs or "", shard, one_variant=options.one_variant)
    if options.experiment is not None:  # the variants the experiment runs (its static arguments)
        cases = options.experiment.case_ids(cases)
    firsts = set(suite.first_variants(cases))
    return jobs_for(sorted(cases, key=lambda case: case not in firsts), options.backends)


def unmeasured(options: RunOptions) -> list[Pair]:
    """Selected compiled-backend pairs the session ledger has no (good enough) result for."""
    from iconbench.timing import session

    return session.SessionLedger(options.work / "session.jsonl").todo(
        [(case, backend) for case, backend in jobs(options) if backend != "embedded"],
        options.grid,
        retry_failed=True,
        max_cv=options.remeasure_cv_above,
    )

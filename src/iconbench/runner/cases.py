"""Which (case, backend) pairs a step works on: the selection, then what the ledgers leave."""

from __future__ import annotations

from iconbench.runner.options import RunOptions

#: (case, backend name): the ledgers' key, so a pair is looked up in them as it is
Pair = tuple[str, str]


def jobs(options: RunOptions) -> list[Pair]:
    """The selected pairs, every program's first variant before any other variant.

    A run its budget cuts short still covers every program, on every backend alike (cases
    outermost: both backends get the same cases before the next). With an experiment, the variants
    its OpenACC timers map to come first, largest share of the OpenACC time first: a short
    run still gives the speed-up table its rows.
    """
    from iconbench import suite
    from iconbench.timing.compilation import jobs_for
    from iconbench.timing.sharding import ledger_cost, parse_shard

    shard = parse_shard(options.shard) if options.shard else None
    cost = None
    if shard is not None and options.shard_ledgers is not None:  # balanced by time
        cost = ledger_cost(options.shard_ledgers, options.backend_names)
    cases = suite.case_ids(
        options.programs or "", shard, one_variant=options.one_variant, cost=cost
    )
    if options.experiment is not None:  # the variants the experiment runs (its static arguments)
        cases = options.experiment.case_ids(cases)
    firsts = set(suite.first_variants(cases))
    ordered = sorted(cases, key=lambda case: case not in firsts)
    if options.experiment is not None:
        ordered = timer_order(ordered, options.experiment)
    return [pair for case in ordered for pair in jobs_for([case], options.backend_names)]


def timer_order(cases: list[str], experiment) -> list[str]:
    """``cases`` with those the experiment's timers map to first, by share of OpenACC time.

    Stable otherwise: unmapped cases keep their order after the mapped ones.
    """
    from iconbench.baselines import mapping, store
    from iconbench.baselines.gt4py_timings import parse_variant
    from iconbench.programs.catalog import split_case

    timers = mapping.load()
    baseline = store.load(store.default_root(), experiment.baseline)
    calls = {}
    for case in cases:
        program, variant = split_case(case)
        calls[case] = (program, parse_variant(variant))
    share: dict[str, float] = {}
    for name, entry in timers.timers.items():
        timer = baseline.timer(name)
        if timer is None:
            continue
        for case, (program, static) in calls.items():
            if any(ref.matches(program, static) for ref in entry.programs):
                share[case] = share.get(case, 0.0) + timer.time_s
    return sorted(cases, key=lambda case: -share.get(case, 0.0))


def most_timed_variants(cases: list[str], experiment) -> list[str]:
    """One case per program of ``cases``: the variant the experiment's timers time most.

    What a one-variant selection measures on an experiment's grid, so that each program has
    a speed-up against the experiment's OpenACC timers; a program whose variants the
    experiment runs none of keeps its first. In the order of ``cases``.

    >>> from iconbench.baselines import experiments
    >>> most_timed_variants(["p[limited_area=False]", "p[limited_area=True]", "q[default]"],
    ...                     experiments.load("mch_icon-ch1_medium"))
    ['p[limited_area=True]', 'q[default]']
    """
    from iconbench.programs.catalog import split_case

    chosen: dict[str, str] = {}
    for case in timer_order(experiment.case_ids(cases), experiment) + cases:
        chosen.setdefault(split_case(case)[0], case)
    wanted = set(chosen.values())
    return [case for case in cases if case in wanted]


def unmeasured(options: RunOptions) -> list[Pair]:
    """Selected compiled-backend pairs the session ledger has no (good enough) result for."""
    from iconbench.records.session import SessionLedger
    from iconbench.timing import session

    compiled = {b.name for b in options.backends if not b.is_embedded}
    return session.to_measure(
        SessionLedger(options.work / "session.jsonl"),
        [(case, backend) for case, backend in jobs(options) if backend in compiled],
        options.grid.name,
        retry_failed=True,
        max_cv=options.remeasure_cv_above,
    )

"""A representative subset: the programs that carry most of the production time.

When a change may affect every program (gt4py, dace, or a module every program imports), a
pull request's check still cannot run all 192 cases on both GPU backends in review time. It
runs the programs that make up most of ICON's OpenACC ``integrate_nh`` time (a stored
baseline and the reviewed timer mapping), largest share first, until ``coverage`` of the
mapped time is reached. Without such a baseline the runner's own measurements stand in
(share of GT4Py device time), and the selection says so.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping

from iconbench.baselines.format import Baseline
from iconbench.baselines.mapping import TimerProgramMapping
from iconbench.timing.session import CaseResult


@dataclasses.dataclass(frozen=True)
class Shares:
    """Each program's share of a reference time, and where the shares come from."""

    by_program: Mapping[str, float]
    source: str


def openacc_shares(baseline: Baseline, mapping: TimerProgramMapping) -> Shares:
    """Programs' shares of the baseline's ``integrate_nh`` (a timer's share split evenly).

    A timer that encloses others present in the baseline (``nh_hdiff_run`` around the
    diffusion stencils) is left out, as the speed-up estimate does.
    """
    names = {t.name for t in baseline.timers}
    step = next(
        (baseline.timer(n).time_s for n in mapping.reference_timers if baseline.timer(n)), None
    )
    mapped = [
        (baseline.timer(name), entry)
        for name, entry in mapping.timers.items()
        if baseline.timer(name) and not (set(entry.encloses) & names)
    ]
    total = step or sum(timer.time_s for timer, _ in mapped) or 1.0
    shares: dict[str, float] = {}
    for timer, entry in mapped:
        for ref in entry.programs:
            share = timer.time_s / total / len(entry.programs)
            shares[ref.program] = shares.get(ref.program, 0.0) + share
    where = "integrate_nh" if step else "the baseline's mapped timers"
    return Shares(shares, f"share of OpenACC {where} time ({baseline.experiment.name})")


def measured_shares(results: Iterable[CaseResult], backend: str) -> Shares:
    """Programs' shares of the summed GT4Py time per call measured on ``backend``.

    >>> from iconbench.timing.measurement import Measurement
    >>> def case(name, seconds):
    ...     m = Measurement(host_s=[seconds] * 3, device_s=[seconds] * 3, device_source="cuda")
    ...     return CaseResult(name, "gtfn_gpu", "g", m, 0, 0.0, None, None, None, None, 0.0, 1.0)
    >>> shares = measured_shares([case("a[x]", 3.0), case("a[y]", 1.0), case("b", 4.0)],
    ...                          "gtfn_gpu")
    >>> dict(shares.by_program)
    {'a': 0.5, 'b': 0.5}
    """
    from iconbench.programs.catalog import split_case

    latest: dict[str, float] = {}
    for record in results:
        if record.backend == backend and record.timed_s:
            latest[record.case] = record.timed_s
    per_program: dict[str, float] = {}
    for case, seconds in latest.items():
        program = split_case(case)[0]
        per_program[program] = per_program.get(program, 0.0) + seconds
    total = sum(per_program.values()) or 1.0
    return Shares(
        {p: s / total for p, s in per_program.items()},
        f"share of GT4Py {backend} time per call measured by the runner (no OpenACC baseline "
        "with per-program timers given)",
    )


def representative(shares: Shares, *, coverage: float = 0.8, at_least: int = 3) -> list[str]:
    """Largest shares first until ``coverage`` of the shares' sum (at least ``at_least``).

    >>> representative(Shares({"a": 0.5, "b": 0.3, "c": 0.1, "d": 0.1}, ""), coverage=0.8,
    ...                at_least=1)
    ['a', 'b']
    """
    ranked = sorted(shares.by_program.items(), key=lambda item: (-item[1], item[0]))
    total = sum(s for _, s in ranked)
    chosen, covered = [], 0.0
    for program, share in ranked:
        if covered >= coverage * total and len(chosen) >= at_least:
            break
        chosen.append(program)
        covered += share
    return chosen

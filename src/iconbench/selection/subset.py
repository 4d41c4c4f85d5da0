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

from iconbench.baselines.format import Baseline, Timer
from iconbench.baselines.mapping import TimerMapping, TimerProgramMapping
from iconbench.records.session import CaseResult


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
    step = next(
        (baseline.timer(n).time_s for n in mapping.reference_timers if baseline.timer(n)), None
    )
    mapped = _counted_timers(baseline, mapping)
    total = step or sum(timer.time_s for timer, _ in mapped) or 1.0
    shares: dict[str, float] = {}
    for timer, entry in mapped:
        for ref in entry.programs:
            share = timer.time_s / total / len(entry.programs)
            shares[ref.program] = shares.get(ref.program, 0.0) + share
    where = "integrate_nh" if step else "the baseline's mapped timers"
    return Shares(shares, f"share of OpenACC {where} time ({baseline.experiment.name})")


def _counted_timers(
    baseline: Baseline, mapping: TimerProgramMapping
) -> list[tuple[Timer, TimerMapping]]:
    """The baseline's mapped timers that count, as the speed-up estimate counts them.

    A timer that encloses others present in the baseline (``nh_hdiff_run`` around the
    diffusion stencils) is left out.
    """
    names = {t.name for t in baseline.timers}
    return [
        (timer, entry)
        for name, entry in mapping.timers.items()
        if (timer := baseline.timer(name)) is not None and not (set(entry.encloses) & names)
    ]


def timer_partners(
    baseline: Baseline, mapping: TimerProgramMapping, programs: Iterable[str]
) -> dict[str, str]:
    """The programs ICON times together with any of ``programs``, by its timer's name.

    ICON fuses what icon4py splits: its timer ``compute_rho_theta_pgrad_and_update_vn`` times
    ``compute_hydrostatic_correction_term`` too, so a check of the one program has a speed-up
    against that timer only when it measures the other as well. Optional programs (small
    utilities the speed-up may go without) are left out.

    >>> from iconbench.baselines import mapping, store
    >>> baseline = store.load(store.default_root(), "mch-icon-ch1-medium/unknown_gh200_2026-07")
    >>> timer_partners(baseline, mapping.load(), ["compute_rho_theta_pgrad_and_update_vn"])
    {'compute_hydrostatic_correction_term': 'compute_rho_theta_pgrad_and_update_vn'}
    >>> timer_partners(baseline, mapping.load(), ["apply_diffusion_to_vn"])  # in nh_hdiff_run too
    {}
    """
    chosen = set(programs)
    found: dict[str, str] = {}
    for timer, entry in _counted_timers(baseline, mapping):
        named = {ref.program for ref in entry.programs}
        if named & chosen:
            for ref in entry.programs:
                if ref.program not in chosen and not ref.optional:
                    found.setdefault(ref.program, timer.name)
    return dict(sorted(found.items()))


def measured_shares(results: Iterable[CaseResult], backend: str) -> Shares:
    """Programs' shares of the summed GT4Py time per call measured on ``backend``.

    >>> from iconbench.records.session import Measurement
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

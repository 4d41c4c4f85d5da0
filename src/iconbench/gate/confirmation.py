"""A comparison of two separate runs, its flagged verdicts held to an interleaved A/B.

Two runs hours apart (tonight's nightly and the last one, two stored result sets) differ by
more than their code: three runs of one code on one H100 host, compared pairwise, gave one
``regression`` (9 regressions and 8 improvements, all host overhead) and two ``not
comparable``. So a regression or improvement between them is only a suspect.
:mod:`iconbench.check.confirm` measures each suspect again, both stacks in one job in
alternating fresh processes, and this module writes the answer into the summary:

- a benchmark whose A/B has the same verdict (a change beyond its threshold at the gate's
  false discovery rate, in the same direction) keeps it, **confirmed**;
- any other is **not confirmed** (run-to-run noise): its verdict becomes the A/B's where the
  A/B found it ``unchanged``, else ``inconclusive``, and nothing reports, bisects or marks it.

Each flagged benchmark carries its :class:`~iconbench.records.summary.Confirmation` (the A/B's
ratio, interval, processes and verdict), the summary the A/B's
:class:`~iconbench.records.summary.ConfirmationRun`; counts, run verdict and exit code follow the
verdicts as the gate's own (:func:`iconbench.gate.verdict.assemble`) do. The comparison's
numbers (ratio, interval, q) stay as they were: what the two runs showed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from iconbench.gate.verdict import counted, fails_run
from iconbench.records.summary import (
    CONFIRMED,
    NOT_COMPARABLE,
    NOT_CONFIRMED,
    BenchmarkResult,
    Confirmation,
    ConfirmationRun,
    Summary,
)

#: The verdicts a report names, a bisection starts from and the site marks.
FLAGGED = ("regression", "improvement")


def flagged(summary: Summary) -> tuple[BenchmarkResult, ...]:
    """The gated regressions and improvements not measured again yet, in the summary's order.

    >>> [b.id.split("|")[0] for b in flagged(Summary.example())]
    ['compute_theta_rho_face_values[default]']
    """
    return tuple(
        b for b in summary.benchmarks if b.gated and b.verdict in FLAGGED and b.confirmation is None
    )


def judge(bench: BenchmarkResult, ab: BenchmarkResult | None, processes: str) -> Confirmation:
    """What the A/B ``ab`` says of the flagged ``bench`` (``None``: the A/B lacks it).

    >>> s = Summary.example().benchmarks[0]  # a regression
    >>> judge(s, dataclasses.replace(s, ratio=1.09, ratio_ci=(1.07, 1.11)), "4+4").describe()
    'confirmed: 1.090x [1.070, 1.110], 4+4 processes'
    >>> judge(s, dataclasses.replace(s, ratio=1.0, ratio_ci=(0.98, 1.02), verdict="unchanged"),
    ...       "4+4").describe()
    'not confirmed: 1.000x [0.980, 1.020], 4+4 processes'
    >>> judge(s, None, "0+0").describe()
    "not confirmed: no interval (not in the A/B's gate summary)"
    """
    if ab is None:
        return Confirmation(bench.verdict, NOT_CONFIRMED, None, None, processes, "missing",
                            ("not in the A/B's gate summary",))  # fmt: skip
    notes = (*ab.notes, *([ab.error] if ab.error else []))
    return Confirmation(
        flagged=bench.verdict,
        verdict=CONFIRMED if ab.verdict == bench.verdict else NOT_CONFIRMED,
        ratio=ab.ratio,
        ratio_ci=ab.ratio_ci,
        processes=processes,
        gate_verdict=ab.verdict,
        notes=notes,
    )


def held(bench: BenchmarkResult, confirmation: Confirmation) -> BenchmarkResult:
    """``bench`` with its confirmation: its verdict kept if confirmed, else the A/B's or open.

    >>> s = Summary.example().benchmarks[0]
    >>> c = Confirmation("regression", NOT_CONFIRMED, 0.99, (0.97, 1.01), "4+4", "unchanged")
    >>> held(s, c).verdict, held(s, dataclasses.replace(c, gate_verdict="improvement")).verdict
    ('unchanged', 'inconclusive')
    """
    verdict = bench.verdict
    if not confirmation.confirmed:
        verdict = "unchanged" if confirmation.gate_verdict == "unchanged" else "inconclusive"
    return dataclasses.replace(bench, verdict=verdict, confirmation=confirmation)


def apply(
    summary: Summary, ab: Summary, processes: Mapping[str, str], run: ConfirmationRun
) -> Summary:
    """``summary`` with every flagged benchmark held to the A/B ``ab`` (the module doc).

    ``processes``: per benchmark id, ``"N+M"``, the A/B's processes of base and head.
    """
    measured = {b.id: b for b in ab.benchmarks}
    suspects = {b.id for b in flagged(summary)}
    results = [
        held(b, judge(b, measured.get(b.id), processes.get(b.id, "0+0"))) if b.id in suspects else b
        for b in summary.benchmarks
    ]
    return recount(summary, results, confirmation_run=run)


def recount(summary: Summary, results: Sequence[BenchmarkResult], **changes) -> Summary:
    """``summary`` with ``results``: counts, run verdict and exit code as the gate makes them.

    A run that failed (``error``) or was not comparable stays so: no A/B of some benchmarks
    makes the others comparable.

    >>> s = Summary.example()
    >>> c = Confirmation("regression", NOT_CONFIRMED, 1.0, (0.98, 1.02), "4+4", "unchanged")
    >>> again = recount(s, [held(s.benchmarks[0], c)])
    >>> again.verdict, again.exit_code, again.counts["regression"], again.counts["unchanged"]
    ('pass', 0, 0, 1)
    """
    counts = counted(results)
    verdict, exit_code = summary.verdict, summary.exit_code
    if summary.verdict not in ("error", NOT_COMPARABLE):
        failing = any(fails_run(r) for r in results)
        verdict, exit_code = ("regression", 1) if failing else ("pass", 0)
    return dataclasses.replace(summary, benchmarks=tuple(results), counts=counts,
                               verdict=verdict, exit_code=exit_code, **changes)  # fmt: skip


def reported(summary: Summary) -> tuple[BenchmarkResult, ...]:
    """The changes a report names: gated regressions and improvements (confirmed, where held).

    >>> [b.verdict for b in reported(Summary.example())]
    ['regression']
    """
    return tuple(b for b in summary.benchmarks if b.gated and b.verdict in FLAGGED)


def noise(summary: Summary) -> tuple[BenchmarkResult, ...]:
    """The flagged benchmarks the A/B did not confirm: listed once, never reported."""
    return tuple(b for b in summary.benchmarks if b.not_confirmed)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _name(bench: BenchmarkResult) -> str:
    return f"{bench.program}[{bench.variant}] {bench.backend} {bench.metric}"


def _bisected(summary: Summary, bench: BenchmarkResult) -> list[str]:
    """Per component that moved between the runs: its range, and the first bad commit found."""
    run = summary.confirmation_run
    if run is None:
        return []
    parts = []
    for component, good in run.base.items():
        text = f"{component} {good[:10]}..{run.head.get(component, '')[:10]}"
        for found in summary.bisect:
            if found.id == bench.id and found.component == component:
                over = _plural(found.commits or 0, "commit")
                steps = f", {_plural(len(found.steps), 'A/B')}" if found.steps else ""
                text += f": first bad {found.first_bad[:10]} {found.subject!r} ({over}{steps})"
        parts.append(text)
    return parts


def report(summary: Summary) -> str:
    """What a comparison held to its A/B reports, as markdown lines (a log, a job summary).

    Each reported change with its ratio between the runs, its A/B and, per component that
    moved, the range and the first bad commit a bisection found; then the flagged benchmarks
    the A/B did not confirm, once.

    >>> s = Summary.example()
    >>> c = Confirmation("regression", CONFIRMED, 1.071, (1.05, 1.09), "4+4", "regression")
    >>> print(report(dataclasses.replace(s, benchmarks=(held(s.benchmarks[0], c),))))
    1 change reported, 0 not confirmed (run-to-run noise)
    - regression compute_theta_rho_face_values[default] gtfn_gpu device_time: x1.065 between \
the runs; A/B confirmed: 1.071x [1.050, 1.090], 4+4 processes
    """
    changes, dismissed = reported(summary), noise(summary)
    lines = [f"{len(changes)} change{'' if len(changes) == 1 else 's'} reported, "
             f"{len(dismissed)} not confirmed (run-to-run noise)"]  # fmt: skip
    for bench in changes:
        between = "-" if bench.ratio is None else f"x{bench.ratio:.3f}"
        ab = bench.confirmation.describe() if bench.confirmation else "not measured again"
        parts = [f"{between} between the runs; A/B {ab}", *_bisected(summary, bench)]
        lines.append(f"- {bench.verdict_words} {_name(bench)}: " + "; ".join(parts))
    if dismissed:
        lines.append("- not confirmed (run-to-run noise): " + ", ".join(
            f"{_name(b)} ({b.confirmation.flagged} x{b.ratio or 0:.3f} between the runs; "  # type: ignore[union-attr]
            f"A/B {b.confirmation.describe()})"  # type: ignore[union-attr]
            for b in dismissed
        ))  # fmt: skip
    return "\n".join(lines)

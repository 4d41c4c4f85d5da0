"""Confirm before report: a comparison of two runs, its flagged benchmarks measured again.

``iconbench compare`` of two separate runs (tonight's nightly against the last one in the
history, two stored result sets) judges numbers measured hours apart, each run once: a
neighbour's load or another clock between them reads as a change of code. Before such a
change is reported, bisected or marked, ``iconbench confirm`` measures every flagged benchmark
(a gated regression or improvement, :func:`iconbench.gate.confirmation.flagged`) again: both
runs' stacks in one job, through the check's road (:func:`iconbench.check.run.measure_again`:
both precompiled, then alternating fresh processes ABBA BAAB until the gate has decided, the
process as the unit), exactly those cases and backends on the summary's grid.

The two stacks are the runs' ``stack.json`` (the commits of gt4py, dace and icon4py,
:mod:`iconbench.stacks.commits`). Each side puts the tree of every component whose commit
differs between them first on the path (exported once from its checkout, :func:`Stacks.sides`);
the components they share come from the running environment. The base side is the earlier run.

The summary comes back with each flagged benchmark held to its A/B
(:func:`iconbench.gate.confirmation.apply`), written as a new file. Nothing flagged: nothing is
measured. ``work`` keeps the A/B: ``base/``, ``head/`` (each side's results), ``rounds/``,
``gate-summary.json`` (the A/B's own verdicts), ``check.json`` and ``check.md`` (phase times).

Both sides are measured on one GPU: a confirmation asks whether the code changed. Two runs of
one stack on different GPUs of a host ask the other question, whether a GPU measures a case
as another does (the devices road hands a case to whichever GPU's worker takes it). With
``gpus`` (each case's GPU in either run, :func:`gpus_of`), each side is measured on the GPU
its run measured the case on, the rounds alternating between the two: one A/B per pair of
GPUs, one after another, each in ``work/gpu<base>-gpu<head>/``.
"""

from __future__ import annotations

import dataclasses
import datetime
import pathlib
from collections.abc import Mapping
from typing import TYPE_CHECKING

from iconbench.check import rounds
from iconbench.errors import IconbenchError
from iconbench.gate import confirmation
from iconbench.records.summary import ConfirmationRun, Summary
from iconbench.runner.devices import Job
from iconbench.runner.progress import log
from iconbench.stacks import sides
from iconbench.stacks.spec import COMPONENTS

if TYPE_CHECKING:
    from iconbench.check.run import Remeasured


@dataclasses.dataclass(frozen=True)
class Stacks:
    """The two runs' stacks (component -> commit) and the checkouts holding their commits."""

    base: dict[str, str]
    head: dict[str, str]
    checkouts: pathlib.Path

    @property
    def changed(self) -> tuple[str, ...]:
        """The components whose commit differs between the runs, in the stack's order.

        >>> Stacks({"gt4py": "a", "dace": "b", "icon4py": "c"},
        ...        {"gt4py": "a", "dace": "b", "icon4py": "d"}, pathlib.Path(".")).changed
        ('icon4py',)
        """
        return tuple(c for c in COMPONENTS if self.base.get(c) != self.head.get(c))

    def sides(self, out: pathlib.Path, stack: str) -> tuple[sides.Side, sides.Side]:
        """Base and head: each with the trees of :attr:`changed` at its commits first on the path.

        A side records its run's icon4py commit (the commit the history files the run under).
        """
        repos = {c: self.checkouts / c for c in self.changed}
        for component, repo in repos.items():
            if not repo.is_dir():
                raise IconbenchError(
                    f"--checkouts {self.checkouts}: no {component} checkout there; "
                    "'ci/nightly stack CHECKOUTS ENV' makes one per component"
                )
        return tuple(  # type: ignore[return-value]
            sides.of_commits(name, name, {c: commits[c] for c in self.changed}, repos,
                             out=out / name, stack=stack, commit=commits.get("icon4py", ""))
            for name, commits in (("base", self.base), ("head", self.head))
        )  # fmt: skip


@dataclasses.dataclass(frozen=True)
class Request:
    """One confirmation, resolved at the command line."""

    summary: Summary
    stacks: Stacks
    work: pathlib.Path
    plan: rounds.Plan
    compile_jobs: int = 1
    #: per (case, backend), the GPU of the base run and of the head run that measured it
    #: (:func:`gpus_of`); ``None``: both sides on the one GPU a process finds
    gpus: Mapping[Job, tuple[str, str]] | None = None


def gpus_of(base_run: pathlib.Path, head_run: pathlib.Path) -> dict[Job, tuple[str, str]]:
    """Each case's GPU in two runs, from their session ledgers (``RUN/work/session.jsonl``).

    A case a ledger records on no one GPU (a run on the one device a process finds) gets
    ``""``: measured on that device again.
    """
    from iconbench.records.session import SessionLedger

    found = []
    for run in (base_run, head_run):
        ledger = run / "work" / "session.jsonl"
        if not ledger.is_file():
            raise IconbenchError(
                f"{run}: no work/session.jsonl; give the directories of the two runs that "
                "were compared (a suite's --out, a nightly's merged results)"
            )
        found.append({(r.case, r.backend): r.device or "" for r in SessionLedger(ledger).results()})
    base, head = found
    return {job: (gpu, head.get(job, "")) for job, gpu in base.items()}


def by_gpus(
    wanted: list[Job], gpus: Mapping[Job, tuple[str, str]] | None
) -> dict[tuple[str, str], list[Job]]:
    """``wanted`` grouped by the pair of GPUs its sides are measured on, in order.

    >>> on = {("a", "g"): ("0", "2"), ("c", "g"): ("0", "2")}
    >>> by_gpus([("a", "g"), ("b", "g"), ("c", "g")], on)
    {('0', '2'): [('a', 'g'), ('c', 'g')], ('', ''): [('b', 'g')]}
    >>> by_gpus([("a", "g")], None)
    {('', ''): [('a', 'g')]}
    """
    groups: dict[tuple[str, str], list[Job]] = {}
    for job in wanted:
        groups.setdefault((gpus or {}).get(job, ("", "")), []).append(job)
    return groups


def jobs(summary: Summary) -> list[tuple[str, str]]:
    """The (case, backend) pairs of the flagged benchmarks, each once, in the summary's order.

    >>> jobs(Summary.example())
    [('compute_theta_rho_face_values[default]', 'gtfn_gpu')]
    """
    return list(dict.fromkeys(b.job for b in confirmation.flagged(summary)))


def confirm(request: Request) -> Summary:
    """The summary with every flagged benchmark measured again and held to its A/B."""
    from iconbench.stacks.identity import stack_key

    summary = request.summary
    wanted = jobs(summary)
    if not wanted:
        return summary
    stacks = request.stacks
    changed = ", ".join(f"{c} {stacks.base[c][:10]}..{stacks.head[c][:10]}" for c in stacks.changed)
    groups = by_gpus(wanted, request.gpus)
    where = ""
    if request.gpus is not None:
        on = (f"{len(group)} on {_pair(gpus)}" for gpus, group in groups.items())
        where = f"; each side on its run's GPU: {', '.join(on)}"
    flagged = len(confirmation.flagged(summary))
    log(f"confirm: {flagged} flagged benchmarks ({len(wanted)} cases) measured again, "
        f"{changed or 'the same stack on both sides'}{where}, in {request.work}")  # fmt: skip
    answers = []
    stack = stack_key()
    for (base_gpu, head_gpu), group in groups.items():
        work = request.work
        if request.gpus is not None:
            work = request.work / f"gpu{base_gpu or '-'}-gpu{head_gpu or '-'}"
        base, head = stacks.sides(work, stack)
        base, head = (dataclasses.replace(base, device=base_gpu),
                      dataclasses.replace(head, device=head_gpu))  # fmt: skip
        answers.append(_measure(request, base, head, group, work))
    again = answers[0]
    ab = dataclasses.replace(again.summary, benchmarks=tuple(
        b for answer in answers for b in answer.summary.benchmarks))  # fmt: skip
    run = ConfirmationRun(
        created=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        directory=str(request.work),
        base={c: stacks.base[c] for c in stacks.changed},
        head={c: stacks.head[c] for c in stacks.changed},
        rounds=sum(answer.rounds for answer in answers),
        stopped="; ".join(dict.fromkeys(answer.stopped for answer in answers)),
    )
    processes = {key: n for answer in answers for key, n in answer.processes.items()}
    confirmed = confirmation.apply(summary, ab, processes, run)
    for answer, group in zip(answers, groups.values(), strict=True):
        mine = set(group)  # each A/B's timeline: the verdicts of the cases it measured again
        answer.timeline.facts["verdicts"] = {
            b.id: b.confirmation.verdict
            for b in confirmed.benchmarks
            if b.confirmation is not None and b.job in mine
        }
        answer.timeline.write()
    return confirmed


def _pair(gpus: tuple[str, str]) -> str:
    """``"GPUs 0 and 2"`` / ``"GPU 0"`` / ``"the one GPU found"``, for the log."""
    base, head = gpus
    if not (base or head):
        return "the one GPU found"
    return f"GPU {base}" if base == head else f"GPUs {base or '(found)'} and {head or '(found)'}"


def _measure(request: Request, base: sides.Side, head: sides.Side, group: list[Job],
             work: pathlib.Path) -> Remeasured:  # fmt: skip
    """One A/B of ``group``: the check's road on the summary's grid."""
    from iconbench.check.run import measure_again
    from iconbench.grids.grid import resolve as resolve_grid

    summary, stacks = request.summary, request.stacks
    return measure_again(
        base, head, group, grid=resolve_grid(summary.head.grid.name or summary.base.grid.name),
        plan=request.plan, out=work, compile_jobs=request.compile_jobs,
        facts={"confirm": "flagged benchmarks of a comparison of two runs",
               "base": base.commit, "head": head.commit,
               "base_sources": {c: stacks.base[c] for c in stacks.changed},
               "head_sources": {c: stacks.head[c] for c in stacks.changed},
               **({"gpus": {"base": base.device, "head": head.device}}
                  if base.device or head.device else {})},
    )  # fmt: skip

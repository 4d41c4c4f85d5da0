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
"""

from __future__ import annotations

import dataclasses
import datetime
import pathlib

from iconbench.check import rounds
from iconbench.errors import IconbenchError
from iconbench.gate import confirmation
from iconbench.records.summary import ConfirmationRun, Summary
from iconbench.runner.progress import log
from iconbench.stacks import sides
from iconbench.stacks.spec import COMPONENTS


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


def jobs(summary: Summary) -> list[tuple[str, str]]:
    """The (case, backend) pairs of the flagged benchmarks, each once, in the summary's order.

    >>> jobs(Summary.example())
    [('compute_theta_rho_face_values[default]', 'gtfn_gpu')]
    """
    pairs = [(b.id.split("|")[0], b.backend) for b in confirmation.flagged(summary)]
    return list(dict.fromkeys(pairs))


def confirm(request: Request) -> Summary:
    """The summary with every flagged benchmark measured again and held to its A/B."""
    from iconbench.check.run import measure_again
    from iconbench.grids.grid import resolve as resolve_grid
    from iconbench.stacks.identity import stack_key

    summary = request.summary
    wanted = jobs(summary)
    if not wanted:
        return summary
    grid = resolve_grid(summary.head.grid.name or summary.base.grid.name)
    stacks = request.stacks
    base, head = stacks.sides(request.work, stack_key())
    changed = ", ".join(f"{c} {stacks.base[c][:10]}..{stacks.head[c][:10]}" for c in stacks.changed)
    flagged = len(confirmation.flagged(summary))
    log(f"confirm: {flagged} flagged benchmarks ({len(wanted)} cases) measured again, "
        f"{changed or 'the same stack on both sides'}, in {request.work}")  # fmt: skip
    again = measure_again(
        base, head, wanted, grid=grid, plan=request.plan, out=request.work,
        compile_jobs=request.compile_jobs,
        facts={"confirm": "flagged benchmarks of a comparison of two runs",
               "base": base.commit, "head": head.commit,
               "base_sources": {c: stacks.base[c] for c in stacks.changed},
               "head_sources": {c: stacks.head[c] for c in stacks.changed}},
    )  # fmt: skip
    run = ConfirmationRun(
        created=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        directory=str(request.work),
        base={c: stacks.base[c] for c in stacks.changed},
        head={c: stacks.head[c] for c in stacks.changed},
        rounds=again.rounds,
        stopped=again.stopped,
    )
    confirmed = confirmation.apply(summary, again.summary, again.processes, run)
    again.timeline.facts["verdicts"] = {
        b.id: b.confirmation.verdict for b in confirmed.benchmarks if b.confirmation is not None
    }
    again.timeline.write()
    return confirmed

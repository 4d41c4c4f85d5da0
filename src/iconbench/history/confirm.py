"""Confirm a backfill's change points: each commit measured again, interleaved, against its parent.

A backfill (:mod:`iconbench.history.backfill`) measures each commit once, one after another,
so a change point of its history (:mod:`iconbench.history.changepoints`) may be the
machine's step rather than the commit's. A confirmation measures the commit (head) against
its first parent (base) as a pull-request check measures a change
(:func:`iconbench.check.run.compare_sides`): both precompiled, then alternating fresh
processes, ABBA BAAB, until the gate has decided, the process as the unit
(:mod:`iconbench.gate.processes`). Each side runs on the stack its own ``uv.lock`` pins,
where the backfill runs it (the running environment, or that stack's overlay): the parent of
a lock bump runs on the old stack. The parent need not be in the backfill (a first parent
that changed no measured path was not selected); it is still what the commit changed.

Only the benchmarks with a change point at the commit are measured (device time: the
history's change points are of device time), on the backfill's grid and experiment.
Layout in the backfill's output directory::

    OUT/confirm/<commit>/1/      the A/B: base/, head/, rounds/, gate-summary.json, check.md
    OUT/confirm/<commit>/confirmation.json      its record (iconbench.history.confirmation)

Record and gate summary are appended to the history store (label ``confirm``), which the site
reads. It resumes: a commit with a record is not measured again (only appended, where the
store lacks it); an attempt that was stopped stays as it is, and the next starts beside it
(``2/``): nothing stored is written over.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import pathlib
import re
import subprocess
import tempfile
from collections.abc import Sequence
from typing import Any

from iconbench.check import rounds
from iconbench.errors import IconbenchError
from iconbench.history import backfill, changepoints, confirmation
from iconbench.history.firstparent import Commit
from iconbench.history.store import HistoryStore
from iconbench.runner.progress import log
from iconbench.stacks import overlay, pinned, trees
from iconbench.stacks.pinned import PinnedStack

#: The label of a confirmation's entries in the history store.
LABEL = "confirm"
#: The record's file name in ``OUT/confirm/<commit>/``.
RECORD = "confirmation.json"
#: The one metric a change point is found in.
METRIC = "device_time"


@dataclasses.dataclass(frozen=True)
class Request:
    """What one confirmation run is asked to do, resolved at the command line once."""

    repo: pathlib.Path
    out: pathlib.Path  # the backfill's --out
    store: pathlib.Path
    plan: rounds.Plan
    commits: tuple[str, ...] = ()  # (): every change point of the backfill's history
    programs: str = ""  # narrows the benchmarks (regex searched in case ids)
    stacks: pathlib.Path | None = None
    compile_jobs: int = 1
    machine: str = ""
    repository: str = backfill.Request.repository

    @property
    def directory(self) -> pathlib.Path:
        """``OUT/confirm``: one directory per commit."""
        return self.out / "confirm"

    def as_backfill(self, backends: Sequence[str]) -> backfill.Request:
        """The backfill's request as far as placing a stack needs it."""
        return backfill.Request(repo=self.repo, start="", end="", out=self.out, store=self.store,
                                backends=tuple(backends), stacks=self.stacks)  # fmt: skip


@dataclasses.dataclass(frozen=True)
class Selection:
    """What the backfill measured, from its ``summary.json``: the A/B measures the same."""

    grid: str
    experiment: str
    backends: tuple[str, ...]

    def arguments(self, cases: Sequence[str], backends: Sequence[str]) -> list[str]:
        r"""The runner's selection of ``cases`` on ``backends``, on the backfill's grid.

        >>> Selection("tiny", "", ("gtfn_cpu",)).arguments(["a[x=1]"], ["gtfn_cpu"])[-2:]
        ['--programs', '^(?:a\\[x=1\\])$']
        """
        from iconbench.check.run import case_selection

        return case_selection(cases, backends, ["--grid", self.grid], self.experiment)


@dataclasses.dataclass(frozen=True)
class Suspect:
    """One benchmark to measure again: what the history shows at the commit.

    ``step``: the change point's magnitude, or for a commit named without one the ratio to
    the history's previous value (``None``: there is none); ``before``: the history's
    commit before; ``confidence``: the change point's (``None``: no change point).
    """

    case: str
    backend: str
    step: float | None
    before: str | None
    confidence: float | None


@dataclasses.dataclass(frozen=True)
class Placed:
    """One commit of an A/B on its stack: the running environment, an overlay, or missing."""

    commit: str
    stack: PinnedStack
    overlay: pathlib.Path | None
    missing: str


@dataclasses.dataclass(frozen=True)
class Step:
    """One commit to confirm: its benchmarks, both sides placed, and what is left to do.

    ``state``: ``done`` (record written and in the store), ``to append`` (record written,
    not in the store), ``to measure``.
    """

    head: Placed
    base: Placed
    device: str
    grid: str
    benchmarks: tuple[Suspect, ...]
    parent_in_backfill: bool
    directory: pathlib.Path
    state: str

    @property
    def commit(self) -> str:
        return self.head.commit

    @property
    def parent(self) -> str:
        return self.base.commit

    @property
    def missing(self) -> str:
        """Why a side's stack cannot run here (one line), ``""`` when both can."""
        return self.head.missing or self.base.missing

    def as_dict(self) -> dict[str, Any]:
        return {
            "commit": self.commit,
            "parent": self.parent,
            "parent_in_backfill": self.parent_in_backfill,
            "device": self.device,
            "grid": self.grid,
            "head_stack": self.head.stack.describe(),
            "base_stack": self.base.stack.describe(),
            "benchmarks": [dataclasses.asdict(b) for b in self.benchmarks],
            "state": self.state,
            "missing": self.missing or None,
            "directory": str(self.directory),
        }


@dataclasses.dataclass(frozen=True)
class Plan:
    """The commits to confirm, oldest first, and the backfill's selection they are measured in."""

    request: Request
    selection: Selection
    steps: tuple[Step, ...]
    backfill_commits: int


# --------------------------------------------------------------------------- the backfill


def _summaries(out: pathlib.Path) -> dict[str, dict[str, Any]]:
    """The backfill's finished commits: ``OUT/<commit>/summary.json`` by commit."""
    from iconbench.records.resultdir import newest_summary, read_summary

    found = {}
    for directory in sorted(out.iterdir()) if out.is_dir() else ():
        if re.fullmatch(r"[0-9a-f]{40}", directory.name) and directory.is_dir():
            summary = newest_summary(directory)
            if summary is not None:
                found[directory.name] = read_summary(summary)
    if not found:
        raise IconbenchError(
            f"--out {out}: no backfill results there (no <commit>/summary.json); give the --out "
            "of 'iconbench history backfill', or run the backfill first"
        )
    return found


def selection_of(summaries: dict[str, dict[str, Any]]) -> Selection:
    """The grid, experiment and backends the backfill measured (one grid, or one line)."""
    grids = sorted({str(s.get("grid") or "") for s in summaries.values()})
    if len(grids) != 1 or not grids[0]:
        raise IconbenchError(
            f"the backfill measured on grids {', '.join(grids) or 'none recorded'}; a "
            "confirmation measures on one: give --out of a backfill of one grid"
        )
    experiments = [str(s.get("experiment") or "") for s in summaries.values()]
    backends = sorted({str(b) for s in summaries.values() for b in s.get("backends") or ()})
    return Selection(grids[0], experiments[-1], tuple(backends))


def history_runs(store: pathlib.Path, repo: pathlib.Path) -> list[Any]:
    """The backfill's runs in ``store`` (history.runs.Run), read as the site reads them."""
    from iconbench.history import export
    from iconbench.history.runs import runs_in

    if not (store / "HISTORY").exists():
        raise IconbenchError(
            f"--store {store}: no history store there; the backfill appends its results to "
            "OUT/history (or its --store): give that, or run the backfill again to append them"
        )
    entries = [e for e in HistoryStore.open(store).entries() if e.label == backfill.LABEL]
    if not entries:
        raise IconbenchError(
            f"--store {store}: no backfill entry in it; run 'iconbench history backfill' "
            "again with this --store to append its results"
        )
    with tempfile.TemporaryDirectory(prefix="iconbench-confirm-") as scratch:
        exported = export.export(HistoryStore.open(store), pathlib.Path(scratch), entries,
                                 repo=repo)  # fmt: skip
        return runs_in(exported.asv_dir, repo)


def _in_order(runs: Sequence[Any], grid: str) -> list[Any]:
    from iconbench.history.runs import history_per_target

    targets = [(t, r) for t, r in history_per_target(runs).items() if t.grid == grid]
    if not targets:
        raise IconbenchError(f"the backfill's history holds no run on its grid {grid}")
    return max(targets, key=lambda item: len(item[1]))[1]  # the device that measured most


def _named(ordered: Sequence[Any], commit: str) -> tuple[Suspect, ...]:
    """Each device-timed benchmark of ``commit``'s run, with its ratio to the value before."""
    index = next(i for i, run in enumerate(ordered) if run.commit == commit)
    suspects = []
    for m in ordered[index].measured:
        if m.device_s is None:
            continue
        before = next(
            (
                (run.commit, b.device_s)
                for run in reversed(ordered[:index])
                for b in run.measured
                if (b.case, b.backend) == (m.case, m.backend) and b.device_s
            ),
            None,
        )
        step = round(m.device_s / before[1], 6) if before else None
        suspects.append(Suspect(m.case, m.backend, step, before[0] if before else None, None))
    return tuple(sorted(suspects, key=lambda s: (s.case, s.backend)))


def _git(repo: pathlib.Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                          check=False, timeout=60)  # fmt: skip
    return done.stdout.strip() if done.returncode == 0 else ""


def first_parent(repo: pathlib.Path, commit: str) -> str:
    """``commit``'s first parent in ``repo``; one line for a root commit."""
    parent = _git(repo, "rev-parse", "--verify", "--quiet", f"{commit}^1")
    if not parent:
        raise IconbenchError(f"{commit[:10]}: a root commit of {repo}: no parent to compare with")
    return parent


def _state(directory: pathlib.Path, commit: str, appended: set[tuple[str, str]]) -> str:
    record = directory / RECORD
    if not record.exists():
        return "to measure"
    digest = hashlib.sha256(record.read_bytes()).hexdigest()
    return "done" if (commit, digest) in appended else "to append"


def plan(request: Request) -> Plan:
    """The commits to confirm, each with its benchmarks and both sides placed (or one line)."""
    summaries = _summaries(request.out)
    selection = selection_of(summaries)
    ordered = _in_order(history_runs(request.store, request.repo), selection.grid)
    position = {run.commit: i for i, run in enumerate(ordered)}
    try:
        wanted = re.compile(request.programs) if request.programs else None
    except re.error as error:
        raise IconbenchError(f"--programs {request.programs!r}: not a regex ({error})") from None
    found = [f for f in changepoints.found_in(ordered) if f.target.grid == selection.grid]
    suspects: dict[str, list[Suspect]] = {}
    for each in found:
        point = each.point
        suspects.setdefault(point.bad, []).append(
            Suspect(each.case, each.backend, point.magnitude, point.good, point.confidence)
        )
    if request.commits:
        named = {}
        for ref in request.commits:
            sha = trees.resolve_commit(request.repo, ref)
            if sha not in position:
                raise IconbenchError(
                    f"--commit {ref}: {sha[:10]} is not a commit of the backfill in "
                    f"{request.out} ({len(position)} commits); compare other commits with "
                    f"'iconbench check --base {sha[:10]}^ --head {sha[:10]}'"
                )
            named[sha] = suspects.get(sha) or list(_named(ordered, sha))
        suspects = named
    target = ordered[0].target
    here = pinned.running()
    placing = request.as_backfill(selection.backends)
    appended = HistoryStore.open(request.store).appended(LABEL, "confirmation")
    steps = []
    for sha in sorted(suspects, key=lambda c: position.get(c, -1)):
        chosen = tuple(s for s in suspects[sha] if wanted is None or wanted.search(s.case))
        if not chosen:
            if request.commits:
                raise IconbenchError(
                    f"--commit {sha[:10]}: no benchmark with device time to confirm"
                    + (f" matches --programs {request.programs!r}" if request.programs else
                       " (the backfill measured none there: embedded has no device time)")
                )  # fmt: skip
            continue
        parent = first_parent(request.repo, sha)
        sides = []
        for commit in (sha, parent):
            stack = pinned.of_commit(request.repo, commit)
            place, missing = backfill.placement(placing, Commit(commit, "", ""), stack, here)
            sides.append(Placed(commit, stack, place, missing))
        directory = request.directory / sha
        state = _state(directory, sha, appended)
        steps.append(Step(sides[0], sides[1], target.device, target.grid, chosen,
                          parent in position, directory, state))  # fmt: skip
    return Plan(request, selection, tuple(steps), len(position))


def render(confirming: Plan) -> str:
    """The plan as a reader takes it: per commit its parent, stacks, benchmarks and state."""
    request = confirming.request
    lines = [
        f"confirm: {len(confirming.steps)} commits of the backfill in {request.out} "
        f"({confirming.backfill_commits} commits, grid {confirming.selection.grid}) against "
        "their first parents, interleaved"
    ]
    for step in confirming.steps:
        outside = "" if step.parent_in_backfill else ", not in the backfill"
        lines.append(
            f"  {step.commit[:10]} after {step.parent[:10]}{outside} ({step.state}; head "
            f"{step.head.stack.describe()}, base {step.base.stack.describe()})"
        )
        for bench in step.benchmarks:
            lines.append(f"    {bench.case} {bench.backend}: {_step_text(bench)}")
        if step.missing and step.state == "to measure":
            lines.append(f"    {step.missing}")
    done = sum(step.state == "done" for step in confirming.steps)
    lines.append(f"{done} done, {len(confirming.steps) - done} left")
    return "\n".join(lines)


def _step_text(bench: Suspect) -> str:
    if bench.confidence is not None:
        return f"change point x{bench.step:.3f} (after {bench.before[:10]})"  # type: ignore[index]
    if bench.step is None:
        return "no value before it in the history"
    return f"x{bench.step:.3f} against {bench.before[:10]} in the history"  # type: ignore[index]


def build_missing_stacks(confirming: Plan) -> Plan:
    """Build an overlay for every stack a side left to measure lacks, then plan again."""
    built: set[PinnedStack] = set()
    stacks_dir = confirming.request.as_backfill(()).stacks_dir
    for step in confirming.steps:
        for side in (step.head, step.base):
            if side.missing and step.state == "to measure" and side.stack not in built:
                if overlay.find(side.stack, stacks_dir) is None:
                    log(f"confirm: building the overlay of {side.stack.describe()}")
                    overlay.build(side.stack, stacks_dir)
                built.add(side.stack)
    return plan(confirming.request) if built else confirming


# --------------------------------------------------------------------------- measuring


def _attempt(directory: pathlib.Path) -> pathlib.Path:
    """A new attempt's directory, ``1/``, ``2/`` …: an earlier, stopped one is kept as it is."""
    numbers = [int(p.name) for p in directory.glob("[0-9]*") if p.name.isdigit()]
    attempt = directory / str(max(numbers, default=0) + 1)
    attempt.mkdir(parents=True)
    return attempt


def _side(name: str, repo: pathlib.Path, placed: Placed, out: pathlib.Path):
    """A :class:`~iconbench.stacks.sides.Side` of ``placed``: its tree, then its stack's overlay."""
    from iconbench.stacks import sides

    tree = trees.export_tree(repo, placed.commit, sides.exported_trees(backfill.COMPONENT))
    return backfill.pinned_side(
        name, placed.commit, tree, stack=placed.stack, overlay=placed.overlay, out=out / name
    )


def measure(confirming: Plan, step: Step) -> confirmation.Confirmation:
    """The A/B of ``step``'s commit against its parent; its record, written once."""
    from iconbench.check.run import measure_again
    from iconbench.grids.grid import resolve as resolve_grid
    from iconbench.runner.pipeline import hostname

    request = confirming.request
    attempt = _attempt(step.directory)
    base = _side("base", request.repo, step.base, attempt)
    head = _side("head", request.repo, step.head, attempt)
    jobs = [(b.case, b.backend) for b in step.benchmarks]
    log(f"confirm: {step.commit[:10]} against its parent {step.parent[:10]} ({len(jobs)} "
        f"benchmarks) in {attempt}")  # fmt: skip
    again = measure_again(
        base, head, jobs,
        grid=resolve_grid(confirming.selection.grid),  # the preset the backfill measured on
        plan=request.plan, out=attempt, compile_jobs=request.compile_jobs,
        experiment=confirming.selection.experiment,
        facts={"confirm": step.commit, "base": step.parent, "head": step.commit,
               "head_stack": step.head.stack.describe(),
               "base_stack": step.base.stack.describe()},
    )  # fmt: skip
    summary, timeline = again.summary, again.timeline
    gated = {b.id: b for b in summary.benchmarks}
    benchmarks = []
    for bench in step.benchmarks:
        result = gated.get(f"{bench.case}|{bench.backend}|{METRIC}")
        ci = tuple(result.ratio_ci) if result and result.ratio_ci else None
        notes = tuple(result.notes) if result else ("not in the A/B's gate summary",)
        if result is not None and result.error:
            notes = (*notes, result.error)
        benchmarks.append(
            confirmation.Benchmark(
                case=bench.case,
                backend=bench.backend,
                metric=METRIC,
                step=bench.step,
                before=bench.before,
                ratio=result.ratio if result else None,
                ratio_ci=ci,  # type: ignore[arg-type]
                gate_verdict=result.verdict if result else "missing",
                verdict=confirmation.judge(bench.step, result.verdict if result else "missing"),
                notes=notes,
                confidence=bench.confidence,
            )
        )
    record = confirmation.Confirmation(
        commit=step.commit,
        parent=step.parent,
        device=step.device,
        grid=step.grid,
        created=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        machine=request.machine or hostname(),
        head_stack=step.head.stack.describe(),
        base_stack=step.base.stack.describe(),
        parent_in_backfill=step.parent_in_backfill,
        rounds=again.rounds,
        stopped=again.stopped,
        benchmarks=tuple(benchmarks),
    )
    timeline.facts["verdicts"] = {f"{b.case} {b.backend}": b.verdict for b in benchmarks}
    timeline.write()
    record.write(step.directory / RECORD)
    return record


def append(request: Request, step: Step) -> str:
    """Add ``step``'s record and its A/B's gate summary to the store; the entry's id."""
    from iconbench.history.store import result_set_files
    from iconbench.runner.pipeline import hostname

    record = step.directory / RECORD
    attempts = sorted((p for p in step.directory.glob("[0-9]*") if p.name.isdigit()),
                      key=lambda p: int(p.name))  # fmt: skip
    gates = [p / "gate-summary.json" for p in attempts[-1:] if (p / "gate-summary.json").exists()]
    files = result_set_files(confirmation=[record], gate=gates)
    entry = HistoryStore.create(request.store).append(
        files,
        kind="main",
        component=backfill.COMPONENT,
        commit=step.commit,
        repository=request.repository,
        machine=confirmation.read(record).machine or request.machine or hostname(),
        label=LABEL,
    )
    return entry.id


def run(confirming: Plan) -> backfill.Outcome:
    """Measure and append what the plan leaves, commit by commit; one line per commit left."""
    request = confirming.request
    measured, appended, skipped, left = [], [], [], []
    for step in confirming.steps:
        if step.state == "done":
            skipped.append(step.commit)
            continue
        if step.state == "to measure":
            if step.missing:
                log(f"confirm: {step.missing}")
                left.append((step.commit, step.missing))
                continue
            try:
                record = measure(confirming, step)
            except IconbenchError as error:
                line = f"{step.commit[:10]}: {error}; run again for a new attempt"
                log(f"confirm: {line}")
                left.append((step.commit, line))
                continue
            measured.append(step.commit)
            for bench in record.benchmarks:
                log(f"confirm: {step.commit[:10]} {bench.case} {bench.backend}: history "
                    f"{_step_text(_suspect(bench))}; A/B {bench.describe()}")  # fmt: skip
        append(request, step)
        appended.append(step.commit)
    log(
        f"confirm: {len(measured)} measured, {len(appended)} appended to {request.store}, "
        f"{len(skipped)} done before, {len(left)} left"
    )
    return backfill.Outcome(tuple(measured), tuple(appended), tuple(skipped), tuple(left))


def _suspect(bench: confirmation.Benchmark) -> Suspect:
    return Suspect(bench.case, bench.backend, bench.step, bench.before, bench.confidence)

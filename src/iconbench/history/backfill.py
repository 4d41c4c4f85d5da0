"""Backfill the history over a repository's own past: each commit measured on its own stack.

A history that starts today has no past to find change points in. A backfill measures the
first-parent commits of a range that touch the measured code or its lock
(:mod:`iconbench.history.firstparent`), each on the gt4py and dace its own ``uv.lock`` pins
(:mod:`iconbench.stacks.pinned`): the running environment where it is that stack, else an
overlay of that stack (:mod:`iconbench.stacks.overlay`). Each commit takes the one measuring
road, ``iconbench suite all`` into ``OUT/<commit>``, with its exported tree first on the
path as a check's sides have it (:class:`iconbench.stacks.sides.Side`), and each finished
run is appended to the history store.

It resumes: a commit whose directory has a summary is done (appended if it was not yet), a
commit whose directory has ledgers only continues from them (the runner's own resume), and
builds are shared through the content-addressed build cache of each stack. A commit whose
stack is not here gets one line naming the stack and how to get it; the rest go on.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import pathlib
import signal
import subprocess
import sys
from typing import Any

from iconbench.errors import IconbenchError
from iconbench.history.firstparent import ICON4PY_PATHS, Commit, touching
from iconbench.runner.progress import log
from iconbench.stacks import overlay, pinned
from iconbench.stacks.pinned import PinnedStack

#: The label of a backfill's entries in the history store.
LABEL = "backfill"
#: The component a backfill measures commits of.
COMPONENT = "icon4py"


@dataclasses.dataclass(frozen=True)
class Request:
    """What one backfill is asked to do, resolved at the command line once."""

    repo: pathlib.Path
    start: str
    end: str
    out: pathlib.Path
    store: pathlib.Path
    backends: tuple[str, ...]
    paths: tuple[str, ...] = ICON4PY_PATHS
    grid: str = ""  # "": the experiment's grid, else the suite's default
    experiment: str = ""
    programs: str = ""
    stacks: pathlib.Path | None = None  # where overlays live (None: overlay.default_dir())
    jobs: int | None = None
    machine: str = ""
    repository: str = "C2SM/icon4py"
    sampling: tuple[str, ...] = ()  # --samples/--max-s/--warmup-s for the suite

    @property
    def stacks_dir(self) -> pathlib.Path:
        return self.stacks if self.stacks is not None else overlay.default_dir()

    def suite_args(self) -> list[str]:
        """The selection and sampling every commit's ``iconbench suite all`` gets."""
        args = ["--backends", ",".join(self.backends), *self.sampling]
        for flag, value in (("--grid", self.grid), ("--experiment", self.experiment),
                            ("--programs", self.programs), ("--machine", self.machine),
                            ("--jobs", self.jobs)):  # fmt: skip
            if value:
                args += [flag, str(value)]
        return args


@dataclasses.dataclass(frozen=True)
class Step:
    """One commit of the plan: its stack, where that stack runs, what is left to do.

    ``state``: ``done`` (summary written and in the store), ``to append`` (summary written,
    not in the store), ``resume`` (ledgers, no summary), ``to measure`` (nothing yet).
    ``overlay``: the stack's overlay (``None``: the running environment is the stack);
    ``missing``: why the stack cannot run here (one line), ``""`` when it can.
    """

    commit: Commit
    stack: PinnedStack
    out: pathlib.Path
    state: str
    overlay: pathlib.Path | None = None
    missing: str = ""

    @property
    def where(self) -> str:
        if self.missing:
            return "stack missing"
        return f"overlay {self.overlay}" if self.overlay else "this environment"

    def as_dict(self) -> dict[str, Any]:
        return {
            "commit": self.commit.sha,
            "date": self.commit.date,
            "subject": self.commit.subject,
            "stack": self.stack.describe(),
            "stack_name": self.stack.name,
            "out": str(self.out),
            "state": self.state,
            "overlay": str(self.overlay) if self.overlay else None,
            "missing": self.missing or None,
        }


@dataclasses.dataclass(frozen=True)
class Plan:
    """The commits of a backfill in the order they run: by stack, then oldest first."""

    request: Request
    steps: tuple[Step, ...]

    @property
    def left(self) -> tuple[Step, ...]:
        return tuple(s for s in self.steps if s.state != "done")

    @property
    def to_run(self) -> tuple[Step, ...]:
        """The commits left to measure or resume: only these need their stack here."""
        return tuple(s for s in self.steps if s.state in ("to measure", "resume"))

    def counts(self) -> dict[str, int]:
        """``done``, ``to append``, ``resume``, ``to measure`` and ``stack missing``."""
        counts = dict.fromkeys(("done", "to append", "resume", "to measure", "stack missing"), 0)
        for step in self.steps:
            counts[step.state] += 1
        counts["stack missing"] = sum(bool(step.missing) for step in self.to_run)
        return counts


def _sha256(path: pathlib.Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _appended(store: pathlib.Path) -> set[tuple[str, str]]:
    """``(commit, summary sha256)`` of every backfill entry in the store (none if no store)."""
    from iconbench.history.store import HistoryStore

    if not (store / "HISTORY").exists():
        return set()
    return HistoryStore.open(store).appended(LABEL, "summary")


def _state(commit: Commit, out: pathlib.Path, appended: set[tuple[str, str]]) -> str:
    from iconbench.records.resultdir import newest_summary

    summary = newest_summary(out) if out.is_dir() else None
    if summary is not None:
        return "done" if (commit.sha, _sha256(summary)) in appended else "to append"
    return "resume" if (out / "work").is_dir() else "to measure"


def missing_line(request: Request, commit: Commit, stack: PinnedStack, why: str) -> str:
    """The one line for a commit whose stack is not here: the stack, and how to get it."""
    stacks = f" --stacks {request.stacks}" if request.stacks is not None else ""
    return (
        f"{commit.short}: its stack {stack.describe()} {why}; build it with 'iconbench stack "
        f"build {commit.short} --repo {request.repo}{stacks}' (or pass --build-stacks), then "
        "run this command again"
    )


def placement(
    request: Request, commit: Commit, stack: PinnedStack, here: dict[str, dict[str, str]]
) -> tuple[pathlib.Path | None, str]:
    """``(overlay, missing)``: where ``stack`` runs here, or the line saying it cannot.

    ``here``: the running environment's stack (:func:`iconbench.stacks.pinned.running`).
    """
    if pinned.is_running(stack, here):
        return None, ""
    found = overlay.find(stack, request.stacks_dir)
    if found is None:
        why = (
            f"is not installed (this environment: {pinned.describe_running(here)}; no overlay "
            f"under {request.stacks_dir})"
        )
        return None, missing_line(request, commit, stack, why)
    problems = overlay.unmet(found)
    if problems:
        return None, (
            f"{commit.short}: the overlay of its stack {stack.describe()} ({found}) does not fit "
            f"this environment: {problems[0]}"
        )
    return found, ""


def plan(request: Request) -> Plan:
    """The commits of ``request``'s range, their stacks, where each runs and what is left."""
    commits = touching(request.repo, request.start, request.end, request.paths)
    here = pinned.running()
    appended = _appended(request.store)
    groups: dict[PinnedStack, list[Step]] = {}
    for commit in commits:
        stack = pinned.of_commit(request.repo, commit.sha)
        out = request.out / commit.sha
        place, missing = placement(request, commit, stack, here)
        step = Step(commit, stack, out, _state(commit, out, appended), place, missing)
        groups.setdefault(stack, []).append(step)
    return Plan(request, tuple(step for steps in groups.values() for step in steps))


def render(backfill: Plan) -> str:
    """The plan as a reader takes it: one line per commit, grouped by stack, then totals."""
    request = backfill.request
    lines = [
        f"backfill: {len(backfill.steps)} first-parent commits of {request.start}..{request.end} "
        f"in {request.repo} touching {', '.join(request.paths)}"
    ]
    shown: PinnedStack | None = None
    for step in backfill.steps:
        if step.stack != shown:
            shown = step.stack
            size = sum(s.stack == shown for s in backfill.steps)
            lines.append(f"stack {shown.describe()} ({step.where}): {size} commits")
        lines.append(
            f"  {step.commit.short} {step.commit.date[:10]}  {step.state:<10}  "
            f"{step.commit.subject[:70]}"
        )
    counts = backfill.counts()
    lines.append(
        f"{counts['done']} done, {len(backfill.left)} left: {counts['to measure']} to measure, "
        f"{counts['resume']} to resume, {counts['to append']} to append; "
        f"{counts['stack missing']} to measure need a stack that is not here"
    )
    said: set[PinnedStack] = set()
    for step in backfill.to_run:  # one line per stack that is not here (the run says it per commit)
        if step.missing and step.stack not in said:
            said.add(step.stack)
            lines.append(step.missing)
    return "\n".join(lines)


def build_missing_stacks(backfill: Plan) -> Plan:
    """Build an overlay for every stack a commit left to measure lacks, then plan again."""
    built: set[PinnedStack] = set()
    for step in backfill.to_run:
        if step.missing and step.stack not in built and step.overlay is None:
            if overlay.find(step.stack, backfill.request.stacks_dir) is None:
                log(f"backfill: building the overlay of {step.stack.describe()}")
                overlay.build(step.stack, backfill.request.stacks_dir)
            built.add(step.stack)
    return plan(backfill.request) if built else backfill


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What a backfill or a confirmation did: commits measured, appended, skipped, left (why)."""

    measured: tuple[str, ...]
    appended: tuple[str, ...]
    skipped: tuple[str, ...]
    left: tuple[tuple[str, str], ...]


def pinned_side(
    name: str,
    commit: str,
    tree: pathlib.Path,
    *,
    stack: PinnedStack,
    overlay: pathlib.Path | None,
    out: pathlib.Path,
):
    """A side of ``commit`` on the stack its lock pins, in that stack's build cache.

    Its exported ``tree`` first on the path, then the stack's ``overlay`` (``None``: the
    running stack); ``out`` is its runner directory. A backfilled commit and both sides of a
    confirmation's A/B are placed this way.
    """
    from iconbench.stacks import sides, trees

    own = tuple(trees.source_roots(tree))
    roots = own + ((overlay,) if overlay else ())
    # the overlay's code is the pinned stack's, which its key names: the identity is the tree's
    identity = trees.code_identity(own)
    return sides.Side(name, commit, commit, roots, out, stack_key(stack, overlay), identity)


def stack_key(stack: PinnedStack, overlay: pathlib.Path | None) -> str:
    """The build-cache key of ``stack`` (``overlay``: its overlay, ``None``: the running one).

    The running stack's key with the stack's gt4py and dace. Every commit on one stack shares
    one cache (its icon4py tree is keyed by the programs' IR and generated code inside it),
    and two stacks never do.
    """
    from iconbench.stacks.identity import environment_stack
    from iconbench.stacks.identity import stack_key as key_of

    if overlay is None:
        return key_of()
    packages = environment_stack()
    for pin in stack.pins:
        entry = {"version": pin.version, "source": "git" if pin.git else "release"}
        packages[pin.package] = entry | ({"commit": pin.commit, "repo": pin.git} if pin.git else {})
    return key_of(stack=packages)


def tree_place(request: Request) -> pathlib.Path:
    """Where every commit of a backfill into ``request.out`` has its tree, one after another.

    One path for all of them (:func:`iconbench.stacks.trees.export_in_place`): a program a
    commit did not change keeps its translation from the commit before.
    """
    from iconbench.stacks import sides

    key = hashlib.sha256(str(request.out).encode()).hexdigest()[:12]
    return sides.exported_trees(f"{COMPONENT}-{LABEL}") / key


def measure(request: Request, step: Step) -> int:
    """``iconbench suite all`` of ``step``'s commit into its directory; the exit status."""
    from iconbench.stacks import trees

    tree = trees.export_in_place(request.repo, step.commit.sha, tree_place(request))
    side = pinned_side(
        LABEL, step.commit.sha, tree, stack=step.stack, overlay=step.overlay, out=step.out
    )
    command = [sys.executable, "-m", "iconbench", "suite", "all", "--out", str(step.out),
               *side.runner_options(), "--commit", step.commit.sha,
               *request.suite_args()]  # fmt: skip
    log(f"backfill: {step.commit.short} ({step.stack.describe()}): {step.commit.subject[:60]}")
    # its own process group, ended with the backfill: a backfill stopped by a runner's time
    # limit must not leave a suite measuring on the device beside the next one
    process = subprocess.Popen(command, env=side.environment(), start_new_session=True)
    try:
        return process.wait()
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def append(request: Request, step: Step) -> str:
    """Add ``step``'s finished result set to the store; the entry's id."""
    from iconbench.history.store import HistoryStore, result_set_files
    from iconbench.records.resultdir import newest_summary
    from iconbench.runner.pipeline import hostname

    summary = newest_summary(step.out)
    if summary is None:
        raise IconbenchError(f"{step.out}: no summary.json to append; run the backfill again")
    files = result_set_files(asv=[step.out / "asv"], summary=[summary])
    entry = HistoryStore.create(request.store).append(
        files,
        kind="main",
        component=COMPONENT,
        commit=step.commit.sha,
        repository=request.repository,
        ref=request.end,
        machine=request.machine or hostname(),
        label=LABEL,
    )
    return entry.id


def run(backfill: Plan) -> Outcome:
    """Measure and append what the plan leaves, commit by commit; one line per commit left."""
    request = backfill.request
    measured, appended, skipped, left = [], [], [], []
    for step in backfill.steps:
        sha = step.commit.sha
        if step.state == "done":
            skipped.append(sha)
            continue
        if step.state != "to append":
            if step.missing:
                log(f"backfill: {step.missing}")
                left.append((sha, step.missing))
                continue
            status = measure(request, step)
            if status != 0:
                line = (
                    f"{step.commit.short}: 'iconbench suite all' ended with exit {status}; its "
                    f"ledgers in {step.out / 'work'} keep what it did: run again to resume"
                )
                log(f"backfill: {line}")
                left.append((sha, line))
                continue
            measured.append(sha)
        append(request, step)
        appended.append(sha)
    log(
        f"backfill: {len(measured)} measured, {len(appended)} appended to {request.store}, "
        f"{len(skipped)} done before, {len(left)} left"
    )
    return Outcome(tuple(measured), tuple(appended), tuple(skipped), tuple(left))

"""Upstream's release history measured: each stack once, each step compared and confirmed.

``iconbench releases plan`` (on a machine with network) resolves the releases, writes
``OUT/plan.json`` and builds each stack's overlay into ``OUT/stacks/`` (the directory travels
to a GPU runner without network, :mod:`iconbench.stacks.overlay`). ``iconbench releases run``
then, resumably (a runner with time-limited commands calls it again):

1. precompiles every stack side by side (:func:`precompile`), then measures each with
   ``iconbench --overlay STACK suite all`` into ``OUT/runs/<stack>/``
   (a stack that cannot make a backend ends its run with ``summary.json`` naming the break:
   a result, never measured again; a stack with a summary is done);
2. compares each step's two runs as the nightly compares two nights
   (``OUT/steps/<step>/compare.json``, :func:`iconbench.gate.verdict.compare`);
3. measures each flagged benchmark again, both stacks interleaved in fresh processes
   (:func:`iconbench.check.run.measure_again`, ``OUT/steps/<step>/confirm/``), and keeps the
   comparison held to it (``confirmed.json``): only what that A/B confirms is a change.

``iconbench releases table`` writes the table: per step, the cases measured, broken or not
with its line, each confirmed change with its interval and the component it is attributed
to (:func:`iconbench.history.release_steps.attribute`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import json
import os
import pathlib
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence

from iconbench.check import rounds
from iconbench.errors import IconbenchError
from iconbench.files.atomic import write_atomic
from iconbench.history import release_steps
from iconbench.history.release_steps import Change, Step
from iconbench.runner.progress import log
from iconbench.stacks import overlay, pinned
from iconbench.stacks.pinned import PinnedStack

#: The plan's file in the output directory.
PLAN = "plan.json"


@dataclasses.dataclass(frozen=True)
class Plan:
    """The steps to measure and the suite options every stack's run takes."""

    out: pathlib.Path
    steps: tuple[Step, ...]
    suite_args: tuple[str, ...]

    @property
    def stacks(self) -> list[PinnedStack]:
        return release_steps.stacks(self.steps)

    def overlay_of(self, stack: PinnedStack) -> pathlib.Path | None:
        """The stack's overlay, ``None`` where the running environment is the stack."""
        if pinned.is_running(stack):
            return None
        found = overlay.find(stack, self.out / "stacks")
        if found is None:
            raise IconbenchError(
                f"{self.out / 'stacks'}: no overlay of {stack.describe()}; make it where the "
                f"package index is reached: 'iconbench releases plan --out {self.out}'"
            )
        return found

    def plan_backends(self) -> list[str]:
        """The backends every stack's run measures (``--backends`` of the plan)."""
        args = list(self.suite_args)
        return args[args.index("--backends") + 1].split(",") if "--backends" in args else []

    def run_dir(self, stack: PinnedStack) -> pathlib.Path:
        return self.out / "runs" / stack.name

    def step_dir(self, step: Step) -> pathlib.Path:
        return self.out / "steps" / step.name

    def write(self) -> None:
        data = {"steps": [s.as_dict() for s in self.steps], "suite_args": list(self.suite_args)}
        write_atomic(self.out / PLAN, json.dumps(data, indent=1))

    def suite_option(self, flag: str) -> str | None:
        """The value of ``flag`` (``--grid``) in the suite options, ``None`` where not given."""
        args = list(self.suite_args)
        return args[args.index(flag) + 1] if flag in args[:-1] else None

    @classmethod
    def read(cls, out: pathlib.Path) -> Plan:
        """The plan of ``out``, read whole: a torn or foreign ``plan.json`` is one line."""
        from iconbench.files.decode import load_json

        path = out / PLAN
        make = f"'iconbench releases plan --out {out}' makes it"
        if not path.is_file():
            raise IconbenchError(f"{path}: no plan; {make}")
        data = load_json(path, hint=f"a plan iconbench wrote is whole: {make} again")
        try:
            steps = tuple(Step.from_dict(s) for s in data["steps"])
            suite_args = tuple(str(a) for a in data["suite_args"])
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise IconbenchError(
                f"{path}: not a plan of 'iconbench releases plan' (no {error}); {make} again"
            ) from None
        if not steps:
            raise IconbenchError(f"{path}: a plan of no step; {make} again")
        return cls(out, steps, suite_args)


#: The suite options a run's ``summary.json`` records, and its key.
_RECORDED = {"--grid": "grid", "--programs": "programs", "--experiment": "experiment"}


def differences(made: Plan, stack: PinnedStack, summary: dict) -> list[str]:
    """How the run ``summary`` of ``stack`` differs from what ``made`` plans (``[]``: none)."""
    found = []
    for flag, key in _RECORDED.items():
        planned = made.suite_option(flag)
        if planned is not None and summary.get(key) != planned:
            found.append(f"{key} {summary.get(key)!r}, the plan {planned!r}")
    backends = made.plan_backends()  # a backend the stack could not make: in "broken"
    recorded = {*(summary.get("backends") or []), *(summary.get("broken") or {})}
    if backends and recorded != set(backends):
        found.append(f"backends {sorted(recorded)}, the plan {sorted(backends)}")
    packages = (summary.get("provenance") or {}).get("packages") or {}
    for pin in stack.pins:
        if packages.get(pin.package) not in (None, pin.version):
            found.append(f"{pin.package} {packages[pin.package]}, the plan {pin.version}")
    return found


def stored_run(made: Plan, stack: PinnedStack, *, force: bool = False) -> dict | None:
    """The stack's run, read whole and matching the plan; ``None`` where there is none.

    A run that does not read back or differs from the plan is one line that says how and
    what to do; with ``force`` it is set aside (never deleted) and measured again.
    """
    from iconbench.files.decode import load_json

    run = made.run_dir(stack)
    path = run / "summary.json"
    if not path.is_file():
        return None
    try:
        summary = load_json(path)
        if not isinstance(summary, dict):
            raise IconbenchError(f"{path}: not a run summary (a JSON {type(summary).__name__})")
        found = differences(made, stack, summary)
    except IconbenchError as error:
        found = [str(error)]
    if not found:
        return summary
    if force:
        log(f"releases: {run} set aside as {_set_aside(run).name}: {found[0]}")
        return None
    raise IconbenchError(
        f"{path} is not this plan's run of {stack.describe()}: {'; '.join(found)}; give a new "
        f"--out, or --force to set it aside and measure the stack again"
    )


def _set_aside(path: pathlib.Path) -> pathlib.Path:
    """``path`` renamed ``NAME.stale-N`` beside it: kept, never taken for a result again."""
    n = 1 + sum(1 for _ in path.parent.glob(f"{path.name}.stale-*"))
    target = path.with_name(f"{path.name}.stale-{n}")
    path.rename(target)
    return target


def check_stored(made: Plan, *, force: bool = False) -> dict[str, dict | None]:
    """Every stack's stored run checked against the plan before anything is measured.

    A step whose run was set aside is compared and confirmed again (its files set aside).
    """
    runs = {}
    for stack in made.stacks:
        had = (made.run_dir(stack) / "summary.json").is_file()
        runs[stack.name] = stored_run(made, stack, force=force)
        if had and runs[stack.name] is None:  # set aside: its steps are stale as well
            for step in made.steps:
                if stack in (step.base, step.head) and made.step_dir(step).exists():
                    _set_aside(made.step_dir(step))
    for step in made.steps:
        stored_step(made, step, force=force)
    return runs


def stored_step(made: Plan, step: Step, *, force: bool = False) -> None:
    """A step's ``compare.json`` and ``confirmed.json`` read back whole, or one line.

    With ``force`` a step whose files do not read back is set aside, compared and confirmed
    again.
    """
    from iconbench.records.summary import Summary

    for name in ("compare.json", "confirmed.json"):
        path = made.step_dir(step) / name
        if not path.is_file():
            continue
        try:
            Summary.read(path)
        except IconbenchError as error:
            if force:
                log(f"releases: {made.step_dir(step)} set aside: {error}")
                _set_aside(made.step_dir(step))
                return
            raise IconbenchError(
                f"{error}; this step's {name} is not a result: give a new --out, or --force "
                "to set the step aside and compare it again"
            ) from None


def plan(out: pathlib.Path, gt4py: Sequence[str], dace: Sequence[str], suite_args: Sequence[str],
         *, find_links: pathlib.Path | None = None, force: bool = False) -> Plan:  # fmt: skip
    """Resolve what each gt4py release declares, build every overlay, then write the plan.

    An existing plan of other suite options or steps is kept (one line: a new ``--out``, or
    ``--force``): its runs would otherwise be taken for this plan's. The plan is written
    last and atomically, so a plan that fails (an unknown release) leaves none.
    """
    from iconbench.stacks import releases

    before = Plan.read(out) if (out / PLAN).exists() else None
    if before is not None and not force and before.suite_args != tuple(suite_args):
        raise IconbenchError(
            f"{out / PLAN} plans the suite options {' '.join(before.suite_args) or '(none)'}, "
            f"this call {' '.join(suite_args) or '(none)'}: its runs are not this plan's; give "
            "a new --out, or --force to plan anew (runs that differ are then measured again)"
        )
    for version in dace:
        if not releases.exists("dace", version, find_links=find_links):
            raise IconbenchError(
                f"dace {version}: no such release in the package index"
                + (f" ({find_links})" if find_links else "")
                + "; drop it from --dace"
            )
    declared = {gt4py[0]: dace[0]}
    for version in gt4py[1:]:
        requirement = releases.declared_requirement(version, find_links=find_links)
        declared[version] = releases.newest(requirement, find_links=find_links)
        if declared[version] not in dace:
            raise IconbenchError(
                f"gt4py {version} declares {requirement} ({declared[version]}), which --dace "
                f"does not list ({', '.join(dace)}): add it"
            )
    made = Plan(out, tuple(release_steps.steps(gt4py, dace, declared)), tuple(suite_args))
    if before is not None and not force and before.steps != made.steps:
        raise IconbenchError(
            f"{out / PLAN} plans other steps ({len(before.steps)}: "
            f"{before.steps[0].describe()}, ...) than these releases ({len(made.steps)}); give "
            "a new --out, or --force to plan anew"
        )
    out.mkdir(parents=True, exist_ok=True)
    for stack in made.stacks:
        if not pinned.is_running(stack):
            log(f"releases: overlay {overlay.build(stack, out / 'stacks', find_links=find_links)}")
    made.write()
    return made


def _command(made: Plan, stack: PinnedStack, step: str, *extra: str) -> list[str]:
    place = made.overlay_of(stack)
    return [sys.executable, "-m", "iconbench", *(["--overlay", str(place)] if place else []),
            "suite", step, "--out", str(made.run_dir(stack)), *made.suite_args, *extra]  # fmt: skip


@contextlib.contextmanager
def _children() -> Iterator[list[subprocess.Popen]]:
    """The processes started inside, each in its own process group, ended on every way out.

    A run that fails (an error, an interrupt, a runner's time limit) leaves no
    ``iconbench suite`` compiling on its own: what is still running is terminated, then
    killed, group and all (a suite's own workers with it).
    """
    started: list[subprocess.Popen] = []

    def terminated(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)  # the runner's SIGTERM: through the finally below

    main_thread = threading.current_thread() is threading.main_thread()
    before = signal.signal(signal.SIGTERM, terminated) if main_thread else None
    try:
        yield started
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, before)
        for process in started:
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGTERM)
        for process in started:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def precompile(made: Plan, compile_jobs: int) -> None:
    """Every stack not measured yet precompiled at once, the cores shared between them.

    A stack's precompile is bound by its longest build (one translation and compile), not
    by the cores: seven stacks one after another wait seven times for it, side by side once.
    A stack that breaks ends its precompile at once (its run says so when measured). Every
    command is made (every overlay found) before the first process starts.
    """
    left = [s for s in made.stacks if not (made.run_dir(s) / "summary.json").is_file()]
    if not left:
        return
    each = max(1, compile_jobs // len(left))
    commands = {s.name: _command(made, s, "precompile", "--jobs", str(each)) for s in left}
    log(f"releases: precompiling {len(left)} stacks side by side, {each} processes each")
    with _children() as started:
        for stack in left:
            made.run_dir(stack).parent.mkdir(parents=True, exist_ok=True)
            log_path = made.run_dir(stack).with_name(f"{stack.name}.precompile.log")
            with log_path.open("w", encoding="utf-8") as handle:
                child = subprocess.Popen(
                    commands[stack.name], stdout=handle, stderr=subprocess.STDOUT,
                    start_new_session=True,
                )  # fmt: skip
                started.append(child)
        for process in started:
            process.wait()


def measure(made: Plan, stack: PinnedStack) -> str:
    """``iconbench --overlay STACK suite all`` into the stack's run directory: its state."""
    run = made.run_dir(stack)
    if stored_run(made, stack) is not None:
        return "done"
    command = _command(made, stack, "all")
    log(f"releases: measuring {stack.describe()} into {run}")
    with _children() as started:
        started.append(subprocess.Popen(command, start_new_session=True))
        returncode = started[0].wait()
    if stored_run(made, stack) is not None:
        return "broken" if returncode == 2 else "done"
    raise IconbenchError(f"{stack.describe()}: its run ended with exit {returncode} and "
                         f"no summary.json; its directory: {run}")  # fmt: skip


def compare(made: Plan, step: Step) -> pathlib.Path:
    """The two runs of ``step`` compared (``compare.json``), as two nights are."""
    from iconbench.gate import verdict
    from iconbench.records import resultset

    path = made.step_dir(step) / "compare.json"
    if path.is_file():
        return path
    base, head = (resultset.resolve(str(made.run_dir(s)), label=s.describe())
                  for s in (step.base, step.head))  # fmt: skip
    verdict.compare(base, head).write(path)
    return path


def _versions(stack: PinnedStack) -> dict[str, str]:
    return {pin.package: pin.version for pin in stack.pins}


def release_side(name: str, stack: PinnedStack, place: pathlib.Path | None, out: pathlib.Path):
    """A side of an A/B on ``stack``: its overlay first on the path, its own build cache.

    The programs are the running icon4py's on both sides; the side's commit is iconbench's.
    """
    from iconbench import provenance
    from iconbench.history.backfill import stack_key
    from iconbench.stacks import sides

    commit = provenance.code_commit()
    roots = (place,) if place is not None else ()
    return sides.Side(name, stack.name, commit, roots, out, stack_key(stack, place))


def confirm(made: Plan, step: Step, *, plan_rounds: rounds.Plan, compile_jobs: int) -> pathlib.Path:
    """The flagged benchmarks of ``step`` measured again, interleaved; ``confirmed.json``."""
    from iconbench.check.confirm import jobs
    from iconbench.check.run import measure_again, processes_of
    from iconbench.gate import confirmation
    from iconbench.grids.grid import resolve as resolve_grid
    from iconbench.records.summary import ConfirmationRun, Summary

    directory = made.step_dir(step)
    path = directory / "confirmed.json"
    if path.is_file():
        return path
    summary = Summary.read(directory / "compare.json")
    wanted = jobs(summary)
    if not wanted:
        summary.write(path)
        return path
    work = directory / "confirm"
    if work.exists():  # an A/B stopped before its end (a runner's time limit): kept beside
        stopped = 1 + sum(1 for _ in directory.glob("confirm-stopped-*"))
        work.rename(directory / f"confirm-stopped-{stopped}")
    base, head = (release_side(name, stack, made.overlay_of(stack), work / name)
                  for name, stack in (("base", step.base), ("head", step.head)))  # fmt: skip
    log(f"releases: {step.describe()}: {len(wanted)} flagged case(s) measured again in {work}")
    again = measure_again(
        base, head, wanted, grid=resolve_grid(summary.head.grid.name), plan=plan_rounds,
        out=work, compile_jobs=compile_jobs,
        facts={"confirm": step.describe(), "base": step.base.describe(),
               "head": step.head.describe()},
    )  # fmt: skip
    run = ConfirmationRun(
        created=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        directory=str(work), base=_versions(step.base), head=_versions(step.head),
        rounds=again.rounds, stopped=again.stopped,
    )  # fmt: skip
    confirmed = confirmation.apply(summary, again.summary, processes_of(base, head), run)
    again.timeline.facts["verdicts"] = {
        b.id: b.confirmation.verdict for b in confirmed.benchmarks
        if b.confirmation is not None and b.job in set(wanted)
    }  # fmt: skip
    again.timeline.write()
    confirmed.write(path)
    return path


def run(
    made: Plan,
    *,
    plan_rounds: rounds.Plan,
    compile_jobs: int,
    until: str = "confirm",
    force: bool = False,
) -> dict[str, str]:
    """Measure every stack, then compare and confirm every step; each stack's state.

    ``until``: stop after that phase (``measure``, ``compare``). Resumes where it stopped,
    from what reads back whole and matches the plan (:func:`check_stored`; ``force``: what
    does not is set aside and measured again).
    """
    check_stored(made, force=force)
    for stack in made.stacks:
        made.overlay_of(stack)  # every overlay there before anything starts
    precompile(made, compile_jobs)
    states = {stack.name: measure(made, stack) for stack in made.stacks}
    if until == "measure":
        return states
    for step in made.steps:
        if _broken_both(made, step):
            continue
        compare(made, step)
        if until != "compare":
            confirm(made, step, plan_rounds=plan_rounds, compile_jobs=compile_jobs)
    return states


def _summary_of(made: Plan, stack: PinnedStack) -> dict:
    """The stack's run as :func:`stored_run` reads it (``{}``: not measured yet)."""
    return stored_run(made, stack) or {}


def _broken_both(made: Plan, step: Step) -> bool:
    """Whether no backend ran on one of the two stacks: nothing to compare."""
    return any(not _summary_of(made, s).get("backends") for s in (step.base, step.head))


@dataclasses.dataclass(frozen=True)
class Row:
    """One step of the table: what it measured, what broke, what changed and whose it is."""

    step: Step
    cases: int
    broken: dict[str, str]  # backend -> the one line, on the head stack (new breaks)
    flagged: int
    changes: tuple[tuple[Change, str], ...]  # (confirmed change, its component)
    state: str  # "confirmed" | "compared" | "measured" | "not measured"


def rows(made: Plan) -> list[Row]:
    """The table's rows, from what ``run`` left in ``OUT`` (each file read once)."""
    from iconbench.gate import confirmation
    from iconbench.records import broken
    from iconbench.records.summary import CONFIRMED, Summary

    runs = {stack: _summary_of(made, stack) for stack in made.stacks}
    for step in made.steps:
        stored_step(made, step)
    compared: dict[str, Summary] = {}
    confirmed: dict[str, list[Change]] = {}
    for step in made.steps:
        directory = made.step_dir(step)
        if (directory / "compare.json").is_file():
            compared[step.name] = Summary.read(directory / "compare.json")
        if (directory / "confirmed.json").is_file():
            confirmed[step.name] = [
                Change(b.id, b.confirmation.ratio, tuple(b.confirmation.ratio_ci),  # type: ignore[arg-type]
                       b.threshold_note)
                for b in Summary.read(directory / "confirmed.json").benchmarks
                if b.confirmation is not None and b.confirmation.verdict == CONFIRMED
                and b.confirmation.ratio is not None and b.confirmation.ratio_ci is not None
            ]  # fmt: skip
    by_name = {s.name: s for s in made.steps}
    found = []
    for step in made.steps:
        base, head = runs[step.base], runs[step.head]
        old = broken.of_summary(base)
        new = {b: brk.line() for b, brk in broken.of_summary(head).items() if b not in old}
        measured = [{(c["case"], c["backend"]) for c in run.get("cases", []) if not c.get("error")}
                    for run in (base, head)]  # fmt: skip
        summary = compared.get(step.name)
        # what the gate flagged between the two runs: the gated changes an A/B measures again
        flagged = len(confirmation.flagged(summary)) if summary is not None else 0
        changes = tuple((c, release_steps.attribute(step, c, confirmed, by_name))
                        for c in confirmed.get(step.name, ()))  # fmt: skip
        state = ("confirmed" if step.name in confirmed else "compared" if summary is not None
                 else "measured" if base and head else "not measured")  # fmt: skip
        found.append(Row(step, len(measured[0] & measured[1]), new, flagged, changes, state))
    return found


def table(made: Plan) -> str:
    """The markdown table of :func:`rows`."""
    lines = ["| step | cases measured on both | broken (new on this step) | flagged between the "
             "runs (gated) | confirmed changes (A/B ratio [95 % CI], attributed to) | state |",
             "| --- | ---: | --- | ---: | --- | --- |"]  # fmt: skip
    for row in rows(made):
        broken = "; ".join(f"{b}: `{line}`" for b, line in sorted(row.broken.items())) or "no"
        changes = "; ".join(
            f"{c.benchmark.replace('|', ' ')} {c.ratio:.3f} [{c.ratio_ci[0]:.3f}, "
            f"{c.ratio_ci[1]:.3f}]{f' ({c.below})' if c.below else ''}, {owner}"
            for c, owner in row.changes
        ) or ("none" if row.state == "confirmed" else "–")
        lines.append(f"| {row.step.describe()} | {row.cases} | {broken} | {row.flagged} | "
                     f"{changes} | {row.state} |")  # fmt: skip
    return "\n".join(lines) + "\n"


def record_facts(made: Plan) -> dict:
    """What the site says of a history: GPU, grid, backends, cases a stack, commit, date."""
    runs = [_summary_of(made, s) for s in made.stacks]
    first = next((r for r in runs if r), {})
    gpu = (first.get("provenance", {}).get("gpu") or {}).get("name") or "CPU"
    dates = sorted(p.get("at", 0) for r in runs for p in r.get("phases", []))
    date = (datetime.datetime.fromtimestamp(dates[-1], datetime.UTC).strftime("%Y-%m-%d")
            if dates else "")  # fmt: skip
    return {"gpu": gpu, "grid": first.get("grid", ""), "backends": made.plan_backends(),
            "cases": max((len(r.get("cases", [])) for r in runs), default=0),
            "commit": first.get("commit", ""), "date": date}  # fmt: skip

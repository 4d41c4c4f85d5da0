"""The whole check of one change, phase by phase (the package docstring lists the phases)."""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import re
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from iconbench.check import rounds
from iconbench.check.phases import Timeline
from iconbench.errors import IconbenchError
from iconbench.grids.grid import Grid
from iconbench.programs.backends import Backend
from iconbench.runner.devices import ONE, Device, Devices, measuring_seconds
from iconbench.runner.progress import log
from iconbench.stacks import sides

if TYPE_CHECKING:
    from iconbench.records.summary import Summary


@dataclasses.dataclass(frozen=True)
class Request:
    """What one check is asked to do, resolved from the command line once."""

    component: str
    repo: pathlib.Path
    base: str
    head: str
    out: pathlib.Path
    #: the backends measured, resolved once at the command line (names only in argv, files)
    backends: tuple[Backend, ...]
    grid: Grid
    plan: rounds.Plan
    programs: str = ""  # "": what ``iconbench select`` chooses for the change
    one_variant: bool = False
    full: bool = False
    jobs: int = 1
    #: the pull request to comment on (``OWNER/NAME``, number), if any
    repository: str = ""
    pr: int = 0
    comment_args: tuple[str, ...] = ()
    site: bool = False
    #: a JSON-lines file to append this check's facts and phases to (a record of many checks)
    record: pathlib.Path | None = None
    #: the devices measured on at once, each with its share of the cases
    devices: Devices = ONE
    #: a runner's ``work/``: its ledgers give the selection's time shares and balance the
    #: devices' shares (``None``: ``iconbench select``'s default; the devices get equal counts)
    ledgers: pathlib.Path | None = None
    #: the last phase to run ("": all; "precompile": environments and precompile only)
    until: str = ""

    @property
    def backend_names(self) -> tuple[str, ...]:
        """The names of :attr:`backends`: the commands' ``--backends`` and the record's."""
        return tuple(b.name for b in self.backends)


def _iconbench(*args: str) -> list[str]:
    """The command line of an iconbench command run with this Python."""
    return [sys.executable, "-m", "iconbench", *args]


def _run(command: list[str], what: str) -> str:
    """Run one iconbench step; its own one-line error becomes this check's."""
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    sys.stderr.write(done.stderr)
    if done.returncode != 0:
        lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
        raise IconbenchError(f"{what}: {lines[-1] if lines else f'exit {done.returncode}'}")
    return done.stdout


def select(request: Request) -> tuple[str, bool, str]:
    """The ``--programs`` regex and one-variant flag the change asks for, and why."""
    if request.programs:
        return request.programs, request.one_variant, "--programs given"
    command = _iconbench("select", "--component", request.component, "--repo",
                         str(request.repo), "--base", request.base, "--head", request.head,
                         "--backends", ",".join(request.backend_names), "--json")  # fmt: skip
    if request.full:
        command.append("--full")
    if request.ledgers is not None:
        command += ["--ledgers", str(request.ledgers)]
    chosen = json.loads(_run(command, "select"))
    if chosen["scope"] == "none":
        return "", False, chosen["reason"]
    one_variant = request.one_variant or bool(chosen["one_variant"])
    return on_experiment_grid(request.grid, chosen, one_variant)


def on_experiment_grid(grid: Grid, chosen: dict, one_variant: bool) -> tuple[str, bool, str]:
    """``iconbench select``'s choice (its JSON), made for the speed-up against OpenACC.

    On a grid ICON ran an experiment on, the check's comment compares each side with the
    experiment's OpenACC timers (:func:`iconbench.gate.openacc.for_grid`): the programs its
    timers time together with the selected ones are measured too
    (:func:`openacc_partners`), and a one-variant selection measures the variant the
    experiment's timers time most (:func:`iconbench.runner.cases.most_timed_variants`), not
    the catalog's first. Elsewhere the choice as it is.
    """
    import re

    from iconbench.baselines import experiments
    from iconbench.selection.plan import Selection

    regex, reason = chosen["programs_regex"], chosen["reason"]
    found = experiments.on_grid(grid.name, grid.counts) if chosen["programs"] else []
    if not found:
        return regex, one_variant, reason
    partners = openacc_partners(grid, chosen["programs"])
    if partners:
        programs = tuple(sorted({*chosen["programs"], *partners}))
        with_them = ", ".join(f"{p} (ICON's timer {timer} times it with them)"
                              for p, timer in partners.items())  # fmt: skip
        reason = f"{reason}; and {with_them}"
        regex = Selection(chosen["scope"], programs, one_variant, reason).programs_regex
    if one_variant:
        from iconbench import suite
        from iconbench.runner.cases import most_timed_variants

        cases = most_timed_variants(suite.case_ids(regex, None), found[0])
        regex = "^(?:" + "|".join(re.escape(case) for case in cases) + ")$"
        reason = (f"{reason}; on this grid the variant {found[0].name}'s OpenACC timers time "
                  "most, not the first")  # fmt: skip
        one_variant = False  # the cases are named: the catalog's first variants are not meant
    return regex, one_variant, reason


def openacc_partners(grid: Grid, programs: Sequence[str]) -> dict[str, str]:
    """The programs ICON's timers time together with ``programs`` on an experiment's grid.

    Where the check's grid is one ICON ran an experiment on, its comment compares each side
    with the experiment's OpenACC timers (:func:`iconbench.gate.openacc.for_grid`); a timer
    that times several programs (ICON fuses what icon4py splits) has a speed-up only when the
    check measures all of them. Empty elsewhere, and for a selection of every program.
    """
    from iconbench.baselines import experiments, mapping, store
    from iconbench.selection.subset import timer_partners

    found = experiments.on_grid(grid.name, grid.counts) if programs else []
    if not found:
        return {}
    baseline = store.load(store.default_root(), found[0].baseline)
    return timer_partners(baseline, mapping.load(), programs)


def run(request: Request) -> int:
    """The check; its exit status is the gate's (0 pass, 1 regression), 2 for an error."""
    timeline = start(request)
    with timeline.phase("select"):
        programs, one_variant, reason = select(request)
    timeline.facts |= {"selection": reason, "programs": programs, "one_variant": one_variant}
    log(f"check: selection: {reason}")
    if not programs:
        log("check: no benchmark affected: nothing to measure")
        timeline.facts["verdict"] = "nothing to measure"
        timeline.write()
        return 0
    if request.until == "precompile":
        precompile_only(request, programs, one_variant, timeline)
        timeline.facts["until"] = "precompile"
        timeline.write()
        return 0
    from iconbench.stacks.breakage import BrokenStackError

    try:
        compared = compare(request, programs, one_variant, timeline, explain_early=True)
    except BrokenStackError as broken:
        # a side whose stack cannot make a backend: the pull request hears it, in one line
        timeline.facts |= {"verdict": "broken", "broken": str(broken)}
        timeline.write()
        if request.repository:
            broken_summary(request, str(broken)).write(request.out / "gate-summary.json")
            _comment(request, request.out)
        raise
    base, head, summary, out = compared.base, compared.head, compared.summary, request.out
    from iconbench.gate import table

    print(table.render(summary))
    from iconbench.explain.run import flagged

    if flagged(summary, 1):  # a GPU regression or improvement: what changed in its kernels
        from iconbench.explain.run import explain

        with timeline.phase("why"):  # what was not explained while the builds compiled
            summary = explain(summary, base, head, work=out / "why", grid=request.grid,
                              keep=True)  # fmt: skip
            summary.write(out / "gate-summary.json")
    timeline.facts |= {"verdict": summary.verdict, "counts": dict(summary.counts)}
    status = summary.exit_code
    if request.repository:
        with timeline.phase("comment"):
            timeline.facts["comment_exit"] = _comment(request, out)
    if request.site:
        with timeline.phase("site"):
            _run(_iconbench("publish", str(base.out / "asv"), str(head.out / "asv"),
                            "--gate", str(out / "gate-summary.json"), "--out",
                            str(out / "site")), "site")  # fmt: skip
    timeline.facts["exit"] = status
    timeline.write()
    if request.record is not None:
        timeline.record().append_to(request.record)
    return status


def start(request: Request) -> Timeline:
    """``OUT``, and the record of the check's phases in it (what was asked, so far)."""
    from iconbench.timing import host_speed

    request.out.mkdir(parents=True, exist_ok=True)
    return Timeline(request.out, facts={
        "component": request.component, "base_ref": request.base, "head_ref": request.head,
        "backends": list(request.backend_names), "grid": request.grid.name,
        "host": host_speed.describe(),
    })  # fmt: skip


@dataclasses.dataclass(frozen=True)
class Compared:
    """Both commits of a change, measured interleaved and gated (:func:`compare`)."""

    base: sides.Side
    head: sides.Side
    summary: Summary


def compare(
    request: Request,
    programs: str,
    one_variant: bool,
    timeline: Timeline,
    *,
    explain_early: bool = False,
) -> Compared:
    """Environments, precompile, measure, gate: the cases ``programs`` selects, on both commits.

    The part of a check between its selection and its explanation, and the whole of
    ``iconbench continuous``: each commit's tree first on the path of this stack
    (:mod:`iconbench.stacks.sides`), then :func:`compare_sides` (``explain_early``: the
    check's, which explains what it flags).
    """
    base, head, jobs, selection = environments(request, programs, one_variant, timeline)
    summary = compare_sides(
        base,
        head,
        jobs,
        selection,
        plan=request.plan,
        grid=request.grid,
        out=request.out,
        compile_jobs=request.jobs,
        timeline=timeline,
        devices=request.devices,
        ledgers=request.ledgers,
        component=request.component,
        explain_early=explain_early,
    )
    return Compared(base, head, summary)


def environments(
    request: Request, programs: str, one_variant: bool, timeline: Timeline
) -> tuple[sides.Side, sides.Side, list[tuple[str, str]], list[str]]:
    """Both sides resolved (the environments phase), their cases and their runner options."""
    from iconbench.stacks.identity import stack_key

    with timeline.phase("environments"):
        jobs = _jobs(programs, one_variant, request.backend_names)  # a typo: one line, nothing made
        base, head = sides.resolve(
            request.component,
            request.repo,
            (request.base, request.head),
            out=request.out,
            stack=stack_key(),
        )
    timeline.facts |= {"base": base.commit, "head": head.commit, "cases": len(jobs)}
    selection = ["--backends", ",".join(request.backend_names), *request.grid.argv,
                 "--programs", programs] + (["--one-variant"] if one_variant else [])  # fmt: skip
    return base, head, jobs, selection


def precompile_only(request: Request, programs: str, one_variant: bool, timeline: Timeline) -> None:
    """Environments and precompile, no measuring: both commits' builds into the runner's cache.

    A runner that keeps its build cache can have main's builds made before its pull requests'
    checks ask for them (``iconbench check --base main --head main --until precompile``): a
    check then compiles only the programs its head changes.
    """
    base, head, jobs, selection = environments(request, programs, one_variant, timeline)
    precompile = Precompile(base, head, selection, request.jobs, timeline, jobs, request.grid,
                            request.ledgers)  # fmt: skip
    precompile()
    precompile.record()


@dataclasses.dataclass
class Precompile:
    """Both sides' precompile as a phase of ``timeline``, and what it met in the build cache."""

    base: sides.Side
    head: sides.Side
    selection: list[str]
    jobs: int
    timeline: Timeline
    #: the (case, backend) pairs, their grid and a runner's ledgers (expected compile times):
    #: the compile processes are shared between the sides by what each has left to compile
    pairs: Sequence[tuple[str, str]] = ()
    grid: Grid | None = None
    ledgers: pathlib.Path | None = None
    since: float | None = None
    linked: int = 0
    #: the cores its compiles run on (empty: any): off the measuring cores while a check
    #: measures beside it
    cores: tuple[int, ...] = ()

    def __call__(self) -> None:
        from iconbench.timing import host_speed

        self.since = time.time()
        # how fast the host runs Python under the compiles' load (timing/host_speed)
        with host_speed.sampled() as speeds, self.timeline.phase("precompile"):
            self.linked, processes = _precompile((self.base, self.head), self.selection,
                                                 self.jobs, pairs=self.pairs, grid=self.grid,
                                                 ledgers=self.ledgers,
                                                 cores=self.cores)  # fmt: skip
        self.timeline.facts["compile_processes"] = processes
        if (speed := host_speed.summarize(speeds)) is not None:
            self.timeline.facts.setdefault("host", {})["precompile_python_us"] = speed

    def record(self) -> None:
        """``builds`` in check.json: per side, its builds compiled, found, linked (if it ran)."""
        from iconbench.check import cache_state

        if self.since is None:
            return
        states = [cache_state.side_builds(self.base, self.since),
                  cache_state.side_builds(self.head, self.since, linked=self.linked)]  # fmt: skip
        self.timeline.facts["builds"] = cache_state.check_builds(states, ("base", "head"))
        log(f"check: builds {self.timeline.facts['builds']}")
        self.timeline.facts["longest_builds"] = cache_state.longest_builds(
            (self.base, self.head), self.since
        )


def compare_sides(
    base: sides.Side,
    head: sides.Side,
    jobs: Sequence[tuple[str, str]],
    selection: list[str],
    *,
    plan: rounds.Plan,
    grid: Grid,
    out: pathlib.Path,
    compile_jobs: int,
    timeline: Timeline,
    devices: Devices = ONE,
    ledgers: pathlib.Path | None = None,
    component: str = "",
    explain_early: bool = False,
) -> Summary:
    """Precompile, measure interleaved and gate two resolved sides; the gate's summary.

    Both precompiled side by side (nothing to compile when every backend is embedded) while
    the first measuring workers start up, then measured in alternating fresh workers on each
    of ``devices`` until the gate decides (:func:`measure_sides`), then each side's asv files
    and summary (``OUT/base``, ``OUT/head``) and the verdict (``OUT/gate-summary.json``); the
    phases in ``timeline``.
    ``selection`` is the runner options every process of a side gets (``--backends``, the
    grid's argv, ``--programs``); ``component`` the repository whose commits the two are
    (the summary's, for its commit links and status; "": iconbench's default).
    ``explain_early``: a check measuring GPU cases while it compiles explains the flagged
    ones while its last builds compile (:mod:`iconbench.check.early_why`); the summary holds
    those explanations the gate still stands by.
    """
    from iconbench.programs import backends as registry

    precompile = Precompile(base, head, selection, compile_jobs, timeline, jobs, grid, ledgers)
    compiled = not all(registry.backend(name).is_embedded for name in {b for _, b in jobs})
    if plan.while_compiling and plan.measure_cores:  # the compiles off the measuring cores
        precompile.cores = rounds.startup_cores(plan)
    early = None
    if explain_early and compiled and plan.while_compiling:
        from iconbench.check.early_why import EarlyWhy

        if any(registry.backend(name).on_gpu for _, name in jobs):
            early = EarlyWhy(base, head, grid, out / "why", jobs)
    shares = devices.shares(jobs, {})
    if len(devices) > 1:  # balanced by the ledgers' measuring times
        shares = devices.shares(jobs, measuring_seconds(ledgers))
        log(f"check: {devices.describe_shares(shares)}")
    with timeline.phase("measure"):  # the precompile's phase inside counts for itself
        done = measure_sides(base, head, shares, selection, plan=plan, grid=grid, scratch=out,
                             meanwhile=precompile if compiled else None,
                             while_waiting=early)  # fmt: skip
    from iconbench.runner import turn as turns

    # the workers' turn files are protocol, not results: gone on every road that measures two
    # sides here (check, continuous, a backfill's confirmation); a failure keeps them
    turns.forget(out / "rounds")
    timeline.facts |= {"rounds": done.rounds, "blocks": done.blocks, "stopped": done.stopped,
                       "measure_split": {"startup": done.startup_s, "measuring": done.measuring_s,
                                         "deciding": done.deciding_s,
                                         "during_precompile": done.during_precompile_s,
                                         "why_during_precompile": done.explained_s,
                                         "started_early": done.started_early},
                       "devices": list(done.devices)}  # fmt: skip
    log(f"check: {done.rounds} rounds in {done.seconds:.0f}s ({done.stopped})")
    precompile.record()  # after measuring: a measuring process may have compiled
    with timeline.phase("gate"):
        summary = _gate(base, head, selection, out, component)
    if early is not None and early.found:
        summary = early.kept(summary)
        summary.write(out / "gate-summary.json")
    return summary


def case_selection(
    cases: Sequence[str], backends: Sequence[str], grid_argv: Sequence[str], experiment: str = ""
) -> list[str]:
    r"""The runner's options that select exactly ``cases`` on ``backends``, on a grid.

    >>> case_selection(["a[x=1]"], ["gtfn_cpu"], ["--grid", "tiny"])
    ['--backends', 'gtfn_cpu', '--grid', 'tiny', '--programs', '^(?:a\\[x=1\\])$']
    """
    pattern = "^(?:" + "|".join(re.escape(case) for case in sorted(set(cases))) + ")$"
    args = ["--backends", ",".join(sorted(set(backends))), *grid_argv, "--programs", pattern]
    return args + (["--experiment", experiment] if experiment else [])


@dataclasses.dataclass(frozen=True)
class Remeasured:
    """Benchmarks measured again, interleaved (:func:`measure_again`): the A/B's answer.

    ``processes``: per benchmark id, ``"N+M"``, the processes of base and head that measured
    it; ``rounds``: processes in all; ``stopped``: why the rounds ended.
    """

    summary: Summary
    processes: dict[str, str]
    rounds: int
    stopped: str
    timeline: Timeline


def measure_again(
    base: sides.Side,
    head: sides.Side,
    jobs: Sequence[tuple[str, str]],
    *,
    grid: Grid,
    plan: rounds.Plan,
    out: pathlib.Path,
    compile_jobs: int,
    facts: dict | None = None,
    experiment: str = "",
) -> Remeasured:
    """``jobs`` (case, backend) of two resolved sides, measured against each other in ``out``.

    The A/B of whatever two separate measurements left in doubt: a backfill's change point
    (:mod:`iconbench.history.confirm`), a nightly's flagged benchmarks
    (:mod:`iconbench.check.confirm`), a bisection's step (:mod:`iconbench.bisection.interleaved`).
    Each is a check of exactly those cases (:func:`compare_sides`): both sides precompiled,
    then measured in alternating fresh processes, ABBA BAAB, until the gate has decided, the
    measuring worker on cores of its own (one beside a GPU, as a check pins it), and gated
    with the process as the unit. ``facts`` go into ``out/check.json`` with the phase times.
    """
    from iconbench.programs import backends as registry

    on_gpu = all(registry.backend(backend).on_gpu for _, backend in jobs)
    measuring = dataclasses.replace(plan, measure_cores=rounds.measuring_cores(on_gpu))
    selection = case_selection([c for c, _ in jobs], [b for _, b in jobs], grid.argv, experiment)
    out.mkdir(parents=True, exist_ok=True)
    timeline = Timeline(out, facts={**(facts or {}), "cases": len(jobs)})
    summary = compare_sides(base, head, jobs, selection, plan=measuring, grid=grid, out=out,
                            compile_jobs=compile_jobs, timeline=timeline)  # fmt: skip
    return Remeasured(summary, processes_of(base, head), int(timeline.facts.get("rounds", 0)),
                      str(timeline.facts.get("stopped", "")), timeline)  # fmt: skip


def processes_of(base: sides.Side, head: sides.Side) -> dict[str, str]:
    """Per benchmark id, ``"N+M"``: how many processes of base and of head measured it."""
    from iconbench.records import resultset

    found = [resultset.resolve(str(side.out), label=side.name).entries for side in (base, head)]

    def count(entry: resultset.Entry | None) -> int:
        if entry is None:
            return 0
        return len(entry.groups) or (1 if entry.samples else 0)

    keys = sorted(found[0].keys() | found[1].keys())
    return {key: f"{count(found[0].get(key))}+{count(found[1].get(key))}" for key in keys}


def measure_sides(
    base: sides.Side,
    head: sides.Side,
    shares: Sequence[tuple[int, Device, Sequence[tuple[str, str]]]],
    selection: list[str],
    *,
    plan: rounds.Plan,
    grid: Grid,
    scratch: pathlib.Path,
    meanwhile: Callable[[], None] | None = None,
    while_waiting: rounds.WhileWaiting | None = None,
) -> rounds.Rounds:
    """Base and head in alternating rounds (``scratch/rounds``) until the gate has decided.

    The measure phase of a check; a backfill's confirmation of a change point
    (:mod:`iconbench.history.confirm`) measures a commit against its parent the same way.
    ``meanwhile``: the precompile, run while the first workers start up
    (:func:`iconbench.check.rounds.measure`); while it runs, the gate is asked which of the
    benchmarks measured so far it would measure again (:func:`_open_so_far`).
    """
    most = 2 * plan.max_blocks
    return rounds.measure(
        {"base": base, "head": head},
        shares,
        selection,
        plan=plan,
        scratch=scratch / "rounds",
        decided=lambda processes: _reason_to_stop(base, head, grid, processes, most),
        meanwhile=meanwhile,
        while_waiting=while_waiting,
        open_early=lambda processes, measured: _open_so_far(
            base, head, grid, processes, most=most, measured=measured
        ),
    )


def _jobs(programs: str, one_variant: bool, backends: tuple[str, ...]) -> list[tuple[str, str]]:
    """The (case, backend) pairs of the selection; one line when it matches nothing."""
    from iconbench import suite
    from iconbench.timing.compilation import jobs_for

    cases = suite.case_ids(programs, None, one_variant=one_variant)  # none: names the nearest
    firsts = set(suite.first_variants(cases))
    ordered = sorted(cases, key=lambda case: case not in firsts)
    return [pair for case in ordered for pair in jobs_for([case], backends)]


def _precompile(
    both: tuple[sides.Side, sides.Side],
    selection: list[str],
    jobs: int,
    *,
    pairs: Sequence[tuple[str, str]] = (),
    grid: Grid | None = None,
    ledgers: pathlib.Path | None = None,
    cores: tuple[int, ...] = (),
) -> tuple[int, dict[str, int]]:
    """Both sides' builds, side by side, each built once where the generated code is the same.

    Where base and head share a build cache (an icon4py change, or a change of comments
    alone) each side still translates its programs (their IR holds its tree's paths), but a
    program whose generated code is the same is built once: gt4py locks a build folder while
    one process builds it, and a pool worker that finds it locked takes another job and comes
    back to it later (:mod:`iconbench.runner.busy_builds`), so both pools take their longest
    compiles first. (They took the jobs in opposite orders before, to meet in the middle: that
    started head's longest compiles last.) Otherwise the head's cache first gets the build
    folders the base's cache kept from earlier checks or nights
    (:func:`iconbench.stacks.sides.link_builds`; DaCe's by the identity of their SDFG,
    :mod:`iconbench.timing.sdfg_identity`). Side by side, not one after the other: from empty
    caches, a gt4py change's base and head took 219 s and 198 s one after the other on an H100
    host; each is bound by its longest translation (up to 192 s), not by the cores. The
    ``jobs`` compile processes are shared in proportion to what each side has left to compile
    (:func:`iconbench.runner.precompile.split_processes`; expected seconds from ``ledgers``,
    builds the compile index knows left out): with main's builds cached, head compiles on
    every core. ``cores``: those the compiles run on (all where empty). Returns the number of
    build folders linked into head's cache and each side's compile processes.
    """
    from iconbench.runner.precompile import split_processes

    base, head = both
    linked = 0
    if base.stack != head.stack:
        linked = sides.link_builds(base, head)
        log(f"check: head's build cache has base's {linked} build folders")
    work = [_compile_seconds_left(side, pairs, grid, ledgers) for side in both]
    processes = dict(zip(("base", "head"), split_processes(work, jobs), strict=True))
    log(f"check: compile processes: base {processes['base']}, head {processes['head']} "
        f"(compile seconds expected: base {work[0]:.0f}, head {work[1]:.0f})")  # fmt: skip
    ordered = ["--shard-ledgers", str(ledgers)] if ledgers is not None else []  # longest first
    _wait([_start_precompile(side, selection + ordered, processes[side.name], cores)
           for side in both])  # fmt: skip
    return linked, processes


def _compile_seconds_left(
    side: sides.Side,
    pairs: Sequence[tuple[str, str]],
    grid: Grid | None,
    ledgers: pathlib.Path | None,
) -> float:
    """What ``side`` is expected to compile: its pairs' compile seconds, the indexed ones out.

    Without pairs or grid every side weighs the same (an even split of the processes).
    """
    if not pairs or grid is None:
        return 1.0
    from iconbench.records.compilation import CompileLedger
    from iconbench.runner.precompile import pending_seconds
    from iconbench.timing.compile_index import CompileIndex, Sources

    cache = sides.build_cache(side.stack)
    index = CompileIndex(cache.parent, cache, side.stack, Sources.of(side.sources, side.identity))
    known = ledgers is not None and (ledgers / "compile.jsonl").exists()
    expected = CompileLedger(ledgers / "compile.jsonl").expected_seconds() if known else None
    return pending_seconds(pairs, index, grid, expected or (lambda _case, _backend: 1.0))


def _start_precompile(side: sides.Side, selection: list[str], jobs: int, cores: tuple[int, ...]):
    command = _iconbench("suite", "precompile", "--out", str(side.out), *side.runner_options(),
                         *selection, "--jobs", str(jobs))  # fmt: skip
    side.out.mkdir(parents=True, exist_ok=True)
    log_path = side.out / "precompile.log"
    with log_path.open("w", encoding="utf-8") as handle:
        process = subprocess.Popen(
            command, env=side.environment(), stdout=handle, stderr=subprocess.STDOUT
        )
    if cores and hasattr(os, "sched_setaffinity"):  # before it starts its compile processes
        os.sched_setaffinity(process.pid, set(cores))
    return side, process, log_path


def _wait(started: list) -> None:
    """Wait for the precompiles; a case that did not compile ends the check (one line).

    A side whose stack cannot make a backend ends it with the line that says where the stack
    breaks (:mod:`iconbench.records.broken`, written by that side's precompile).

    A compile that fails on head only is the pull request's doing, one that fails on both
    the runner's: either way there is nothing to compare, and measuring would fail later
    with a less telling message.
    """
    from iconbench.records import broken
    from iconbench.records.compilation import CompileLedger

    for side, process, log_path in started:
        if process.wait() != 0 and (breaks := broken.read(side.out / "work")):
            raise broken.error(breaks, side=side.name, where=f"{side.name} ({side.commit[:12]})")
        if process.returncode != 0:
            raise IconbenchError(
                f"precompile of {side.name} ({side.commit[:12]}) failed (exit "
                f"{process.returncode}); its log: {log_path}"
            )
    for side, _process, log_path in started:
        ledger = CompileLedger(side.out / "work" / "compile.jsonl")
        failed = [r for r in ledger.records() if r.stack == side.stack and r.error]
        if failed:
            example = failed[-1]
            reason = (example.error or "").strip().splitlines()[-1:] or ["no message"]
            raise IconbenchError(
                f"{len(failed)} case(s) of {side.name} ({side.commit[:12]}) did not compile, "
                f"e.g. {example.case} on {example.backend}: {reason[0][:300]}; its log: {log_path}"
            )


def _reason_to_stop(
    base: sides.Side, head: sides.Side, grid: Grid, processes: int, most: int
) -> str | frozenset[tuple[str, str]]:
    """Why to stop measuring, judged by the gate on what the ledgers hold now, or what to go on.

    Going on, the cases the next blocks measure: those of the benchmarks that keep the check
    measuring (:func:`iconbench.check.stopping.keeping_on`).
    """
    from iconbench.check import stopping

    summary = stopping.ledger_verdict(base, head, grid)
    reason = stopping.reason_to_stop(summary.benchmarks, processes, most)
    if reason is not None:
        return reason
    return frozenset(b.job for b in stopping.keeping_on(summary.benchmarks, processes, most))


def _open_so_far(
    base: sides.Side,
    head: sides.Side,
    grid: Grid,
    processes: int,
    *,
    most: int,
    measured: frozenset[tuple[str, str]],
) -> frozenset[tuple[str, str]]:
    """The cases of ``measured`` whose benchmarks the gate would measure another block for.

    Asked while the precompile still runs, on what the ledgers hold then: ``measured`` are the
    cases every round so far has measured, whose benchmarks have ``processes`` a side as they
    will at the first decision (:func:`iconbench.check.stopping.keeping_on`). Their later
    blocks can then be measured while the last builds compile.
    """
    from iconbench.check import stopping

    summary = stopping.ledger_verdict(base, head, grid)
    kept = stopping.keeping_on(summary.benchmarks, processes, most)
    return frozenset(b.job for b in kept if b.job in measured)


def _gate(
    base: sides.Side, head: sides.Side, selection: list[str], out: pathlib.Path, component: str = ""
) -> Summary:
    """Each side's asv files and summary, then the verdict (``OUT/gate-summary.json``).

    With each side's speed-up against the OpenACC baseline of the experiment ICON ran on the
    grid (:func:`iconbench.gate.openacc.for_grid`), or the one line why there is none.
    """
    written = []
    for side in (base, head):
        command = _iconbench("suite", "asv", "--out", str(side.out), "--stack", side.stack,
                             *selection, "--commit", side.commit)  # fmt: skip
        written.append(subprocess.Popen(command, env=side.environment()))
    if any(process.wait() != 0 for process in written):
        raise IconbenchError(f"writing the result files of {base.out} or {head.out} failed")
    from iconbench.gate import openacc, verdict
    from iconbench.records import resultset

    measured = [
        resultset.resolve(str(side.out), label=f"{side.name} {side.commit[:12]}")
        for side in (base, head)
    ]
    if component:  # a runner directory does not record whose commit it measured
        measured = [dataclasses.replace(side, component=component) for side in measured]
    speedups, why_not = openacc.for_grid(*measured)
    summary = verdict.compare(*measured, openacc=speedups)
    if why_not:
        if openacc.applies(measured[1]):  # on a grid no experiment runs on it says nothing
            log(f"check: {why_not}")
        summary = dataclasses.replace(summary, openacc_note=why_not)
    summary.write(out / "gate-summary.json")
    return summary


def broken_summary(request: Request, line: str) -> Summary:
    """The gate summary of a check that a side's broken stack ended: verdict ``error``, its line.

    The comment and the commit status read it as any failed run ("The benchmark run failed
    (head (1a2b3c4d5e6f): gtfn_cpu: stack … is broken: …): no verdict on this change").
    """
    import datetime

    from iconbench import __version__
    from iconbench.gate.config import GateConfig
    from iconbench.records.resultset import Grid as SideGrid
    from iconbench.records.summary import VERDICTS, Side, Summary
    from iconbench.stacks import trees

    grid = SideGrid(request.grid.name)
    sides = [
        Side(label=name, commit=trees.resolve_commit(request.repo, ref),
             component=request.component, date=None, stack={}, machine={}, grid=grid,
             source=str(request.out / name))
        for name, ref in (("base", request.base), ("head", request.head))
    ]  # fmt: skip
    return Summary(
        created=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        verdict="error",
        exit_code=2,
        base=sides[0],
        head=sides[1],
        settings=GateConfig.default().settings(),
        counts=dict.fromkeys(VERDICTS, 0),
        benchmarks=(),
        error=line,
        generated_by=f"iconbench {__version__} check",
    )  # fmt: skip


def _comment(request: Request, out: pathlib.Path) -> int:
    """Post the comment and status; a failure is reported beside the verdict, never as it."""
    command = _iconbench("comment", str(out / "gate-summary.json"), "--repo",
                         request.repository, "--pr", str(request.pr),
                         *request.comment_args)  # fmt: skip
    done = subprocess.run(command, check=False)
    if done.returncode != 0:
        log(f"check: the bot could not post (exit {done.returncode}); the verdict stands")
    return done.returncode

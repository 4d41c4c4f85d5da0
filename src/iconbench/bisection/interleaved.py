"""Bisect a confirmed regression by interleaved A/Bs: each step's commit against the good one.

``asv find`` measures each commit once, one after another, and descends into the half with
the larger change: on a GPU runner one sample per commit lets the host's noise choose the half.
Here every step measures the middle commit of the open range against the good commit (the
last nightly's), both in one job in alternating fresh processes, exactly as a pull-request
check measures a change (:func:`iconbench.check.run.measure_again`), and calls it **bad** when
the A/B's own verdict of the benchmark is the regression's (beyond the gate's threshold at its
false discovery rate), **good** otherwise. About ``log2(commits)`` A/Bs, each kept in its own
directory and recorded (:class:`~iconbench.records.summary.BisectStep`: commit, verdict, ratio,
interval, processes). The other components stay as the running environment has them; the
good side's tree and builds are the same at every step (exported and built once). A commit
whose stack cannot make the backend (the head side breaks, :mod:`iconbench.stacks.breakage`)
is a bad step with the verdict ``broken``: a break is a regression of its own, and bisecting
it finds the first commit that made it.

The bad end is measured first, unless the caller's A/B already measured it against good
(``known_bad``: the nightly's confirmation, when only this component moved): a regression that
another component brought does not show in this one's range, and then there is no first bad
commit here (:class:`NotInRangeError`).
"""

from __future__ import annotations

import dataclasses
import pathlib

from iconbench.bisection.find import Record, first_parents, git
from iconbench.check import rounds
from iconbench.errors import IconbenchError
from iconbench.grids.grid import Grid
from iconbench.records.summary import BenchmarkResult, BisectStep, Summary
from iconbench.runner.progress import log

METHOD = "interleaved A/B"


class NotInRangeError(IconbenchError):
    """The bad end of the range does not show the regression against good: not this range's."""


@dataclasses.dataclass(frozen=True)
class Target:
    """The benchmark bisected (``case|backend|metric``) and the verdict a bad step shows.

    >>> Target("compute_tangential_wind[default]|gtfn_gpu|device_time").case
    'compute_tangential_wind[default]'
    """

    id: str
    verdict: str = "regression"

    @property
    def case(self) -> str:
        return self.id.split("|")[0]

    @property
    def backend(self) -> str:
        return self.id.split("|")[1]


@dataclasses.dataclass(frozen=True)
class Request:
    """One bisection: a component's range, the regressed benchmark, how to measure a step."""

    repo: pathlib.Path
    component: str
    good: str
    bad: str
    target: Target
    grid: Grid
    plan: rounds.Plan
    work: pathlib.Path
    compile_jobs: int = 1
    repository: str = ""
    #: the bad end against good, measured already (``None``: measure it first)
    known_bad: BisectStep | None = None


#: A step's verdict where the commit's stack cannot make the backend (a bad step).
BROKEN = "broken"


def search(commits: list[str], is_bad) -> tuple[str, int]:
    """The first bad commit of ``commits`` (oldest first, the last known bad) and the tests.

    ``is_bad(commit)``: the step's verdict. Binary search: ``ceil(log2(len(commits)))`` steps.

    >>> calls = []
    >>> search(list("abcdefghijklm"), lambda c: calls.append(c) or c >= "g"), calls
    (('g', 3), ['f', 'i', 'g'])
    """
    low, high, steps = -1, len(commits) - 1, 0
    while high - low > 1:
        middle = (low + high) // 2
        steps += 1
        if is_bad(commits[middle]):
            high = middle
        else:
            low = middle
    return commits[high], steps


def find(request: Request) -> Record:
    """The first bad commit of ``good..bad`` for the request's benchmark (module doc)."""
    from iconbench.check.run import measure_again
    from iconbench.stacks import sides
    from iconbench.stacks.identity import stack_key

    repo, component, target = request.repo, request.component, request.target
    good, bad, commits = first_parents(repo, request.good, request.bad)
    case = target.case
    stack, repos = stack_key(), {component: repo}
    steps: list[BisectStep] = []
    measured: dict[str, BenchmarkResult | None] = {}

    from iconbench.stacks.breakage import BrokenStackError

    def step(commit: str) -> BisectStep:
        directory = request.work / f"{len(steps) + 1:02d}-{commit[:12]}"
        base, head = (
            sides.of_commits(name, sha, {component: sha}, repos, out=directory / name, stack=stack)
            for name, sha in (("base", good), ("head", commit))
        )
        log(f"bisect: step {len(steps) + 1}: {component} {commit[:12]} against {good[:12]} "
            f"({target.id})")  # fmt: skip
        try:
            again = measure_again(
                base, head, [(case, target.backend)], grid=request.grid, plan=request.plan,
                out=directory, compile_jobs=request.compile_jobs,
                facts={"bisect": component, "good": good, "step": commit, "benchmark": target.id},
            )  # fmt: skip
        except BrokenStackError as error:
            if error.side != "head":
                raise  # the good end breaks: nothing in this range can be measured against it
            # a commit whose stack cannot make the backend is bad: a break is a regression
            measured[commit] = None
            done = BisectStep(commit=commit, bad=True, verdict=BROKEN, ratio=None,
                              ratio_ci=None, processes="0+0", directory=str(directory))  # fmt: skip
            steps.append(done)
            log(f"bisect: {commit[:12]} is bad: {error}")
            return done
        result = next((b for b in again.summary.benchmarks if b.id == target.id), None)
        measured[commit] = result
        done = BisectStep(
            commit=commit,
            bad=result is not None and result.verdict == target.verdict,
            verdict=result.verdict if result else "missing",
            ratio=result.ratio if result else None,
            ratio_ci=result.ratio_ci if result else None,
            processes=again.processes.get(target.id, "0+0"),
            directory=str(directory),
        )
        steps.append(done)
        log(f"bisect: {commit[:12]} is {'bad' if done.bad else 'good'}: {done.verdict} "
            f"{_interval(done)}, {done.processes} processes")  # fmt: skip
        return done

    known = request.known_bad
    if known is not None:
        steps.append(known)
    else:
        known = step(bad)
        if not known.bad:
            raise NotInRangeError(
                f"{component} {good[:12]}..{bad[:12]}: its bad end does not show the "
                f"{target.verdict} of {target.id} against good ({known.verdict} "
                f"{_interval(known)}): not in this range; bisect the component that moved it"
            )
    first_bad, _ = search(commits, lambda commit: step(commit).bad)
    found = next((s for s in reversed(steps) if s.commit == first_bad), known)
    result = measured.get(first_bad)
    return Record(
        component=component,
        repository=request.repository,
        benchmark=target.id,
        good=good,
        bad=bad,
        first_bad=first_bad,
        parent=git(repo, "rev-parse", f"{first_bad}^"),
        subject=git(repo, "log", "-1", "--format=%s", first_bad),
        url=_commit_url(component, request.repository, first_bad),
        ratio=found.ratio,
        before=result.base.median if result and result.base else None,
        after=result.head.median if result and result.head else None,
        commits=len(commits),
        method=METHOD,
        steps=tuple(steps),
    )


def known_bad(
    summary: Summary, bench: BenchmarkResult, component: str, good: str, bad: str
) -> BisectStep | None:
    """The bad end against good, where the summary's confirmation measured just that.

    The nightly's confirmation (:mod:`iconbench.check.confirm`) put the last nightly's trees
    first on one side and tonight's on the other: where only ``component`` moved, and from
    ``good`` to ``bad``, its A/B of ``bench`` is this range's bad end measured against good.
    ``None`` otherwise (the bisection measures the bad end first).
    """
    run, confirmation = summary.confirmation_run, bench.confirmation
    if run is None or confirmation is None or not confirmation.confirmed:
        return None
    if run.base != {component: good} or run.head != {component: bad}:
        return None
    return BisectStep(commit=bad, bad=True, verdict=confirmation.gate_verdict,
                      ratio=confirmation.ratio, ratio_ci=confirmation.ratio_ci,
                      processes=confirmation.processes, directory=run.directory)  # fmt: skip


def _interval(step: BisectStep) -> str:
    if step.ratio is None or step.ratio_ci is None:
        return "(no interval)"
    return f"{step.ratio:.3f}x [{step.ratio_ci[0]:.3f}, {step.ratio_ci[1]:.3f}]"


def _commit_url(component: str, repository: str, commit: str) -> str:
    """The commit's page: on GitHub's ``repository``, else the component's own repository.

    >>> _commit_url("icon4py", "", "ab12")
    'https://github.com/C2SM/icon4py/commit/ab12'
    >>> _commit_url("fake", "", "ab12"), _commit_url("fake", "me/fake", "ab12")
    ('', 'https://github.com/me/fake/commit/ab12')
    """
    from iconbench.stacks.spec import COMPONENTS

    if repository:
        return f"https://github.com/{repository}/commit/{commit}"
    known = COMPONENTS.get(component)
    return f"{known.default_url.removesuffix('.git')}/commit/{commit}" if known else ""

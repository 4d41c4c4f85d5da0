"""The pull-request check's wall time on one GPU host for each kind of change.

Each row is one kind of change, its selection (:func:`iconbench.selection.plan.select`) and
what it costs with the runner's ledgers (:mod:`iconbench.selection.cost`):

- base (main of the repository under test) is built and measured by the nightly run, so its
  gt4py build cache is warm: its cases only load (nothing compiles), they are measured again;
- head: with a gt4py or dace change every selected case compiles cold (gt4py salts its build
  folders with its version); with an icon4py change the runner's cache (kept between jobs,
  ``ICONBENCH_SHARED_BUILD_CACHE=1``: the stack's own, with the build folders of the runner's
  other stacks linked in, :mod:`iconbench.stacks.shared_builds`) holds main's builds, and
  gt4py finds every program whose generated code is unchanged (its build folder is named by
  a fingerprint of the generated source), so only the affected programs compile;
- both sides are measured (cases one after the other on the one GPU).
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Sequence

from iconbench.programs.imports import ProgramIndex
from iconbench.selection.cost import CostModel, Estimate
from iconbench.selection.plan import Selection, select
from iconbench.selection.subset import Shares


@dataclasses.dataclass(frozen=True)
class Scenario:
    """One kind of change: what the check runs and what it costs."""

    change: str
    selection: Selection
    cases: int
    estimate: Estimate


def scenarios(
    *,
    model: CostModel,
    index: ProgramIndex,
    catalog: dict[str, str],
    shares: Shares,
    all_cases: Sequence[str],
    backends: Sequence[str],
    failing: set[tuple[str, str]],
    processes: int,
    compile: bool = True,
) -> list[Scenario]:
    """The rows of the cost table (docs/ci-check.md), computed from the ledgers.

    ``compile=False``: every build is already in the cache (nothing compiles).
    """

    def pairs(cases: Sequence[str]) -> list[tuple[str, str]]:
        return [(c, b) for c in cases for b in backends]

    def row(change: str, chosen: Selection, *, cold: bool, sides: int = 2) -> Scenario:
        cases = chosen.cases(all_cases)
        every = pairs(cases)
        measured = [p for p in every if p not in failing] * sides
        # warm (icon4py, seeded cache): only the affected programs compile, i.e. all selected
        compiled = every if compile and (cold or chosen.scope == "programs") else []
        return Scenario(change, chosen, len(cases), model.estimate(compiled, measured, processes))

    def pick(component: str, files: Sequence[str], full: bool = False) -> Selection:
        return select(component, files, index=index, catalog=catalog, shares=shares, full=full)

    by_module: dict[str, list[str]] = {}
    for module in sorted(set(catalog.values())):
        affected = pick("icon4py", [_path_of(module)])
        if affected.scope == "programs":
            by_module.setdefault(module, list(affected.programs))
    sizes = sorted(by_module.items(), key=lambda item: (len(item[1]), item[0]))
    median_module = sizes[len(sizes) // 2][0] if sizes else ""
    largest_module = sizes[-1][0] if sizes else ""
    rows = [
        row("icon4py: tests, docs or CI files only", pick("icon4py", ["README.md"]), cold=False),
    ]
    if median_module:
        count = statistics.median(len(v) for v in by_module.values())
        rows.append(
            row(
                f"icon4py: one program module (median: {median_module.rsplit('.', 1)[-1]}, "
                f"{count:g} programs use it)",
                pick("icon4py", [_path_of(median_module)]),
                cold=False,
            )
        )
        rows.append(
            row(
                "icon4py: the program module most others use "
                f"({largest_module.rsplit('.', 1)[-1]})",
                pick("icon4py", [_path_of(largest_module)]),
                cold=False,
            )
        )
    rows += [
        row("gt4py or dace (any change)", pick("gt4py", ["src/gt4py/next/x.py"]), cold=True),
        row(
            "icon4py: dependencies or a module every program imports",
            pick("icon4py", ["pyproject.toml"]),
            cold=True,
        ),
        row("'/benchmark full' on a gt4py or dace PR", pick("gt4py", [], full=True), cold=True),
        row("nightly, per main (one side)", pick("gt4py", [], full=True), cold=True, sides=1),
    ]
    return rows


def _path_of(module: str) -> str:
    """A repository path of ``module`` (the monorepo layout; enough for :func:`module_of`).

    >>> _path_of("icon4py.model.atmosphere.dycore.stencils.x")
    'model/src/icon4py/model/atmosphere/dycore/stencils/x.py'
    """
    return "model/src/" + module.replace(".", "/") + ".py"


def table(rows: Sequence[Scenario], *, processes: int, backends: Sequence[str]) -> str:
    """The rows as a Markdown table (minutes)."""
    lines = [
        f"| change | runs | cases x {len(backends)} backends | compile | measure | total |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        e = r.estimate
        lines.append(
            f"| {r.change} | {r.selection.scope} | {r.cases} | "
            f"{e.compile_s / 60:.1f} min ({e.compiled} on {processes} workers) | "
            f"{e.measure_s / 60:.1f} min ({e.measured}) | **{e.total_s / 60:.1f} min** |"
        )
    return "\n".join(lines)

"""The pull-request check's selection: from a change to the programs it runs.

Rules (docs/ci-check.md, "What a change selects"):

- ``/benchmark full`` and the nightly run: every case (all static variants) of every program.
- a gt4py or dace change can change every program's generated code: the representative subset
  (:mod:`iconbench.selection.subset`), first variant of each program.
- an icon4py change: the programs whose module is, or imports, a changed module
  (:mod:`iconbench.programs.imports`), all their variants; a change of the dependencies
  (``pyproject.toml``, ``uv.lock``) or of a module every program imports is treated like a
  gt4py change; tests, docs and CI files affect no program.
"""

from __future__ import annotations

import dataclasses
import pathlib
import re
from collections.abc import Iterable, Sequence

from iconbench.errors import IconbenchError
from iconbench.programs.imports import ProgramIndex, module_of
from iconbench.selection.subset import Shares, representative

COMPONENTS = ("gt4py", "dace", "icon4py", "iconbench")
#: Files of icon4py whose change affects every program (its dependencies).
DEPENDENCY_FILES = re.compile(r"(^|/)(pyproject\.toml|uv\.lock|requirements[^/]*\.txt)$")


@dataclasses.dataclass(frozen=True)
class Selection:
    """What a check runs: ``scope`` none | programs | representative | full."""

    scope: str
    programs: tuple[str, ...]
    one_variant: bool
    reason: str

    @property
    def programs_regex(self) -> str:
        r"""The ``--programs`` regex of the selection (empty: everything).

        >>> Selection("programs", ("a", "b.c"), False, "").programs_regex
        '^(?:a|b\\.c)\\['
        >>> Selection("full", (), False, "").programs_regex
        ''
        """
        if self.scope == "full":
            return ""
        if not self.programs:
            return "^$"  # matches no case id
        return "^(?:" + "|".join(re.escape(p) for p in self.programs) + r")\["

    def cases(self, all_cases: Iterable[str]) -> list[str]:
        """The case ids of ``all_cases`` this selection runs."""
        from iconbench.suite import first_variants

        chosen = [c for c in all_cases if re.search(self.programs_regex, c)]
        return first_variants(chosen) if self.one_variant else chosen

    def as_dict(self) -> dict:
        return dataclasses.asdict(self) | {"programs_regex": self.programs_regex}


def select(
    component: str,
    changed_files: Sequence[str],
    *,
    index: ProgramIndex,
    catalog: dict[str, str],
    shares: Shares,
    full: bool = False,
    coverage: float = 0.8,
) -> Selection:
    """The selection for a change of ``changed_files`` in ``component``."""
    if component not in COMPONENTS:
        raise IconbenchError(
            f"unknown component {component!r}; choose one of: {', '.join(COMPONENTS)}"
        )

    def subset(why: str) -> Selection:
        chosen = tuple(p for p in representative(shares, coverage=coverage) if p in catalog)
        return Selection(
            "representative",
            chosen,
            True,
            f"{why}: the {len(chosen)} programs with {coverage:.0%} of the {shares.source}, "
            "first variant each ('/benchmark full' runs all)",
        )

    if full:
        return Selection("full", (), False, "full suite requested")
    if component in ("gt4py", "dace", "iconbench"):
        return subset(f"a {component} change can change every program")
    if any(DEPENDENCY_FILES.search(path) for path in changed_files):
        return subset("icon4py's dependencies changed")
    modules = {m for m in (module_of(path) for path in changed_files) if m}
    if not modules:
        return Selection("none", (), False, "no icon4py source module changed (tests, docs, CI)")
    by_module: dict[str, set[str]] = {}
    for name, module in catalog.items():
        by_module.setdefault(module, set()).add(name)
    affected = {name for module in index.dependents(modules) for name in by_module.get(module, ())}
    if len(affected) == len(catalog):
        return subset(f"{', '.join(sorted(modules))} is imported by every program")
    if not affected:
        return Selection("none", (), False, f"no program uses the changed modules ({len(modules)})")
    return Selection(
        "programs",
        tuple(sorted(affected)),
        False,
        f"{len(affected)} programs use the {len(modules)} changed icon4py modules",
    )


def changed_files(
    repo: pathlib.Path, base: str, head: str, *, component: str = "--repo"
) -> list[str]:
    """Files changed between the merge base of ``base`` and ``head`` (as GitHub shows a PR).

    Both refs are resolved first (:func:`iconbench.stacks.resolve.commit_of`), so a missing
    ref or a ``repo`` that is no checkout is one line naming it, not git's usage text.
    """
    import subprocess

    from iconbench.stacks.resolve import commit_of

    if not repo.is_dir():
        raise IconbenchError(f"--repo {repo}: no such directory; give a checkout of {component}")
    commits = [commit_of(component, str(repo), ref) for ref in (base, head)]
    done = subprocess.run(
        ["git", "-C", str(repo), "diff", "--name-only", "{}...{}".format(*commits)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or ["no output"])[0]
        raise IconbenchError(
            f"{repo}: cannot diff {base}...{head} ({reason}); fetch both refs with their "
            "history (git fetch origin BASE HEAD)"
        )
    return [line for line in done.stdout.splitlines() if line]

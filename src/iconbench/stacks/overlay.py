"""A stack other than the running one, as a directory put first on the path: an overlay.

The three stacks of a stretch of icon4py's history differ in gt4py and dace alone (gt4py
1.1.12 → 1.2.0 → 1.2.1 with dace 2.0.0a4 → a5 → a6 between icon4py 0.3.0 and 0.4.1: their
other dependencies resolve to the same versions), and both are pure Python. So a commit's
stack is the running environment with that gt4py and dace installed into a directory of
their own (``uv pip install --target``, no dependencies) that the commit's processes find
first on ``PYTHONPATH``, as they find the commit's icon4py tree: 13 s for two stacks with
uv's cache warm and 33 MB on disk each (4 MB as ``.tar.xz``) instead of an environment per
stack, and it travels to a GPU runner without network as it is. What the overlay's
packages require from the rest is checked against the environment that uses it
(:func:`unmet`), so a stack whose dependencies did move says so in one line instead of
failing inside gt4py.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import json
import os
import pathlib
import shutil
import sys
import tempfile

from iconbench.errors import IconbenchError
from iconbench.files.atomic import write_atomic
from iconbench.imported import OVERLAY_MARKER
from iconbench.stacks.pinned import PinnedStack
from iconbench.stacks.uvtool import last_line, pip_install

#: The file that marks a complete overlay and names its stack (written last).
MARKER = OVERLAY_MARKER


def default_dir() -> pathlib.Path:
    """Where overlays live unless ``--stacks`` says otherwise: ``<iconbench cache>/stacks``."""
    from iconbench.buildcache import cache_root

    return cache_root() / "stacks"


def find(stack: PinnedStack, directory: pathlib.Path) -> pathlib.Path | None:
    """The complete overlay of ``stack`` under ``directory``, else ``None``."""
    path = directory / stack.name
    try:
        recorded = json.loads((path / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return path if isinstance(recorded, dict) and recorded.get("stack") == stack.as_dict() else None


@dataclasses.dataclass(frozen=True)
class Unmet:
    """One requirement of a package in an overlay that neither it nor this environment meets.

    >>> Unmet("dace 2.0.0a10", "scikit-build", None).line()
    'dace 2.0.0a10 needs scikit-build, which this environment lacks'
    >>> Unmet("gt4py 1.1.12", "numpy>=2.5", "2.4.6").line()
    'gt4py 1.1.12 needs numpy>=2.5, this environment has 2.4.6'
    """

    who: str  # the requiring distribution and its version
    requirement: str
    have: str | None  # the version this environment has; None: it lacks the package

    def line(self) -> str:
        why = (
            "which this environment lacks"
            if self.have is None
            else f"this environment has {self.have}"
        )
        return f"{self.who} needs {self.requirement}, {why}"


def unmet_requirements(site: pathlib.Path) -> list[Unmet]:
    """What the packages in ``site`` require and neither ``site`` nor this environment meets."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    dists = [importlib.metadata.PathDistribution(p) for p in sorted(site.glob("*.dist-info"))]
    inside = {canonicalize_name(d.metadata["Name"]): d.version for d in dists}
    problems = []
    for dist in dists:
        for text in dist.requires or []:
            requirement = Requirement(text)
            if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
                continue
            version = inside.get(canonicalize_name(requirement.name))
            if version is None:
                try:
                    version = importlib.metadata.version(requirement.name)
                except importlib.metadata.PackageNotFoundError:
                    version = None
            who = f"{dist.metadata['Name']} {dist.version}"
            if version is None or not requirement.specifier.contains(version, prereleases=True):
                problems.append(Unmet(who, str(requirement), version))
    return problems


def unmet(site: pathlib.Path) -> list[str]:
    """:func:`unmet_requirements`, one line each (``gt4py 1.1.12 needs numpy>=2.5, ...``)."""
    return [problem.line() for problem in unmet_requirements(site)]


def _add_missing(site: pathlib.Path, find_links: pathlib.Path | None) -> list[str]:
    """Install into ``site`` what its packages require and this environment lacks entirely.

    A newer release may need a package the pinned stack never did (dace 2.0.0a10:
    ``scikit-build``); it goes into the overlay beside it, at the newest version the
    requirement allows, and is named in the overlay's marker. A version this environment
    has but that does not fit stays a problem (:func:`unmet`): shadowing numpy would change
    every measurement of the stack, not only gt4py's and dace's code.
    """
    added: list[str] = []
    for _round in range(4):  # what the added packages need in turn
        missing = [u.requirement for u in unmet_requirements(site) if u.have is None]
        if not missing:
            break
        done = pip_install(site, *sorted(set(missing)), find_links=find_links)
        if done.returncode != 0:
            raise IconbenchError(f"installing {', '.join(missing)} into the overlay failed "
                                 f"({last_line(done)})")  # fmt: skip
        added += missing
    return sorted(set(added))


def resolve(name_or_path: str) -> pathlib.Path:
    """The overlay named ``name_or_path``: a directory, or a name under :func:`default_dir`."""
    for path in (pathlib.Path(name_or_path), default_dir() / name_or_path):
        if (path / MARKER).is_file():
            return path.resolve()
    known = sorted(p.parent.name for p in default_dir().glob(f"*/{MARKER}"))
    raise IconbenchError(
        f"--overlay {name_or_path}: no overlay there (a directory with {MARKER}, or one of: "
        f"{', '.join(known) or 'none built'}); make it with 'iconbench stack build "
        "gt4py==VERSION dace==VERSION'"
    )


def enter(name_or_path: str, argv: list[str]) -> None:
    """Run ``iconbench ARGV`` again with the overlay first on the path (never returns).

    The path is fixed at interpreter start for this process and every worker it starts, so
    the command is run anew; what it records then names the overlay's versions
    (:mod:`iconbench.imported`) and builds into that stack's own cache.
    """
    path = resolve(name_or_path)
    rest = os.environ.get("PYTHONPATH", "")
    os.environ["PYTHONPATH"] = os.pathsep.join([str(path), *([rest] if rest else [])])
    sys.stdout.flush()
    os.execv(sys.executable, [sys.executable, "-m", "iconbench", *argv])


def build(
    stack: PinnedStack, directory: pathlib.Path, *, find_links: pathlib.Path | None = None
) -> pathlib.Path:
    """Install ``stack``'s gt4py and dace into ``directory/<stack name>`` (kept; built once).

    ``find_links``: a directory of wheels to install from instead of the registries (a
    runner without network). Built under a temporary name and moved into place once
    complete, so a killed build leaves no overlay that looks whole.
    """
    found = find(stack, directory)
    if found is not None:
        return found
    directory.mkdir(parents=True, exist_ok=True)
    scratch = pathlib.Path(tempfile.mkdtemp(dir=directory, prefix=".tmp-"))
    try:
        for pin in stack.pins:
            done = pip_install(scratch, pin.requirement, find_links=find_links, index=pin.index)
            if done.returncode != 0:
                reason = last_line(done)
                where = f" from {find_links}" if find_links is not None else ""
                raise IconbenchError(
                    f"stack {stack.describe()}: installing {pin.requirement}{where} failed "
                    f"({reason})"
                )
        added = _add_missing(scratch, find_links)
        from iconbench.stacks.prune import prune

        prune(scratch)  # what no run reads (DaCe's viewer): half of a packed overlay
        problems = unmet(scratch)
        if problems:
            raise IconbenchError(
                f"stack {stack.describe()}: {problems[0]}"
                + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else "")
                + "; an overlay changes gt4py and dace only: use an environment of its own"
            )
        write_atomic(
            scratch / MARKER,
            json.dumps(
                {"stack": stack.as_dict(), "python": sys.version.split()[0], "added": added},
                indent=1,
            ),
        )
        scratch.chmod(0o755)  # mkdtemp's 0700 would hide it from a runner of another user
        path = directory / stack.name
        try:
            os.replace(scratch, path)
        except OSError:  # another build finished first
            if find(stack, directory) is None:
                raise
        return path
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

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
from iconbench.stacks.pinned import Pin, PinnedStack
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


@dataclasses.dataclass(frozen=True)
class Overlay:
    """A complete overlay: its directory and the stack its marker names."""

    path: pathlib.Path
    stack: PinnedStack

    def describe(self) -> str:
        """``gt4py 1.2.3 + dace 2.0.0a10 (overlay /path)``."""
        return f"{self.stack.describe()} (overlay {self.path})"


#: The environment variable naming the overlay a command was run again on (:func:`enter`).
ENVIRONMENT = "ICONBENCH_OVERLAY"


def read_marker(path: pathlib.Path) -> PinnedStack:
    """The stack ``path``'s marker names, read whole; one line when it does not parse."""
    from iconbench.files.decode import load_json

    marker = path / MARKER
    remake = f"remove {path} and make it again with 'iconbench stack build gt4py==V dace==V'"
    data = load_json(marker, hint=remake)
    try:
        pins = tuple(
            Pin(package, **{k: str(v) for k, v in data["stack"][package].items() if k != "package"})
            for package in ("gt4py", "dace")
        )
    except (KeyError, TypeError, AttributeError) as error:
        raise IconbenchError(
            f"{marker}: not an overlay marker (no stack {error}); {remake}"
        ) from None
    return PinnedStack(pins)


def _check_packages(path: pathlib.Path, stack: PinnedStack) -> None:
    """One line when ``path`` lacks a package its marker names (at the named version)."""
    from packaging.utils import canonicalize_name

    there = {
        canonicalize_name(d.metadata["Name"] or ""): d.version
        for d in importlib.metadata.distributions(path=[str(path)])
    }
    for pin in stack.pins:
        found = there.get(canonicalize_name(pin.package))
        if found != pin.version:
            has = f"has {pin.package} {found}" if found else f"has no {pin.package}"
            raise IconbenchError(
                f"overlay {path}: its marker names {pin.describe()}, the directory {has}; "
                "remove it and make it again with 'iconbench stack build gt4py==V dace==V'"
            )


def resolve(name_or_path: str) -> Overlay:
    """The overlay named ``name_or_path`` (a directory, or a name under :func:`default_dir`).

    Only a complete one: its marker read whole and its packages there, else one line.
    """
    if not name_or_path.strip():
        raise IconbenchError(
            "--overlay '': give an overlay's name or directory "
            "(made by 'iconbench stack build gt4py==V dace==V')"
        )
    for path in (pathlib.Path(name_or_path), default_dir() / name_or_path):
        if (path / MARKER).is_file():
            stack = read_marker(path)
            _check_packages(path, stack)
            return Overlay(path.resolve(), stack)
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
    path = resolve(name_or_path).path
    rest = os.environ.get("PYTHONPATH", "")
    os.environ["PYTHONPATH"] = os.pathsep.join([str(path), *([rest] if rest else [])])
    os.environ[ENVIRONMENT] = str(path)
    sys.stdout.flush()
    os.execv(sys.executable, [sys.executable, "-m", "iconbench", *argv])


def check_imported() -> Overlay | None:
    """The overlay this process runs on (:data:`ENVIRONMENT`), checked against the imports.

    Before anything is measured: the gt4py and dace Python imports must be the overlay's,
    at its versions; else the pinned stack would be measured under the overlay's name.
    """
    from iconbench.imported import imported

    place = os.environ.get(ENVIRONMENT)
    if not place:
        return None
    found = resolve(place)
    for pin in found.stack.pins:
        got = imported(pin.package)
        if got.root is None or got.root.resolve() != found.path or got.version != pin.version:
            raise IconbenchError(
                f"--overlay {found.path}: Python imports {got.describe()}, not the overlay's "
                f"{pin.describe()}; run 'iconbench --overlay {found.path} ...' with no other "
                "gt4py or dace before it on PYTHONPATH"
            )
    return found


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
    if (directory / stack.name).exists():  # written whole or not at all: this one is damaged
        try:
            reason = f"its marker names {read_marker(directory / stack.name).describe()}"
        except IconbenchError as error:
            reason = str(error).split("; remove")[0]
        raise IconbenchError(
            f"{directory / stack.name} is no complete overlay of {stack.describe()} ({reason}); "
            f"remove it (rm -r {directory / stack.name}) and build it again"
        )
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

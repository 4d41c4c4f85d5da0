"""A stack of any gt4py and dace release, in combinations no icon4py lock pins.

``iconbench stack build gt4py==1.2.3`` names one release; the other component is what that
release declares (gt4py 1.2.3's metadata: ``dace==2.0.0a10``; gt4py 1.2.2's
``dace>=2.0.0a7,<2.0.0a8``: the newest release inside it) or, for ``dace==2.0.0a9`` alone,
this environment's gt4py (dace changed alone). A combination a release does not declare is
built all the same, and said so: measuring gt4py 1.2.1 with each newer dace is how a change
is attributed to dace.
"""

from __future__ import annotations

import pathlib
import re
import tempfile

from iconbench.errors import IconbenchError
from iconbench.stacks.pinned import PACKAGES, Pin, PinnedStack
from iconbench.stacks.uvtool import last_line, pip_install

_RELEASE = re.compile(r"^(?P<package>[A-Za-z0-9_.-]+)==(?P<version>[A-Za-z0-9_.!+-]+)$")


def parse(specs: list[str]) -> dict[str, str]:
    """``{"gt4py": "1.2.3"}`` from ``gt4py==1.2.3``; one line for anything else.

    >>> parse(["gt4py==1.2.3", "dace==2.0.0a10"])
    {'gt4py': '1.2.3', 'dace': '2.0.0a10'}
    >>> parse(["numpy==2"])
    Traceback (most recent call last):
    iconbench.errors.IconbenchError: stack build: 'numpy==2' is not a release of gt4py or dace; \
give gt4py==VERSION and/or dace==VERSION
    """
    found: dict[str, str] = {}
    for spec in specs:
        match = _RELEASE.match(spec.strip())
        if match is None or match["package"] not in PACKAGES:
            raise IconbenchError(
                f"stack build: {spec!r} is not a release of gt4py or dace; give gt4py==VERSION "
                "and/or dace==VERSION"
            )
        found[match["package"]] = match["version"]
    return found


def declared_requirement(gt4py: str, *, find_links: pathlib.Path | None = None) -> str:
    """What gt4py release ``gt4py`` requires of dace (``dace==2.0.0a10``), from its metadata."""
    import importlib.metadata

    with tempfile.TemporaryDirectory() as scratch:
        done = pip_install(scratch, f"gt4py=={gt4py}", find_links=find_links)
        if done.returncode != 0:
            raise IconbenchError(
                f"stack build: gt4py {gt4py} could not be fetched ({last_line(done)})"
            )
        dist = next(importlib.metadata.distributions(path=[scratch]))
        for text in dist.requires or []:
            if re.match(r"^dace\b", text) and ";" not in text:
                return text.replace(" ", "")
    raise IconbenchError(f"stack build: gt4py {gt4py} declares no requirement on dace")


def exists(package: str, version: str, *, find_links: pathlib.Path | None = None) -> bool:
    """Whether the package index (or ``find_links``) has release ``version`` of ``package``."""
    with tempfile.TemporaryDirectory() as scratch:
        done = pip_install(scratch, f"{package}=={version}", find_links=find_links,
                           options=("--dry-run", "--quiet", "--prerelease", "allow"))  # fmt: skip
    return done.returncode == 0


def newest(requirement: str, *, find_links: pathlib.Path | None = None) -> str:
    """The version an installer picks for ``requirement`` (``dace>=2.0.0a7,<2.0.0a8``)."""
    exact = re.fullmatch(r"dace==([A-Za-z0-9_.!+-]+)", requirement)
    if exact:
        return exact[1]
    with tempfile.TemporaryDirectory() as scratch:
        done = pip_install(scratch, requirement, find_links=find_links,
                           options=("--dry-run", "--prerelease", "allow"))  # fmt: skip
    picked = re.search(r"\+ dace==(\S+)", done.stdout + done.stderr)
    if done.returncode != 0 or picked is None:
        raise IconbenchError(f"stack build: no dace release satisfies {requirement}")
    return picked[1]


def stack(specs: list[str], *, find_links: pathlib.Path | None = None) -> PinnedStack:
    """The stack ``specs`` name, the missing component filled in (see the module)."""
    from iconbench.imported import imported

    given = parse(specs)
    gt4py = given.get("gt4py") or imported("gt4py").version
    dace = given.get("dace") or newest(
        declared_requirement(gt4py, find_links=find_links), find_links=find_links
    )
    return PinnedStack((Pin("gt4py", gt4py), Pin("dace", dace)))


def declared(stack: PinnedStack, *, find_links: pathlib.Path | None = None) -> str:
    """``''`` where gt4py declares the stack's dace, else the one line that says it does not."""
    from packaging.requirements import Requirement

    gt4py, dace = stack.pin("gt4py").version, stack.pin("dace").version
    requirement = Requirement(declared_requirement(gt4py, find_links=find_links))
    if requirement.specifier.contains(dace, prereleases=True):
        return ""
    return f"gt4py {gt4py} declares {requirement}; dace {dace} is measured with it all the same"

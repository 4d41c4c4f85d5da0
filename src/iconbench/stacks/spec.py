"""What a stack is: the three components (gt4py, dace, icon4py), each pinned by one ref.

A stack is what a benchmark number depends on. Each component is either a *released
version* (what the lock pins, or any version on PyPI) or a *git ref* of a repository (a URL
or a local checkout). The text form is what users type on the command line::

    gt4py=../gt4py@my-branch      a branch, tag or commit of a local checkout
    dace=https://github.com/GridTools/dace.git@main
    icon4py==0.4.1                a released version
    gt4py                         what icon4py's lock pins (the default)
"""

from __future__ import annotations

import dataclasses
import re

from iconbench.errors import IconbenchError


@dataclasses.dataclass(frozen=True)
class Component:
    """One upstream: its name, the distributions it installs and where they live in its repo.

    ``subdirs`` are the installable projects inside the repository (icon4py is a uv
    workspace of several distributions; gt4py and dace are one project at the root).
    """

    name: str
    distributions: tuple[str, ...]
    subdirs: tuple[str, ...]
    default_url: str


#: The three components of a stack, in display order.
COMPONENTS: dict[str, Component] = {
    "gt4py": Component("gt4py", ("gt4py",), (".",), "https://github.com/GridTools/gt4py.git"),
    "dace": Component("dace", ("dace",), (".",), "https://github.com/GridTools/dace.git"),
    "icon4py": Component(
        "icon4py",
        (
            "icon4py-common",
            "icon4py-atmosphere-dycore",
            "icon4py-atmosphere-diffusion",
            "icon4py-testing",
        ),
        ("model/common", "model/atmosphere/dycore", "model/atmosphere/diffusion", "model/testing"),
        "https://github.com/C2SM/icon4py.git",
    ),
}


def component(name: str) -> Component:
    """The component called ``name``; a clear error for anything else.

    >>> component("gt4py").distributions
    ('gt4py',)
    """
    try:
        return COMPONENTS[name]
    except KeyError:
        raise IconbenchError(
            f"unknown stack component {name!r}; choose one of: {', '.join(COMPONENTS)}"
        ) from None


@dataclasses.dataclass(frozen=True)
class ComponentRef:
    """How one component of a stack is chosen: a released version or a git ref of a repo.

    ``version=None`` and ``ref=None`` means "what the lock pins".
    """

    component: str
    version: str | None = None
    repo: str | None = None
    ref: str | None = None

    @property
    def is_git(self) -> bool:
        return self.ref is not None

    def __str__(self) -> str:
        if self.is_git:
            return f"{self.component}={self.repo}@{self.ref}"
        if self.version:
            return f"{self.component}=={self.version}"
        return self.component


_SPEC = re.compile(
    r"^(?P<name>[a-z0-9]+)"
    r"(?:==(?P<version>[^@=\s]+)|=(?P<repo>[^@\s]+?)(?:@(?P<ref>[^@\s]+))?)?$"
)


def parse_ref(text: str) -> ComponentRef:
    """Parse ``name``, ``name==VERSION`` or ``name=REPO[@REF]`` (REF defaults to HEAD).

    >>> parse_ref("gt4py=../gt4py@main")
    ComponentRef(component='gt4py', version=None, repo='../gt4py', ref='main')
    >>> parse_ref("dace==2.0.0b1").version
    '2.0.0b1'
    >>> parse_ref("icon4py=https://github.com/C2SM/icon4py.git").ref
    'HEAD'
    """
    match = _SPEC.match(text.strip())
    if not match:
        raise IconbenchError(
            f"cannot parse stack component {text!r}; write NAME, NAME==VERSION or "
            "NAME=REPO@REF (e.g. gt4py=../gt4py@main)"
        )
    name = component(match["name"]).name
    if match["repo"]:
        return ComponentRef(name, repo=match["repo"], ref=match["ref"] or "HEAD")
    return ComponentRef(name, version=match["version"])


@dataclasses.dataclass(frozen=True)
class Stack:
    """One :class:`ComponentRef` per component; missing ones default to the lock's pins."""

    refs: tuple[ComponentRef, ...]

    @classmethod
    def parse(cls, texts: list[str] | tuple[str, ...] = ()) -> Stack:
        """A stack from command-line words; components not named take the lock's pins.

        >>> [str(r) for r in Stack.parse(["dace==2.0.0b1"]).refs]
        ['gt4py', 'dace==2.0.0b1', 'icon4py']
        """
        given: dict[str, ComponentRef] = {}
        for text in texts:
            ref = parse_ref(text)
            if ref.component in given:
                raise IconbenchError(f"stack component {ref.component!r} is given twice")
            given[ref.component] = ref
        return cls(tuple(given.get(name, ComponentRef(name)) for name in COMPONENTS))

    def get(self, name: str) -> ComponentRef:
        return next(ref for ref in self.refs if ref.component == component(name).name)

"""The stack an icon4py commit pins in its own ``uv.lock``: gt4py and dace, typed.

icon4py's lock is what its CI ran each commit with, so a commit measured on any other gt4py
or dace is measured on a stack nobody tested it with (a gt4py bump is itself a commit of
icon4py's history, the one most likely to move a program). A commit's stack is read from
``git show COMMIT:uv.lock`` once, into a :class:`PinnedStack`, and passed on.

The lock names where each pin comes from: a release of a registry (PyPI, or GridTools' own
index for DaCe's dated builds) or a commit of a git repository. Both are kept: a git pin
``1.0.4.post625`` is not the release of that number.
"""

from __future__ import annotations

import dataclasses
import pathlib
import re
import subprocess

from iconbench.errors import IconbenchError
from iconbench.stacks import upstreamlock

#: The packages of icon4py's lock that make a stack (its own code comes from the commit).
PACKAGES = ("gt4py", "dace")
#: The registry a pin needs no index option for.
PYPI = "https://pypi.org/simple"


@dataclasses.dataclass(frozen=True)
class Pin:
    """One package as a lock pins it: version, and ``registry`` URL or ``git`` URL + commit."""

    package: str
    version: str
    registry: str = ""
    git: str = ""  # repository URL, without the query and fragment uv adds
    commit: str = ""

    @property
    def requirement(self) -> str:
        """What an installer is given: ``gt4py==1.2.0`` or ``gt4py @ git+URL@COMMIT``.

        >>> Pin("dace", "1.0.0", git="https://github.com/GridTools/dace", commit="74bb").requirement
        'dace @ git+https://github.com/GridTools/dace@74bb'
        """
        if self.git:
            return f"{self.package} @ git+{self.git}@{self.commit}"
        return f"{self.package}=={self.version}"

    @property
    def index(self) -> str | None:
        """The registry to install from where it is not PyPI (else ``None``)."""
        return self.registry if self.registry and self.registry.rstrip("/") != PYPI else None

    def describe(self) -> str:
        """``gt4py 1.2.0``; a git pin with its commit (``dace 1.0.0 (git 74bb66ac28b7)``)."""
        return f"{self.package} {self.version}" + (f" (git {self.commit[:12]})" if self.git else "")


@dataclasses.dataclass(frozen=True)
class PinnedStack:
    """gt4py and dace as one icon4py commit's lock pins them."""

    pins: tuple[Pin, ...]

    def pin(self, package: str) -> Pin:
        return next(p for p in self.pins if p.package == package)

    @property
    def name(self) -> str:
        """A directory name for the stack: ``gt4py-1.2.0_dace-2.0.0a5`` (git pins: + commit).

        >>> PinnedStack((Pin("gt4py", "1.2.0"), Pin("dace", "43!2026.2.12"))).name
        'gt4py-1.2.0_dace-43-2026.2.12'
        """
        parts = []
        for pin in self.pins:
            part = f"{pin.package}-{pin.version}" + (f"-g{pin.commit[:12]}" if pin.git else "")
            parts.append(re.sub(r"[^A-Za-z0-9._-]", "-", part))
        return "_".join(parts)

    def describe(self) -> str:
        """``gt4py 1.2.0 + dace 2.0.0a5``."""
        return " + ".join(pin.describe() for pin in self.pins)

    def as_dict(self) -> dict[str, dict[str, str]]:
        return {p.package: {k: v for k, v in dataclasses.asdict(p).items() if v} for p in self.pins}


def _pin(package: str, entry: dict, origin: str) -> Pin:
    source = entry.get("source") or {}
    if "git" in source:
        url, _, commit = str(source["git"]).partition("#")
        return Pin(package, entry["version"], git=url.split("?")[0], commit=commit)
    if "registry" in source or not source:
        return Pin(package, entry["version"], registry=str(source.get("registry", PYPI)))
    raise IconbenchError(
        f"{origin}: {package} {entry['version']} comes from {source}, neither a registry nor "
        "git; a backfill installs only those"
    )


def from_lock(text: str, origin: str) -> PinnedStack:
    r"""The stack a ``uv.lock`` text pins; one line when it pins no single gt4py or dace.

    >>> lock = '''
    ... [[package]]
    ... name = "gt4py"
    ... version = "1.2.0"
    ... source = { registry = "https://pypi.org/simple" }
    ... [[package]]
    ... name = "dace"
    ... version = "2025.11.5"
    ... source = { git = "https://github.com/GridTools/dace?tag=x#7a0d7512" }
    ... '''
    >>> from_lock(lock, "uv.lock").describe()
    'gt4py 1.2.0 + dace 2025.11.5 (git 7a0d7512)'
    """
    found = upstreamlock.locked_packages(text, PACKAGES, origin)
    pins = []
    for package in PACKAGES:
        entries = found.get(package, [])
        if len(entries) != 1:
            what = "no" if not entries else f"{len(entries)} versions of"
            raise IconbenchError(
                f"{origin}: the lock pins {what} {package}; a commit's stack needs exactly one"
            )
        pins.append(_pin(package, entries[0], origin))
    return PinnedStack(tuple(pins))


def of_commit(repo: pathlib.Path, commit: str) -> PinnedStack:
    """The stack ``commit`` of the icon4py repository ``repo`` pins in its ``uv.lock``."""
    origin = f"{repo}@{commit[:12]}:uv.lock"
    done = subprocess.run(
        ["git", "-C", str(repo), "show", f"{commit}:uv.lock"],
        capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
    if done.returncode != 0:
        raise IconbenchError(
            f"{origin}: no lock at that commit ({done.stderr.strip().splitlines()[-1:]}); "
            "its stack is unknown: leave it out of the range"
        )
    return from_lock(done.stdout, origin)


def running() -> dict[str, dict[str, str]]:
    """gt4py and dace of the running environment (:func:`identity.environment_stack`)."""
    from iconbench.stacks.identity import environment_stack

    stack = environment_stack()
    return {package: stack[package] for package in PACKAGES}


def is_running(stack: PinnedStack, installed: dict[str, dict[str, str]] | None = None) -> bool:
    """Whether the running environment is ``stack``: each release's version, each git commit.

    >>> s = PinnedStack((Pin("gt4py", "1.2.1"), Pin("dace", "2.0.0a6")))
    >>> here = {"gt4py": {"version": "1.2.1", "source": "release"},
    ...         "dace": {"version": "2.0.0a6", "source": "release"}}
    >>> is_running(s, here), is_running(s, {**here, "dace": {"version": "2.0.0a5"}})
    (True, False)
    """
    installed = running() if installed is None else installed
    for pin in stack.pins:
        entry = installed.get(pin.package, {})
        if pin.git:
            if not entry.get("commit") or not pin.commit.startswith(entry["commit"][:12]):
                return False
        elif entry.get("version") != pin.version or "commit" in entry:
            return False
    return True


def describe_running(installed: dict[str, dict[str, str]] | None = None) -> str:
    """``gt4py 1.2.1 + dace 2.0.0a6``: the running environment, as a stack is described."""
    installed = running() if installed is None else installed
    return " + ".join(
        f"{package} {installed[package]['version']}"
        + (f" (git {installed[package]['commit'][:12]})" if "commit" in installed[package] else "")
        for package in PACKAGES
    )

"""The versions a stack defaults to: what icon4py's lock pins for gt4py, dace and icon4py.

iconbench's ``uv.lock`` is resolved from icon4py's own pins (``icon4py-common`` requires
``gt4py==…``; gt4py requires ``dace>=…``), so it is the one file that says which release of
each component "main" means; the components not under test are installed from it.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.metadata
import pathlib
import subprocess
import tomllib

from iconbench.buildcache import REPO_ROOT
from iconbench.errors import IconbenchError
from iconbench.stacks.spec import COMPONENTS, component

#: The lock of the iconbench project environment.
LOCK_FILE = REPO_ROOT / "uv.lock"


@functools.cache
def locked_versions(lock_file: pathlib.Path = LOCK_FILE) -> dict[str, str]:
    """Every package of the lock with its pinned version."""
    try:
        data = tomllib.loads(lock_file.read_text())
    except OSError as error:
        raise IconbenchError(
            f"cannot read the lock {lock_file}: {error}; run ci/ensure-env"
        ) from error
    return {package["name"]: package["version"] for package in data.get("package", [])}


def pinned_version(name: str, lock_file: pathlib.Path = LOCK_FILE) -> str:
    """The version the lock pins for component ``name`` (its first distribution).

    >>> pinned_version("gt4py") == locked_versions()["gt4py"]
    True
    """
    dist = component(name).distributions[0]
    try:
        return locked_versions(lock_file)[dist]
    except KeyError:
        raise IconbenchError(f"{lock_file} pins no {dist!r} for component {name!r}") from None


def icon4py_requirements() -> list[str]:
    """What the installed icon4py declares for gt4py and dace (to show next to the pins)."""
    found: list[str] = []
    for dist in COMPONENTS["icon4py"].distributions:
        try:
            requires = importlib.metadata.requires(dist) or []
        except importlib.metadata.PackageNotFoundError:
            continue
        found += [
            f"{dist}: {r}"
            for r in requires
            if r.split("[")[0].split("=")[0] in ("gt4py", "dace") and "extra" not in r
        ]
    return found


def locked_requirements(
    exclude: str | None = None,
    lock_file: pathlib.Path = LOCK_FILE,
    pins: dict[str, list[str]] | None = None,
) -> str:
    """The lock as a requirements file (``uv export``), without component ``exclude``.

    The component under test is left out so that asv installs it from the commit instead.
    ``uv`` itself is left out: it is the tool, not part of the stack. ``pins`` replaces the
    lock's lines of other components (a stored stack: another release or a git commit).
    """
    pins = {name: lines for name, lines in (pins or {}).items() if name != exclude}
    from iconbench.stacks.uvtool import uv_executable

    leave_out = ["uv", *(component(exclude).distributions if exclude else ())]
    leave_out += [dist for name in pins for dist in component(name).distributions]
    command = [
        uv_executable(),
        "export",
        "--frozen",
        "--no-hashes",
        "--no-emit-project",
        "--no-header",
        "--no-annotate",
        "--project",
        str(lock_file.parent),
    ]
    for dist in leave_out:
        command += ["--no-emit-package", dist]
    out = subprocess.run(command, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise IconbenchError(f"uv export of {lock_file} failed: {out.stderr.strip()}")
    extra = [line for name in sorted(pins) for line in pins[name]]
    return _without_lock_environments(out.stdout) + "".join(f"{line}\n" for line in extra)


#: The marker ``uv export`` adds to every line of a lock restricted to the platforms
#: iconbench runs on (pyproject's ``tool.uv.environments``): true wherever it installs.
LOCK_ENVIRONMENTS = (
    "(platform_machine == 'aarch64' or platform_machine == 'x86_64') and sys_platform == 'linux'"
)


def _without_lock_environments(requirements: str) -> str:
    """The requirements without the lock's platform marker, as they were before it had one.

    >>> text = f"a==1 ; {LOCK_ENVIRONMENTS}" + chr(10) + "b==2 ; sys_platform == 'win32'" + chr(10)
    >>> _without_lock_environments(text).splitlines()
    ['a==1', "b==2 ; sys_platform == 'win32'"]
    """
    return requirements.replace(f" ; {LOCK_ENVIRONMENTS}\n", "\n")


@dataclasses.dataclass(frozen=True)
class PinOrigin:
    """Where the default version of one package comes from; ``installed``: what this has."""

    package: str
    pinned: str
    installed: str
    origin: str

    @property
    def agrees(self) -> bool:
        return self.installed in {v.strip() for v in self.pinned.split(",")}


def _installed(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "missing"


def pin_origins(stack: dict[str, dict[str, str]]) -> list[PinOrigin]:
    """gt4py as icon4py requires it, dace and networkx as gt4py's lock pins them.

    ``stack`` is :func:`iconbench.stacks.identity.environment_stack`: a gt4py checkout is read
    at its commit, a release from the recorded extract (:mod:`iconbench.stacks.upstreamlock`).
    """
    from iconbench.stacks import upstreamlock

    origins = []
    icon4py = stack.get("icon4py", {}).get("version", "?")
    for line in icon4py_requirements()[:1]:  # every icon4py distribution pins the same gt4py
        dist, _, requirement = line.partition(": ")
        origins.append(
            PinOrigin(
                "gt4py",
                requirement.removeprefix("gt4py").lstrip("=<>~! "),
                stack["gt4py"]["version"],
                f"{dist} {icon4py}'s requirement {requirement}",
            )
        )
    pins = upstreamlock.pins_for(stack["gt4py"])
    for package, version in pins.pins.items():
        installed = stack[package]["version"] if package in stack else _installed(package)
        origins.append(
            PinOrigin(package, version, installed, f"gt4py {pins.gt4py_version}'s {pins.origin}")
        )
    return origins

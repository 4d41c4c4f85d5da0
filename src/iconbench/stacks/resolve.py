"""Turn a stack's refs into exact commits and versions, failing early and clearly.

A branch name is not a measurement's identity (it moves); its commit is. Resolving before
building means a typo in a ref costs a second, not a 10-minute environment build, and the
error names the component and the ref.
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
import subprocess
from typing import Any

from iconbench.errors import IconbenchError
from iconbench.stacks import lockpins
from iconbench.stacks.spec import COMPONENTS, ComponentRef, Stack

#: Seconds to wait for a remote repository before calling it unreachable.
REMOTE_TIMEOUT_S = 60


@dataclasses.dataclass(frozen=True)
class ResolvedComponent:
    """A component pinned exactly: a release version, or a commit of a repository."""

    component: str
    source: str  # "lock", "gt4py-lock" (the pin of gt4py's uv.lock), "release" or "git"
    version: str | None = None
    repo: str | None = None
    ref: str | None = None
    commit: str | None = None

    @property
    def identity(self) -> str:
        """What makes two builds of this component the same: the commit, else the version."""
        return f"git:{self.commit}" if self.commit else f"release:{self.version}"

    def requirements(self) -> list[str]:
        """Requirement lines that install exactly this (uv installs ``git+`` URLs itself).

        >>> ResolvedComponent("dace", "release", version="2.0.0b1").requirements()
        ['dace==2.0.0b1']
        >>> ResolvedComponent("gt4py", "git", repo="/src/gt4py", commit="ab12").requirements()
        ['gt4py @ git+file:///src/gt4py@ab12']
        """
        comp = COMPONENTS[self.component]
        if self.commit is None:
            return [f"{dist}=={self.version}" for dist in comp.distributions]
        url = f"file://{self.repo}" if self.repo and self.repo.startswith("/") else self.repo
        return [
            f"{dist} @ git+{url}@{self.commit}" + ("" if sub == "." else f"#subdirectory={sub}")
            for dist, sub in zip(comp.distributions, comp.subdirs, strict=True)
        ]

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in dataclasses.asdict(self).items() if v is not None}


def _git(
    args: list[str], cwd: str | None = None, timeout: float = REMOTE_TIMEOUT_S
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, GIT_TERMINAL_PROMPT="0", GIT_ASKPASS="true")
    return subprocess.run(
        ["git", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
    )


def is_local_repo(repo: str) -> bool:
    """True for a path to a checkout (not a URL)."""
    return "://" not in repo and not repo.startswith("git@") and pathlib.Path(repo).exists()


def commit_of(component: str, repo: str, ref: str) -> str:
    """The commit that ``ref`` names in ``repo`` (a local checkout or a URL).

    Raises :class:`IconbenchError` naming the component, the ref and the repository when the
    repository cannot be read or the ref does not exist there.
    """
    if is_local_repo(repo):
        path = str(pathlib.Path(repo).resolve())
        if _git(["rev-parse", "--git-dir"], cwd=path).returncode != 0:
            raise IconbenchError(
                f"{component}: {repo} is not a git repository; give a checkout or a URL"
            )
        out = _git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], cwd=path)
        if out.returncode != 0:
            raise IconbenchError(
                f"{component}: unknown ref {ref!r} in {repo}; "
                f"check 'git -C {repo} branch -a' / 'git -C {repo} tag' (or fetch it)"
            )
        return out.stdout.strip()
    if "://" not in repo and not repo.startswith("git@"):
        raise IconbenchError(
            f"{component}: repository {repo!r} does not exist (neither a path nor a URL)"
        )
    if len(ref) == 40 and all(c in "0123456789abcdef" for c in ref.lower()):
        return ref.lower()  # a full commit needs no lookup (ls-remote cannot list bare commits)
    try:
        out = _git(["ls-remote", repo, ref, f"{ref}^{{}}"])
    except subprocess.TimeoutExpired:
        raise IconbenchError(
            f"{component}: repository {repo} is unreachable (no answer in {REMOTE_TIMEOUT_S} s)"
        ) from None
    if out.returncode != 0:
        reason = (out.stderr.strip().splitlines() or ["unknown error"])[-1]
        raise IconbenchError(
            f"{component}: repository {repo} is unreachable ({reason}); "
            "check the URL and the network"
        )
    lines = [line.split() for line in out.stdout.splitlines() if line.strip()]
    if not lines:
        raise IconbenchError(
            f"{component}: unknown ref {ref!r} in {repo}; give a branch, a tag or a full commit"
        )
    peeled = [sha for sha, name in lines if name.endswith("^{}")]
    return (peeled or [lines[0][0]])[0]


#: Seconds uv may wait for the package index before a release is reported as uncheckable.
INDEX_TIMEOUT_S = 15


def check_release(component: str, version: str) -> None:
    """Fail unless the package index has ``version`` of ``component``'s first distribution.

    Asked the way environments are built, with uv (``uv pip compile --no-deps``: one index
    query, no resolution of dependencies), so the index, mirrors and credentials configured
    for uv (``UV_INDEX_URL``, ``UV_FIND_LINKS``, ...) apply here too.
    """
    from iconbench.stacks.spec import component as component_of
    from iconbench.stacks.uvtool import uv_executable

    dist = component_of(component).distributions[0]
    requirement = f"{dist}=={version}"
    command = [uv_executable(), "pip", "compile", "--no-deps", "--no-header", "-q", "-"]
    env = dict(os.environ)
    env.setdefault("UV_HTTP_TIMEOUT", str(INDEX_TIMEOUT_S))
    try:
        out = subprocess.run(
            command,
            input=requirement + "\n",
            capture_output=True,
            text=True,
            env=env,
            timeout=INDEX_TIMEOUT_S * 2,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise IconbenchError(
            f"{component}: cannot check {requirement} (no answer from the package index in "
            f"{INDEX_TIMEOUT_S * 2} s); check the network, or give a git ref: {component}=REPO@REF"
        ) from None
    if out.returncode == 0:
        return
    if f"no version of {dist}=={version}" in out.stderr or "no versions of" in out.stderr:
        raise IconbenchError(
            f"{component}: release {version} does not exist on the package index; "
            f"'pip index versions {dist}' lists them"
        )
    reason = next(
        (line.strip() for line in out.stderr.splitlines() if "error" in line.lower()),
        out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "unknown error",
    )
    raise IconbenchError(
        f"{component}: cannot check {requirement} on the package index ({reason}); "
        "check the network or the index settings (UV_INDEX_URL)"
    )


def resolve_component(ref: ComponentRef) -> ResolvedComponent:
    """Pin one component: a git ref to its commit, else its version (default: the lock's)."""
    if ref.is_git:
        assert ref.repo is not None
        assert ref.ref is not None
        repo = str(pathlib.Path(ref.repo).resolve()) if is_local_repo(ref.repo) else ref.repo
        return ResolvedComponent(
            ref.component,
            "git",
            repo=repo,
            ref=ref.ref,
            commit=commit_of(ref.component, ref.repo, ref.ref),
        )
    if ref.version:
        check_release(ref.component, ref.version)
        return ResolvedComponent(ref.component, "release", version=ref.version)
    return ResolvedComponent(ref.component, "lock", version=lockpins.pinned_version(ref.component))


def resolve(stack: Stack) -> list[ResolvedComponent]:
    """Pin every component of ``stack``.

    A gt4py commit of a local checkout brings its own dace: unless dace is given, it is what
    that commit's ``uv.lock`` pins (source ``gt4py-lock``), the dace gt4py's CI tested it with.
    """
    resolved = [resolve_component(ref) for ref in stack.refs]
    gt4py = next(r for r in resolved if r.component == "gt4py")
    dace = stack.get("dace")
    if (
        gt4py.commit
        and gt4py.repo
        and is_local_repo(gt4py.repo)
        and not (dace.version or dace.is_git)
    ):
        from iconbench.stacks import upstreamlock

        try:
            pins = upstreamlock.read_lock(gt4py.repo, gt4py.commit, url=gt4py.repo)
        except IconbenchError:
            return resolved  # a commit without uv.lock: the project lock's dace stands
        resolved = [
            ResolvedComponent("dace", "gt4py-lock", version=pins.pins["dace"])
            if r.component == "dace"
            else r
            for r in resolved
        ]
    return resolved


def iconbench_commit() -> str | None:
    """The commit of the iconbench checkout (with ``+dirty`` when it has local changes)."""
    from iconbench.buildcache import REPO_ROOT

    try:
        head = _git(["rev-parse", "HEAD"], cwd=str(REPO_ROOT), timeout=20)
        if head.returncode != 0:
            return None
        dirty = _git(
            ["status", "--porcelain", "--untracked-files=no"], cwd=str(REPO_ROOT), timeout=20
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")

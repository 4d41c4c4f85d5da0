"""What gt4py's own ``uv.lock`` pins for dace: the stack's default dace, read, not assumed.

A stack's components not under test follow the component above them: icon4py's requirements
pin gt4py (:mod:`iconbench.stacks.lockpins`), and gt4py's ``uv.lock`` pins dace (gt4py's
``pyproject.toml`` only says ``dace>=…``; its lock is what gt4py's CI tests with). Reading
that pin from the upstream lock file, not from memory, is what keeps a stack from pairing a
gt4py release with a dace it was never tested against (dace 2.0.0b1 with gt4py 1.2.1 broke
73 SDFGs with ``Connector ... is not equivalent``; gt4py 1.2.1's lock pins dace 2.0.0a6).

Two sources:

* a gt4py checkout in the stack (``gt4py=../gt4py@REF``, an editable install): ``uv.lock`` at
  that commit, read with ``git show COMMIT:uv.lock``;
* a released gt4py: the recorded extract ``gt4py_lock_pins.json`` next to this module, one
  entry per gt4py version with the upstream repository, tag, commit, path and git blob sha of
  the lock it was read from. ``iconbench stack pins --refresh --gt4py-repo PATH`` writes it from
  the upstream file; a test checks iconbench's own ``uv.lock`` against it.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
import subprocess
import tomllib
from typing import Any

from iconbench.errors import IconbenchError
from iconbench.files.atomic import write_atomic

#: The recorded extract of gt4py's locks (version -> pins and where they were read).
EXTRACT_FILE = pathlib.Path(__file__).with_name("gt4py_lock_pins.json")
#: The upstream repository the extract is read from, and the lock's path in it.
UPSTREAM_REPO = "https://github.com/GridTools/gt4py"
LOCK_PATH = "uv.lock"
#: The packages of gt4py's lock a stack follows: dace (a stack component) and networkx (dace
#: 2.0.0a6 fails on networkx 3.6, so the version it was locked with travels with it).
FOLLOWED = ("dace", "networkx")


@dataclasses.dataclass(frozen=True)
class LockPins:
    """The pins of one gt4py lock and where they were read (repo, ref, commit, path, blob)."""

    gt4py_version: str
    pins: dict[str, str]
    repo: str
    ref: str
    commit: str
    path: str
    blob: str

    @property
    def origin(self) -> str:
        """``GridTools/gt4py@v1.2.1:uv.lock (blob f1e2b6bc2614)``: where to check the pin."""
        repo = self.repo.removeprefix("https://github.com/")
        return f"{repo}@{self.ref}:{self.path} (blob {self.blob[:12]})"

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def pins_from_lock(text: str, origin: str = LOCK_PATH) -> dict[str, str]:
    r"""The versions a ``uv.lock`` text pins for :data:`FOLLOWED` packages.

    >>> pins_from_lock('[[package]]\nname = "dace"\nversion = "2.0.0a6"\n')
    {'dace': '2.0.0a6'}
    """
    found = locked_packages(text, FOLLOWED, origin)
    if "dace" not in found:
        raise IconbenchError(f"{origin}: the lock pins no dace; is this gt4py's uv.lock?")
    # a lock may fork one package by marker (several versions): keep them all, sorted
    return {
        name: ", ".join(sorted({entry["version"] for entry in entries}))
        for name, entries in sorted(found.items())
    }


def locked_packages(
    text: str, names: tuple[str, ...], origin: str = LOCK_PATH
) -> dict[str, list[dict[str, Any]]]:
    r"""The ``[[package]]`` entries of a ``uv.lock`` text for each of ``names`` it holds.

    An entry keeps its ``version`` and ``source`` (``{"registry": URL}``, ``{"git": URL}``,
    ...), so a reader can tell a release from a git pin; a lock that forks a package by
    marker has several entries of it.

    >>> locked_packages('[[package]]\nname = "gt4py"\nversion = "1.2.0"\n', ("gt4py", "dace"))
    {'gt4py': [{'name': 'gt4py', 'version': '1.2.0'}]}
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise IconbenchError(f"{origin}: not a uv.lock ({error})") from None
    found: dict[str, list[dict[str, Any]]] = {}
    for package in data.get("package", []):
        if package.get("name") in names and "version" in package:
            found.setdefault(package["name"], []).append(package)
    return found


def _git(repo: pathlib.Path | str, *args: str) -> str:
    out = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=False, timeout=60
    )
    if out.returncode != 0:
        reason = (out.stderr.strip().splitlines() or ["unknown error"])[-1]
        raise IconbenchError(f"gt4py repository {repo}: git {' '.join(args)} failed ({reason})")
    return out.stdout


def read_lock(repo: pathlib.Path | str, ref: str, *, url: str = UPSTREAM_REPO) -> LockPins:
    """The dace (and networkx) pins of gt4py's ``uv.lock`` at ``ref`` of the git repo ``repo``.

    The gt4py version is the tag the commit carries (gt4py takes its version from git tags,
    versioningit), ``git describe`` of it otherwise, so an entry cannot be filed under the
    wrong release.
    """
    try:
        commit = _git(repo, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").strip()
    except IconbenchError:
        raise IconbenchError(
            f"gt4py repository {repo}: unknown ref {ref!r}; fetch it or fix it"
        ) from None
    blob = _git(repo, "rev-parse", f"{commit}:{LOCK_PATH}").strip()
    text = _git(repo, "show", f"{commit}:{LOCK_PATH}")
    version = _git(repo, "describe", "--tags", "--always", commit).strip().removeprefix("v")
    return LockPins(
        gt4py_version=version,
        pins=pins_from_lock(text, f"{repo}@{ref}:{LOCK_PATH}"),
        repo=url,
        ref=ref,
        commit=commit,
        path=LOCK_PATH,
        blob=blob,
    )


def load_extract(path: pathlib.Path = EXTRACT_FILE) -> dict[str, LockPins]:
    """The recorded extract: gt4py version -> :class:`LockPins`."""
    try:
        data = json.loads(path.read_text())
        return {version: LockPins(**entry) for version, entry in data["gt4py"].items()}
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise IconbenchError(
            f"cannot read the gt4py lock extract {path} ({error!r}); rewrite it with "
            "'iconbench stack pins --refresh --gt4py-repo PATH'"
        ) from None


def save_extract(entries: dict[str, LockPins], path: pathlib.Path = EXTRACT_FILE) -> None:
    """Write the extract atomically (temporary file in the same directory, then replace)."""
    document = {
        "about": (
            "dace/networkx pins of gt4py's own uv.lock per gt4py release; written by "
            "'iconbench stack pins --refresh --gt4py-repo PATH' from the upstream file"
        ),
        "gt4py": {v: entries[v].as_dict() for v in sorted(entries)},
    }
    write_atomic(path, json.dumps(document, indent=2, sort_keys=True) + "\n")


def refresh(
    repo: pathlib.Path | str, refs: list[str], path: pathlib.Path = EXTRACT_FILE
) -> list[LockPins]:
    """Read the lock at each ref of ``repo`` and record it in the extract (others kept)."""
    entries = load_extract(path) if path.exists() else {}
    read = [read_lock(repo, ref) for ref in refs]
    for pins in read:
        entries[pins.gt4py_version] = pins
    save_extract(entries, path)
    return read


def released_pins(gt4py_version: str, path: pathlib.Path = EXTRACT_FILE) -> LockPins:
    """What gt4py ``gt4py_version``'s lock pins, from the recorded extract.

    >>> released_pins("1.2.1").pins["dace"]
    '2.0.0a6'
    """
    entries = load_extract(path)
    if gt4py_version not in entries:
        raise IconbenchError(
            f"no record of gt4py {gt4py_version}'s uv.lock (recorded: {', '.join(entries)}); "
            f"run 'iconbench stack pins --refresh --gt4py-repo PATH --ref v{gt4py_version}'"
        )
    return entries[gt4py_version]


def pins_for(gt4py: dict[str, str]) -> LockPins:
    """The lock pins for a stack's gt4py entry (as :func:`identity.environment_stack` gives).

    A gt4py built from a commit of a local checkout is read at that commit; a release (or a
    commit of a repository that is not on this machine) from the recorded extract.
    """
    commit, repo = gt4py.get("commit"), gt4py.get("repo", "")
    if commit and repo and pathlib.Path(repo).exists():
        return read_lock(repo, commit, url=repo)
    return released_pins(gt4py["version"])

"""The case ids of the installed icon4py, known without importing gt4py.

Discovering the catalog imports gt4py and every dycore and diffusion module (about 25 s).
The CLI must check a ``--programs`` regex in milliseconds, so the list of case ids
(``program[variant]``) is kept as a file per icon4py release:

* ``cases/icon4py-VERSION.txt`` ships with iconbench for the locked release (a test checks
  it equals what the catalog discovers);
* any other install (a commit asv built an environment for) gets its list written into the
  cache (``$ICONBENCH_CACHE_DIR/case-index/``) the first time the catalog is discovered.

Each file records a fingerprint of the code that derives cases (the catalog and the static
variant table); a file whose fingerprint differs is ignored, never trusted.
Editable installs have no index: their source may change at any time.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import json
import os
import pathlib
import tempfile

#: The distributions whose programs are benchmarked.
DISTRIBUTIONS = ("icon4py-common", "icon4py-atmosphere-dycore", "icon4py-atmosphere-diffusion")

#: Case lists shipped with iconbench, one per icon4py release.
SHIPPED = pathlib.Path(__file__).with_name("cases")


def fingerprint() -> str:
    """sha256 (12 hex digits) of the modules that turn programs into case ids."""
    digest = hashlib.sha256()
    for name in ("catalog.py", "variants.py"):
        digest.update(pathlib.Path(__file__).with_name(name).read_bytes())
    return digest.hexdigest()[:12]


def installed_key() -> str | None:
    """``icon4py-0.4.1`` (a release, also from a wheel file) or ``icon4py-0.4.1-<commit>`` (git).

    ``None`` when icon4py is missing, editable, or its parts differ in version.
    """
    versions, commits = set(), set()
    for dist in DISTRIBUTIONS:
        try:
            distribution = importlib.metadata.distribution(dist)
        except importlib.metadata.PackageNotFoundError:
            return None
        versions.add(distribution.version)
        direct = distribution.read_text("direct_url.json")
        if direct:
            data = json.loads(direct)
            if data.get("dir_info", {}).get("editable"):
                return None
            if "vcs_info" in data:
                commits.add(data["vcs_info"].get("commit_id", ""))
            elif "archive_info" not in data:  # a local directory: its sources may change
                return None
    if len(versions) != 1 or len(commits) > 1:
        return None
    key = f"icon4py-{versions.pop()}"
    return f"{key}-{commits.pop()[:12]}" if commits else key


def _cache_dir() -> pathlib.Path:
    from iconbench.buildcache import cache_root

    return cache_root() / "case-index"


def _read(path: pathlib.Path) -> list[str] | None:
    """The case ids of an index file, or ``None`` if it is missing, stale or unreadable."""
    try:
        header, *lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if header != f"# iconbench case index, fingerprint {fingerprint()}":
        return None
    cases = [line for line in lines if line and not line.startswith("#")]
    return cases or None


@functools.cache
def case_ids() -> list[str] | None:
    """Every case id of the installed icon4py, or ``None`` if no index matches it."""
    key = installed_key()
    if key is None:
        return None
    for path in (SHIPPED / f"{key}.txt", _cache_dir() / f"{key}.txt"):
        cases = _read(path)
        if cases is not None:
            return cases
    return None


def text_of(cases: list[str]) -> str:
    """The index file's content for ``cases`` (what :func:`record` and the shipped file hold)."""
    return "\n".join([f"# iconbench case index, fingerprint {fingerprint()}", *cases, ""])


def record(cases: list[str]) -> pathlib.Path | None:
    """Write the index of the installed icon4py into the cache (atomically).

    ``None`` if it has no key or the cache is not writable: the index saves time, nothing
    depends on it.
    """
    key = installed_key()
    if key is None or _read(SHIPPED / f"{key}.txt") == cases:
        return None
    directory = _cache_dir()
    path = directory / f"{key}.txt"
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{key}.", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text_of(cases))
        os.replace(tmp, path)
    except OSError:
        return None
    case_ids.cache_clear()
    return path

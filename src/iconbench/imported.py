"""Which code of each component Python imports: its files and their version, not the metadata.

``importlib.metadata.version("gt4py")`` answers with the first ``gt4py-*.dist-info`` on the
path, which need not be the code ``import gt4py`` runs: a source tree put first on
``PYTHONPATH`` (a checkout's ``src/``, an exported commit) has no metadata, so the installed
release answers for it, and a run would record gt4py 1.2.1 while it measured 1.2.3 and build
into 1.2.1's cache. Here the module is located first (:func:`importlib.util.find_spec`,
without importing it) and the version is read from what lies beside those files:

======================  =====================================================================
source                  the module's files are …
======================  =====================================================================
``environment``         beside their own dist-info: site-packages, or a runner's wheelhouse
                        installed into a directory on ``PYTHONPATH``
``overlay``             in an overlay of another stack (:mod:`iconbench.stacks.overlay`)
``editable``            the checkout an editable install of this environment points at
``tree``                sources without metadata: the version their own files declare,
                        identified by their git commit or a hash of their content
``missing``             not importable
======================  =====================================================================
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import hashlib
import importlib.metadata
import importlib.util
import json
import pathlib
import subprocess
import tomllib
from urllib.parse import unquote, urlparse

#: The module each stack distribution installs (what its version is read beside).
DIST_MODULES: dict[str, str] = {
    "gt4py": "gt4py",
    "dace": "dace",
    "icon4py-common": "icon4py.model.common",
    "icon4py-atmosphere-dycore": "icon4py.model.atmosphere.dycore",
    "icon4py-atmosphere-diffusion": "icon4py.model.atmosphere.diffusion",
    "icon4py-testing": "icon4py.model.testing",
    "numpy": "numpy",
}

#: The file that marks an overlay iconbench built (:mod:`iconbench.stacks.overlay`).
OVERLAY_MARKER = "iconbench-overlay.json"

#: Files of a package that declare its version as a string literal, and the names they use.
_VERSION_FILES = (("version.py", "__version__"), ("__about__.py", "on_build_version"),
                  ("__init__.py", "__version__"))  # fmt: skip


@dataclasses.dataclass(frozen=True)
class Imported:
    """Where the module of one distribution is imported from, and which version that is.

    ``root``: the path entry that holds the module; ``commit``/``repo``: a git-installed
    dist's commit. A tree's identity (its checkout's commit, or a hash of its content) is
    read only when asked (:func:`tree_identity`): provenance needs the version alone, and a
    check's worker processes, whose trees are named by their commit already, never ask.

    >>> Imported("gt4py", "gt4py", None, None, "missing", "missing").describe()
    'gt4py missing'
    >>> Imported("gt4py", "gt4py", pathlib.Path("/o/gt4py"), pathlib.Path("/o"), "1.2.3",
    ...          "overlay").describe()
    'gt4py 1.2.3 (overlay /o)'
    """

    distribution: str
    module: str
    directory: pathlib.Path | None
    root: pathlib.Path | None
    version: str
    source: str
    commit: str = ""
    repo: str = ""

    def describe(self) -> str:
        """``gt4py 1.2.3 (overlay /path)``; the environment's own release needs no place."""
        text = f"{self.distribution} {self.version}"
        if self.source == "overlay":
            return f"{text} (overlay {self.root})"
        if self.source in ("tree", "editable") and self.directory is not None:
            found = tree_identity(self.directory)
            what = (f"git {found['commit'][:12]}" if "commit" in found
                    else f"content {found['tree_sha256']}")  # fmt: skip
            return f"{text} ({self.source} {self.directory}, {what})"
        return text

    def identity(self) -> dict[str, str]:
        """The entry a stack record keeps: what makes this code this code.

        The place is kept as ``path`` (shown, left out of the build-cache key: the same
        release or tree elsewhere is the same code).
        """
        entry = {"version": self.version}
        if self.source in ("environment", "missing"):
            return entry | {"source": "release"}
        if self.source == "overlay":
            found = (
                {"source": "git", "commit": self.commit, "repo": self.repo} if self.commit else {}
            )
            return entry | ({"source": "release"} | found) | {"path": str(self.root)}
        assert self.directory is not None
        return (
            entry
            | {"source": self.source}
            | tree_identity(self.directory)
            | {"path": str(self.directory)}
        )


def locate(module: str) -> pathlib.Path | None:
    """The directory ``module`` is imported from, without importing it (``None``: missing)."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return pathlib.Path(next(iter(spec.submodule_search_locations)))
    return pathlib.Path(spec.origin).parent if spec.origin else None


def _distribution_in(root: pathlib.Path, name: str) -> importlib.metadata.Distribution | None:
    from packaging.utils import canonicalize_name

    wanted = canonicalize_name(name)
    for dist in importlib.metadata.distributions(path=[str(root)]):
        if canonicalize_name(dist.metadata["Name"] or "") == wanted:
            return dist
    return None


def _direct_url(dist: importlib.metadata.Distribution) -> dict:
    try:
        return json.loads(dist.read_text("direct_url.json") or "{}")
    except ValueError:
        return {}


def editable_dir(name: str) -> pathlib.Path | None:
    """The checkout an editable install of ``name`` in this environment points at (PEP 610)."""
    try:
        data = _direct_url(importlib.metadata.distribution(name))
    except importlib.metadata.PackageNotFoundError:
        return None
    if not data.get("dir_info", {}).get("editable"):
        return None
    return pathlib.Path(unquote(urlparse(data["url"]).path))


def declared_version(directory: pathlib.Path) -> str:
    r"""The version a package's own files declare, for sources without metadata.

    A string literal of ``version.py`` (dace), ``__about__.py`` (gt4py's
    ``on_build_version``) or ``__init__.py``; else the nearest ``pyproject.toml``'s
    ``project.version`` above (icon4py's projects); else ``unknown``.

    >>> import tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp()) / "dace"; d.mkdir()
    >>> _ = (d / "version.py").write_text("__version__ = '2.0.0a10'\n")
    >>> declared_version(d)
    '2.0.0a10'
    """
    for filename, variable in _VERSION_FILES:
        try:
            tree = ast.parse((directory / filename).read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError):
            continue
        for node in tree.body:
            target = node.target if isinstance(node, ast.AnnAssign) else None
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
            value = getattr(node, "value", None)
            literal = isinstance(value, ast.Constant) and isinstance(value.value, str)
            if isinstance(target, ast.Name) and target.id == variable and literal:
                return value.value  # type: ignore[union-attr]
    for parent in list(directory.parents)[:6]:
        try:
            project = tomllib.loads((parent / "pyproject.toml").read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError):
            continue
        return str(project.get("project", {}).get("version", "unknown"))
    return "unknown"


def content_hash(directory: pathlib.Path) -> str:
    """A hash of the ``.py`` files under ``directory``, by relative path and bytes."""
    digest = hashlib.sha256()
    for path in sorted(directory.rglob("*.py")):
        digest.update(path.relative_to(directory).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


@functools.cache
def imported(distribution: str) -> Imported:
    """Where ``distribution``'s module is imported from in this process, and its version.

    Cached: the path of a running process does not change under it.
    """
    module = DIST_MODULES[distribution]
    directory = locate(module)
    if directory is None:
        return Imported(distribution, module, None, None, "missing", "missing")
    directory = directory.resolve()
    root = directory.parents[module.count(".")]
    beside = _distribution_in(root, distribution)
    if beside is not None:
        # an overlay iconbench built carries its marker; any other path entry with metadata
        # (a runner's carried wheelhouse) is an environment of its own
        source = "overlay" if (root / OVERLAY_MARKER).is_file() else "environment"
        vcs = _direct_url(beside)
        commit = vcs.get("vcs_info", {}).get("commit_id", "")
        repo = vcs.get("url", "") if commit else ""
        return Imported(distribution, module, directory, root, beside.version, source,
                        commit=commit, repo=repo)  # fmt: skip
    editable = editable_dir(distribution)
    source = "editable" if editable and directory.is_relative_to(editable.resolve()) else "tree"
    version = declared_version(directory)
    if source == "editable":
        version = importlib.metadata.version(distribution)
    return Imported(distribution, module, directory, root, version, source)


@functools.cache
def tree_identity(directory: pathlib.Path) -> dict[str, str]:
    """A tree's identity: its checkout's ``commit`` (and ``diff_sha256``), else ``tree_sha256``.

    A tree that a repository around it ignores (a commit exported into iconbench's cache,
    inside iconbench's own checkout) is not that repository's code: its content names it.
    """
    ignored = subprocess.run(["git", "-C", str(directory), "check-ignore", "-q", "."],
                             capture_output=True, check=False, timeout=60)  # fmt: skip
    # 0: ignored by the repository around it; 1: part of it; 128: no repository
    checkout = checkout_identity(directory) if ignored.returncode == 1 else None
    if checkout is None:
        return {"tree_sha256": content_hash(directory)}
    return {k: v for k, v in checkout.items() if k in ("commit", "diff_sha256")}


def checkout_identity(path: pathlib.Path) -> dict[str, str] | None:
    """Commit of a checkout plus a hash of its uncommitted diff (so edits change the key)."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=path,
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
        if head.returncode != 0:
            return None
        diff = subprocess.run(
            ["git", "diff", "HEAD"], cwd=path, capture_output=True, timeout=60, check=False
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    identity = {"source": "editable", "commit": head.stdout.strip(), "repo": str(path)}
    if diff:
        identity["diff_sha256"] = hashlib.sha256(diff).hexdigest()[:16]
    return identity

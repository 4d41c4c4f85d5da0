"""A commit on the runner's stack: its sources first on the path, its own build cache.

The base and head of a check, each commit of a backfill and of a confirmation, and each side
that ``iconbench explain`` profiles are :class:`Side` values; they sit here, beside the
exported source trees (:mod:`iconbench.stacks.trees`) they are made of.
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
from collections.abc import Mapping

from iconbench.buildcache import REPO_ROOT
from iconbench.stacks import shared_builds, trees

#: Components whose change reaches the programs only through their IR: base and head share
#: one gt4py build cache (its translation caches are keyed by the program's IR, its build
#: folders by the generated code). A change of gt4py or dace can change the generated code of
#: an unchanged program, which the translation caches would not notice: each commit of theirs
#: has its own cache, and the head's gets the base's build folders (:func:`link_builds`).
SHARES_BUILD_CACHE = frozenset({"icon4py"})


@dataclasses.dataclass(frozen=True)
class Side:
    """One commit of a check (or a backfill), resolved: its sources and runner directory."""

    name: str  # "base" | "head"
    ref: str
    commit: str
    sources: tuple[pathlib.Path, ...]
    out: pathlib.Path
    stack: str
    #: the code identity of ``sources`` (:func:`iconbench.stacks.trees.code_identity`; "": not
    #: computed yet), what the compile index keys this side's builds by beside their paths
    identity: str = ""
    #: the GPU every process of this side measures on (a ``CUDA_VISIBLE_DEVICES`` entry; "":
    #: the device of the lane that measures it): set where an A/B compares two GPUs of one
    #: host rather than two commits (:func:`iconbench.check.confirm.confirm` with ``gpus``)
    device: str = ""

    def runner_options(self) -> list[str]:
        """The runner's options that name this side's code: its compile-index entries follow it.

        Without them a runner keys its compile index by the stack alone, and every commit of a
        backfill on one stack found the builds of the commit before: a program the commit
        changed was not precompiled and was compiled inside the measuring process instead
        (66.7 s in one case on the H100).

        >>> Side("head", "h", "c", (pathlib.Path("/t/a"), pathlib.Path("/t/b")), pathlib.Path("/o"),
        ...      "s", "code-1").runner_options()  # doctest: +NORMALIZE_WHITESPACE
        ['--stack', 's', '--sources', '/t/a:/t/b', '--sources-identity', 'code-1']
        """
        options = ["--stack", self.stack, "--sources", os.pathsep.join(map(str, self.sources))]
        return options + (["--sources-identity", self.identity] if self.identity else [])

    def environment(self, base: dict[str, str] | None = None) -> dict[str, str]:
        """The environment of this side's processes: its sources first, then iconbench's.

        A fixed hash seed: dict and set iteration order (and with it gt4py's host path) is the
        same in every process of the check. No working directory on the path
        (``PYTHONSAFEPATH``): the side's sources are the ones imported wherever it is run. The
        check chooses the build cache (``--stack``), so a cache directory set for the whole
        runner does not apply to it.
        """
        env = dict(os.environ if base is None else base)
        env.pop("GT4PY_BUILD_CACHE_DIR", None)
        paths = [str(p) for p in self.sources] + [str(REPO_ROOT / "src")]
        if env.get("PYTHONPATH"):
            paths.append(env["PYTHONPATH"])
        env["PYTHONPATH"] = os.pathsep.join(paths)
        env["PYTHONHASHSEED"] = "0"
        env["PYTHONOPTIMIZE"] = env.get("PYTHONOPTIMIZE") or "2"
        # ``python -m`` puts the working directory first on the path: run from a checkout
        # (dace's package at its top, a test's gt4py) its working tree shadowed this side's
        # sources, and both sides measured the same code
        env["PYTHONSAFEPATH"] = "1"
        return env


def build_cache(stack: str) -> pathlib.Path:
    """gt4py's cache folder for ``stack`` (as :func:`iconbench.buildcache.configure` sets it)."""
    from iconbench.buildcache import cache_root

    return cache_root() / "gt4py" / stack / shared_builds.CACHE_FOLDER


def link_builds(base: Side, head: Side) -> int:
    """Give head's cache every build folder of base's; return how many were linked.

    A build folder's name is a fingerprint of the generated code (and of gt4py's version), so
    head finds a folder of base's exactly when it generates the same code for a program: an
    unchanged program is not compiled twice, a changed one is. The translation caches stay
    apart: they are keyed by the program's IR, which a change of gt4py leaves as it is. Both
    sides run in one environment, so head takes base's compile-command templates too
    (:mod:`iconbench.stacks.shared_builds`).

    >>> import tempfile
    >>> os.environ["ICONBENCH_CACHE_DIR"] = tempfile.mkdtemp()
    >>> a = Side("base", "main", "a" * 40, (), pathlib.Path("b"), "stack-a")
    >>> b = Side("head", "pr", "b" * 40, (), pathlib.Path("h"), "stack-b")
    >>> for name in ("gtfn_cache", "f_pyext_0123456789abcdef_1.2.1"):
    ...     (build_cache("stack-a") / name).mkdir(parents=True)
    >>> link_builds(a, b), sorted(p.name for p in build_cache("stack-b").iterdir())
    (1, ['f_pyext_0123456789abcdef_1.2.1'])
    >>> link_builds(a, b)  # kept: linked once
    0
    """
    return shared_builds.link(build_cache(base.stack), build_cache(head.stack), templates=True)


def exported_trees(component: str) -> pathlib.Path:
    """Where a check exports a commit's tree: one place per commit, kept in the cache.

    A backfill keeps one place for all its commits, under ``exported_trees("icon4py-backfill")``.

    gt4py keys its translation caches by the program's IR, which holds the absolute path of
    every source line. A tree exported anew for each check (under ``--out``) put every
    program at a new path, so each check translated every program again though its builds
    were cached: 50-58 s of the precompile of an icon4py check whose builds were all cached
    (H100, 16 cores), against the seconds its workers then took to load them.
    """
    from iconbench.buildcache import cache_root

    return cache_root() / "trees" / component


def resolve(
    component: str, repo: pathlib.Path, refs: tuple[str, str], *, out: pathlib.Path, stack: str
) -> tuple[Side, Side]:
    """Both sides of a check of ``base..head`` in ``repo`` (one line if a ref is no commit).

    ``stack`` is the running environment's build-cache key; sides of a component in
    :data:`SHARES_BUILD_CACHE` keep it, others get it extended by the identity of their code
    (:func:`iconbench.stacks.trees.code_identity`): a change of comments alone keeps the base's
    cache, translations included.
    """
    found = []
    for name, ref in zip(("base", "head"), refs, strict=True):
        commits = {component: trees.resolve_commit(repo, ref)}
        found.append(of_commits(name, ref, commits, {component: repo}, out=out / name,
                                stack=stack))  # fmt: skip
    base, head = found
    return base, head


def of_commits(
    name: str,
    ref: str,
    commits: Mapping[str, str],
    repos: Mapping[str, pathlib.Path],
    *,
    out: pathlib.Path,
    stack: str,
    commit: str = "",
) -> Side:
    """One side: each component's commit in ``commits`` first on the path, the rest the stack's.

    The side of a check (one component), of a nightly's stack against the last one's (each
    component whose commit differs between them: :mod:`iconbench.check.confirm`) or of a
    bisection's step. Each commit's tree is exported once from its repository in ``repos``
    (:func:`exported_trees`). The build cache is ``stack``'s where only components of
    :data:`SHARES_BUILD_CACHE` are given, else ``stack`` extended by the names of the others
    and the identity of the side's code. ``commit``: the first component's, in ``commits``'
    order (a check's one), unless ``commit`` names the one its results record.
    """
    roots: list[pathlib.Path] = []
    for component, sha in commits.items():
        tree = trees.export_tree(repos[component], sha, exported_trees(component))
        roots += trees.source_roots(tree)
    identity = trees.code_identity(roots) if roots else ""  # none: the environment's code
    own = [component for component in commits if component not in SHARES_BUILD_CACHE]
    key = f"{stack}-{'-'.join(own)}-{identity[:12]}" if own else stack
    commit = commit or next(iter(commits.values()), "")
    return Side(name, ref, commit, tuple(roots), out, key, identity)

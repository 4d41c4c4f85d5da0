"""The build folders of a runner's stacks shared between them; their translations never.

Every stack has a gt4py build cache of its own (``<cache>/gt4py/<stack>``,
:func:`iconbench.buildcache.configure`). gt4py 1.2.1 keeps three kinds of folder in it, and
each kind is keyed by something else:

- **build folders** (``<program>_<fingerprint>_<version>[_<context>]``, gt4py's
  ``cache.get_cache_folder``): the fingerprint is that of the generated source and its
  bindings, the version gt4py's, the context the build's configuration (gtfn's compile
  flags, DaCe's configuration). A stack with the same gt4py finds one exactly when it
  generates the same code: safe to share between stacks (:func:`is_build`).
- **translation caches** (``gtfn_cache``; DaCe's ``translation_cache``): keyed by the
  program's IR and arguments alone (``stages.compilable_program_fingerprinter``), not by the
  gt4py or DaCe that translated it. A stack whose gt4py lowers, transforms or generates
  differently from the same IR would get another stack's generated code from them. Never
  shared.
- **compile-command templates** (``compile_commands_cache_…``: gtfn's CMake configuration
  of a set of libraries, build type and flags, named like a build folder): they hold the
  absolute include paths of the environment that configured them (its Python, nanobind and
  gridtools headers), which another stack's environment may not have (a nightly's
  environment is made anew each night). Shared only between the sides of one check, which
  run in one environment (``templates=True``).

A runner that keeps its cache between jobs (``ICONBENCH_SHARED_BUILD_CACHE=1``) gives every
stack the build folders of its other stacks: each precompile first links into its own cache
every build folder of the runner's other stacks that its gt4py can use
(:func:`link_runner_builds`; a folder named with another gt4py version is never looked up by
this one). So the nightly's precompile, its shards, its confirmation and a later pull
request's check of the same stack find one another's builds in one cache, and a new stack
gets every identical build but translates for itself. gt4py resolves a linked folder to the
folder it links to and locks that one while it builds, so a build is made once whichever
stack asks first. Linking never removes a build: a name is linked only where the cache has
none (``symlink`` fails on a name that exists, so processes linking at once each link a name
once or find it there), and only a link whose folder is gone is taken away (gt4py could not
make that folder again behind it).
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import re
from collections.abc import Mapping

from iconbench.buildcache import cache_root
from iconbench.errors import IconbenchError

#: gt4py's name of a build folder (``cache.CACHE_FOLDER_NAME_PATTERN`` in gt4py 1.2.1).
BUILD_NAME = re.compile(
    r"(?P<name>.+)_(?P<fingerprint>[0-9a-f]{16})_(?P<version>.+?)(?:_(?P<context>[0-9a-f]{16}))?"
)

#: Folders of gt4py's cache keyed by the program's IR alone (gtfn's and DaCe's translations).
TRANSLATION_CACHES = frozenset({"gtfn_cache", "translation_cache"})

#: The name of gtfn's compile-command templates, which hold their environment's paths.
TEMPLATES = "compile_commands_cache"

#: gt4py's cache folder inside a stack's build-cache directory (``GT4PY_BUILD_CACHE_DIR``).
CACHE_FOLDER = ".gt4py_cache"

#: The switch of a runner that keeps its cache between jobs (``ci/runner-env.sh``).
SWITCH = "ICONBENCH_SHARED_BUILD_CACHE"
#: The trusted runs' cache an untrusted check links builds from (docs/security.md)
READ_FROM = "ICONBENCH_SHARED_BUILDS_FROM"


def enabled(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether this runner shares its stacks' builds: ``ICONBENCH_SHARED_BUILD_CACHE`` is 1.

    >>> enabled({}), enabled({SWITCH: "0"}), enabled({SWITCH: "1"})
    (False, False, True)
    >>> enabled({SWITCH: "yes"})
    Traceback (most recent call last):
    ...
    iconbench.errors.IconbenchError: ICONBENCH_SHARED_BUILD_CACHE='yes': give 1 (this \
runner's stacks share their builds) or 0; fix or unset ICONBENCH_SHARED_BUILD_CACHE
    """
    value = environ.get(SWITCH, "").strip()
    if value not in ("", "0", "1"):
        raise IconbenchError(
            f"{SWITCH}={value!r}: give 1 (this runner's stacks share their builds) or 0; "
            f"fix or unset {SWITCH}"
        )
    return value == "1"


def is_build(name: str, version: str | None = None, *, templates: bool = False) -> bool:
    """Whether the folder ``name`` of gt4py's cache is a build (of gt4py ``version``, if given).

    >>> [is_build(n) for n in ("apply_pyext_0123456789abcdef_1.2.1",
    ...                        "apply_0123456789abcdef_1.2.1_fedcba9876543210",
    ...                        "gtfn_cache", "translation_cache")]
    [True, True, False, False]
    >>> template = "compile_commands_cache_gridtools_cpu_Release__pyext_123bb3065fb08ee0_1.2.1"
    >>> is_build(template), is_build(template, templates=True)
    (False, True)
    >>> is_build("apply_pyext_0123456789abcdef_1.2.1", "1.2.1"), is_build(
    ...     "apply_pyext_0123456789abcdef_1.2.2.dev3+g5e6f", "1.2.1")
    (True, False)
    >>> is_build("apply_0123456789abcdef_1.2.2.dev3+g5e6f_fedcba9876543210", "1.2.2.dev3+g5e6f")
    True
    """
    found = BUILD_NAME.fullmatch(name)
    if found is None or (name.startswith(TEMPLATES) and not templates):
        return False
    return version is None or found["version"] == version


def link(
    source: pathlib.Path,
    target: pathlib.Path,
    *,
    version: str | None = None,
    templates: bool = False,
) -> int:
    """Link into gt4py's cache ``target`` every build folder of ``source`` it lacks; how many.

    Only builds (:func:`is_build`: of gt4py ``version`` if given; compile-command templates
    with ``templates``) and never a translation cache. Each link names the folder it ends in
    (a link of ``source``'s is followed), so no chain of links grows between stacks.
    """
    if source.resolve() == target.resolve() or not source.is_dir():
        return 0
    target.mkdir(parents=True, exist_ok=True)
    _drop_dangling(target)
    present = set(os.listdir(target))
    linked = 0
    with os.scandir(source) as entries:
        for entry in entries:
            if entry.name in present or not is_build(entry.name, version, templates=templates):
                continue
            folder = pathlib.Path(entry.path).resolve()
            if not folder.is_dir():
                continue  # a link whose folder is gone
            try:
                os.symlink(folder, target / entry.name, target_is_directory=True)
            except FileExistsError:
                continue  # another process linked or made it first
            linked += 1
    return linked


def runner_caches(root: pathlib.Path, besides: pathlib.Path) -> list[pathlib.Path]:
    """gt4py's cache folder of every stack under the runner's cache ``root``, ``besides`` out.

    >>> import tempfile
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> for stack in ("stack-a", "stack-b", "shared"):
    ...     (root / "gt4py" / stack / CACHE_FOLDER).mkdir(parents=True)
    >>> [p.parent.name for p in runner_caches(root, root / "gt4py" / "stack-a" / CACHE_FOLDER)]
    ['shared', 'stack-b']
    """
    own = besides.resolve()
    return [cache for cache in sorted((root / "gt4py").glob(f"*/{CACHE_FOLDER}"))
            if cache.is_dir() and cache.resolve() != own]  # fmt: skip


def link_runner_builds(cache: pathlib.Path, version: str, root: pathlib.Path | None = None) -> int:
    """Give gt4py's cache ``cache`` the builds of gt4py ``version`` of the runner's stacks.

    ``root``: the runner's iconbench cache (default: ``ICONBENCH_SHARED_BUILDS_FROM``, which an
    untrusted check sets to the trusted runs' cache, mounted read-only, while its own
    ``ICONBENCH_CACHE_DIR`` is private; else :func:`iconbench.buildcache.cache_root`).
    Returns how many build folders were linked.
    """
    if root is None:  # an untrusted check: its own cache, the trusted runs' read from there
        root = pathlib.Path(os.environ.get(READ_FROM) or cache_root())
    others = runner_caches(root, cache)
    return sum(link(other, cache, version=version) for other in others)


def _drop_dangling(cache: pathlib.Path) -> None:
    """Remove the links of ``cache`` whose folder is gone (an old stack's cache deleted).

    gt4py makes a build folder with ``mkdir(exist_ok=True)``, which fails on a dangling link:
    every compile of that program would fail. Only a link is removed, never a folder.
    """
    for path in cache.iterdir():
        if path.is_symlink() and not path.exists():
            with contextlib.suppress(OSError):  # another process removed it, or not a link now
                path.unlink()

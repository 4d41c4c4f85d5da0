"""A build another process is making is not waited on: its compile is taken up again later.

gt4py names a build folder by a fingerprint of the generated code and locks it while one
process builds it (gtfn's and DaCe's compile steps); another process that needs the same
build waits on that lock. In a check's precompile that happens between static variants that
generate the same code (``apply_divergence_damping_and_update_vn``'s ``limited_area`` changes
nothing without fourth-order damping: 4 of its 16 variants a backend share a build with
another), and between base and head where a change leaves a program's code as it is (a
comment). A pool worker waiting on the lock holds its share of the cores doing nothing: on the
H100 the second of two variants of one code took 23-37 s, the first's build
(``results/h100/work/compile.jsonl``). Before, the two pools of a check took their jobs in
opposite orders so that they met in the middle instead of waiting on each other, which put
head's longest compiles last.

While :func:`deferring` is active in a pool worker, taking the lock of a build folder that
another process holds raises :class:`BusyBuildError` at once; the precompile driver
(:func:`iconbench.runner.precompile.compile_pairs`) gives the worker another job and takes
this one up again when no other is left, now waiting for the lock: by then the build is
usually done and found in the cache. Locks of gt4py's translation caches and of gtfn's
compile-command prototype (made once, needed by every gtfn build) are waited on as before.

A translation another process is making is deferred the same way: gt4py computes a missing
translation in every process that needs it, so the two pools of a check, taking the same
programs in the same order, translated each program whose code head did not change twice,
at the same moment (from an empty cache on one H200 host, 25-46 s each beside the longest
builds). While deferring, a worker translates a program under a lock of its cache entry
(``<entry>.iconbench-translating``, :func:`translating_once`) and defers the job when another
process holds it; taken up again, it waits for that lock and finds the translation in the
cache. Base's and head's translations of one code share an entry through
:mod:`iconbench.buildcache.translations`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import pathlib
from collections.abc import Iterator
from typing import Any

from iconbench.stacks import shared_builds


class BusyBuildError(Exception):
    """The build folder ``folder`` (its name) is locked by another process."""

    def __init__(self, folder: str) -> None:
        super().__init__(f"{folder} is being built by another process")
        self.folder = folder


@dataclasses.dataclass(frozen=True)
class Deferred:
    """A pool worker's answer instead of a compile record: the build was busy elsewhere."""

    case: str
    backend: str
    folder: str
    #: what the worker spent before it found the folder busy (translating the program): work
    #: no compile record holds, since the retry's record has only its own seconds
    seconds: float = 0.0


def is_build_folder(folder: pathlib.Path, cache: pathlib.Path) -> bool:
    """Whether ``folder`` is a program's build folder in gt4py's build cache ``cache``.

    A folder linked from another stack's cache (:mod:`iconbench.stacks.shared_builds`) is
    locked where it lies, in that cache: it is one of this cache's builds all the same.
    Translation caches and gtfn's compile-command templates are no program's build: their
    locks are waited on.

    >>> cache = pathlib.Path("/c/stack-a/.gt4py_cache")
    >>> is_build_folder(cache / "apply_pyext_0123456789abcdef_1.2.1", cache)
    True
    >>> [is_build_folder(cache / name, cache) for name in ("gtfn_cache", "translation_cache",
    ...  "compile_commands_cache_gridtools_cpu_Release__pyext_123bb3065fb08ee0_1.2.1")]
    [False, False, False]
    >>> is_build_folder(pathlib.Path("/c/stack-b/.gt4py_cache/apply_pyext_0123456789abcdef_1.2.1"),
    ...                 cache)  # linked from another stack
    True
    >>> is_build_folder(pathlib.Path("/elsewhere/apply_pyext_0123456789abcdef_1.2.1"), cache)
    False
    """
    return folder.parent.name == cache.name and shared_builds.is_build(folder.name)


class _NotWaiting:
    """A gt4py lock of a build folder that raises :class:`BusyBuildError` instead of waiting."""

    def __init__(self, lock: Any, folder: pathlib.Path) -> None:
        self._lock, self._folder = lock, folder

    def __enter__(self) -> _NotWaiting:
        import filelock

        try:
            self._lock.acquire(timeout=0)
        except filelock.Timeout:
            raise BusyBuildError(self._folder.name) from None
        return self

    def __exit__(self, *exc: object) -> None:
        self._lock.release()


@contextlib.contextmanager
def deferring(cache: pathlib.Path) -> Iterator[None]:
    """While inside, taking a lock of a build folder of ``cache`` another process holds raises.

    It raises :class:`BusyBuildError` instead of waiting.

    gt4py builds its lock by ``locking._lock_constructor`` and names the lock file after that
    constructor's module and name: the replacement keeps both, so it takes the same lock
    files as every other process (the lock still excludes them while one builds).
    """
    from gt4py._core import locking

    original = locking._lock_constructor

    def constructor(path: Any) -> Any:
        lock = original(path)
        folder = pathlib.Path(path).parent
        return _NotWaiting(lock, folder) if is_build_folder(folder, cache) else lock

    constructor.__module__ = original.__module__
    constructor.__name__ = original.__name__
    locking._lock_constructor = constructor
    try:
        yield
    finally:
        locking._lock_constructor = original


@contextlib.contextmanager
def translating_once(*, defer: bool) -> Iterator[None]:
    """Inside, a program another process is translating is not translated again.

    gt4py's persistent translation caches are ``CachedStep``s over a ``FileCache``; a
    missing entry is computed under a lock of its own. With ``defer`` a lock another process
    holds raises :class:`BusyBuildError` (the job is taken up again later), without it the
    lock is waited on and the translation then found in the cache. A gt4py without these
    (another stack's) translates as it always did.
    """
    try:
        import filelock
        from gt4py._core.filecache import FileCache
        from gt4py.next.otf.workflow import CachedStep
    except ImportError:
        yield
        return
    original = CachedStep.__call__

    def call(step: Any, inp: Any) -> Any:
        cache = getattr(step, "cache", None)
        if not isinstance(cache, FileCache) or not hasattr(cache, "_get_path"):
            return original(step, inp)
        key = step.cache_key(inp)
        with contextlib.suppress(KeyError):
            return cache[key]
        entry = pathlib.Path(cache._get_path(key))
        entry.parent.mkdir(parents=True, exist_ok=True)
        lock = filelock.FileLock(f"{entry}.iconbench-translating")
        try:
            lock.acquire(timeout=0 if defer else -1)
        except filelock.Timeout:
            raise BusyBuildError(f"the translation {entry.stem[:16]}") from None
        try:
            with contextlib.suppress(KeyError):
                return cache[key]  # made while this process waited for the lock's file
            result = cache[key] = step.step(inp)
            return result
        finally:
            lock.release()

    CachedStep.__call__ = call  # type: ignore[method-assign]
    try:
        yield
    finally:
        CachedStep.__call__ = original  # type: ignore[method-assign]

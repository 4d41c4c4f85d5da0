"""What a GPU runner's carried stack leaves out: code and files no run of iconbench reads.

A runner without network receives the stack as one archive (``ci/gpu-wheelhouse --packed``)
under an upload limit, and a backfill carries stack overlays (:mod:`overlay`) beside it. The
paths below were found unused by an import and open audit of ``iconbench suite all``,
``check`` (icon4py and gt4py changes), ``granules``, ``verify`` and ``history backfill`` (two
overlay stacks and the running one) in an environment like the CUDA image (its Python
3.12 and packages, the wheelhouse and iconbench's sources on ``PYTHONPATH``):

- distributions never imported: gt4py's and DaCe's dependencies for other frontends and
  tools (``lark``: gt4py's pretty-printer parser; ``fparser``, ``ply``: DaCe's Fortran and
  Octave frontends; ``dill``: a fallback DaCe catches; ``cached-property``: gt4py.cartesian;
  ``frozendict``, ``versioningit``: an editable gt4py's version; ``asttokens``, ``executing``:
  devtools' ``debug()``; ``pooch`` and ``icon4py-testing``: icon4py's test data). Their
  ``METADATA`` stays, so what requires them (gt4py's and DaCe's requirements, which
  :func:`overlay.unmet` checks) still finds their versions; the rest of their
  ``.dist-info`` goes, entry points included, so nothing loads them as plugins;
- files of the packages kept that nothing imports or reads: test suites, DaCe's SDFG viewer
  (a web client of 17 MB), the Cython and C sources and static libraries of compiled
  packages, serialbox's tools and C/C++ headers, Faker's locales other than English (gt4py
  imports ``factory``, which imports ``faker``; no fake data is made), serialbox's second
  copies of its libraries (it loads ``libSerialboxC.so``, which needs
  ``libSerialboxCore.so.2.6.3``), software bills of materials, NVRTC's second build
  (``libnvrtc.alt.so``, 110 MB: cupy loads ``libnvrtc.so.12``);
- the debug information of shared libraries (``strip --strip-debug``, where ``strip`` is
  installed): cytoolz's is 7 MB of its 8.5.

DaCe's ``runtime`` and ``external`` headers and gridtools' headers stay: generated code
includes them when it compiles (the bundled CUB only where the CUDA toolkit has none).
"""

from __future__ import annotations

import dataclasses
import pathlib
import shutil
import subprocess

#: Distributions whose code is left out (their ``METADATA`` stays), by top-level names.
UNUSED_DISTRIBUTIONS: dict[str, tuple[str, ...]] = {
    "asttokens": ("asttokens",),
    "cached-property": ("cached_property.py",),
    "dill": ("dill",),
    "executing": ("executing",),
    "fparser": ("fparser",),
    "frozendict": ("frozendict",),
    "icon4py-testing": ("icon4py/model/testing",),
    "lark": ("lark",),
    "ply": ("ply",),
    "pooch": ("pooch",),
    "versioningit": ("versioningit",),
}

#: Paths (globs under the site) of kept packages that nothing reads.
UNUSED_PATHS = (
    "**/tests",
    "dace/viewer",
    "dace/external/moodycamel/tests",
    "cytoolz/*.c", "cytoolz/*.pyx", "cytoolz/*.pxd",
    "cftime/*.c", "cftime/*.pyx",
    "netCDF4/*.pyx", "netCDF4/*.pyi",
    "serialbox/*.a", "serialbox/bin", "serialbox/include", "serialbox/cmake", "serialbox/python",
    "serialbox/libSerialboxC.so.*", "serialbox/libSerialboxCore.so",
    "blackd", "black/*.pyi", "blib2to3/*.pyi",
    "*.dist-info/sboms",
    "nvidia/cuda_nvrtc/lib/libnvrtc*.alt.so*",
)  # fmt: skip

#: Faker's locales kept (``providers/<provider>/<locale>``): what ``import faker`` loads.
FAKER_LOCALES = ("en", "en_US")


@dataclasses.dataclass(frozen=True)
class Pruned:
    """What :func:`prune` removed: files and their bytes."""

    files: int
    bytes: int


def _targets(site: pathlib.Path) -> list[pathlib.Path]:
    found: list[pathlib.Path] = []
    for dist_info in sorted(site.glob("*.dist-info")):
        name = dist_info.name.removesuffix(".dist-info").rsplit("-", 1)[0]
        name = name.lower().replace("_", "-").replace(".", "-")
        if name in UNUSED_DISTRIBUTIONS:
            found += [p for p in dist_info.iterdir() if p.name != "METADATA"]
            found += [site / top for top in UNUSED_DISTRIBUTIONS[name]]
    for pattern in UNUSED_PATHS:
        found += sorted(site.glob(pattern))
    providers = site / "faker" / "providers"
    if providers.is_dir():
        found += [
            locale
            for provider in sorted(providers.iterdir())
            if provider.is_dir()
            for locale in sorted(provider.iterdir())
            if locale.is_dir() and locale.name not in (*FAKER_LOCALES, "__pycache__")
        ]
    return found


def prune(site: str | pathlib.Path) -> Pruned:
    """Remove from the installed ``site`` what no iconbench run reads (see the module).

    >>> import tempfile
    >>> site = pathlib.Path(tempfile.mkdtemp())
    >>> for f in ("lark/__init__.py", "lark-1.3.1.dist-info/METADATA",
    ...           "lark-1.3.1.dist-info/entry_points.txt", "gt4py/__init__.py",
    ...           "networkx/tests/test_a.py", "faker/providers/person/de_DE/__init__.py",
    ...           "faker/providers/person/en_US/__init__.py"):
    ...     (site / f).parent.mkdir(parents=True, exist_ok=True)
    ...     _ = (site / f).write_text("x")
    >>> prune(site)
    Pruned(files=4, bytes=4)
    >>> for p in sorted(site.rglob("*")):
    ...     if p.is_file():
    ...         print(p.relative_to(site))
    faker/providers/person/en_US/__init__.py
    gt4py/__init__.py
    lark-1.3.1.dist-info/METADATA
    """
    site = pathlib.Path(site)
    files = size = 0
    for path in _targets(site):
        if path.is_symlink() or path.is_file():
            files, size = files + 1, size + path.lstat().st_size
            path.unlink()
        elif path.is_dir():
            for inner in path.rglob("*"):
                if inner.is_symlink() or inner.is_file():
                    files, size = files + 1, size + inner.lstat().st_size
            shutil.rmtree(path)
    strip = shutil.which("strip")
    libraries = [p for p in sorted(site.rglob("*.so*")) if p.is_file() and not p.is_symlink()]
    if strip is not None and libraries:
        before = sum(p.stat().st_size for p in libraries)
        subprocess.run([strip, "--strip-debug", *map(str, libraries)], capture_output=True,
                       check=False)  # fmt: skip
        size += before - sum(p.stat().st_size for p in libraries)
    return Pruned(files, size)


if __name__ == "__main__":  # ci/gpu-wheelhouse: python -m iconbench.stacks.prune SITE
    import sys

    done = prune(sys.argv[1])
    print(f"prune: {done.files} files, {done.bytes / 1e6:.1f} MB left out of {sys.argv[1]}")

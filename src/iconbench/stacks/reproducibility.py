"""Whether a stack builds the same code twice from the same source.

A differing codegen fingerprint (:mod:`iconbench.timing.codegen`) is read as "the change
altered the generated code". That holds only where the translation is reproducible. Up to
gt4py 1.2.0 the DaCe backend's optimisation was not: its transformations iterated over sets
of graph nodes, whose order follows object addresses, and named a tasklet after an ``id()``.
Upstream fixed this in gt4py #2635, #2778 and #2780 (issue #2783; dace #2181), released with
gt4py 1.2.1.

What that looked like here, on gt4py 1.2.0 + dace 2.0.0a5:

- `apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence` was translated for
  `dace_gpu` at one icon4py commit in 7 fresh processes and gave 7 different SDFGs. Some had
  7 GPU kernels, others 9: one map was split into three kernels over the levels
  (results/dace-translation-gt4py-1.2.0).
- The H100 backfill's builds of that program ran in about 86 µs or 91-93 µs, depending on
  the build.
- 40-45 of 119 `dace_gpu` cases changed fingerprint at every commit that was built afresh,
  including a commit that changed only `uv.lock`.

On gt4py 1.2.1 + dace 2.0.0a6, fresh processes with any hash seed gave one SDFG for each
program tried. On an older stack, a differing DaCe fingerprint can be the build's draw as well
as the change's. :func:`draw_note` says so: the gate next to its "code generation differs"
(:func:`iconbench.gate.verdict.compare`), the site next to a code change or change point of
a program's history (:mod:`iconbench.site.pagedata`).
"""

from __future__ import annotations

from collections.abc import Iterable

from packaging.version import InvalidVersion, Version

from iconbench.errors import IconbenchError
from iconbench.programs import backends

#: The first gt4py release whose DaCe translation is reproducible.
FIRST_REPRODUCIBLE_DACE = Version("1.2.1")
#: The last release before it: a development version after it may or may not hold the fix.
LAST_UNREPRODUCIBLE_DACE = Version("1.2.0")


def dace_translation_reproducible(gt4py_version: str | None) -> bool | None:
    """Whether gt4py ``gt4py_version`` translates a program for DaCe the same way each time.

    ``None`` where that is not known: no version recorded, one that does not parse, or a
    development version between the last release without the fix and the first with it.

    >>> [dace_translation_reproducible(v) for v in ("1.1.12", "1.2.0", "1.2.1", "1.3.0")]
    [False, False, True, True]
    >>> [dace_translation_reproducible(v) for v in ("1.2.1.dev4+g1a2b3c4", "", None, "main")]
    [None, None, None, None]
    """
    try:
        version = Version(gt4py_version or "")
    except InvalidVersion:
        return None
    if version >= FIRST_REPRODUCIBLE_DACE:
        return True
    if version.release <= LAST_UNREPRODUCIBLE_DACE.release:
        return False
    return None


def draw_note(backend: str, gt4py_versions: Iterable[str | None]) -> str | None:
    """What to say of two builds of ``backend`` that differ, built with these gt4py versions.

    ``None`` unless DaCe builds ``backend`` and one of the versions translates for it
    irreproducibly; a backend name no longer known is not DaCe's.

    >>> draw_note("dace_gpu", ["1.2.0", "1.2.1"]).split(":")[0]
    'the DaCe translation of gt4py 1.2.0 is not reproducible'
    >>> draw_note("gtfn_gpu", ["1.2.0"]), draw_note("dace_gpu", ["1.2.1", None])
    (None, None)
    """
    try:
        if not backends.backend(backend).is_dace:
            return None
    except IconbenchError:
        return None
    known = {v for v in gt4py_versions if v is not None}
    versions = sorted(v for v in known if dace_translation_reproducible(v) is False)
    if not versions:
        return None
    return (
        f"the DaCe translation of gt4py {' and '.join(versions)} is not reproducible: "
        "a build of unchanged code can differ too"
    )

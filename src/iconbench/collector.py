"""Python's garbage collector while gt4py translates or loads a program: collecting less often.

A build of a program is hundreds of thousands of Python objects that live until it ends:
gt4py's IR, DaCe's SDFG and the graphs its passes match and rewrite. With the collector's
defaults a young generation is collected every 2 000 allocations, and a full collection,
which walks every tracked object, comes often enough that the build walks its own growing
graph over and over. Measured on a 2-core workstation (``perf/collector_in_builds.py
'compute_rho_theta_pgrad_and_update_vn[is_iau_active=False-limited_area=False]' dace_cpu tiny
2``), the heaviest build of the heavy check spent 6.2 s of its 60.5 s in 7 237 collections;
loading it from the cache spent 0.54 s of 1.91 s.

:func:`fewer_collections` frees what is garbage, moves what lives (the imported stack) out
of the collector's way (``gc.freeze``), and raises the thresholds to :data:`THRESHOLDS` for
the translation or the load: the same build then took 55.0-56.8 s, 2.0 s of it in 830
collections, its load 1.50-1.68 s, and its peak memory grew by 3.5 % (286 to 296 MiB);
garbage cycles are still collected, later. On one H200 host the heavy check's longest build
took 159.6 s instead of 189.0 s, DaCe's passes 19-31 % less (docs/pr-check-h100.md,
"Measured at 875d336"), with the same code-generation fingerprints. The thresholds are
restored afterwards, so nothing a case measures (a call, its host overhead) runs under them.
The code gt4py and DaCe generate is the same: only when Python frees
memory changes. What iconbench records as a compile or load time is therefore that of a
process collecting this way (:data:`DESCRIPTION`, in each result's provenance).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

#: The collector's thresholds while a program is translated or loaded (generation 0
#: allocations, then collections of the younger generation before an older one).
THRESHOLDS = (50_000, 20, 100)
#: How compile and load times were taken, as results record it.
DESCRIPTION = (
    f"gc.freeze() and thresholds {'/'.join(map(str, THRESHOLDS))} while a program is "
    "translated or loaded"
)


@contextlib.contextmanager
def fewer_collections() -> Iterator[None]:
    """Translate or load a program with the collector out of the way (module doc).

    >>> before = gc.get_threshold()
    >>> with fewer_collections():
    ...     gc.get_threshold() == THRESHOLDS
    True
    >>> gc.get_threshold() == before
    True
    """
    before = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)

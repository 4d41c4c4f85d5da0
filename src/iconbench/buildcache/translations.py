"""gt4py's translations found by what the program computes, not by where its source lies.

gt4py keeps each program's translation (DaCe's SDFG, gtfn's C++) in a persistent cache keyed
by a strict fingerprint of the program's IR, and the IR's nodes carry their source location:
the absolute path of the file that defined them. A check's two sides are two checkouts, so
head translates again every program whose code it did not change, only for the build to be
found in the cache afterwards. On one H200 host, icon4py #1405's head translated its 26
unchanged programs with main's builds cached in 7-21 s each, beside the 8 changed builds the
check waits on, and from an empty cache 25-46 s each (``results/pr-check-h200``).

:func:`install` keys gt4py's persistent translation caches by the same fingerprint with the
source locations left out (gt4py's own in-memory cache key leaves them out too,
``fast_compilable_program_fingerprinter``): a program's translation is then made once for
every checkout of the same code. What differs between two such translations is the debug
information naming the source files, which the generated code does not depend on; the builds
are found by what their code computes already (:mod:`iconbench.timing.sdfg_identity`).

:func:`install` runs where iconbench makes a backend
(:func:`iconbench.programs.backends.resolve`, :func:`iconbench.suite.resolve_backend`).
"""

from __future__ import annotations

from typing import Any

#: Module attribute names of the deconstructor and fingerprinter :func:`install` makes, so
#: that a compile task shipped to a process pool pickles them by reference.
_DECONSTRUCTOR = "location_agnostic_deconstructor"
_FINGERPRINTER = "location_agnostic_fingerprinter"


def fingerprinter() -> Any | None:
    """gt4py's strict fingerprinter with the IR nodes' ``location`` left out (``None``: no API).

    A gt4py release without the pieces (another stack's) keeps its own key.
    """
    try:
        from gt4py.eve import concepts
        from gt4py.next import fingerprinting
    except ImportError:
        return None
    if not all(hasattr(fingerprinting, name) for name in (
            "make_fingerprinter", "make_strict_data_deconstructor",
            "skipping_fields_node_deconstructor")):  # fmt: skip
        return None
    if _FINGERPRINTER not in globals():
        deconstructor = fingerprinting.make_strict_data_deconstructor(
            {concepts.Node: fingerprinting.skipping_fields_node_deconstructor("location")},
            name=_DECONSTRUCTOR,
            module=__name__,
        )
        globals()[_DECONSTRUCTOR] = deconstructor
        globals()[_FINGERPRINTER] = fingerprinting.make_fingerprinter(deconstructor=deconstructor)
    return globals()[_FINGERPRINTER]


def __getattr__(name: str) -> Any:
    """The deconstructor and fingerprinter, made on first use (for a pool worker unpickling).

    A compile task shipped to a process pool names them by this module and their names.
    """
    if name in (_DECONSTRUCTOR, _FINGERPRINTER) and fingerprinter() is not None:
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def install() -> bool:
    """Key gt4py's persistent translation caches without source locations.

    Before backends are made: gt4py's workflow factories read the key when they make a
    backend's workflow. Returns whether it is in effect (``False``: a gt4py without the seam).
    """
    try:
        from gt4py.next.otf import stages
    except ImportError:
        return False
    if not hasattr(stages, "compilable_program_fingerprinter"):
        return False
    found = fingerprinter()
    if found is None:
        return False
    stages.compilable_program_fingerprinter = found
    return True

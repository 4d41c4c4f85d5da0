"""What a compile server imports once, for the workers it forks (:mod:`.compile_server`).

Importing this module imports the stack a compile worker needs before its first build:
gt4py with its backends, DaCe, icon4py's dycore and diffusion programs, and iconbench's
suite, grids and inputs. Where the server was told the pool's programs
(:data:`PROGRAMS_VARIABLE`: the run's ``--programs`` pattern), it also imports each one's
module and analyses it (:func:`iconbench.programs.catalog.lookup`, cached in the process),
which every worker did before its first build: the forked workers inherit both.

A stack that fails to import is not this module's to report: the server keeps going,
and each worker meets the failure in its own build, where the precompile reports it in its
one line (:mod:`iconbench.stacks.breakage`).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import re
from collections.abc import Iterable

from iconbench.runner.compile_server import PROGRAMS_VARIABLE

#: The modules, in the order a worker would import them.
MODULES = (
    "gt4py.next",
    "dace",
    "icon4py.model.atmosphere.dycore",
    "icon4py.model.atmosphere.diffusion",
    "iconbench.suite",
    "iconbench.programs.catalog",
    "iconbench.grids.generator",
    "iconbench.programs.inputs",
)
#: The most programs the server prepares: a pattern that names more (or none: every
#: program) leaves them to the workers. All 97 modules of the dycore's and diffusion's
#: stencils take 4.4 s to import on a workstation, longer than the precompile process's own
#: start, which the server's preload runs beside.
MOST_PROGRAMS = 8


def programs_named(pattern: str, names: Iterable[str]) -> list[str]:
    r"""The program ``names`` that ``pattern`` names literally (a check's ``--programs``).

    A name counts where it stands whole in the pattern; none where more than
    :data:`MOST_PROGRAMS` do.

    >>> names = ["compute_airmass", "compute_airmass_x", "apply_diffusion_to_vn"]
    >>> programs_named(r"^(compute_airmass|apply_diffusion_to_vn)\[", names)
    ['apply_diffusion_to_vn', 'compute_airmass']
    >>> programs_named("", names), programs_named("airmass", names)
    ([], [])
    """
    found = sorted(
        name for name in names if re.search(rf"(?<![\\w.]){re.escape(name)}(?!\\w)", pattern)
    )
    return found if len(found) <= MOST_PROGRAMS else []


def _prepare_programs(pattern: str) -> None:
    """Import and analyse the programs ``pattern`` names (the workers' lookups, done once)."""
    from iconbench.programs import catalog
    from iconbench.programs.imports import ProgramIndex

    names = ProgramIndex.installed().catalog_programs(catalog.PACKAGES)
    for name in programs_named(pattern, names):
        with contextlib.suppress(Exception):
            catalog.lookup(name)


for _name in MODULES:
    with contextlib.suppress(Exception):
        importlib.import_module(_name)
if _pattern := os.environ.get(PROGRAMS_VARIABLE, ""):
    with contextlib.suppress(Exception):
        _prepare_programs(_pattern)

"""What a compile server imports once, for the workers it forks (:mod:`.compile_server`).

Importing this module imports the stack a compile worker needs before its first build:
gt4py with its backends, DaCe, icon4py's dycore and diffusion programs, and iconbench's
suite. A stack that fails to import is not this module's to report: the server keeps going,
and each worker meets the failure in its own build, where the precompile reports it in its
one line (:mod:`iconbench.stacks.breakage`).
"""

from __future__ import annotations

import contextlib
import importlib

#: The modules, in the order a worker would import them.
MODULES = (
    "gt4py.next",
    "dace",
    "icon4py.model.atmosphere.dycore",
    "icon4py.model.atmosphere.diffusion",
    "iconbench.suite",
    "iconbench.programs.catalog",
)

for _name in MODULES:
    with contextlib.suppress(Exception):
        importlib.import_module(_name)

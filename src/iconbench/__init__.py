"""iconbench: continuous benchmarking and regression gating for ICON4Py's GT4Py programs.

The package is organised one concern per subpackage (see ``docs/architecture.md``):
``grids`` builds ICON-like grids, ``programs`` discovers and feeds the dycore and diffusion
programs, ``verification`` checks backends against each other, ``timing`` measures them,
``stacks`` builds gt4py/dace/icon4py environments, ``baselines`` holds the OpenACC numbers
and ``cli`` is the thin command line on top.
"""

__version__ = "0.1.0"

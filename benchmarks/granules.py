"""asv glue for the whole-granule benchmarks (:mod:`iconbench.granules`).

Parameterised by ``case`` (``diffusion.run``, ``diffusion.initial_run``,
``solve_nonhydro.substep``, ``integrate_nh``), ``backend`` and ``grid``, narrowed like the
program suite by ``ICONBENCH_BACKENDS`` and ``ICONBENCH_GRID`` (embedded is skipped: the
granules do not run on it). Defined only with ``ICONBENCH_GRANULES=1``; select with
``asv run --bench Granules``.

- ``time_wall``: one granule call, synchronised, gt4py metrics off;
- ``track_device_sum``: the programs' summed device time per call (gt4py ``compute``);
- ``track_overhead`` / ``track_overhead_share``: wall minus device sum, and its share;
- ``track_program_calls``: gt4py program calls per granule call (counted by gt4py's hook).
"""

import os
import pathlib
import sys

try:
    import iconbench  # noqa: F401
except ImportError:
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "src"))

from iconbench import buildcache, bytecode
from iconbench.stacks.identity import stack_key

bytecode.configure()  # gt4py's bytecode kept even where its writing is off
buildcache.configure(os.environ.get("ICONBENCH_STACK") or stack_key())

from iconbench import suite  # noqa: E402
from iconbench.granules.cases import CASES  # noqa: E402
from iconbench.programs import backends  # noqa: E402

_PREPARED: dict = {}
_MEASURED: dict = {}


def _prepared(backend, grid):
    if (backend, grid) not in _PREPARED:
        from iconbench.granules import cases

        _PREPARED[backend, grid] = cases.prepare(list(CASES), backend, grid)
    return _PREPARED[backend, grid]


def _measured(case, backend, grid):
    if (case, backend, grid) not in _MEASURED:
        from iconbench.granules import measure

        prepared = _prepared(backend, grid)
        _MEASURED[case, backend, grid] = measure.measure(
            prepared.call(case), case=case, backend=backend, grid=grid, samples=5,
            on_gpu=prepared.on_gpu,
        )  # fmt: skip
    return _MEASURED[case, backend, grid]


class Granules:
    """Whole granule calls; see the module docstring."""

    params = (list(CASES), suite.selected_backends(), suite.selected_grids())
    param_names = ("case", "backend", "grid")
    timeout = 3600
    repeat = (5, 50, 20.0)

    def setup(self, case, backend, grid):
        resolved = backends.backend(backend)
        if resolved.is_embedded:
            raise NotImplementedError("the granules do not run on embedded (icon4py 0.4.1)")
        if resolved.on_gpu:
            try:
                import cupy  # noqa: F401
            except ImportError:
                raise NotImplementedError(f"{backend} needs cupy and a GPU") from None
        prepared = _prepared(backend, grid)
        self.call = prepared.call(case)
        from iconbench.granules.measure import synchronizer

        self.sync = synchronizer(prepared.on_gpu)

    def time_wall(self, case, backend, grid):
        self.call()
        self.sync()

    def track_device_sum(self, case, backend, grid):
        return _measured(case, backend, grid).device_median_s

    track_device_sum.unit = "seconds"

    def track_overhead(self, case, backend, grid):
        return _measured(case, backend, grid).overhead_s

    track_overhead.unit = "seconds"

    def track_overhead_share(self, case, backend, grid):
        return _measured(case, backend, grid).overhead_share

    track_overhead_share.unit = "fraction"

    def track_program_calls(self, case, backend, grid):
        return _measured(case, backend, grid).calls_per_call

    track_program_calls.unit = "calls"


# asv runs the granules only when asked (ICONBENCH_GRANULES=1): `asv continuous main HEAD` and
# a check of a program-only change never start them (a granule holds 18 GB and takes minutes).
if os.environ.get("ICONBENCH_GRANULES", "0") in ("", "0"):
    del Granules

"""The granule cases: what one benchmarked call is, and building it on a grid and backend.

=========================  ==================================================  ===============
case                       one call                                            ICON timer
=========================  ==================================================  ===============
``diffusion.run``          ``Diffusion.run``: one diffusion step               ``nh_hdiff_run``
``diffusion.initial_run``  ``Diffusion.run(initial_run=True)``                 ``..._initial``
``solve_nonhydro.substep`` ``SolveNonhydro.time_step`` of an intermediate      (one ``nh_solve``)
                           substep: predictor + corrector
``integrate_nh``           the 5 substeps of one time step as the driver runs  ``integrate_nh``
                           them, then one diffusion step
=========================  ==================================================  ===============
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any

from iconbench.errors import IconbenchError


@dataclasses.dataclass(frozen=True)
class GranuleCase:
    """A named granule call: which granules it needs and its ICON timer."""

    name: str
    needs: tuple[str, ...]
    timer: str | None
    description: str


CASES: dict[str, GranuleCase] = {
    case.name: case
    for case in (
        GranuleCase("diffusion.run", ("diffusion",), "nh_hdiff_run", "one diffusion step"),
        GranuleCase(
            "diffusion.initial_run", ("diffusion",), "nh_hdiff_run_initial",
            "the first diffusion step of a run (special coefficients)",
        ),
        GranuleCase(
            "solve_nonhydro.substep", ("solve_nonhydro",), None,
            "predictor + corrector of an intermediate dynamics substep",
        ),
        GranuleCase(
            "integrate_nh", ("solve_nonhydro", "diffusion"), "integrate_nh",
            "5 dynamics substeps and one diffusion step (one ICON time step)",
        ),
    )
}  # fmt: skip


def select(pattern: str | None) -> list[str]:
    """Case names matching the regex ``pattern`` (all without one); unknown -> error.

    >>> select("diffusion")
    ['diffusion.run', 'diffusion.initial_run']
    """
    import re

    if not pattern:
        return list(CASES)
    try:
        chosen = [name for name in CASES if re.search(pattern, name)]
    except re.error as error:
        raise IconbenchError(f"--cases {pattern!r} is not a valid regex ({error})") from None
    if not chosen:
        raise IconbenchError(f"no granule case matches {pattern!r}; cases: {', '.join(CASES)}")
    return chosen


@dataclasses.dataclass
class Prepared:
    """The granules built on one grid and backend, and each case's call."""

    backend: str
    grid: str
    on_gpu: bool
    setups: dict[str, Any]
    #: Seconds to build each granule (compiling or loading its programs).
    build_s: dict[str, float]
    #: Programs set up on the fallback of an ``embedded+BACKEND`` backend (empty otherwise).
    fallback_programs: tuple[str, ...] = ()

    def call(self, case: str) -> Callable[[], None]:
        """The zero-argument call of ``case``."""
        diffusion, solver = self.setups.get("diffusion"), self.setups.get("solve_nonhydro")
        if case == "diffusion.run":
            return diffusion.run
        if case == "diffusion.initial_run":
            return functools.partial(diffusion.run, initial_run=True)
        if case == "solve_nonhydro.substep":
            return functools.partial(solver.substep, at_first_substep=False, at_last_substep=False)
        if case == "integrate_nh":

            def step() -> None:
                solver.substeps()
                diffusion.run()

            return step
        raise IconbenchError(f"unknown granule case {case!r}; choose from: {', '.join(CASES)}")

    def outputs(self) -> dict[str, Any]:
        """Every granule's output fields, named ``granule.field``."""
        return {
            f"{name}.{field}": value
            for name, setup in self.setups.items()
            for field, value in setup.outputs().items()
        }


def prepare(cases: list[str], backend: str, grid: str, *, seed: int = 0) -> Prepared:
    """Build the granules ``cases`` need on ``grid`` (preset) with ``backend``.

    ``backend`` is a backend name or ``embedded+BACKEND``: embedded, and ``BACKEND`` for the
    programs embedded cannot run (:mod:`iconbench.granules.program_backends`, the CI check).
    """
    import contextlib
    import time

    from iconbench import suite
    from iconbench.granules import fields, program_backends, states
    from iconbench.programs import backends

    per_program = program_backends.ProgramBackends.parse(backend)
    base = per_program.default if per_program else backend
    needed = list(dict.fromkeys(n for c in cases for n in CASES[c].needs))
    host = suite.generated_grid(grid)
    device = suite.generated_grid(grid, base)
    ctx = states.Context(
        host=host,
        device=device,
        sources=fields.build(host),
        backend_like=backends.descriptor(base),
        allocator=backends.allocator(base),
        draw=states.Draw(seed),
    )
    builders = {"diffusion": states.build_diffusion, "solve_nonhydro": states.build_solve_nonhydro}
    setups, build_s = {}, {}
    choosing = program_backends.choosing(per_program) if per_program else contextlib.nullcontext()
    with choosing as fallback_programs:
        for name in needed:
            start = time.perf_counter()
            setups[name] = builders[name](ctx)
            build_s[name] = time.perf_counter() - start
    return Prepared(
        backend,
        grid,
        backends.backend(base).on_gpu,
        setups,
        build_s,
        tuple(fallback_programs or ()),
    )

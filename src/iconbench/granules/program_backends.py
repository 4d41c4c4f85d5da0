"""A backend per program: the granules on embedded, compiled only where embedded cannot run.

icon4py's granules give every program the one backend they are built with:
``model_options.setup_program`` asks ``model_options.customize_backend(program, backend)`` for
each program. gt4py 1.2.1's embedded backend cannot run :data:`EMBEDDED_CANNOT_RUN`, seven of
the programs the diffusion and solve_nonhydro granules call (``concat_where`` over an open
range or more than one dimension; upstream marks them ``uses_concat_where`` /
``embedded_remap_error``), so a granule built on embedded fails in ``Diffusion.__init__``. A
granule built on ``gtfn_cpu`` compiles all its ~40 programs (over 10 minutes on two cores).

:class:`ProgramBackends` (``embedded+gtfn_cpu``) runs every program on embedded except those
seven, which get the compiled backend: the granules' own code, their own call sequence and
their own programs, with compilation only where there is no other way. It is a *check*
backend (CI: outputs finite, call counts), not one to time: its device sum mixes embedded
Python time with compiled kernels. :func:`choosing` is the one place that wraps
``customize_backend``; it applies only while the granules are built.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from typing import Any

from iconbench.errors import IconbenchError

#: Programs of the icon4py 0.4.1 granules that gt4py 1.2.1's embedded backend cannot run
#: (``docs/programs.md``: the verification's compiled-reference programs).
EMBEDDED_CANNOT_RUN: frozenset[str] = frozenset(
    {
        "vertically_implicit_solver_at_predictor_step",
        "vertically_implicit_solver_at_corrector_step",
        "compute_rho_theta_pgrad_and_update_vn",
        "compute_advection_in_predictor_vertical_momentum",
        "compute_advection_in_corrector_vertical_momentum",
        "apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence",
        "init_nabla2_factor_in_upper_damping_zone",
    }
)

SEPARATOR = "+"


@dataclasses.dataclass(frozen=True)
class ProgramBackends:
    """``default`` for every program, ``fallback`` for the programs in ``fallback_for``.

    >>> choice = ProgramBackends.parse("embedded+gtfn_cpu")
    >>> choice.name, choice.backend_for("apply_diffusion_to_vn")
    ('embedded+gtfn_cpu', 'embedded')
    >>> choice.backend_for("vertically_implicit_solver_at_predictor_step")
    'gtfn_cpu'
    >>> ProgramBackends.parse("gtfn_cpu") is None
    True
    """

    default: str
    fallback: str
    fallback_for: frozenset[str] = EMBEDDED_CANNOT_RUN

    @property
    def name(self) -> str:
        return f"{self.default}{SEPARATOR}{self.fallback}"

    @classmethod
    def parse(cls, name: str) -> ProgramBackends | None:
        """``embedded+BACKEND`` as a choice; ``None`` for a plain backend name."""
        if SEPARATOR not in name:
            return None
        default, _, fallback = name.partition(SEPARATOR)
        if default != "embedded" or not fallback or SEPARATOR in fallback:
            raise IconbenchError(
                f"backend {name!r}: a per-program backend is 'embedded+BACKEND' "
                "(embedded, and BACKEND for the programs embedded cannot run), e.g. "
                "embedded+gtfn_cpu"
            )
        from iconbench.programs import backends

        if backends.backend(fallback).on_gpu:  # unknown names raise
            raise IconbenchError(
                f"backend {name!r}: embedded runs on the host, so the fallback must be a CPU "
                "backend (gtfn_cpu, dace_cpu)"
            )
        return cls(default, fallback)

    def backend_for(self, program: str) -> str:
        """The backend name that runs ``program``."""
        return self.fallback if program in self.fallback_for else self.default


@contextlib.contextmanager
def choosing(choice: ProgramBackends) -> Iterator[list[str]]:
    """Build granules inside this block to give each program ``choice``'s backend.

    Yields the names of the programs that got the fallback, in the order they were set up
    (a granule that no longer calls one of them shows as a shorter list). Wraps
    ``model_options.customize_backend``, which ``setup_program`` looks up at each call;
    restored on exit, also on error.
    """
    from icon4py.model.common import model_options

    from iconbench.programs import backends

    original = model_options.customize_backend
    fallback_used: list[str] = []

    def customize_backend(program: Any, backend: Any) -> Any:
        name = getattr(program, "__name__", "")
        chosen = choice.backend_for(name)
        if chosen != choice.default:
            fallback_used.append(name)
        return original(program, backends.descriptor(chosen))

    model_options.customize_backend = customize_backend
    try:
        yield fallback_used
    finally:
        model_options.customize_backend = original

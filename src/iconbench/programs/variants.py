"""The values of static (compile-time) arguments that ICON actually uses, as reviewed data.

icon4py's granules create each program with ``model_options.setup_program``, which compiles
``variants=`` (all values selectable at run time) and every scalar of ``constant_args`` (fixed
by the configuration) as static arguments. A static argument changes the generated code, so
each value ICON can use is its own benchmark case. Values are per parameter *name*, since the
granules use one name for one meaning; :data:`PER_PROGRAM` narrows a name for one program.

A boolean parameter that appears in neither table is treated as static with both values, so
a new upstream switch is benchmarked both ways until it is reviewed here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, Protocol

SOLVE_NONHYDRO = "icon4py/model/atmosphere/dycore/solve_nonhydro.py"
VELOCITY_ADVECTION = "icon4py/model/atmosphere/dycore/velocity_advection.py"
DIFFUSION = "icon4py/model/atmosphere/diffusion/diffusion.py"


@dataclasses.dataclass(frozen=True)
class StaticChoice:
    """The values ICON uses for one static argument, and where that is decided."""

    values: tuple[Any, ...]
    source: str


def _rayleigh_types() -> tuple[int, ...]:
    from icon4py.model.common import constants

    return tuple(int(t) for t in constants.RayleighType)


def _divdamp_types() -> tuple[int, ...]:
    from icon4py.model.atmosphere.dycore import dycore_states

    return tuple(int(t) for t in dycore_states.DivergenceDampingType)


#: Static arguments by parameter name (all programs).
BY_NAME: dict[str, StaticChoice] = {
    "at_first_substep": StaticChoice(
        (True, False), f"{SOLVE_NONHYDRO}: variants={{'at_first_substep': [False, True]}}"
    ),
    "at_last_substep": StaticChoice(
        (True, False), f"{SOLVE_NONHYDRO}: variants={{'at_last_substep': [False, True]}}"
    ),
    "lprep_adv": StaticChoice(
        (False, True), f"{SOLVE_NONHYDRO}: variants={{'lprep_adv': [False, True]}}"
    ),
    "prepare_advection": StaticChoice(
        (False, True), f"{SOLVE_NONHYDRO}: variants={{'prepare_advection': [False, True]}}"
    ),
    "is_iau_active": StaticChoice(
        (False, True),
        f"{SOLVE_NONHYDRO}: variants={{'is_iau_active': [False, True] if iau_init else [False]}}",
    ),
    "apply_2nd_order_divergence_damping": StaticChoice(
        (False, True), f"{SOLVE_NONHYDRO}: _apply_divergence_damping_and_update_vn variants"
    ),
    "apply_4th_order_divergence_damping": StaticChoice(
        (False, True), f"{SOLVE_NONHYDRO}: _apply_divergence_damping_and_update_vn variants"
    ),
    "skip_compute_predictor_vertical_advection": StaticChoice(
        (False, True), f"{VELOCITY_ADVECTION}: variants={{'skip_compute_...': [True, False]}}"
    ),
    "apply_extra_diffusion_on_vn": StaticChoice(
        (False, True), f"{VELOCITY_ADVECTION}: variants={{'apply_extra_diffusion_on_vn': ...}}"
    ),
    "apply_zdiffusion_t": StaticChoice(
        (False, True), f"{DIFFUSION}: constant_args apply_zdiffusion_t=config.apply_zdiffusion_t"
    ),
    "limited_area": StaticChoice(
        (False, True),
        f"{SOLVE_NONHYDRO}, {DIFFUSION}: constant_args limited_area=grid.limited_area",
    ),
}


def _late_choices() -> dict[str, StaticChoice]:
    """Choices that read icon4py's enums (imported lazily: icon4py import is slow)."""
    return {
        "rayleigh_type": StaticChoice(
            _rayleigh_types(), f"{SOLVE_NONHYDRO}: constant_args rayleigh_type=config.rayleigh_type"
        ),
        "divdamp_type": StaticChoice(
            _divdamp_types(), f"{SOLVE_NONHYDRO}: constant_args divdamp_type=config.divdamp_type"
        ),
    }


#: Per program: static arguments whose ICON values differ from :data:`BY_NAME`, or ``()`` to
#: make a boolean a run-time argument (not a variant) for that program.
PER_PROGRAM: dict[str, dict[str, StaticChoice]] = {}


class _ParamLike(Protocol):
    name: str
    dtype: str
    dims: tuple[str, ...]


def static_choices(program: str, params: Sequence[_ParamLike]) -> dict[str, tuple[Any, ...]]:
    """``{param: values}`` of the static arguments of ``program`` (in signature order)."""
    table = {**BY_NAME, **_late_choices(), **PER_PROGRAM.get(program, {})}
    choices: dict[str, tuple[Any, ...]] = {}
    for p in params:
        if p.dims:
            continue
        if p.name in table:
            if table[p.name].values:
                choices[p.name] = table[p.name].values
        elif p.dtype == "bool":
            choices[p.name] = (False, True)
    return choices


def source_of(program: str, param: str) -> str:
    """Where ICON decides the values of ``param`` (for ``iconbench programs --verbose``)."""
    table = {**BY_NAME, **_late_choices(), **PER_PROGRAM.get(program, {})}
    choice = table.get(param)
    return choice.source if choice else "boolean parameter not in the reviewed table: both values"

"""Counting the gt4py program calls a granule issues, by program and static variant.

The count comes from gt4py's own instrumentation hook ``program_call_context`` (every
``Program.__call__``, embedded and compiled alike), not from the granule: it sees what the
granule really launches. A call's variant is the catalog's ``k=v-k=v`` of its ``bool`` and enum
arguments (``at_first_substep=True``): the switches ICON's timers split a program on; domain
bounds and fields are not part of it.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import enum
import inspect
from collections.abc import Iterator, Mapping
from typing import Any


@dataclasses.dataclass(frozen=True, order=True)
class ProgramKey:
    """A program and the variant of one call (``variant`` empty: no switches)."""

    program: str
    variant: str = ""

    @property
    def case_id(self) -> str:
        """``program[variant]`` as the suite names cases (``default`` without a variant).

        >>> ProgramKey("apply_diffusion_to_vn").case_id
        'apply_diffusion_to_vn[default]'
        """
        return f"{self.program}[{self.variant or 'default'}]"


def variant_of(kwargs: Mapping[str, Any]) -> str:
    """The switches among ``kwargs``, in call order, as ``k=v-k=v``.

    >>> klemp = enum.IntEnum("RayleighType", {"KLEMP": 2}).KLEMP
    >>> variant_of({"vn": object(), "at_first_substep": True, "kind": klemp, "n": 3})
    'at_first_substep=True-kind=2'
    """
    parts = []
    for name, value in kwargs.items():
        if isinstance(value, bool):
            parts.append(f"{name}={value}")
        elif isinstance(value, enum.Enum):
            parts.append(f"{name}={value.value}")
    return "-".join(parts)


class CallCounter:
    """Counts program calls while active (:meth:`counting`); reusable, additive."""

    def __init__(self) -> None:
        self.counts: collections.Counter[ProgramKey] = collections.Counter()
        self._active = False
        self._registered = False

    def _hook(
        self,
        program: Any,
        args: tuple[Any, ...],
        offset_provider: Any,
        enable_jit: bool,
        kwargs: dict[str, Any],
    ) -> contextlib.AbstractContextManager:
        if self._active:
            definition = program.definition_stage.definition
            if args:  # positional arguments: named by the program's definition
                names = list(inspect.signature(definition).parameters)
                kwargs = {**dict(zip(names, args, strict=False)), **kwargs}
            self.counts[ProgramKey(definition.__name__, variant_of(kwargs))] += 1
        return contextlib.nullcontext()

    @contextlib.contextmanager
    def counting(self) -> Iterator[CallCounter]:
        """Count the program calls made inside the ``with`` block."""
        from gt4py.next.instrumentation import hooks

        if not self._registered:
            hooks.program_call_context.register(self._hook, name=f"iconbench-count-{id(self)}")
            self._registered = True
        self._active = True
        try:
            yield self
        finally:
            self._active = False

    def per_call(self, granule_calls: int) -> dict[ProgramKey, float]:
        """Program calls per granule call, sorted by key."""
        return {key: n / granule_calls for key, n in sorted(self.counts.items())}

    def clear(self) -> None:
        self.counts.clear()

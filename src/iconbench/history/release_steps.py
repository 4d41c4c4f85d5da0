"""The steps of upstream's release history since the pins, and who a change belongs to.

A gt4py or dace developer asks what their release did to icon4py. Each release step is
measured as a pair of stacks (:class:`Step`): the pinned stack, then each dace release with
the pinned gt4py (dace changed alone), each gt4py release with the dace it declares against
the pinned gt4py with that same dace (gt4py changed alone), and the pairs the releases
declare (gt4py 1.2.1 + dace 2.0.0a6 → gt4py 1.2.2 + dace 2.0.0a7 → gt4py 1.2.3 + dace
2.0.0a10), where both move at once.

A confirmed change of a step where both moved is attributed (:func:`attribute`) to the
component whose steps alone, between the same versions, reproduce it: a confirmed change of
the same benchmark in the same direction. A step of one component is that component's.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterable, Mapping, Sequence

from iconbench.stacks.pinned import Pin, PinnedStack


def stack_of(gt4py: str, dace: str) -> PinnedStack:
    """The stack of two releases.

    >>> stack_of("1.2.1", "2.0.0a6").name
    'gt4py-1.2.1_dace-2.0.0a6'
    """
    return PinnedStack((Pin("gt4py", gt4py), Pin("dace", dace)))


@dataclasses.dataclass(frozen=True)
class Step:
    """One release step: ``base`` → ``head``, and the steps alone that explain it.

    >>> s = Step(stack_of("1.2.1", "2.0.0a6"), stack_of("1.2.1", "2.0.0a7"))
    >>> s.changed, s.describe()
    (('dace',), 'dace 2.0.0a6 → 2.0.0a7 (gt4py 1.2.1)')
    """

    base: PinnedStack
    head: PinnedStack
    #: for a step where both moved: the names of the steps of one component between them
    explained_by: tuple[str, ...] = ()

    @property
    def changed(self) -> tuple[str, ...]:
        return tuple(p.package for p in self.base.pins if p != self.head.pin(p.package))

    @property
    def name(self) -> str:
        """A directory name: ``gt4py-1.2.1_dace-2.0.0a6--gt4py-1.2.1_dace-2.0.0a7``."""
        return f"{self.base.name}--{self.head.name}"

    def describe(self) -> str:
        """``dace 2.0.0a6 → 2.0.0a7 (gt4py 1.2.1)``; both moved: both arrows."""
        moved = [f"{c} {self.base.pin(c).version} → {self.head.pin(c).version}"
                 for c in self.changed]  # fmt: skip
        kept = [f"{p.package} {p.version}" for p in self.base.pins if p.package not in self.changed]
        return " + ".join(moved) + (f" ({', '.join(kept)})" if kept else "")

    def as_dict(self) -> dict:
        return {"base": self.base.as_dict(), "head": self.head.as_dict(),
                "explained_by": list(self.explained_by)}  # fmt: skip

    @classmethod
    def from_dict(cls, data: Mapping) -> Step:
        def stack(d: Mapping) -> PinnedStack:
            return stack_of(d["gt4py"]["version"], d["dace"]["version"])

        return cls(stack(data["base"]), stack(data["head"]), tuple(data.get("explained_by", ())))


def steps(gt4py: Sequence[str], dace: Sequence[str], declared: Mapping[str, str]) -> list[Step]:
    """Every step since the pins: ``gt4py[0]`` + ``dace[0]`` is the pinned stack.

    ``declared``: per gt4py release, the dace it declares (the pinned gt4py's: ``dace[0]``).

    >>> found = steps(["1.2.1", "1.2.2", "1.2.3"], ["2.0.0a6", "2.0.0a7", "2.0.0a10"],
    ...               {"1.2.1": "2.0.0a6", "1.2.2": "2.0.0a7", "1.2.3": "2.0.0a10"})
    >>> [s.describe() for s in found]  # doctest: +NORMALIZE_WHITESPACE
    ['dace 2.0.0a6 → 2.0.0a7 (gt4py 1.2.1)', 'dace 2.0.0a7 → 2.0.0a10 (gt4py 1.2.1)',
     'gt4py 1.2.1 → 1.2.2 (dace 2.0.0a7)', 'gt4py 1.2.1 → 1.2.3 (dace 2.0.0a10)',
     'gt4py 1.2.1 → 1.2.2 + dace 2.0.0a6 → 2.0.0a7',
     'gt4py 1.2.2 → 1.2.3 + dace 2.0.0a7 → 2.0.0a10']
    >>> found[-1].explained_by == (found[1].name, found[3].name)
    True
    """
    pinned_gt4py = gt4py[0]
    dace_alone = [Step(stack_of(pinned_gt4py, a), stack_of(pinned_gt4py, b))
                  for a, b in itertools.pairwise(dace)]  # fmt: skip
    gt4py_alone = [Step(stack_of(pinned_gt4py, declared[g]), stack_of(g, declared[g]))
                   for g in gt4py[1:]]  # fmt: skip
    both = []
    for a, b in itertools.pairwise(gt4py):
        base, head = stack_of(a, declared[a]), stack_of(b, declared[b])
        if base.pin("dace") == head.pin("dace"):
            continue  # gt4py alone: already a step above when a is the pinned one
        low, high = dace.index(declared[a]), dace.index(declared[b])
        explained = [s.name for s in dace_alone[low:high]]
        explained += [s.name for s in gt4py_alone if s.head.pin("gt4py").version == b]
        both.append(Step(base, head, tuple(explained)))
    return dace_alone + gt4py_alone + both


def stacks(found: Iterable[Step]) -> list[PinnedStack]:
    """Each stack the steps measure, once, in the order first met."""
    return list(dict.fromkeys(s for step in found for s in (step.base, step.head)))


@dataclasses.dataclass(frozen=True)
class Change:
    """A confirmed change of one benchmark in one step: its A/B ratio and interval."""

    benchmark: str  # "case|backend|metric"
    ratio: float
    ratio_ci: tuple[float, float]
    #: how every report names a change smaller than its threshold ("" for any other)
    below: str = ""


def attribute(step: Step, change: Change, confirmed: Mapping[str, Sequence[Change]],
              by_name: Mapping[str, Step]) -> str:  # fmt: skip
    """The component ``change`` belongs to: ``gt4py``, ``dace``, ``both`` or ``unattributed``.

    ``confirmed``: per step name, its confirmed changes. A step of one component is its own;
    a step where both moved goes to each component whose steps alone show a confirmed change
    of the benchmark in the same direction.

    >>> a = Step(stack_of("1", "a"), stack_of("1", "b"))
    >>> g = Step(stack_of("1", "b"), stack_of("2", "b"))
    >>> both = Step(stack_of("1", "a"), stack_of("2", "b"), (a.name, g.name))
    >>> up = Change("p|dace_gpu|device_time", 1.035, (1.031, 1.039))
    >>> steps_ = {s.name: s for s in (a, g, both)}
    >>> attribute(both, up, {a.name: [up]}, steps_), attribute(a, up, {}, steps_)
    ('dace', 'dace')
    >>> attribute(both, up, {}, steps_)
    'unattributed'
    """
    if len(step.changed) == 1:
        return step.changed[0]
    slower = change.ratio > 1.0
    owners = []
    for name in step.explained_by:
        for alone in confirmed.get(name, ()):
            if alone.benchmark == change.benchmark and (alone.ratio > 1.0) == slower:
                owners.extend(by_name[name].changed)
    owners = list(dict.fromkeys(owners))
    return "both" if len(owners) > 1 else owners[0] if owners else "unattributed"

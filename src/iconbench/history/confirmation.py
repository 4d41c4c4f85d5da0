"""The record of a change point's confirmation: its commit measured again against its parent.

A change point of the backfilled history compares commits measured hours or days apart, one
after another, each once: a neighbour's load or a warmer GPU between two of them looks like
a step. ``iconbench history confirm`` (:mod:`iconbench.history.confirm`) measures the
commit (head) and its first parent (base) again, interleaved in fresh processes as a
pull-request check does, and keeps what it found per benchmark in one record
(``iconbench-confirmation``, version 1), which the history stores beside the A/B's gate
summary and the site reads next to the change point.

A benchmark is **confirmed** when the A/B's gate verdict, the one decision rule of every road
(:mod:`iconbench.gate.decision`: a change beyond the tolerance margin, a discovery at the
false discovery rate), is the change the history shows: a *regression* for a step up, an
*improvement* for a step down; with no step to compare (the history has no value before it)
either confirms a change. Anything else (unchanged, inconclusive, the other direction, no
A/B) is **not confirmed**: the same words a nightly's confirmation and a check give it.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
from collections.abc import Iterable, Mapping
from typing import Any

from iconbench.errors import IconbenchError
from iconbench.files.atomic import write_atomic

SCHEMA = "iconbench-confirmation"
VERSION = 1
CONFIRMED, NOT_CONFIRMED = "confirmed", "not confirmed"


def judge(step: float | None, gate_verdict: str) -> str:
    """Whether the A/B's gate verdict confirms the history's ``step`` (module doc).

    >>> judge(1.08, "regression"), judge(1.08, "unchanged"), judge(1.08, "improvement")
    ('confirmed', 'not confirmed', 'not confirmed')
    >>> judge(0.9, "improvement"), judge(None, "improvement"), judge(1.08, "missing")
    ('confirmed', 'confirmed', 'not confirmed')

    A 2 % step whose A/B is 1.02x [1.01, 1.03] is not beyond the 2.5 % margin: the gate calls
    it unchanged, and so does the change point's confirmation (an interval that only excludes
    1 confirmed it before, where a check called the same change unchanged):

    >>> judge(1.02, "unchanged")
    'not confirmed'
    """
    if step is None or step == 1.0:
        return CONFIRMED if gate_verdict in ("regression", "improvement") else NOT_CONFIRMED
    wanted = "regression" if step > 1.0 else "improvement"
    return CONFIRMED if gate_verdict == wanted else NOT_CONFIRMED


@dataclasses.dataclass(frozen=True)
class Benchmark:
    """One benchmark of a confirmation: the history's step and the A/B's answer.

    ``step``: what the history shows at the commit (a change point's magnitude, or the
    ratio to the history's previous commit), ``None`` where it has no value before it;
    ``before``: the history's commit before (the change point's good end); ``confidence``:
    the change point's (``None``: a commit named without one). ``ratio`` and
    ``ratio_ci``: head/base of the A/B and its interval (``None``: the gate could not
    compare them, ``notes`` say why); ``gate_verdict``: the gate's verdict of the A/B.
    """

    case: str
    backend: str
    metric: str
    step: float | None
    before: str | None
    ratio: float | None
    ratio_ci: tuple[float, float] | None
    gate_verdict: str
    verdict: str
    notes: tuple[str, ...] = ()
    confidence: float | None = None

    def describe(self) -> str:
        """``confirmed: 1.083x [1.052, 1.110]``, as the site and the command print it.

        >>> Benchmark("p[default]", "gtfn_gpu", "device_time", 1.08, "a", 1.0831,
        ...           (1.0521, 1.1104), "regression", CONFIRMED).describe()
        'confirmed: 1.083x [1.052, 1.110]'
        >>> Benchmark("p[default]", "gtfn_gpu", "device_time", 1.08, "a", None, None,
        ...           "failed", NOT_CONFIRMED, ("head: compile failed",)).describe()
        'not confirmed: no interval (head: compile failed)'
        """
        if self.ratio_ci is None:
            why = f" ({'; '.join(self.notes)})" if self.notes else ""
            return f"{self.verdict}: no interval{why}"
        low, high = self.ratio_ci
        return f"{self.verdict}: {self.ratio:.3f}x [{low:.3f}, {high:.3f}]"

    def as_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["ratio_ci"] = list(self.ratio_ci) if self.ratio_ci else None
        data["notes"] = list(self.notes)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Benchmark:
        ci = data.get("ratio_ci")
        return cls(
            case=str(data["case"]),
            backend=str(data["backend"]),
            metric=str(data["metric"]),
            step=data.get("step"),
            before=data.get("before"),
            ratio=data.get("ratio"),
            ratio_ci=(float(ci[0]), float(ci[1])) if ci else None,
            gate_verdict=str(data["gate_verdict"]),
            verdict=str(data["verdict"]),
            notes=tuple(data.get("notes") or ()),
            confidence=data.get("confidence"),
        )


@dataclasses.dataclass(frozen=True)
class Confirmation:
    """A commit measured again against its first parent: where, on what, and per benchmark.

    ``device`` and ``grid`` name the history's target as the site does
    (:class:`iconbench.history.runs.Target`); ``machine`` where the A/B ran; the stacks are
    each side's gt4py and dace (``gt4py 1.2.0 + dace 2.0.0a5``), each from its own lock.
    """

    commit: str
    parent: str
    device: str
    grid: str
    created: str
    machine: str
    head_stack: str
    base_stack: str
    parent_in_backfill: bool
    rounds: int
    stopped: str
    benchmarks: tuple[Benchmark, ...]

    def as_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["benchmarks"] = [b.as_dict() for b in self.benchmarks]
        return {"schema": SCHEMA, "version": VERSION, **data}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], origin: str = "confirmation") -> Confirmation:
        if data.get("schema") != SCHEMA or data.get("version") != VERSION:
            raise IconbenchError(
                f"{origin}: not a version {VERSION} {SCHEMA} record (schema "
                f"{data.get('schema')!r}, version {data.get('version')!r})"
            )
        try:
            fields = {f.name for f in dataclasses.fields(cls)} - {"benchmarks"}
            return cls(
                **{name: data[name] for name in fields},
                benchmarks=tuple(Benchmark.from_dict(b) for b in data["benchmarks"]),
            )
        except (KeyError, TypeError, ValueError, IndexError) as error:
            raise IconbenchError(f"{origin}: not a readable confirmation ({error!r})") from None

    def write(self, path: pathlib.Path) -> pathlib.Path:
        """Write the record once (atomically); a record already there is never replaced."""
        if path.exists():
            raise IconbenchError(f"{path}: a confirmation is already recorded there; kept")
        return write_atomic(path, json.dumps(self.as_dict(), indent=1) + "\n", fsync=True)


def read(path: pathlib.Path) -> Confirmation:
    """The record in ``path``; one line when it is none."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise IconbenchError(f"{path}: not a readable confirmation ({error})") from None
    if not isinstance(data, dict):
        raise IconbenchError(f"{path}: not a readable confirmation (not a JSON object)")
    return Confirmation.from_dict(data, str(path))


#: How a confirmation's benchmark is found from a change point: target, commit, benchmark.
Key = tuple[str, str, str, str, str]


#: Per change point, the record that measured its commit again and the benchmark's part of it.
ByChangePoint = Mapping[Key, tuple[Confirmation, Benchmark]]


def by_change_point(confirmations: Iterable[Confirmation]) -> ByChangePoint:
    """``(device, grid, commit, case, backend)`` -> the record and its benchmark (newest wins).

    >>> b = Benchmark("p[default]", "g", "device_time", 1.1, "a", 1.1, (1.05, 1.15), "x",
    ...               CONFIRMED)
    >>> c = Confirmation("c" * 40, "a" * 40, "cpu", "tiny", "2026-11-26T00:00:00+00:00", "m",
    ...                  "s", "s", True, 8, "decided", (b,))
    >>> list(by_change_point([c]))
    [('cpu', 'tiny', 'cccccccccccccccccccccccccccccccccccccccc', 'p[default]', 'g')]
    """
    found: dict[Key, tuple[Confirmation, Benchmark]] = {}
    for confirmation in sorted(confirmations, key=lambda c: c.created):
        for bench in confirmation.benchmarks:
            key = (confirmation.device, confirmation.grid, confirmation.commit, bench.case,
                   bench.backend)  # fmt: skip
            found[key] = (confirmation, bench)
    return found

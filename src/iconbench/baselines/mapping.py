"""The reviewed ICON timer -> icon4py program mapping, loaded from data (``baselines/mapping``).

The mapping is data so that the people who know ICON's timers can review and extend it
without touching code; every entry cites its source (see the TOML file's header). This
module only validates it: errors name the file, the entry (``timers[3].programs[1]``) and
what is wrong.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from iconbench.errors import IconbenchError
from iconbench.files import decode

#: The mapping shipped with the repository.
DEFAULT_FILE = Path(__file__).resolve().parents[3] / "baselines" / "mapping" / "icon_timers.toml"


@dataclasses.dataclass(frozen=True)
class ProgramRef:
    """One program (and static variant) that a timer covers, ``calls`` times per timer call."""

    program: str
    static_args: tuple[tuple[str, Any], ...] = ()
    calls: int = 1
    optional: bool = False

    def matches(self, program: str, static_args: Mapping[str, Any]) -> bool:
        """Same program and every static argument this reference names has the same value.

        >>> ProgramRef("p", (("at_first_substep", True),)).matches("p", {"at_first_substep": True,
        ...                                                              "x": 1})
        True
        """
        return program == self.program and all(static_args.get(k) == v for k, v in self.static_args)

    @property
    def label(self) -> str:
        """``program[k=v-k=v]`` (the catalog's case id) with ``xN`` for repeated calls."""
        variant = "-".join(f"{k}={v}" for k, v in self.static_args)
        name = f"{self.program}[{variant}]" if variant else self.program
        return f"{self.calls}x {name}" if self.calls != 1 else name


@dataclasses.dataclass(frozen=True)
class TimerMapping:
    """One ICON timer and the programs it is compared with."""

    timer: str
    programs: tuple[ProgramRef, ...]
    source: str
    granule: str | None = None
    encloses: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class TimerProgramMapping:
    """The whole mapping: mapped timers, enclosing timers, known-unmapped timers with reasons."""

    timers: dict[str, TimerMapping]
    reference_timers: tuple[str, ...]
    enclosing: dict[str, str]
    unmapped: dict[str, str]
    origin: str

    def reason_unmapped(self, timer: str) -> str:
        """Why ``timer`` has no programs (the data's reason, or 'not in the mapping')."""
        return self.unmapped.get(timer) or self.enclosing.get(timer) or "not in the mapping"


def _fail(origin: str, key: str, what: str) -> IconbenchError:
    return IconbenchError(f"{origin}: key '{key}': {what}; fix the mapping file")


def _program(origin: str, key: str, raw: Any) -> ProgramRef:
    if not isinstance(raw, dict) or not isinstance(raw.get("program"), str):
        raise _fail(origin, key, "expected a table with a string 'program'")
    unknown = raw.keys() - {"program", "static_args", "calls", "optional"}
    if unknown:
        raise _fail(origin, key, f"unknown field(s) {sorted(unknown)}")
    static_args = raw.get("static_args", {})
    if not isinstance(static_args, dict):
        raise _fail(origin, f"{key}.static_args", "expected an inline table")
    calls = raw.get("calls", 1)
    if isinstance(calls, bool) or not isinstance(calls, int) or calls < 1:
        raise _fail(origin, f"{key}.calls", f"expected an integer >= 1, got {calls!r}")
    optional = raw.get("optional", False)
    if not isinstance(optional, bool):
        raise _fail(origin, f"{key}.optional", f"expected true or false, got {optional!r}")
    return ProgramRef(raw["program"], tuple(static_args.items()), calls, optional)


def from_dict(data: dict[str, Any], origin: str) -> TimerProgramMapping:
    """Validate the parsed TOML document."""
    if data.get("version") != 1:
        raise _fail(origin, "version", f"expected 1, got {data.get('version')!r}")
    timers: dict[str, TimerMapping] = {}
    for i, raw in enumerate(data.get("timers", [])):
        key = f"timers[{i}]"
        if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
            raise _fail(origin, key, "expected a table with a string 'name'")
        name = raw["name"]
        if name in timers:
            raise _fail(origin, f"{key}.name", f"timer {name!r} is mapped twice")
        if not isinstance(raw.get("source"), str) or not raw["source"].strip():
            raise _fail(origin, f"{key}.source", "every mapping must cite its source")
        programs = raw.get("programs")
        if not isinstance(programs, list) or not programs:
            raise _fail(origin, f"{key}.programs", "expected a non-empty list of programs")
        encloses = raw.get("encloses", [])
        if not isinstance(encloses, list) or not all(isinstance(e, str) for e in encloses):
            raise _fail(origin, f"{key}.encloses", "expected a list of timer names")
        timers[name] = TimerMapping(
            timer=name,
            programs=tuple(
                _program(origin, f"{key}.programs[{j}]", p) for j, p in enumerate(programs)
            ),
            source=raw["source"],
            granule=raw.get("granule"),
            encloses=tuple(encloses),
        )
    tables = {}
    for table in ("enclosing", "unmapped"):
        value = data.get(table, {})
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            raise _fail(origin, table, 'expected a table of timer = "reason"')
        if both := value.keys() & timers.keys():
            raise _fail(origin, table, f"timer(s) {sorted(both)} are also mapped")
        tables[table] = dict(value)
    reference = data.get("reference_timers", [])
    if not isinstance(reference, list) or not all(isinstance(r, str) for r in reference):
        raise _fail(origin, "reference_timers", "expected a list of timer names")
    return TimerProgramMapping(
        timers, tuple(reference), tables["enclosing"], tables["unmapped"], origin
    )


def load(path: Path = DEFAULT_FILE) -> TimerProgramMapping:
    """Read and validate a mapping file; a missing, binary or invalid file names the line."""
    return from_dict(decode.load_toml(path, hint="fix the mapping file"), str(path))

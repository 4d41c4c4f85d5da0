"""The wall time of each phase of a check, as JSON and as a markdown table.

The figures the docs give for a pull-request check come from here: the whole check, run as a
user runs it, timed phase by phase (``OUT/check.json``, ``OUT/check.md``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import pathlib
import time
from collections.abc import Iterator
from typing import Any

from iconbench.files.atomic import write_atomic

#: The phases of a check, in order (a phase not run is absent).
PHASES = (
    "select", "environments", "precompile", "verify", "measure", "gate", "why", "comment", "site",
)  # fmt: skip


@dataclasses.dataclass
class Timeline:
    """Phases and their seconds, plus what the check was (written after every phase)."""

    out: pathlib.Path
    facts: dict[str, Any] = dataclasses.field(default_factory=dict)
    seconds: dict[str, float] = dataclasses.field(default_factory=dict)
    started: float = dataclasses.field(default_factory=time.perf_counter)
    #: per phase running, the seconds of the phases run inside it so far
    _inner: list[float] = dataclasses.field(default_factory=list)

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Time one phase; it is recorded even when it fails.

        A phase run inside another (the precompile while the first measuring workers start
        up) counts for itself only: the phases add up to the check's wall time.

        >>> import tempfile
        >>> timeline = Timeline(pathlib.Path(tempfile.mkdtemp()))
        >>> with timeline.phase("measure"):
        ...     with timeline.phase("precompile"):
        ...         time.sleep(0.2)
        >>> timeline.seconds
        {'precompile': 0.2, 'measure': 0.0}
        """
        start = time.perf_counter()
        self._inner.append(0.0)
        try:
            yield
        finally:
            elapsed = time.perf_counter() - start
            self.seconds[name] = round(elapsed - self._inner.pop(), 1)
            if self._inner:
                self._inner[-1] += elapsed
            self.write()

    def as_dict(self) -> dict[str, Any]:
        total = round(time.perf_counter() - self.started, 1)
        return {**self.facts, "phases": dict(self.seconds), "total_s": total}

    def write(self) -> None:
        data = self.as_dict()
        write_atomic(self.out / "check.json", json.dumps(data, indent=1) + "\n")
        write_atomic(self.out / "check.md", table(data))


def table(data: dict[str, Any]) -> str:
    """The markdown table of one check's phases.

    >>> print(table({"phases": {"select": 1.25, "measure": 30.0}, "total_s": 31.3}), end="")
    | phase | wall time |
    | --- | ---: |
    | select | 1.2 s |
    | measure | 30.0 s |
    | **total** | **31.3 s** |
    """
    rows = ["| phase | wall time |", "| --- | ---: |"]
    phases = data.get("phases", {})
    rows += [f"| {name} | {phases[name]:.1f} s |" for name in PHASES if name in phases]
    rows.append(f"| **total** | **{data.get('total_s', 0.0):.1f} s** |")
    return "\n".join(rows) + "\n"

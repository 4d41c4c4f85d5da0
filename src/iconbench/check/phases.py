"""The wall time of each phase of a check, as the check runs.

The figures the docs give for a pull-request check come from here: the whole check, run as a
user runs it, timed phase by phase into its record (:mod:`iconbench.records.check`:
``OUT/check.json``, ``OUT/check.md``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import pathlib
import time
from collections.abc import Iterator
from typing import Any

from iconbench.records.check import CheckRecord


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

    def record(self) -> CheckRecord:
        """The check's record so far: its facts, the phases run, the wall time until now."""
        total = round(time.perf_counter() - self.started, 1)
        return CheckRecord(dict(self.facts), dict(self.seconds), total)

    def write(self) -> None:
        """The record so far into ``out`` (``check.json``, ``check.md``)."""
        self.record().write(self.out)

"""Turn what users have (ICON run logs, bencher JSON) into a :class:`Baseline`.

The importers only parse timers; the provenance that the files do not carry (GPU, machine,
grid, ICON commit, date) comes from the command line, so it is stated, never guessed.
"""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

from iconbench.baselines.format import (
    Baseline,
    Experiment,
    IconBuild,
    Machine,
    Source,
    from_dict,
)
from iconbench.baselines.importers import bencher_json, timer_table
from iconbench.errors import IconbenchError

#: Importer kinds, by the name ``--kind`` takes.
KINDS = ("timer-table", "bencher-json")


def detect_kind(path: Path, text: str) -> str:
    """``bencher-json`` for JSON documents and ``bencher=...`` names, else ``timer-table``."""
    if path.suffix == ".json" or text.lstrip().startswith("{"):
        return "bencher-json"
    return "timer-table"


@dataclasses.dataclass(frozen=True)
class Provenance:
    """What the timer file itself does not say; all of it goes into the baseline."""

    experiment: str
    grid: str
    gpu: str
    machine: str
    date: str
    timesteps: int
    icon_commit: str | None = None
    icon_build: str = "openacc"
    description: str = ""
    note: str = ""


def import_file(
    path: Path, provenance: Provenance, kind: str | None = None, table: int = 1
) -> Baseline:
    """Parse ``path`` with the importer ``kind`` (detected if None) and validate the result.

    ``table`` picks the timer table of a file that has several (1-based). The baseline goes
    through :func:`iconbench.baselines.format.from_dict`, the same
    validation as loading a stored file, so an import can never store what load rejects.
    """
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise IconbenchError(f"{path}: cannot read ({error.strerror}); check the path") from None
    text = raw.decode("utf-8", errors="replace")
    kind = kind or detect_kind(path, text)
    if kind == "bencher-json":
        timers = bencher_json.parse(text, str(path))
    elif kind == "timer-table":
        timers = timer_table.parse(text, str(path), table)
    else:
        raise IconbenchError(f"unknown importer kind {kind!r}; choose one of: {', '.join(KINDS)}")
    baseline = Baseline(
        experiment=Experiment(provenance.experiment, provenance.grid, provenance.description),
        machine=Machine(provenance.machine, provenance.gpu),
        icon=IconBuild(provenance.icon_commit, provenance.icon_build),
        date=provenance.date,
        timesteps=provenance.timesteps,
        source=Source(kind, path.name, hashlib.sha256(raw).hexdigest(), provenance.note),
        timers=tuple(timers),
    )
    return from_dict(baseline.as_dict(), f"{path} (imported)")

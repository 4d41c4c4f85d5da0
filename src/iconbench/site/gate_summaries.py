"""Reading the gate's summaries (``iconbench-gate-summary`` version 1, docs/gate-summary.md).

The gate writes one JSON document per comparison; the site lists their verdicts with the
commits compared and the benchmarks that regressed or improved. This is the site's only
reader of the format: should the gate ship its own reader, this module is where to point
the site at it. Readers check ``schema`` and ``version`` and refuse anything else with one
line; keys added within version 1 are ignored.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
from typing import Any

from iconbench.errors import IconbenchError

SCHEMA = "iconbench-gate-summary"
VERSION = 1
#: The benchmark verdicts the verdict page lists one by one (the others are counted).
LISTED = ("regression", "improvement", "failed")


@dataclasses.dataclass(frozen=True)
class Side:
    """One side of a comparison: what was measured (``base`` or ``head``)."""

    label: str
    commit: str
    component: str
    date: str
    device: str
    grid: str


@dataclasses.dataclass(frozen=True)
class Change:
    """One benchmark the gate found changed (or failed)."""

    id: str
    program: str
    variant: str
    backend: str
    metric: str
    verdict: str
    ratio: float | None
    ratio_ci: tuple[float, float] | None
    q_value: float | None
    notes: tuple[str, ...]
    error: str | None


@dataclasses.dataclass(frozen=True)
class GateSummary:
    """One gate verdict as the site shows it."""

    path: str
    created: str
    verdict: str
    exit_code: int
    base: Side
    head: Side
    counts: dict[str, int]
    changes: tuple[Change, ...]
    integrate_nh: dict[str, dict[str, float]]


def _side(data: dict[str, Any]) -> Side:
    machine = data.get("machine") or {}
    grid = data.get("grid") or {}
    return Side(
        label=str(data.get("label", "")),
        commit=str(data.get("commit", "")),
        component=str(data.get("component", "")),
        date=str(data.get("date", "")),
        device=str(machine.get("gpu") or machine.get("name") or ""),
        grid=str(grid.get("name", "")) if isinstance(grid, dict) else str(grid),
    )


def _change(data: dict[str, Any]) -> Change:
    ci = data.get("ratio_ci")
    return Change(
        id=str(data["id"]),
        program=str(data.get("program", "")),
        variant=str(data.get("variant", "")),
        backend=str(data.get("backend", "")),
        metric=str(data.get("metric", "")),
        verdict=str(data["verdict"]),
        ratio=None if data.get("ratio") is None else float(data["ratio"]),
        ratio_ci=None if not ci else (float(ci[0]), float(ci[1])),
        q_value=None if data.get("q_value") is None else float(data["q_value"]),
        notes=tuple(str(n) for n in data.get("notes") or ()),
        error=None if data.get("error") is None else str(data["error"]),
    )


def from_dict(data: Any, origin: str) -> GateSummary:
    """Validate and convert one summary; one line naming the file and what is wrong."""
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise IconbenchError(f"{origin}: not an {SCHEMA} document (no 'schema': '{SCHEMA}')")
    if data.get("version") != VERSION:
        raise IconbenchError(
            f"{origin}: {SCHEMA} version {data.get('version')!r}; this iconbench reads version "
            f"{VERSION}: upgrade iconbench"
        )
    try:
        openacc = data.get("openacc") or {}
        estimate = {
            side: {k: float(v) for k, v in (values.get("integrate_nh") or {}).items()}
            for side, values in (openacc.get("sides") or {}).items()
        }
        return GateSummary(
            path=origin,
            created=str(data.get("created", "")),
            verdict=str(data["verdict"]),
            exit_code=int(data.get("exit_code", 0)),
            base=_side(data["base"]),
            head=_side(data["head"]),
            counts={str(k): int(v) for k, v in (data.get("counts") or {}).items()},
            changes=tuple(
                _change(b) for b in data.get("benchmarks") or () if b.get("verdict") in LISTED
            ),
            integrate_nh=estimate,
        )
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise IconbenchError(f"{origin}: malformed {SCHEMA} document ({error!r})") from None


def load(path: pathlib.Path) -> GateSummary:
    """One summary file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise IconbenchError(f"{path}: not a readable JSON file ({error})") from None
    return from_dict(data, str(path))


def summary_files(path: pathlib.Path) -> list[pathlib.Path]:
    """``path`` itself, or the ``*.json`` files under a directory of summaries."""
    if path.is_file():
        return [path]
    if path.is_dir():
        return sorted(path.rglob("*.json"))
    raise IconbenchError(f"{path}: no such gate summary file or directory")

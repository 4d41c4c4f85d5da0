"""The granule result file (``iconbench.granules`` version 1): written once, never overwritten.

One JSON file per grid x backend run::

    {"schema": "iconbench.granules", "version": 1, "created": "2025-...Z",
     "grid": "icon_benchmark_regional", "backend": "gtfn_gpu", "samples": 20,
     "stack": {"gt4py": "1.2.1", ...}, "gpu": "NVIDIA H100 80GB HBM3", "build_s": {...},
     "cases": [{"case": "diffusion.run", "timer": "nh_hdiff_run", "metric": "compute",
                "wall_s": [...], "metered_wall_s": [...], "device_s": [...],
                "wall_median_s": ..., "device_median_s": ..., "overhead_s": ...,
                "overhead_share": ...,
                "calls": [{"program": "apply_diffusion_to_vn", "variant": "", "calls": 1.0}],
                "programs": [{"program": ..., "static_args": {...}, "calls": 1.0,
                              "samples_s": [...]}]}]}

``calls`` are program calls per case call, counted through gt4py's call hook; ``programs``
hold each compiled variant's device seconds per case call (summed over its calls), with the
static arguments gt4py recorded.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from iconbench.errors import IconbenchError
from iconbench.granules.calls import ProgramKey
from iconbench.granules.measure import GranuleMeasurement

SCHEMA, VERSION = "iconbench.granules", 1


@dataclasses.dataclass(frozen=True)
class CaseResult:
    """One case of a result file, as read back."""

    case: str
    timer: str | None
    metric: str
    wall_s: tuple[float, ...]
    device_s: tuple[float, ...]
    wall_median_s: float
    device_median_s: float
    overhead_s: float
    overhead_share: float
    calls: dict[ProgramKey, float]
    programs: tuple[dict[str, Any], ...]


@dataclasses.dataclass(frozen=True)
class GranuleResults:
    """A result file: grid, backend, stack and cases."""

    path: Path
    grid: str
    backend: str
    gpu: str
    created: str
    stack: dict[str, str]
    cases: dict[str, CaseResult]
    #: the iconbench commit that measured it ('' in files written before it was recorded)
    commit: str = ""


def to_dict(  # noqa: D103 - the module docstring shows the format
    measurements: list[GranuleMeasurement],
    *,
    grid: str,
    backend: str,
    samples: int,
    build_s: dict[str, float],
    stack: dict[str, str],
    gpu: str,
) -> dict[str, Any]:
    from iconbench import provenance
    from iconbench.granules.cases import CASES

    return {
        "schema": SCHEMA,
        "version": VERSION,
        "created": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": provenance.code_commit(),
        "grid": grid,
        "backend": backend,
        "samples": samples,
        "stack": stack,
        "gpu": gpu,
        "build_s": build_s,
        "cases": [
            {
                "case": m.case,
                "timer": CASES[m.case].timer,
                "metric": m.metric,
                "wall_s": list(m.wall_s),
                "metered_wall_s": list(m.metered_wall_s),
                "device_s": list(m.device_s),
                "wall_median_s": m.wall_median_s,
                "device_median_s": m.device_median_s,
                "overhead_s": m.overhead_s,
                "overhead_share": m.overhead_share,
                "calls": [
                    {"program": k.program, "variant": k.variant, "calls": n}
                    for k, n in m.calls.items()
                ],
                "programs": [
                    {
                        "program": p.key.program,
                        "static_args": p.static_args,
                        "calls": p.calls_per_call,
                        "samples_s": list(p.samples_s),
                    }
                    for p in m.programs
                ],
            }
            for m in measurements
        ],
    }


def default_name(grid: str, backend: str, created: str) -> str:
    """``granules_<grid>_<backend>_<YYYYmmddTHHMMSSZ>.json``.

    >>> default_name("tiny", "gtfn_cpu", "2025-01-02T03:04:05Z")
    'granules_tiny_gtfn_cpu_20250102T030405Z.json'
    """
    stamp = created.replace("-", "").replace(":", "")
    return f"granules_{grid}_{backend}_{stamp}.json"


def write(data: dict[str, Any], out: Path) -> Path:
    """Write ``data`` into directory ``out`` (or to file ``out``), atomically, never over a file."""
    target = (
        out / default_name(data["grid"], data["backend"], data["created"])
        if (out.is_dir() or not out.suffix)
        else out
    )
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".granules-", suffix=".tmp")
    try:
        with os.fdopen(handle, "w") as stream:
            json.dump(data, stream, indent=1)
            stream.write("\n")
        try:
            os.link(temporary, target)  # fails if the name exists: nothing is overwritten
        except FileExistsError:
            raise IconbenchError(
                f"{target}: exists; results are never overwritten - choose another --out"
            ) from None
    finally:
        os.unlink(temporary)
    return target


def _fail(path: Path, what: str) -> IconbenchError:
    return IconbenchError(f"{path}: {what}; is this an 'iconbench granules' result file?")


def read(path: Path) -> GranuleResults:
    """Read and check a result file (errors name the file and the key)."""
    try:
        data = json.loads(path.read_text())
    except OSError as error:
        raise IconbenchError(f"{path}: cannot read ({error.strerror})") from None
    except json.JSONDecodeError as error:
        raise IconbenchError(f"{path}: line {error.lineno}: invalid JSON ({error.msg})") from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise _fail(path, f"schema is not {SCHEMA!r}")
    if data.get("version") != VERSION:
        raise _fail(
            path, f"version {data.get('version')!r} unknown (this iconbench reads {VERSION})"
        )
    cases = {}
    for i, raw in enumerate(data.get("cases", [])):
        try:
            cases[raw["case"]] = CaseResult(
                case=raw["case"],
                timer=raw.get("timer"),
                metric=raw["metric"],
                wall_s=tuple(float(x) for x in raw["wall_s"]),
                device_s=tuple(float(x) for x in raw["device_s"]),
                wall_median_s=float(raw["wall_median_s"]),
                device_median_s=float(raw["device_median_s"]),
                overhead_s=float(raw["overhead_s"]),
                overhead_share=float(raw["overhead_share"]),
                calls={
                    ProgramKey(c["program"], c["variant"]): float(c["calls"]) for c in raw["calls"]
                },
                programs=tuple(raw["programs"]),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise _fail(path, f"key 'cases[{i}]': {error!r}") from None
    try:
        return GranuleResults(
            path=path,
            grid=str(data["grid"]),
            backend=str(data["backend"]),
            gpu=str(data.get("gpu") or "none"),
            created=str(data["created"]),
            stack=dict(data.get("stack") or {}),
            cases=cases,
            commit=str(data.get("commit") or ""),
        )
    except KeyError as error:
        raise _fail(path, f"missing key {error}") from None

"""The gate's summary (``iconbench-gate-summary`` version 1) as typed values.

The format is fixed in ``docs/gate-summary.md``; the gate writes it, the PR bot, the site and
CI read it. Readers call :meth:`Summary.from_json`, which refuses another schema or version
with one line (:class:`iconbench.errors.IconbenchError`) and ignores keys added later within
version 1. :meth:`Summary.write` is atomic.

>>> s = Summary.from_json(Summary.example().to_json())
>>> s.verdict, s.exit_code, s.benchmarks[0].verdict, s.benchmarks[0].base.fingerprint
('regression', 1, 'regression', '28d4c4bc')
>>> Summary.from_json('{"schema": "iconbench-gate-summary", "version": 2}')  # doctest: +ELLIPSIS
Traceback (most recent call last):
iconbench.errors.IconbenchError: gate summary version 2 is not supported ...
"""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import tempfile
from typing import Any

from iconbench.errors import IconbenchError

SCHEMA = "iconbench-gate-summary"
VERSION = 1
VERDICTS = ("regression", "improvement", "unchanged", "inconclusive", "failed", "new", "gone")
RUN_VERDICTS = {0: "pass", 1: "regression", 2: "error"}


@dataclasses.dataclass(frozen=True)
class Grid:
    """The grid both sides ran on; counts ``None`` where a result does not record them."""

    name: str
    cells: int | None = None
    edges: int | None = None
    vertices: int | None = None
    levels: int | None = None


@dataclasses.dataclass(frozen=True)
class Side:
    """What one side measured, so that every number can be traced."""

    label: str
    commit: str
    component: str
    date: str | None
    stack: dict[str, str]
    machine: dict[str, str]
    grid: Grid
    source: str


@dataclasses.dataclass(frozen=True)
class SideNumbers:
    """One side of one benchmark: numbers, or the error of a failed side."""

    median: float | None = None
    n: int = 0
    ci: tuple[float, float] | None = None
    fingerprint: str | None = None
    error: str | None = None


@dataclasses.dataclass(frozen=True)
class BenchmarkResult:
    """One (program, variant, backend, metric) and its verdict."""

    id: str
    program: str
    variant: str
    backend: str
    metric: str
    unit: str
    gated: bool
    threshold: float | None
    base: SideNumbers | None
    head: SideNumbers | None
    ratio: float | None
    ratio_ci: tuple[float, float] | None
    p_value: float | None
    q_value: float | None
    verdict: str
    notes: tuple[str, ...] = ()
    error: str | None = None


@dataclasses.dataclass(frozen=True)
class Settings:
    """The settings the verdict was made with."""

    fdr: float
    confidence: float
    thresholds: dict[str, float]


@dataclasses.dataclass(frozen=True)
class Summary:
    """The whole summary document."""

    created: str
    verdict: str
    exit_code: int
    base: Side
    head: Side
    settings: Settings
    counts: dict[str, int]
    benchmarks: tuple[BenchmarkResult, ...]
    openacc: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        """The JSON document as a dict (schema and version first)."""
        body = dataclasses.asdict(self)
        return {"schema": SCHEMA, "version": VERSION, **body}

    def to_json(self) -> str:
        """The document as JSON text."""
        return json.dumps(self.as_dict(), indent=1) + "\n"

    def write(self, path: str | os.PathLike[str]) -> pathlib.Path:
        """Write atomically (temporary file in the same directory, then ``os.replace``)."""
        return write_atomic(path, self.to_json())

    @classmethod
    def from_json(cls, text: str) -> Summary:
        """Parse and check a summary; refuses another schema or version with one line."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise IconbenchError(f"gate summary: invalid JSON ({error.msg})") from None
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            raise IconbenchError(f"not a gate summary (schema is not {SCHEMA!r})")
        if data.get("version") != VERSION:
            raise IconbenchError(
                f"gate summary version {data.get('version')} is not supported "
                f"(this reader knows version {VERSION}); update iconbench"
            )
        try:
            return cls._from_dict(data)
        except (KeyError, TypeError) as error:
            raise IconbenchError(f"gate summary: missing or bad key {error}") from None

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> Summary:
        """Read a summary file."""
        return cls.from_json(pathlib.Path(path).read_text(encoding="utf-8"))

    @classmethod
    def _from_dict(cls, data: dict[str, Any]) -> Summary:
        def side(d: dict[str, Any]) -> Side:
            return Side(**{**_known(Side, d), "grid": Grid(**_known(Grid, d["grid"]))})

        def numbers(d: dict[str, Any] | None) -> SideNumbers | None:
            if d is None:
                return None
            known = _known(SideNumbers, d)
            if known.get("ci") is not None:
                known["ci"] = tuple(known["ci"])
            return SideNumbers(**known)

        def bench(d: dict[str, Any]) -> BenchmarkResult:
            known = _known(BenchmarkResult, d)
            known["base"], known["head"] = numbers(d["base"]), numbers(d["head"])
            known["ratio_ci"] = tuple(d["ratio_ci"]) if d.get("ratio_ci") else None
            known["notes"] = tuple(d.get("notes", ()))
            return BenchmarkResult(**known)

        return cls(
            created=data["created"],
            verdict=data["verdict"],
            exit_code=data["exit_code"],
            base=side(data["base"]),
            head=side(data["head"]),
            settings=Settings(**_known(Settings, data["settings"])),
            counts=dict(data["counts"]),
            benchmarks=tuple(bench(b) for b in data["benchmarks"]),
            openacc=data.get("openacc"),
        )

    @classmethod
    def example(cls) -> Summary:
        """The example of docs/gate-summary.md (for readers' tests)."""
        grid = Grid("icon_benchmark_regional", 44528, 67096, 22569, 80)
        side = Side(
            label="main",
            commit="0e8595e4",
            component="gt4py",
            date="2026-11-23T10:51:12+00:00",
            stack={"gt4py": "1.2.1", "dace": "2.0.0a6", "icon4py": "0.4.1"},
            machine={"name": "h100-runner", "gpu": "NVIDIA H100 80GB HBM3"},
            grid=grid,
            source="results/h100/asv/h100/0e8595e4.json",
        )
        bench = BenchmarkResult(
            id="compute_theta_rho_face_values[default]|gtfn_gpu|device_time",
            program="compute_theta_rho_face_values",
            variant="default",
            backend="gtfn_gpu",
            metric="device_time",
            unit="s",
            gated=True,
            threshold=0.05,
            base=SideNumbers(1.23e-4, 50, (1.22e-4, 1.24e-4), "28d4c4bc"),
            head=SideNumbers(1.31e-4, 50, (1.30e-4, 1.32e-4), "28d4c4bc"),
            ratio=1.065,
            ratio_ci=(1.058, 1.071),
            p_value=1.2e-9,
            q_value=4.0e-7,
            verdict="regression",
        )
        counts = dict.fromkeys(VERDICTS, 0) | {"regression": 1}
        return cls(
            created="2026-11-23T20:00:00+00:00",
            verdict="regression",
            exit_code=1,
            base=side,
            head=dataclasses.replace(side, label="HEAD"),
            settings=Settings(0.05, 0.95, {"device_time": 0.05, "host_overhead": 0.10}),
            counts=counts,
            benchmarks=(bench,),
        )


def write_atomic(path: str | os.PathLike[str], text: str) -> pathlib.Path:
    """Write ``text`` atomically (temporary file in the same directory, then ``os.replace``)."""
    target = pathlib.Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(
        "w", dir=target.parent, delete=False, suffix=".tmp", encoding="utf-8"
    ) as out:
        out.write(text)
    os.replace(out.name, target)
    return target


def _known(kind: type, data: dict[str, Any]) -> dict[str, Any]:
    """The keys of ``data`` that ``kind`` has (keys added later in version 1 are skipped)."""
    names = {f.name for f in dataclasses.fields(kind)}
    return {k: v for k, v in data.items() if k in names}

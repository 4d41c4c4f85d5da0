"""The gate's summary (``iconbench-gate-summary`` version 1) as typed values, for the bot.

The format is fixed in ``docs/gate-summary.md``; this module is the bot's only reader of it,
kept small so that it can be replaced by the gate's own ``from_json`` without touching the
rest of the bot. Anything that is not that schema and version is refused with one line.

>>> s = from_json(json.dumps(EXAMPLE))
>>> s.verdict, s.counts["regression"], s.benchmarks[0].change
('regression', 1, 0.065)
>>> from_json('{"schema": "asv-results", "version": 2}')  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
iconbench.errors.IconbenchError: summary: schema 'asv-results' version 2 is not an iconbench ...
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
from collections.abc import Mapping
from typing import Any

from iconbench.errors import IconbenchError

SCHEMA = "iconbench-gate-summary"
VERSION = 1
VERDICTS = ("pass", "regression", "error")
BENCHMARK_VERDICTS = (
    "regression",
    "improvement",
    "unchanged",
    "inconclusive",
    "failed",
    "new",
    "gone",
)

#: The unit of each metric, where a document leaves ``unit`` out.
UNITS = {"device_time": "s", "host_overhead": "s", "compile_time": "s", "bandwidth": "B/s"}


@dataclasses.dataclass(frozen=True)
class Side:
    """What one side (base or head) measured: commit, component, stack, machine, grid."""

    label: str
    commit: str
    component: str
    date: str
    stack: Mapping[str, str]
    machine: Mapping[str, str]
    grid: Mapping[str, Any]
    source: str | list[str]

    @property
    def short(self) -> str:
        """The commit as GitHub abbreviates it (7 characters)."""
        return self.commit[:7]


@dataclasses.dataclass(frozen=True)
class Sample:
    """One side of one benchmark: the median with its interval, or the side's error."""

    median: float | None
    n: int
    ci: tuple[float, float] | None
    fingerprint: str | None
    error: str | None


@dataclasses.dataclass(frozen=True)
class Benchmark:
    """One (program, variant, backend, metric) with both sides and the gate's verdict."""

    id: str
    program: str
    variant: str
    backend: str
    metric: str
    unit: str
    gated: bool
    threshold: float | None
    base: Sample | None
    head: Sample | None
    ratio: float | None
    ratio_ci: tuple[float, float] | None
    p_value: float | None
    q_value: float | None
    verdict: str
    notes: tuple[str, ...]
    error: str | None

    @property
    def change(self) -> float | None:
        """Relative change ``ratio - 1`` (> 0: slower for times), rounded to 1e-6."""
        return None if self.ratio is None else round(self.ratio - 1, 6)

    @property
    def codegen_changed(self) -> bool:
        """Whether both sides have a fingerprint and they differ (or the gate says so)."""
        if any("code generation" in note for note in self.notes):
            return True
        fingerprints = [s.fingerprint for s in (self.base, self.head) if s is not None]
        return len(fingerprints) == 2 and None not in fingerprints and len(set(fingerprints)) == 2


@dataclasses.dataclass(frozen=True)
class ProgramSpeedup:
    """One ICON timer's program against OpenACC on one side."""

    program: str
    backend: str
    timer: str
    openacc_s: float
    gt4py_s: float | None
    speedup: float | None
    share: float


@dataclasses.dataclass(frozen=True)
class OpenACCSide:
    """The integrate_nh estimate per backend and the programs by share, for one side."""

    integrate_nh: Mapping[str, float | None]
    programs: tuple[ProgramSpeedup, ...]


@dataclasses.dataclass(frozen=True)
class OpenACC:
    """The speed-up against a stored OpenACC baseline on both sides."""

    baseline: str
    experiment: str
    gpu: Mapping[str, Any]
    base: OpenACCSide | None
    head: OpenACCSide | None
    #: mismatches (grid, GPU) of a comparison made anyway (``speedup --force``)
    forced: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class Summary:
    """The whole gate summary."""

    created: str
    verdict: str
    exit_code: int
    base: Side
    head: Side
    settings: Mapping[str, Any]
    counts: Mapping[str, int]
    benchmarks: tuple[Benchmark, ...]
    openacc: OpenACC | None
    #: The run's own error (``verdict == "error"``), when the gate recorded one.
    error: str | None = None

    @property
    def grid(self) -> str:
        """The grid's name (head side), for the status context ``iconbench/<grid>``."""
        return str(self.head.grid.get("name") or self.base.grid.get("name") or "unknown")


def _pair(value: Any) -> tuple[float, float] | None:
    if value is None:
        return None
    low, high = value
    return float(low), float(high)


def _sample(data: Mapping[str, Any] | None) -> Sample | None:
    if data is None:
        return None
    median = data.get("median")
    return Sample(
        median=None if median is None else float(median),
        n=int(data.get("n") or 0),
        ci=_pair(data.get("ci")),
        fingerprint=data.get("fingerprint"),
        error=data.get("error"),
    )


def _side(data: Mapping[str, Any]) -> Side:
    return Side(
        label=str(data.get("label", "")),
        commit=str(data["commit"]),
        component=str(data.get("component", "")),
        date=str(data.get("date", "")),
        stack=dict(data.get("stack") or {}),
        machine=dict(data.get("machine") or {}),
        grid=dict(data.get("grid") or {}),
        source=data.get("source", ""),
    )


def _benchmark(data: Mapping[str, Any]) -> Benchmark:
    verdict = data["verdict"]
    if verdict not in BENCHMARK_VERDICTS:
        raise KeyError(f"verdict {verdict!r}")
    ratio = data.get("ratio")
    return Benchmark(
        id=str(data["id"]),
        program=str(data["program"]),
        variant=str(data.get("variant") or "default"),
        backend=str(data["backend"]),
        metric=str(data["metric"]),
        unit=str(data.get("unit") or UNITS.get(str(data["metric"]), "")),
        gated=bool(data.get("gated", False)),
        threshold=data.get("threshold"),
        base=_sample(data.get("base")),
        head=_sample(data.get("head")),
        ratio=None if ratio is None else float(ratio),
        ratio_ci=_pair(data.get("ratio_ci")),
        p_value=data.get("p_value"),
        q_value=data.get("q_value"),
        verdict=verdict,
        notes=tuple(data.get("notes") or ()),
        error=data.get("error"),
    )


def _openacc_side(data: Mapping[str, Any] | None) -> OpenACCSide | None:
    if data is None:
        return None
    return OpenACCSide(
        integrate_nh=dict(data.get("integrate_nh") or {}),
        programs=tuple(
            ProgramSpeedup(
                program=str(p["program"]),
                backend=str(p["backend"]),
                timer=str(p.get("timer", "")),
                openacc_s=float(p["openacc_s"]),
                gt4py_s=p.get("gt4py_s"),
                speedup=p.get("speedup"),
                share=float(p.get("share", 0.0)),
            )
            for p in data.get("programs") or ()
        ),
    )


def _openacc(data: Mapping[str, Any] | None) -> OpenACC | None:
    if data is None:
        return None
    sides = data.get("sides") or {}
    return OpenACC(
        baseline=str(data["baseline"]),
        experiment=str(data.get("experiment", "")),
        gpu=dict(data.get("gpu") or {}),
        base=_openacc_side(sides.get("base")),
        head=_openacc_side(sides.get("head")),
        forced=tuple(str(f) for f in data.get("forced") or ()),
    )


def from_json(text: str, origin: str = "summary") -> Summary:
    """Parse a gate summary; one line naming ``origin`` for anything that is not v1."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise IconbenchError(
            f"{origin}: line {error.lineno}: not JSON ({error.msg}); pass the file that "
            "'iconbench compare BASE HEAD --out summary.json' wrote"
        ) from None
    if not isinstance(data, dict):
        raise IconbenchError(f"{origin}: a JSON object expected, found {type(data).__name__}")
    if data.get("schema") != SCHEMA or data.get("version") != VERSION:
        raise IconbenchError(
            f"{origin}: schema {data.get('schema')!r} version {data.get('version')!r} is not an "
            f"iconbench gate summary ({SCHEMA} version {VERSION}); write it with "
            "'iconbench compare BASE HEAD --out summary.json'"
        )
    try:
        verdict = data["verdict"]
        if verdict not in VERDICTS:
            raise KeyError(f"verdict {verdict!r}")
        return Summary(
            created=str(data.get("created", "")),
            verdict=verdict,
            exit_code=int(data.get("exit_code", VERDICTS.index(verdict))),
            base=_side(data["base"]),
            head=_side(data["head"]),
            settings=dict(data.get("settings") or {}),
            counts={k: int(v) for k, v in (data.get("counts") or {}).items()},
            benchmarks=tuple(_benchmark(b) for b in data.get("benchmarks") or ()),
            openacc=_openacc(data.get("openacc")),
            error=data.get("error"),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise IconbenchError(
            f"{origin}: broken {SCHEMA} v{VERSION} document (missing or invalid {error}); "
            "regenerate it with 'iconbench compare'"
        ) from None


def load(path: pathlib.Path) -> Summary:
    """Read ``path``; a missing file is one line that names it."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise IconbenchError(
            f"{path}: no such summary; pass the file 'iconbench compare --out' wrote"
        ) from None
    return from_json(text, origin=str(path))


#: A minimal valid document, the example of docs/gate-summary.md (used by the doctest).
EXAMPLE: dict[str, Any] = {
    "schema": SCHEMA,
    "version": VERSION,
    "created": "2026-11-23T20:00:00+00:00",
    "verdict": "regression",
    "exit_code": 1,
    "base": {"label": "main", "commit": "0" * 40, "component": "gt4py"},
    "head": {"label": "HEAD", "commit": "1" * 40, "component": "gt4py"},
    "counts": {"regression": 1},
    "benchmarks": [
        {
            "id": "p[default]|gtfn_gpu|device_time",
            "program": "p",
            "variant": "default",
            "backend": "gtfn_gpu",
            "metric": "device_time",
            "base": {"median": 1.0e-4, "n": 50},
            "head": {"median": 1.065e-4, "n": 50},
            "ratio": 1.065,
            "verdict": "regression",
        }
    ],
    "openacc": None,
}

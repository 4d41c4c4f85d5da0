"""One side of a comparison, resolved once: a :class:`ResultSet`.

A user names a side as

- an asv result file (``.asv/results/<machine>/<commit>-<env>.json``),
- an asv results directory or one machine's directory (one commit in it, or ``--commit``),
- a GPU runner result set: a directory like ``results/h100`` (``summary*.json``,
  ``work/session.jsonl`` with every sample, ``work/compile.jsonl``; one summary per run of
  ``iconbench suite asv``, or ``--commit`` to pick one) or one of its ``summary.N.json``,

optionally suffixed ``@COMMIT`` (a prefix) to pick one commit of a directory. Everything the
gate needs is read here, once: commit, stack, machine, grid, and per benchmark
(case, backend, metric) the samples, the codegen fingerprint and a failure's error.

Metrics: ``device_time`` (asv ``time_device`` / the runner's ``device_s``; on a backend
without a device clock, ``embedded``, the host time, as asv's suite records it there),
``host_overhead`` (the runner's paired ``host_s - device_s``; from asv, ``time_host`` samples
minus the ``time_device`` median, as asv keeps no pairs; not on ``embedded``), ``compile_time``
(cold compile, one value: reported, never gated).

*Not run* is not *failed* (``Entry.not_run`` says why): asv writes ``null`` both for a
benchmark that raised and for one the run did not select. Where the GPU runner's
``summary*.json`` of the same commit lies next to the asv directory, its cases are the
selection and its errors the failures; without it, ``null`` keeps asv's meaning (the
benchmark raised: failed), as a plain ``asv run`` cannot tell a selection from a crash.
An asv ``time_device`` that is ``null`` while ``time_host`` has a value (a result file the
runner wrote for ``embedded``, which has no device clock) is device time *not measured*; the
runner's own records of such a backend give its host time instead.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import math
import pathlib
import statistics
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from iconbench.errors import IconbenchError
from iconbench.grids import makers
from iconbench.records import asv as results
from iconbench.records import session
from iconbench.records.resultdir import read_summary

if TYPE_CHECKING:
    from iconbench import grids

METRICS = ("device_time", "host_overhead", "compile_time")


@dataclasses.dataclass(frozen=True)
class Grid:
    """The grid a side ran on; counts ``None`` where a result does not record them."""

    name: str
    cells: int | None = None
    edges: int | None = None
    vertices: int | None = None
    levels: int | None = None
    #: what made it (:mod:`iconbench.grids.makers`; ``None``: unknown, matches any)
    maker: str | None = None


@dataclasses.dataclass(frozen=True)
class Entry:
    """One benchmark (case, backend, metric) on one side."""

    case: str
    backend: str
    metric: str
    samples: tuple[float, ...]
    unit: str = "s"
    fingerprint: str | None = None
    error: str | None = None
    #: The clock that measured device times (a change of clock is not a change of code).
    device_source: str | None = None
    #: The samples per measuring process, where an interleaved check measured the side in
    #: several (their concatenation is ``samples``); empty when one process measured it all.
    groups: tuple[tuple[float, ...], ...] = ()
    #: Each process's median reference-work time (s), aligned with ``groups``, where the
    #: samples were scaled by it (host overhead): the gate's covariate
    #: (:mod:`iconbench.gate.processes`); empty otherwise.
    group_reference_s: tuple[float, ...] = ()
    #: Why there are no numbers although nothing failed: not selected by the run, or a
    #: metric the backend does not have (``None``: measured, or failed with ``error``).
    not_run: str | None = None

    @property
    def key(self) -> str:
        """``case|backend|metric``, the benchmark id of the summary."""
        return f"{self.case}|{self.backend}|{self.metric}"

    @property
    def median(self) -> float | None:
        """Median of the samples (``None`` without samples)."""
        return statistics.median(self.samples) if self.samples else None


@dataclasses.dataclass(frozen=True)
class ResultSet:
    """One side: what was measured (provenance) and every benchmark's samples."""

    label: str
    kind: str  # "asv" | "runner"
    commit: str
    date: str | None
    stack: dict[str, str]
    machine: dict[str, str]
    grid: Grid
    source: str
    entries: dict[str, Entry]
    #: How to measure more samples on this side (for --rerun-inconclusive).
    results_dir: pathlib.Path | None = None
    component: str = "iconbench"


def _iso(ms_or_s: float | None) -> str | None:
    if ms_or_s is None:
        return None
    seconds = ms_or_s / 1000 if ms_or_s > 1e11 else ms_or_s
    return datetime.datetime.fromtimestamp(seconds, datetime.UTC).isoformat(timespec="seconds")


def _grid_of(name: str, recorded: Any, maker: str | None = None) -> Grid:
    """A grid name with the counts and maker a result recorded (``None``: not recorded).

    The maker of a result that did not record one is the one its name meant then
    (:func:`iconbench.grids.makers.of_result`).
    """
    counts = recorded if isinstance(recorded, dict) else {}

    def count(*keys: str) -> int | None:
        for key in keys:
            if isinstance(counts.get(key), int):
                return counts[key]
        return None

    return Grid(
        name=name,
        cells=count("cells", "num_cells"),
        edges=count("edges", "num_edges"),
        vertices=count("vertices", "num_vertices"),
        levels=count("levels", "num_levels"),
        maker=makers.of_result(name, maker),
    )


def resolve(
    spec: str, *, commit: str | None = None, grid: str | None = None, label: str | None = None
) -> ResultSet:
    """The result set ``spec`` names (see the module docstring); one clear line if not one."""
    path_text, at, picked = spec.rpartition("@") if "@" in spec else (spec, "", "")
    if not at:
        path_text = spec
    commit = picked or commit
    path = pathlib.Path(path_text)
    if not path.exists():
        raise IconbenchError(
            f"{path}: no such file or directory; pass an asv result file or results directory, "
            "or a GPU runner result set (e.g. results/h100)"
        )
    label = label or spec
    if path.is_file() and path.name.startswith("summary") and path.suffix == ".json":
        return _runner_set(path.parent, path, label=label)
    if path.is_dir() and (path / "work" / "session.jsonl").exists():
        runs = runner_runs(path)
        chosen = _pick(path, runs, commit)
        return _runner_set(path, chosen, label=label)
    return _asv_set(path, commit=commit, grid=grid, label=label)


def _pick(path: pathlib.Path, runs: dict[pathlib.Path, str], commit: str | None) -> pathlib.Path:
    """The one summary of a runner directory: the only one, or the one of ``commit``."""
    if not runs:
        raise IconbenchError(
            f"{path}: no summary*.json; run 'iconbench suite asv --out DIR' there first"
        )
    if commit:
        found = [p for p, c in runs.items() if c.startswith(commit)]
        if not found:
            known = ", ".join(sorted({c[:8] for c in runs.values() if c}))
            raise IconbenchError(f"{path}: no result set of commit {commit}; it has: {known}")
        return found[-1]
    if len(set(runs.values())) > 1:
        listed = ", ".join(f"{p.name}={c[:8] or '?'}" for p, c in runs.items())
        raise IconbenchError(
            f"{path} holds result sets of {len(set(runs.values()))} commits ({listed}); "
            f"pick one with --commit or {path}@COMMIT, or name one summary file"
        )
    return next(iter(runs))


# --------------------------------------------------------------------------- asv


def _asv_set(path: pathlib.Path, *, commit: str | None, grid: str | None, label: str) -> ResultSet:
    files = [path] if path.is_file() else results.result_files(path)
    if not files:
        raise IconbenchError(f"{path}: no asv result files (expected <machine>/<commit>-*.json)")
    loaded = {f: results.load_file(f) for f in files}
    commits = sorted({d["commit_hash"] for d in loaded.values()})
    if commit:
        loaded = {f: d for f, d in loaded.items() if d["commit_hash"].startswith(commit)}
        if not loaded:
            raise IconbenchError(
                f"{path}: no results of commit {commit}; it has: "
                + ", ".join(c[:8] for c in commits)
            )
    elif len(commits) > 1:
        raise IconbenchError(
            f"{path} mixes {len(commits)} commits ({', '.join(c[:8] for c in commits)}); "
            f"pick one with --commit or {path}@COMMIT"
        )
    if len(loaded) > 1:
        names = ", ".join(f.name for f in loaded)
        raise IconbenchError(
            f"{path}: several result files for one commit ({names}): different environments "
            "or machines; name one file"
        )
    ((file, data),) = loaded.items()
    root = file.parent.parent
    records = list(results.read_file(file).records)
    grids = sorted({r.grid for r in records if r.grid})
    if grid:
        if grid not in grids:
            raise IconbenchError(f"{file}: no results on grid {grid!r}; it has {grids}")
        grids = [grid]
    elif len(grids) > 1:
        raise IconbenchError(f"{file}: results on grids {grids}; pick one with --grid")
    records = [r for r in records if not grids or r.grid == grids[0]]
    selection = _runner_selection(root.parent, data["commit_hash"])
    params = data.get("params", {})
    machine = {k: str(v) for k, v in params.items() if k in ("machine", "cpu", "gpu", "arch")}
    machine["name"] = machine.pop("machine", "")
    stack = {"env": data.get("env_name", "")}
    stack |= {k: str(v) for k, v in (data.get("stack") or {}).items()}
    return ResultSet(
        label=label,
        kind="asv",
        commit=data["commit_hash"],
        date=_iso(data.get("date")),
        stack=stack,
        machine=machine,
        grid=_grid_of(
            grids[0] if grids else "",
            data.get("grid"),
            next((r.grid_maker for r in records if r.grid_maker), None),
        ),
        source=str(file),
        entries=_asv_entries(records, selection),
        results_dir=root,
    )


#: (case, backend) -> the error of a failed case (``None``: ran) of a runner's summary.
Selection = dict[tuple[str, str], str | None]


def _runner_selection(directory: pathlib.Path, commit: str) -> Selection | None:
    """The cases the GPU runner selected for ``commit`` (its ``summary*.json``), else ``None``."""
    if not (directory / "asv").is_dir() or not any(directory.glob("summary*.json")):
        return None
    try:
        runs = runner_runs(directory)
    except (OSError, ValueError, IconbenchError):
        return None
    found = [p for p, c in runs.items() if c and (c.startswith(commit) or commit.startswith(c))]
    if not found:
        return None
    summary = read_summary(found[-1])
    selected: Selection = {}
    for record in summary.get("compile", []):
        if record.get("error"):
            selected[record["case"], record["backend"]] = str(record["error"]).splitlines()[0]
    for case in summary.get("cases", []):
        selected[case["case"], case["backend"]] = case.get("error")
    return selected


NOT_SELECTED = "not selected by this run"
NO_DEVICE_CLOCK = "no device time on this backend"


def _asv_entries(records: Iterable[Any], selection: Selection | None = None) -> dict[str, Entry]:
    by_kind: dict[tuple[str, str], dict[str, Any]] = {}
    for r in records:
        by_kind.setdefault((r.program, r.backend), {})[r.kind] = r
    entries: dict[str, Entry] = {}
    for (case, backend), kinds in by_kind.items():
        fingerprint = None
        if (fp := kinds.get("track_codegen_fingerprint")) and _finite(fp.value):
            fingerprint = f"{int(fp.value):012x}"
        if selection is not None and (case, backend) not in selection:
            metrics = ("device_time",) if backend == "embedded" else METRICS[:2]
            for metric in metrics:
                e = Entry(case, backend, metric, (), "s", None, not_run=NOT_SELECTED)
                entries[e.key] = e
            continue
        failure = selection.get((case, backend)) if selection else None
        # NaN is asv's "skipped" (not run, or a GPU backend without a GPU): no benchmark there
        kinds = {k: r for k, r in kinds.items() if r.value is None or not math.isnan(r.value)}  # noqa: PLW2901
        device = kinds.get("time_device")
        host = kinds.get("time_host")
        if device is not None and device.value is None and host is not None and host.value:
            e = Entry(case, backend, "device_time", (), "s", fingerprint, not_run=NO_DEVICE_CLOCK)
            entries[e.key] = e
        elif device is not None:
            entry = _asv_entry(case, backend, "device_time", device, fingerprint)
            if failure and entry.error:
                entry = dataclasses.replace(entry, error=failure)
            entries[entry.key] = entry
        if host is not None and device is not None and backend != "embedded":
            if host.samples and device.samples:
                shift = statistics.median(device.samples)
                overhead = tuple(s - shift for s in host.samples)
                entry = Entry(case, backend, "host_overhead", overhead, "s", fingerprint)
            else:
                entry = _asv_entry(case, backend, "host_overhead", host, fingerprint)
                entry = dataclasses.replace(entry, samples=())
                if failure and entry.error:
                    entry = dataclasses.replace(entry, error=failure)
            entries[entry.key] = entry
        cold = kinds.get("track_compile_cold")
        if cold is not None and _finite(cold.value):
            entry = Entry(case, backend, "compile_time", (float(cold.value),), "s", fingerprint)
            entries[entry.key] = entry
    return entries


def _finite(value: float | None) -> bool:
    return value is not None and not math.isnan(value)


def _asv_entry(case: str, backend: str, metric: str, record: Any, fp: str | None) -> Entry:
    if record.value is None:
        # asv stores None for a benchmark that raised (NaN for a skipped one)
        return Entry(
            case, backend, metric, (), "s", fp, error="failed to run (asv recorded no value)"
        )
    if math.isnan(record.value):
        return Entry(case, backend, metric, (), "s", fp, error="skipped (asv recorded NaN)")
    samples = record.samples or (record.value,)
    return Entry(case, backend, metric, tuple(samples), "s", fp)


# --------------------------------------------------------------------------- GPU runner


def _summary_time(summary: dict[str, Any]) -> float:
    return max((float(p.get("at", 0.0)) for p in summary.get("phases", [])), default=0.0)


def _asv_dates(root: pathlib.Path) -> list[tuple[float, str]]:
    """(date in seconds, commit) of each asv file the runner wrote next to its summaries."""
    found = []
    for f in results.result_files(root / "asv"):
        try:
            data = json.loads(f.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and data.get("date") and data.get("commit_hash"):
            found.append((data["date"] / 1000, data["commit_hash"]))
    return sorted(found)


def runner_runs(root: pathlib.Path) -> dict[pathlib.Path, str]:
    """Each ``summary*.json`` of a runner directory and the commit that wrote it.

    ``iconbench suite asv`` writes the asv file (commit in its name, date = now) and the
    summary in the same step, so a summary's commit is that of the first asv file dated
    after the summary's last phase ('' when there is none).
    """
    dates = _asv_dates(root)

    def number(p: pathlib.Path) -> int:
        parts = p.name.split(".")
        return int(parts[1]) if len(parts) == 3 and parts[1].isdigit() else 0

    runs = {}
    for path in sorted(root.glob("summary*.json"), key=number):
        at = _summary_time(read_summary(path))
        later = [c for d, c in dates if d >= at]
        runs[path] = later[0] if later else ""
    return runs


@dataclasses.dataclass(frozen=True)
class _Measured:
    """A case's newest session record; a check's rounds pooled, each process's samples kept."""

    result: session.CaseResult
    #: per metric, the samples of each process (empty: one process measured it all)
    groups: dict[str, list[tuple[float, ...]]] = dataclasses.field(default_factory=dict)
    #: each host-overhead process's median reference-work time, aligned with its group
    overhead_reference_s: tuple[float, ...] = ()


def _session_rows(root: pathlib.Path, until: float) -> dict[tuple[str, str], _Measured]:
    """The newest session record per (case, backend) that started before ``until``.

    Grouped by the ledger's one rule (:func:`iconbench.records.session.rounds`): where that
    record is a round of an interleaved check, the rounds of that check are one record, the
    samples of every process joined and, per metric, each process's kept apart.
    """
    ledger = session.SessionLedger(root / "work" / "session.jsonl")
    started = [r for r in ledger.results_since(0) if r.started_at <= until]
    grouped = session.rounds(started, key=lambda r: (r.case, r.backend))
    return {key: _joined(group) for key, group in grouped.items()}


#: The reference work's time on the CPU host overhead is scaled to (about an H100 host's).
REFERENCE_S = 30e-6


def _joined(rounds: list[session.CaseResult]) -> _Measured:
    """One record of a check's rounds: samples joined, each process's kept in ``groups``.

    A process's host overhead is scaled by how fast its CPU ran Python meanwhile: to what it
    would be where :func:`~iconbench.timing.measurement.reference_work` takes
    :data:`REFERENCE_S` (the median of the process's own reference times against that). Base
    and head are scaled alike, so a shared host's CPU that ran some processes 1.7x slower is
    not a change of the code's host overhead, while a change of gt4py's call path, which the
    reference work does not run, still is. The overhead follows the CPU's speed less than
    fully, so each process's median reference time is kept beside its group: the gate's
    covariate (:mod:`iconbench.gate.processes`).
    """
    if len(rounds) == 1:
        return _Measured(rounds[0])
    measured = [r.measurement for r in rounds if r.measurement is not None]
    device = [tuple(m.device_s) for m in measured]
    host = [tuple(m.host_s) for m in measured]
    references = [m.reference_s for m in measured]
    medians = [statistics.median(ref) for ref in references] if all(references) else []
    speed = [REFERENCE_S / m for m in medians] or [1.0] * len(measured)
    kept = [
        i for i, (hs, ds) in enumerate(zip(host, device, strict=True)) if len(hs) == len(ds) and ds
    ]
    overhead = [
        tuple((h - d) * speed[i] for h, d in zip(host[i], device[i], strict=True)) for i in kept
    ]
    groups = {"device_time": [g for g in device if g], "host_overhead": overhead,
              "host_time": [g for g in host if g]}  # fmt: skip
    return _Measured(
        session.pooled(rounds), groups, tuple(medians[i] for i in kept) if medians else ()
    )


def _runner_set(root: pathlib.Path, summary_path: pathlib.Path, *, label: str) -> ResultSet:
    summary = read_summary(summary_path)
    commit = summary.get("commit") or runner_runs(root).get(summary_path, "")
    dates = [d for d, c in _asv_dates(root) if c == commit]
    until = dates[0] if dates else _summary_time(summary) + 60.0
    rows = _session_rows(root, until)
    entries = _measured_entries(summary["cases"], rows)
    stack_key = summary.get("stack", "")
    measured = {k[:2] for k in ((e.case, e.backend) for e in entries.values())}
    failed: dict[tuple[str, str], str] = {}
    for record in summary.get("compile", []):
        key = (record["case"], record["backend"])
        if record.get("stack", stack_key) != stack_key or key in measured:
            continue
        if record.get("error"):
            failed[key] = str(record["error"]).splitlines()[0][:200]
        else:
            failed.pop(key, None)
    for (case, backend), error in failed.items():
        e = Entry(case, backend, "device_time", (), "s", None, f"compile failed: {error}")
        entries[e.key] = e
    provenance = summary.get("provenance", {})
    packages = provenance.get("packages", {})
    gpu = provenance.get("gpu") or {}
    cuda = {"cuda runtime": str(gpu["cuda_runtime"])} if gpu.get("cuda_runtime") else {}
    return ResultSet(
        label=label,
        kind="runner",
        commit=commit,
        date=_iso(until),
        stack={"key": stack_key, **{k: str(v) for k, v in packages.items()}, **cuda},
        machine={"name": root.name, "gpu": gpu.get("name", ""), "cpu": ""},
        grid=_grid_of(
            summary.get("grid", ""), summary.get("grid_counts"), summary.get("grid_maker")
        ),
        source=str(summary_path),
        entries=entries,
        results_dir=root,
    )


def _measured_entries(
    cases: Iterable[dict[str, Any]], rows: dict[tuple[str, str], _Measured]
) -> dict[str, Entry]:
    """Device time and host overhead of each case from its session record (see _session_rows)."""
    entries: dict[str, Entry] = {}
    for case in cases:
        key = (case["case"], case["backend"])
        row = rows.get(key)
        result = row.result if row else None
        m = result.measurement if result else None
        fp = case.get("fingerprint") or (result.fingerprint if result else None)
        error = case.get("error") or (result.error if result else None)
        device = tuple(m.device_s) if m else ()
        host = tuple(m.host_s) if m else ()
        source = m.device_source if m else None
        groups = row.groups if row else {}
        timed, grouped = device, groups.get("device_time", ())
        if not device and host and not error:
            # a backend without a device clock (embedded): its time is the host's, judged as its
            # device time, as asv's time_device on that backend is (benchmarks/programs.py)
            timed, grouped = host, groups.get("host_time", ())
        if error or not timed:
            e = Entry(*key, "device_time", (), "s", fp, error or "no device samples", source)
            entries[e.key] = e
            continue
        e = Entry(*key, "device_time", timed, "s", fp, None, source, tuple(grouped))
        entries[e.key] = e
        if device and len(host) == len(device):
            overhead = tuple(h - d for h, d in zip(host, device, strict=True))
            e = Entry(*key, "host_overhead", overhead, "s", fp, None, source,
                      tuple(groups.get("host_overhead", ())),
                      row.overhead_reference_s if row else ())  # fmt: skip
            entries[e.key] = e
        if case.get("cold_compile_s") is not None:
            e = Entry(*key, "compile_time", (float(case["cold_compile_s"]),), "s", fp)
            entries[e.key] = e
    return entries


def ledger_set(root: pathlib.Path, *, label: str, commit: str, grid: grids.Grid) -> ResultSet:
    """What a runner directory's session ledger holds now, before any summary is written.

    An interleaved check decides after each block of rounds whether it has seen enough; the
    summary and asv files are written once, at the end. ``grid`` is the one the check
    measured on (its name and counts).
    """
    rows = _session_rows(root, float("inf"))
    cases = [{"case": c, "backend": b, "fingerprint": r.result.fingerprint}
             for (c, b), r in rows.items()]  # fmt: skip
    return ResultSet(
        label=label, kind="runner", commit=commit, date=None, stack={}, machine={},
        grid=_grid_of(grid.name, grid.counts.as_dict(), grid.spec.maker),
        source=str(root / "work" / "session.jsonl"),
        entries=_measured_entries(cases, rows), results_dir=root,
    )  # fmt: skip


def cuda_major(side: ResultSet) -> str | None:
    """The major CUDA release of the runtime a side ran with (``None``: not recorded, or CPU)."""
    runtime = side.stack.get("cuda runtime")
    return runtime.split(".")[0] if runtime else None


def check_cuda(base: ResultSet, head: ResultSet, *, across_cuda: bool = False) -> None:
    """Refuse sides of two CUDA major releases, unless ``across_cuda`` (docs/gate.md).

    Another runtime and nvcc build other code and time it on another runtime: a difference is
    not the change under test. ``across_cuda`` compares device time and host overhead of such
    sides (its caller leaves compile times out: another nvcc, never comparable); a
    pull-request check never passes it.

    >>> side = lambda cuda: ResultSet("s", "runner", "c", None, {"cuda runtime": cuda}, {},
    ...                               Grid("tiny"), "", {})
    >>> check_cuda(side("12.9"), side("12.4")), check_cuda(side("13.0"), side(None))
    (None, None)
    >>> check_cuda(side("12.9"), side("13.0"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    iconbench.errors.IconbenchError: CUDA runtimes differ: base ran on CUDA 12.9, head on ...
    >>> check_cuda(side("12.9"), side("13.0"), across_cuda=True)
    """
    a, b = cuda_major(base), cuda_major(head)
    if a and b and a != b and not across_cuda:
        raise IconbenchError(
            f"CUDA runtimes differ: base ran on CUDA {base.stack['cuda runtime']}, head on CUDA "
            f"{head.stack['cuda runtime']}; compare results of one CUDA release, or pass "
            "--across-cuda to compare device time and host overhead only (never compile time)"
        )


def check_comparable(base: ResultSet, head: ResultSet, *, across_cuda: bool = False) -> None:
    """Refuse sides on different grids: a name differs, or a count both sides recorded.

    Sides of two CUDA major releases are refused too (:func:`check_cuda`).

    >>> a = Grid("tiny", 1008, None, None, 10)
    >>> _check_grids(a, Grid("tiny", None, None, None, 10))
    >>> _check_grids(a, Grid("tiny", 1200, None, None, 10))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    iconbench.errors.IconbenchError: grids differ: base tiny has cells=1008, head tiny ...
    """
    _check_grids(base.grid, head.grid)
    check_cuda(base, head, across_cuda=across_cuda)


def _check_grids(base: Grid, head: Grid) -> None:
    if base.name != head.name:
        raise IconbenchError(
            f"grids differ: base ran on {base.name!r}, head on {head.name!r}; "
            "compare results of the same grid (select one with --grid)"
        )
    makers.check_same(base.name, base.maker, head.maker)
    for field in ("cells", "edges", "vertices", "levels"):
        a, b = getattr(base, field), getattr(head, field)
        if a is not None and b is not None and a != b:
            raise IconbenchError(
                f"grids differ: base {base.name} has {field}={a}, head {head.name} has "
                f"{field}={b}; compare results of the same grid"
            )

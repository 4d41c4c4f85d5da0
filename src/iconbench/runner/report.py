"""The markdown report of one or more runner result directories (``iconbench report``).

It reads what every layer below wrote (the result directory, asv's records, the ledgers, the
OpenACC baselines), so it sits with the result directory's reader, above the timing.

A result directory is what ``iconbench suite --out DIR`` writes: ``summary*.json`` (the newest
counts), ``work/``'s ledgers (``session.jsonl``, ``compile.jsonl``, ``nvidia-smi-*.txt``),
``asv/`` (one result file per measuring run, named by the commit of the code that measured),
``crosscheck*.json`` and ``ncu*.json``. Every number of the report comes from these files,
read with the library's readers (:mod:`iconbench.records.resultdir`, :mod:`iconbench.records.asv`,
the ledgers of :mod:`iconbench.timing`); a directory whose summary names an experiment also
gets the speed-up against that experiment's OpenACC baseline
(:func:`iconbench.baselines.speedup.compare`). ``DIR/notes.md``, where present, holds what a
reader should know that no file records; it is shown as it is.

The templates are ``reporting/gpu_results.md.j2`` (the page) and ``reporting/gpu_suite.md.j2``
(each directory's measurements, :func:`iconbench.timing.report.suite_context`).
"""

from __future__ import annotations

import collections
import dataclasses
import datetime
import json
import pathlib
import re
import statistics
import tomllib
from collections.abc import Sequence
from typing import Any

from iconbench.buildcache import REPO_ROOT
from iconbench.errors import IconbenchError
from iconbench.records.compilation import CompileLedger

#: The command that writes the report, shown in it.
COMMAND = "iconbench report"


@dataclasses.dataclass(frozen=True)
class Run:
    """One measuring run: its asv result file, and the cases whose samples it took."""

    commit: str
    date: str
    measured: dict[str, int]
    failed: int
    file: str


@dataclasses.dataclass(frozen=True)
class Compiles:
    """One backend's compiles on a directory's stack (``work/compile.jsonl``)."""

    records: int
    cases: int
    compiled: int
    failed: int
    median_s: float | None
    #: records of builds the compile index found in the cache (no compile ran; their
    #: seconds are the compile's that made the build)
    from_index: int = 0


@dataclasses.dataclass(frozen=True)
class Left:
    """One backend's cases of the selection still to measure, and those that never compiled."""

    measure: int
    failing: int


def numbered(out: pathlib.Path, stem: str) -> list[pathlib.Path]:
    """``stem.json``, ``stem.1.json``, ``stem.2.json``, … in the order they were written.

    Results are never overwritten (:func:`iconbench.records.resultdir.write_new_or_suffixed`);
    the suffix, not the modification time, says which is newer (a fresh clone gives every
    file the same time).

    >>> import tempfile
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> for name in ("ncu.json", "ncu.10.json", "ncu.2.json", "ncu-events.json"):
    ...     _ = (root / name).write_text("[]")
    >>> [p.name for p in numbered(root, "ncu")]
    ['ncu.json', 'ncu.2.json', 'ncu.10.json']
    """
    found = []
    for path in out.glob(f"{stem}*.json"):
        if match := re.fullmatch(rf"{re.escape(stem)}(?:\.(\d+))?\.json", path.name):
            found.append((int(match.group(1) or 0), path))
    return [path for _, path in sorted(found)]


def rows(out: pathlib.Path, stem: str) -> list[dict[str, Any]]:
    """The rows of every :func:`numbered` file (each run of a step adds one), oldest first."""
    from iconbench.files import decode

    found: list[dict[str, Any]] = []
    for path in numbered(out, stem):
        data = decode.load_json(path, hint=f"'iconbench suite' writes {stem}*.json")
        if not isinstance(data, list):
            raise IconbenchError(f"{path}: expected a list of rows; 'iconbench suite' writes it")
        found += data
    return found


def _utc(seconds: float) -> str:
    """``seconds`` since the epoch as UTC minutes, as the report shows times.

    >>> _utc(1_790_000_000)
    '2026-09-21 14:13'
    """
    return datetime.datetime.fromtimestamp(seconds, datetime.UTC).strftime("%Y-%m-%d %H:%M")


def runs(out: pathlib.Path) -> list[Run]:
    """One :class:`Run` per asv result file, oldest first.

    The cases of a run are those whose samples were taken since the run before (the session
    ledger's ``started_at``), per backend.
    """
    from iconbench.records import asv as results
    from iconbench.records.session import SessionLedger

    files = []
    for path in results.result_files(out / "asv"):
        data = results.load_file(path)
        files.append((int(data.get("date") or 0) / 1000, str(data["commit_hash"]), path))
    started = SessionLedger(out / "work" / "session.jsonl").results_since(0)
    found, since = [], 0.0
    for date, commit, path in sorted(files):
        mine = [r for r in started if since < r.started_at <= date]
        measured = collections.Counter(r.backend for r in mine if not r.error)
        found.append(
            Run(
                commit=commit[:7],
                date=_utc(date),
                measured=dict(sorted(measured.items())),
                failed=sum(1 for r in mine if r.error),
                file=path.relative_to(out).as_posix(),
            )
        )
        since = date
    return found


def drivers(out: pathlib.Path) -> list[str]:
    """The driver versions the runs' ``nvidia-smi`` outputs name."""
    found = set()
    for path in (out / "work").glob("nvidia-smi-*.txt"):
        if match := re.search(r"Driver Version: ([0-9.]+)", path.read_text(errors="replace")):
            found.add(match.group(1))
    return sorted(found)


def compiles(out: pathlib.Path, stack: str) -> dict[str, Compiles]:
    """Per backend: :class:`Compiles` of ``stack``."""
    by_backend: dict[str, list] = collections.defaultdict(list)
    for r in CompileLedger(out / "work" / "compile.jsonl").records():
        if r.stack == stack:
            by_backend[r.backend].append(r)
    found = {}
    for backend, records in sorted(by_backend.items()):
        ok = {r.case for r in records if r.error is None}
        seconds = [r.seconds for r in records if r.error is None]
        found[backend] = Compiles(
            records=len(records),
            cases=len({r.case for r in records}),
            compiled=len(ok),
            failed=len({r.case for r in records if r.error} - ok),
            median_s=statistics.median(seconds) if seconds else None,
            from_index=sum(r.from_index for r in records),
        )
    return found


def compile_failures(
    out: pathlib.Path, summary: dict[str, Any], cases: set[str]
) -> list[dict[str, str]]:
    """``cases`` of the run's backends whose every compile on its stack failed (never measured)."""
    ledger = CompileLedger(out / "work" / "compile.jsonl")
    compiled = ledger.compiled(summary["stack"])
    measured = {(c["case"], c["backend"]) for c in summary["cases"]}
    failures: dict[tuple[str, str], str] = {}
    for r in ledger.records():
        key = (r.case, r.backend)
        if (
            r.error
            and r.case in cases
            and r.stack == summary["stack"]
            and r.backend in summary["backends"]
            and key not in compiled
            and key not in measured
        ):
            failures[key] = r.error.strip().splitlines()[0][:160]
    return [{"case": c, "backend": b, "error": e} for (c, b), e in sorted(failures.items())]


def grid(summary: dict[str, Any]) -> dict[str, Any]:
    """The grid's preset, counts (recorded, else the preset's) and the real grid it stands for."""
    from iconbench.grids import presets

    spec = presets.spec_for(summary["grid"], None, None)
    counts = summary.get("grid_counts") or dict(vars(presets.counts_of(summary["grid"])))
    return {
        "name": summary["grid"],
        "description": spec.description,
        "limited_area": spec.limited_area,
        "counts": counts,
        "recorded": "grid_counts" in summary,
        "real": spec.real,
    }


def speedup(asv: pathlib.Path, experiment: str, commit: str) -> dict[str, Any]:
    """The speed-up of run ``commit`` against experiment ``experiment``'s OpenACC baseline.

    What ``iconbench speedup ASV --experiment NAME --force --commit COMMIT --json`` prints:
    the experiment's baseline, mapping and static arguments; the timings on the experiment's
    grid (all of them when none is); restated for the baseline's GPU by bandwidth.
    """
    from iconbench.baselines import (
        experiments,
        gpu_scaling,
        gt4py_timings,
        mapping,
        speedup_table,
        store,
    )
    from iconbench.baselines import speedup as compare
    from iconbench.grids.presets import counts_of
    from iconbench.records import asv as results

    chosen = experiments.load(experiment)
    baseline = store.load(store.default_root(), chosen.baseline)
    timings = gt4py_timings.load(asv, grid=None, gpu=None, metric="auto", commit=commit,
                                 one_grid=False)  # fmt: skip
    counts = counts_of(chosen.grid)
    on_grid = [t for t in timings if t.grid_counts == counts]
    if on_grid:
        timings = on_grid
    else:
        gt4py_timings.check_one_grid(timings, asv)
    scaling = None
    if len(gpus := {t.gpu for t in timings}) == 1:
        peak = gpu_scaling.measured_copy_peak(results.read(asv))
        scaling = gpu_scaling.scaling(baseline.machine.gpu, gpus.pop(), peak)
    report = compare.compare(
        baseline,
        mapping.load(mapping.DEFAULT_FILE),
        timings,
        force=True,
        backends=None,
        pins=chosen.pins,
        grid=(chosen.grid, counts),
        gpu_scaling=scaling,
        experiment_file=str(chosen.path),
    )
    return json.loads(speedup_table.to_json(report))


def locked(package: str) -> str | None:
    """``package``'s version in the project's ``uv.lock``."""
    lock = tomllib.loads((REPO_ROOT / "uv.lock").read_text())
    return next((p["version"] for p in lock.get("package", []) if p["name"] == package), None)


def left(
    summary: dict[str, Any], cases: set[str], failures: Sequence[dict[str, str]]
) -> dict[str, Left]:
    """Per backend: cases of the selection neither measured nor known not to compile."""
    failed = collections.Counter(f["backend"] for f in failures)
    measured = collections.Counter(c["backend"] for c in summary["cases"] if not c.get("error"))
    return {
        b: Left(measure=len(cases) - measured[b] - failed[b], failing=failed[b])
        for b in summary["backends"]
    }


def shown(path: pathlib.Path) -> str:
    """``path`` relative to the repository when inside it (as the report names directories)."""
    return path.relative_to(REPO_ROOT).as_posix() if path.is_relative_to(REPO_ROOT) else str(path)


def part(out: pathlib.Path, one_variant: bool) -> dict[str, Any]:
    """Everything the report shows of one result directory."""
    from iconbench import suite
    from iconbench.programs.catalog import split_case
    from iconbench.records import resultdir
    from iconbench.timing import report

    summary_path = resultdir.newest_summary(out)
    if summary_path is None:
        raise IconbenchError(
            f"{out}: no summary.json; 'iconbench suite --out {out} asv' writes one"
        )
    summary = resultdir.read_summary(summary_path)
    experiment = summary.get("experiment")
    selected = suite.case_ids("", None, one_variant=one_variant and not experiment)
    if experiment:
        from iconbench.baselines import experiments

        selected = experiments.load(experiment).case_ids(selected)
    if summary.get("programs"):  # a directory of a --programs selection
        selected = [case for case in selected if suite.matches(summary["programs"], case)]
    cases = set(selected)
    # with --one-variant, the other variants measured so far are not part of this report
    summary["cases"] = [c for c in summary["cases"] if c["case"] in cases]
    failures = compile_failures(out, summary, cases)
    measured_runs = runs(out)
    context = report.suite_context(
        summary,
        rows(out, "crosscheck"),
        len(cases),
        ncu=rows(out, "ncu"),
        compile_failures=failures,
        variants=collections.Counter(split_case(case)[0] for case in cases),
    )
    body = report.render("gpu_suite.md.j2", context).splitlines()
    # the part's own heading replaces the per-run title; its sections go one level down
    # (stack and GPU are in the part's table)
    body = [
        ("#" + line if line.startswith("## ") else line)
        for line in body[1:]
        if not line.startswith(("Stack: ", "GPU: "))
    ]
    programs = sorted({split_case(case)[0] for case in cases})
    notes = out / "notes.md"
    return {
        "dir": shown(out),
        "path": out,
        "summary": summary,
        "experiment": experiment,
        "programs": programs if summary.get("programs") else None,
        "cases": len(cases),
        "grid": grid(summary),
        "drivers": drivers(out),
        "runs": measured_runs,
        "compiles": compiles(out, summary["stack"]),
        "failures": failures,
        "left": left(summary, cases, failures),
        "speedup": speedup(out / "asv", experiment, measured_runs[-1].commit)
        if experiment and measured_runs
        else None,
        "notes": notes.read_text(encoding="utf-8").strip() if notes.exists() else "",
        "body": "\n".join(body).strip(),
    }


def across_stacks(parts: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each part's compile failures against the compiles of parts with another DaCe.

    A case and backend that failed on one stack and compiled on the other: the failure
    belongs to the stack.
    """
    found = []
    for mine in parts:
        if not mine["failures"]:
            continue
        failed = {(f["case"], f["backend"]) for f in mine["failures"]}
        dace = mine["summary"]["provenance"]["packages"].get("dace")
        for other in parts:
            other_dace = other["summary"]["provenance"]["packages"].get("dace")
            if other is mine or other_dace == dace:
                continue
            ledger = CompileLedger(other["path"] / "work" / "compile.jsonl")
            compiled = ledger.compiled(other["summary"]["stack"])
            tried = {(r.case, r.backend) for r in ledger.records()}
            programs: dict[tuple[str, str], list[int]] = collections.defaultdict(lambda: [0, 0, 0])
            for case, backend in failed:
                counts = programs[(backend, case.split("[")[0])]
                counts[0] += 1
                counts[1] += (case, backend) in tried
                counts[2] += (case, backend) in compiled
            found.append(
                {
                    "dace": dace,
                    "other_dace": other_dace,
                    "other_dir": other["dir"],
                    "failed": len(failed),
                    "tried": sum(v[1] for v in programs.values()),
                    "compiled": sum(v[2] for v in programs.values()),
                    "other_compiled": len(compiled),
                    "other_records": len(tried),
                    "programs": [
                        {
                            "backend": b,
                            "program": p,
                            "failed": v[0],
                            "tried": v[1],
                            "compiled": v[2],
                        }
                        for (b, p), v in sorted(programs.items())
                        if v[1]
                    ],
                }
            )
    return found


def render(
    dirs: Sequence[pathlib.Path], *, one_variant: bool = False, out: pathlib.Path | None = None
) -> str:
    """The markdown report of the result directories ``dirs``, in that order.

    ``out``: the file the report goes to, named in the command the report shows.
    """
    from iconbench.timing import report

    for directory in dirs:
        if not directory.is_dir():
            raise IconbenchError(
                f"{directory}: no result directory; give the --out of 'iconbench suite'"
            )
    parts = [part(directory.resolve(), one_variant) for directory in dirs]
    command = " ".join(
        [
            COMMAND,
            *(p["dir"] for p in parts),
            *(["--one-variant"] if one_variant else []),
            *(["--out", shown(out.resolve())] if out else []),
        ]
    )
    gpus = sorted(
        {(p["summary"]["provenance"].get("gpu") or {}).get("name", "none") for p in parts}
    )
    context = {
        "parts": parts,
        "gpus": gpus,
        "command": command,
        "across_stacks": across_stacks(parts),
        "locked_dace": locked("dace"),
        "locked_gt4py": locked("gt4py"),
    }
    return report.render("gpu_results.md.j2", context).rstrip()

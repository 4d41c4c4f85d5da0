"""A result directory: the one place that writes it and the one that reads it.

Layout (every runner, workstation to GPU runner, writes the same):

- ``OUT/asv/``: an asv results directory (``benchmarks.json``, ``<machine>/machine.json``
  and one result file per run, written with asv's own ``Results``): what ``asv publish``,
  ``iconbench compare`` (the gate) and the site read as they are;
- ``OUT/summary.json``: what asv has no place for (the commit, stack, grid, per-case errors,
  CVs, bandwidth fractions, compile records, provenance);
- ``OUT/work/*.jsonl``: the ledgers the steps append to (``compile``, ``session``,
  ``phases``, ``copy-peak``), from which :func:`write` makes the two above.

Both are append-only: an existing file is never replaced (``summary.1.json`` … follow).

The shards of one run (a GitHub matrix, a SLURM array) each write a result directory for
their share of the cases; :func:`merge_runs` joins them into one: one asv result file per
(machine, commit, environment) with every shard's values (:func:`iconbench.records.asv.merge`),
one ``summary.json`` with every case, and the union of the ledgers (so the next run resumes
from all shards' work). Shards that measured on different GPUs, grids or stacks are refused:
their times do not belong in one result set.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from iconbench.buildcache import REPO_ROOT
from iconbench.errors import IconbenchError
from iconbench.files import ledger
from iconbench.files.atomic import write_atomic
from iconbench.records import asv as results
from iconbench.records import broken, copy_peak, phases
from iconbench.records.asv import refuse_other_iconbench_file
from iconbench.records.compilation import CompileLedger
from iconbench.records.session import SessionLedger
from iconbench.sample_stats import summarize

if TYPE_CHECKING:  # the run's options, resolved at its command line (runner, a layer above)
    from iconbench.grids import Grid
    from iconbench.runner.options import RunOptions


def write_new_or_suffixed(path: pathlib.Path, text: str) -> pathlib.Path:
    """Write ``text`` to ``path``, or to ``path.N`` if it exists (results are append-only).

    >>> import tempfile
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> [write_new_or_suffixed(root / "summary.json", "{}").name for _ in range(3)]
    ['summary.json', 'summary.1.json', 'summary.2.json']
    """
    target, number = path, 1
    while target.exists():
        target = path.with_name(f"{path.stem}.{number}{path.suffix}")
        number += 1
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, target)
    return target


def newest_summary(out: pathlib.Path) -> pathlib.Path | None:
    """The last ``summary[.N].json`` a runner wrote into ``out`` (``None``: none yet).

    >>> import tempfile
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> for _ in range(11):
    ...     _ = write_new_or_suffixed(root / "summary.json", "{}")
    >>> newest_summary(root).name
    'summary.10.json'
    """

    def number(path: pathlib.Path) -> int:
        middle = path.name.removeprefix("summary").removesuffix(".json").strip(".")
        return int(middle) if middle.isdigit() else 0

    found = sorted(out.glob("summary*.json"), key=number)
    return found[-1] if found else None


def read_summary(path: pathlib.Path) -> dict:
    """A runner's ``summary*.json`` (``iconbench suite asv``), or one line naming the file.

    >>> import tempfile
    >>> bad = pathlib.Path(tempfile.mkdtemp()) / "summary.json"
    >>> _ = bad.write_text("{}")
    >>> try:
    ...     read_summary(bad)
    ... except IconbenchError as error:
    ...     print(str(error).removeprefix(str(bad)))
    : not a runner summary (no 'cases'); 'iconbench suite asv' writes one
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise IconbenchError(
            f"{path}: not a readable runner summary ({error}); 'iconbench suite asv' writes one"
        ) from None
    refuse_other_iconbench_file(path, data)  # a gate summary named summary-*.json
    if not isinstance(data, dict) or "cases" not in data:
        raise IconbenchError(
            f"{path}: not a runner summary (no 'cases'); 'iconbench suite asv' writes one"
        )
    return data


def recorded_stack(out: pathlib.Path) -> str | None:
    """The stack whose results ``out`` holds: its newest summary's, else its first compile's.

    >>> import tempfile
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> recorded_stack(root) is None
    True
    >>> _ = write_new_or_suffixed(root / "summary.json", '{"stack": "stack-a", "cases": []}')
    >>> recorded_stack(root)
    'stack-a'
    >>> from iconbench.records.compilation import CompileRecord
    >>> fresh = pathlib.Path(tempfile.mkdtemp())
    >>> (fresh / "work").mkdir()
    >>> CompileLedger(fresh / "work" / "compile.jsonl").append(
    ...     CompileRecord("a[default]", "gtfn_gpu", "tiny", "stack-b", 1.0))
    >>> recorded_stack(fresh)
    'stack-b'
    """
    summary = newest_summary(out)
    if summary is not None:
        return read_summary(summary).get("stack")
    records = CompileLedger(out / "work" / "compile.jsonl").records()
    return records[0].stack if records else None


def require_stack(out: pathlib.Path, stack: str) -> None:
    """Refuse to add results of ``stack`` to a directory that holds another stack's.

    Its measurement ledger does not tell stacks apart, so the result files written from it
    would give the earlier stack's cases the new stack's name.
    """
    recorded = recorded_stack(out)
    if recorded is not None and recorded != stack:
        raise IconbenchError(
            f"--out {out} holds results of {recorded}, this run is {stack}: "
            "a result directory keeps one stack; give a new --out"
        )


def new_directory(root: pathlib.Path, prefix: str, stack: str) -> pathlib.Path:
    """A new result directory ``root/PREFIX-<UTC time>``, its compile ledger continued.

    For commands that measure afresh on every call (``iconbench run``, ``demo``): the newest
    earlier directory of the same prefix and ``stack`` lends its compile ledger, so the new
    one knows which builds the persistent cache holds (nothing is compiled again, no compile
    process starts) and keeps the first, cold compile times.
    """
    import datetime
    import shutil

    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%SZ")
    out, number = root / f"{prefix}-{stamp}", 1
    while out.exists():  # a second call within the same second
        out, number = root / f"{prefix}-{stamp}.{number}", number + 1

    def made(path: pathlib.Path) -> tuple[str, int]:  # stamp, then the same second's number
        stamp, _, number = path.parents[1].name.partition(".")
        return stamp, int(number) if number.isdigit() else 0

    for earlier in sorted(root.glob(f"{prefix}-*/work/compile.jsonl"), key=made, reverse=True):
        if recorded_stack(earlier.parents[1]) == stack:
            (out / "work").mkdir(parents=True, exist_ok=True)
            shutil.copyfile(earlier, out / "work" / "compile.jsonl")
            break
    return out


def _recorded_provenance(path: pathlib.Path) -> dict:
    """The summary (``provenance``, ``environment``) that the measuring machine wrote.

    Read by :func:`read_summary`, so a broken file gets the same one line as everywhere
    else; a summary without the stack it ran on cannot lend it.
    """
    recorded = read_summary(path)
    missing = [key for key in ("provenance", "environment") if key not in recorded]
    if missing:
        raise IconbenchError(
            f"--provenance {path}: the summary has no {' or '.join(missing)}; pass the "
            "summary.json that 'iconbench suite asv' wrote on the measuring machine"
        )
    return recorded


@dataclasses.dataclass(frozen=True)
class Written:
    """What :func:`write` wrote: the asv result file, the summary and its number of cases."""

    asv: pathlib.Path
    summary: pathlib.Path
    cases: int


def write(
    options: RunOptions, *, cases: Sequence[str], minimum_bytes: Callable[[str, Grid], int]
) -> Written:
    """Write ``OUT/asv`` and ``OUT/summary.json`` from the ledgers (``iconbench suite asv``).

    The benchmark space gives ``cases`` (every case of the catalog: asv's parameters) and
    ``minimum_bytes`` (today's count of what a case moves on a grid); it is a layer above
    (:mod:`iconbench.suite`), so the runner's step passes them.
    """
    from iconbench import provenance
    from iconbench.programs.inputs import MINIMUM_BYTES_MODEL

    # bytes from today's model (a ledger line keeps the count of the code that measured it;
    # the domain-aware count replaced whole fields, which gave programs writing one level
    # 40 times the copy peak); lines counted by today's model keep theirs
    records = [
        dataclasses.replace(r, bytes_moved=minimum_bytes(r.case, options.grid))
        if r.measurement is not None and r.bytes_model != MINIMUM_BYTES_MODEL
        else r
        for r in SessionLedger(options.work / "session.jsonl").results()
        if r.grid == options.grid.name
    ]
    values: dict[str, dict] = {k: {} for k in (*results.TIME_KINDS, *results.TRACK_KINDS)}
    for r in records:
        key = (r.case, r.backend, r.grid)
        m = r.measurement
        if m is None:
            continue
        values["time_host"][key] = (m.host_median, m.host_s)
        if m.device_s:
            values["time_device"][key] = (m.device_median, m.device_s)
            values["track_call_overhead"][key] = (m.overhead_median, None)
        if r.bandwidth_bytes_per_s:
            values["track_bandwidth"][key] = (r.bandwidth_bytes_per_s / 1e9, None)
            values["track_bandwidth_fraction"][key] = (r.fraction_of(r.copy_peak_bytes_per_s), None)
        if r.cold_compile_s is not None:
            values["track_compile_cold"][key] = (r.cold_compile_s, None)
        values["track_compile_cached"][key] = (r.load_s, None)
        if r.fingerprint:
            values["track_codegen_fingerprint"][key] = (int(r.fingerprint[:12], 16), None)
    # the suite's parameters cover the whole catalog and ledger, not only this run's
    # --programs and --backends (a later job may measure fewer backends into the directory)
    others = sorted({r.backend for r in records} - set(options.backend_names))
    benchmarks = results.program_benchmarks(
        REPO_ROOT / "benchmarks",
        cases=cases,
        backends=(*options.backend_names, *others),
        grids=(options.grid.name,),
    )
    recorded = _recorded_provenance(options.provenance) if options.provenance else None
    info = (
        provenance.StackInfo.from_dict(recorded["provenance"]) if recorded else provenance.collect()
    )
    machine_json = options.out / "asv" / options.machine / "machine.json"
    if machine_json.exists():  # an asv machine is one fixed description, as `asv machine` keeps it
        machine = {k: v for k, v in json.loads(machine_json.read_text()).items() if k != "version"}
    elif recorded and "machine" in recorded:  # as the measuring machine described itself
        machine = {**recorded["machine"], "machine": options.machine}
    else:
        # written elsewhere from another machine's summary without its description: no core
        # count rather than this machine's
        cores = "" if recorded else str(os.cpu_count())
        machine = {
            "machine": options.machine,
            "arch": "x86_64",
            "cpu": f"{cores} cores" if cores else "",
            "num_cpu": cores,
            "os": info.platform,
            "ram": "",
            "gpu": info.gpu.name if info.gpu else "none",
        }
    env_name = f"existing-py{info.python}-{options.stack}-{options.grid.name}"
    path = results.write_asv(
        options.out / "asv",
        benchmarks,
        values,
        machine=machine,
        commit=options.commit or provenance.code_commit(),
        env_name=env_name,
        python=info.python[:4],
        grids={options.grid.name: options.grid.counts},
        makers={options.grid.name: maker} if (maker := options.grid.spec.maker) else {},
    )
    from iconbench.programs import backend_variants

    summary = {
        "commit": options.commit or provenance.code_commit(),
        "grid": options.grid.name,
        "grid_counts": options.grid.counts.as_dict(),
        "grid_maker": options.grid.spec.maker,
        "experiment": options.experiment.name if options.experiment else None,
        # the selection this directory measures (None: every program), so a report counts
        # coverage against it
        "programs": options.programs or None,
        "backend_options": backend_variants.options_of(options.backend_names),
        "backends": options.backend_names,
        "stack": options.stack,
        "machine": machine,
        "provenance": info.as_dict(),
        "environment": recorded["environment"] if recorded else provenance.environment_flags(),
        "phases": phases.read(options.work),
        # backends the stack could not make: a result of the stack, not a missing measurement
        "broken": {b: found.as_dict() for b, found in broken.read(options.work).items()},
        "cases": [],
    }
    for r in sorted(records, key=lambda r: (r.backend, r.case)):
        entry = {
            "case": r.case,
            "backend": r.backend,
            "error": r.error,
            "load_s": r.load_s,
            "cold_compile_s": r.cold_compile_s,
            "fingerprint": r.fingerprint,
            "bytes_moved": r.bytes_moved,
            "duration_s": r.duration_s,
        }
        if r.measurement is not None:
            m = r.measurement
            host = summarize(m.host_s)
            entry |= {
                "host_median_s": host.median,
                "host_cv": host.cv,
                "device_source": m.device_source,
                "python_optimize": m.python_optimize,
                "gt4py_compute_median_s": _median(m.gt4py_compute_s),
                "gt4py_total_median_s": _median(m.gt4py_total_s),
            }
            if m.device_s:
                device = summarize(m.device_s)
                entry |= {
                    "device_median_s": device.median,
                    "device_cv": device.cv,
                    "device_iqr_rel": device.iqr_relative,
                    "samples": device.n,
                    "overhead_median_s": m.overhead_median,
                    "bandwidth_bytes_per_s": r.bandwidth_bytes_per_s,
                    "fraction_of_copy_peak": r.fraction_of(r.copy_peak_bytes_per_s),
                    "fraction_of_datasheet": r.fraction_of(r.datasheet_bytes_per_s),
                    "copy_peak_bytes_per_s": r.copy_peak_bytes_per_s,
                    "datasheet_bytes_per_s": r.datasheet_bytes_per_s,
                }
        summary["cases"].append(entry)
    compile_path = options.work / "compile.jsonl"
    if compile_path.exists():
        summary["compile"] = [data for _, data in ledger.read(compile_path).rows]
        for entry in summary["compile"]:
            entry.pop("error", None) if entry.get("error") is None else None
    target = write_new_or_suffixed(options.out / "summary.json", json.dumps(summary, indent=1))
    return Written(path, target, len(summary["cases"]))


def _median(samples) -> float | None:
    """The median of ``samples`` (``None`` without any)."""
    return summarize(samples).median if samples else None


LEDGERS = ("compile.jsonl", "session.jsonl", phases.FILE, copy_peak.FILE)


@dataclasses.dataclass(frozen=True)
class Merged:
    """What :func:`merge_runs` wrote."""

    shards: int
    asv_files: int
    cases: int
    summary: pathlib.Path | None


def _same(summaries: Sequence[tuple[pathlib.Path, dict]], what: str, value) -> None:
    seen = {json.dumps(value(s), sort_keys=True): p for p, s in summaries}
    if len(seen) > 1:
        (a, pa), (b, pb) = list(seen.items())[:2]
        raise IconbenchError(
            f"shards differ in {what}: {pa} has {a}, {pb} has {b}; merge only the shards of one "
            "run (same grid, stack and GPU)"
        )


def merge_ledgers(sources: Sequence[pathlib.Path], target: pathlib.Path) -> None:
    """Union of the lines of each ledger, first appearance first (existing lines kept).

    Each ledger's lines by the ledgers' one rule (:func:`iconbench.files.ledger.whole_lines`):
    a shard killed while appending leaves a torn last line, which the union would put
    between whole ones.
    """
    for name in LEDGERS:
        kept: dict[str, None] = {}
        for path in [target / name, *(s / "work" / name for s in sources)]:
            for line in ledger.whole_lines(path):
                kept.setdefault(line, None)
        if kept:
            write_atomic(target / name, "".join(f"{line}\n" for line in kept))


def merge_runs(sources: Sequence[pathlib.Path], out: pathlib.Path) -> Merged:
    """Merge the shard output directories ``sources`` into ``out``."""
    sources = [pathlib.Path(s) for s in sources]
    for source in sources:
        if not (source / "asv").is_dir() and newest_summary(source) is None:
            raise IconbenchError(
                f"{source}: not a runner output directory (no asv/ and no summary.json); give "
                "the --out directories of the shards"
            )
    summaries = []
    for source in sources:
        path = newest_summary(source)
        if path is not None:
            summaries.append((path, read_summary(path)))
    _same(summaries, "grid", lambda s: s.get("grid"))
    _same(summaries, "stack", lambda s: s.get("stack"))
    _same(summaries, "GPU", lambda s: (s.get("provenance", {}).get("gpu") or {}).get("name"))
    asv_sources = [s / "asv" for s in sources if (s / "asv").is_dir()]
    written = results.merge(asv_sources, out / "asv") if asv_sources else 0
    merge_ledgers(sources, out / "work")
    summary_path = None
    cases: dict[tuple[str, str], dict] = {}
    if summaries:
        merged = dict(summaries[0][1])
        merged["backends"] = sorted({b for _, s in summaries for b in s.get("backends", [])})
        merged["phases"] = [
            {**phase, "shard": str(path.parent)}
            for path, s in summaries
            for phase in s.get("phases", [])
        ]
        for _, s in summaries:
            for case in s.get("cases", []):
                cases[case["case"], case["backend"]] = case
        merged["cases"] = [cases[k] for k in sorted(cases, key=lambda k: (k[1], k[0]))]
        merged["shards"] = [str(path) for path, _ in summaries]
        compile_records: dict[str, dict] = {}
        for _, s in summaries:
            for record in s.get("compile", []):
                compile_records.setdefault(json.dumps(record, sort_keys=True), record)
        if compile_records:
            merged["compile"] = list(compile_records.values())
        summary_path = write_new_or_suffixed(out / "summary.json", json.dumps(merged, indent=1))
    return Merged(len(sources), written, len(cases), summary_path)

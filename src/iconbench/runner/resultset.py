"""``asv``: the result set from the ledgers, in asv's format and as the runner's summary.

``OUT/asv`` is an asv results directory (``benchmarks.json``, ``<machine>/machine.json`` and
one result file per run, written with asv's own ``Results``), what ``asv publish``,
``iconbench compare`` (the gate) and the site read as they are; ``OUT/summary.json`` adds
what asv has no place for (per-case errors, CVs, bandwidth fractions, compile records,
provenance). Both are append-only: an existing file is never replaced
(``summary.1.json`` … follow).
"""

from __future__ import annotations

import json
import os
import pathlib

from iconbench.buildcache import REPO_ROOT
from iconbench.errors import IconbenchError
from iconbench.runner.options import RunOptions
from iconbench.runner.output import write_new_or_suffixed
from iconbench.runner.progress import log


def _recorded_provenance(path: pathlib.Path) -> dict:
    """The summary (``provenance``, ``environment``) that the measuring machine wrote.

    Read by :func:`iconbench.runner.output.read_summary`, so a broken file gets the same one
    line as everywhere else; a summary without the stack it ran on cannot lend it.
    """
    from iconbench.runner.output import read_summary

    recorded = read_summary(path)
    missing = [key for key in ("provenance", "environment") if key not in recorded]
    if missing:
        raise IconbenchError(
            f"--provenance {path}: the summary has no {' or '.join(missing)}; pass the "
            "summary.json that 'iconbench suite asv' wrote on the measuring machine"
        )
    return recorded


def run(options: RunOptions) -> None:
    """Write asv-format results and summary.json from the ledgers."""
    import dataclasses

    from iconbench import provenance, results, suite
    from iconbench.programs.inputs import MINIMUM_BYTES_MODEL
    from iconbench.timing import session
    from iconbench.timing.statistics import summarize

    # bytes from today's model (a ledger line keeps the count of the code that measured it;
    # the domain-aware count replaced whole fields, which gave programs writing one level
    # 40 times the copy peak); lines counted by today's model keep theirs
    records = [
        dataclasses.replace(r, bytes_moved=suite.minimum_bytes(r.case, options.grid))
        if r.measurement is not None and r.bytes_model != MINIMUM_BYTES_MODEL
        else r
        for r in session.SessionLedger(options.work / "session.jsonl").results()
        if r.grid == options.grid
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
    # the suite's parameters cover the whole ledger, not only this run's --programs and
    # --backends (a later job may measure fewer backends into the same directory)
    os.environ.pop("ICONBENCH_PROGRAMS", None)
    others = sorted({r.backend for r in records} - set(options.backends))
    os.environ["ICONBENCH_BACKENDS"] = ",".join([*options.backends, *others])
    benchmarks = results.discover_benchmarks(REPO_ROOT / "benchmarks")
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
    env_name = f"existing-py{info.python}-{options.stack}-{options.grid}"
    path = results.write_asv(
        options.out / "asv",
        benchmarks,
        values,
        machine=machine,
        commit=options.commit or provenance.code_commit(),
        env_name=env_name,
        python=info.python[:4],
    )
    log(f"asv: wrote {path}")
    from iconbench.grids.presets import counts_of
    from iconbench.programs import backend_variants

    summary = {
        "commit": options.commit or provenance.code_commit(),
        "grid": options.grid,
        "grid_counts": counts_of(options.grid).as_dict(),
        "experiment": options.experiment.name if options.experiment else None,
        # the selection this directory measures (None: every program), so a report counts
        # coverage against it
        "programs": options.programs or None,
        "backend_options": backend_variants.options_of(options.backends),
        "backends": options.backends,
        "stack": options.stack,
        "machine": machine,
        "provenance": info.as_dict(),
        "environment": recorded["environment"] if recorded else provenance.environment_flags(),
        "phases": [
            json.loads(line) for line in (options.work / "phases.jsonl").read_text().splitlines()
        ]
        if (options.work / "phases.jsonl").exists()
        else [],
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
                "gt4py_compute_median_s": summarize(m.gt4py_compute_s).median
                if m.gt4py_compute_s
                else None,
                "gt4py_total_median_s": summarize(m.gt4py_total_s).median
                if m.gt4py_total_s
                else None,
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
        summary["compile"] = [
            json.loads(line) for line in compile_path.read_text().splitlines() if line.strip()
        ]
        for entry in summary["compile"]:
            entry.pop("error", None) if entry.get("error") is None else None
    target = write_new_or_suffixed(options.out / "summary.json", json.dumps(summary, indent=1))
    log(f"summary: wrote {target} ({len(summary['cases'])} cases)")

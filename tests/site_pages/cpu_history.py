"""Real CPU result sets of several commits, as the site's tests and screenshots read them.

Each commit is measured for real, in one process, with the suite's own protocol
(:func:`iconbench.timing.session.run_cases` on :func:`iconbench.suite.prepare`, as the GPU
runner does), on the embedded backend and the tiny grid, and written in asv's storage by
:func:`iconbench.records.asv.write_asv` (asv's own ``Results`` class). The commits are real
commits of this repository. The result directory is cached under ``ICONBENCH_CACHE_DIR``
by the hash of the suite's code, so a test session measures once per machine.

Run directly to (re)build the cache: ``python tests/site/cpu_history.py``.
"""

from __future__ import annotations

import hashlib
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parents[2]
PROGRAMS = (
    "compute_tangential_wind[default]",
    "compute_perturbation_of_rho_and_theta[default]",
    "mo_intp_rbf_rbf_vec_interpol_vertex[default]",
)
BACKEND, GRID, MACHINE = "embedded", "tiny", "cpu-ci"
#: asv dates of the runs (ms): one day apart, in commit order.
FIRST_DATE_MS = 1_795_000_000_000


def commits(count: int = 3) -> list[str]:
    """The last ``count`` commits of this repository, oldest first."""
    out = subprocess.run(
        ["git", "-C", str(REPO), "rev-list", "--first-parent", f"-{count}", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return out[::-1]


def _key(commit_list: list[str]) -> str:
    digest = hashlib.sha256()
    for path in [
        REPO / "benchmarks" / "programs.py",
        *sorted((REPO / "src" / "iconbench" / "timing").glob("*.py")),
    ]:
        digest.update(path.read_bytes())
    digest.update(" ".join([*commit_list, *PROGRAMS]).encode())
    return digest.hexdigest()[:16]


def asv_values(case_results) -> dict:
    """``values`` for :func:`iconbench.records.asv.write_asv` from measured cases."""
    from iconbench.records import asv as results

    values: dict[str, dict] = {k: {} for k in (*results.TIME_KINDS, *results.TRACK_KINDS)}
    for r in case_results:
        m, key = r.measurement, (r.case, r.backend, r.grid)
        if m is None:
            continue
        values["time_host"][key] = (m.host_median, list(m.host_s))
        values["time_device"][key] = (
            (m.device_median, list(m.device_s)) if m.device_s else (m.host_median, list(m.host_s))
        )
        if m.overhead_median is not None:
            values["track_call_overhead"][key] = (m.overhead_median, None)
        if r.bandwidth_bytes_per_s:
            values["track_bandwidth"][key] = (r.bandwidth_bytes_per_s / 1e9, None)
        values["track_compile_cached"][key] = (r.load_s, None)
        if r.fingerprint:
            values["track_codegen_fingerprint"][key] = (int(r.fingerprint[:12], 16), None)
    return values


def build(target: pathlib.Path, commit_list: list[str]) -> pathlib.Path:
    """Measure each commit's run and write it under ``target`` (an asv results_dir)."""
    os.environ["ICONBENCH_CATALOG"] = "1"
    os.environ["ICONBENCH_BACKENDS"] = BACKEND
    os.environ["ICONBENCH_GRID"] = GRID
    os.environ["ICONBENCH_PROGRAMS"] = "|".join(p.split("[")[0] for p in PROGRAMS)
    import warnings

    from iconbench import buildcache

    warnings.filterwarnings("ignore")
    buildcache.configure("default", jobs=1)
    from iconbench import suite
    from iconbench.grids import resolve
    from iconbench.records import asv as results
    from iconbench.records.session import SessionLedger
    from iconbench.timing import session

    benchmarks = results.discover_benchmarks(REPO / "benchmarks")
    machine = {
        "machine": MACHINE,
        "arch": "x86_64",
        "cpu": "2 cores",
        "num_cpu": "2",
        "os": "Linux",
        "ram": "",
    }
    with tempfile.TemporaryDirectory() as work:
        for index, commit in enumerate(commit_list):
            ledger = SessionLedger(pathlib.Path(work) / f"{index}.jsonl")
            measured = session.run_cases(
                [(case, BACKEND) for case in PROGRAMS],
                grid=resolve(GRID),
                ledger=ledger,
                prepare=suite.prepare,
                measure_options={"samples": 30, "max_s": 1.0, "warmup_s": 0.05, "gt4py_calls": 0},
                progress=lambda line: None,
            )
            results.write_asv(
                target,
                benchmarks,
                asv_values(measured),
                machine=machine,
                commit=commit,
                env_name="existing-py3.12-tiny",
                python="3.12",
                date_ms=FIRST_DATE_MS + index * 86_400_000,
            )
    return target


def cached(count: int = 3) -> pathlib.Path:
    """The cached result directory of the last ``count`` commits, measured if missing."""
    commit_list = commits(count)
    root = pathlib.Path(os.environ.get("ICONBENCH_CACHE_DIR", REPO / ".cache"))
    target = root / "site-cpu-history" / _key(commit_list)
    if (target / "benchmarks.json").exists():
        return target
    partial = target.with_name(target.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    subprocess.run(
        [sys.executable, __file__, str(partial), *commit_list],
        check=True,
        env={**os.environ, "PYTHONOPTIMIZE": "2"},
    )
    partial.rename(target)
    return target


if __name__ == "__main__":
    if len(sys.argv) > 2:
        build(pathlib.Path(sys.argv[1]), sys.argv[2:])
    else:
        print(cached())

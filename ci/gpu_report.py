#!/usr/bin/env python3
"""Render the GPU results report from result directories of ``iconbench suite`` runs (``--out``).

    python ci/gpu_report.py results/h100 results/h100-mch_icon-ch1_medium \
        results/h100-ch1_medium-dace-2.0.0a6 > docs/results-h100.md

Every number comes from the directories' files: ``summary*.json`` (the newest), ``work/``'s
ledgers (``session.jsonl``, ``compile.jsonl``, ``nvidia-smi-*.txt``), ``asv/`` (one result file
per run, named by its commit), ``crosscheck*.json``/``ncu*.json``; a directory whose summary
names an experiment also gets ``iconbench speedup DIR/asv --experiment NAME --force``'s table.
``DIR/notes.md``, where present, holds what a reader of the numbers should know that no file
records (hand-written, shown as it is).
"""

from __future__ import annotations

import argparse
import collections
import datetime
import json
import pathlib
import re
import statistics
import subprocess
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

#: the command that regenerates docs/results-h100.md, shown in the report
COMMAND = "python ci/gpu_report.py"


def _numbered(out: pathlib.Path, stem: str) -> list[pathlib.Path]:
    """``stem.json``, ``stem.1.json``, ``stem.2.json``, … in the order they were written.

    Results are never overwritten (``gpu_suite._write_new_or_suffixed``), and the suffix, not
    the modification time, says which is newer: a fresh clone gives every file the same time.
    """
    numbered = []
    for path in out.glob(f"{stem}*.json"):
        if match := re.fullmatch(rf"{re.escape(stem)}(?:\.(\d+))?\.json", path.name):
            numbered.append((int(match.group(1) or 0), path))
    return [path for _, path in sorted(numbered)]


def _latest(out: pathlib.Path, stem: str) -> pathlib.Path | None:
    """The newest of :func:`_numbered`."""
    found = _numbered(out, stem)
    return found[-1] if found else None


def _rows(out: pathlib.Path, stem: str) -> list[dict]:
    """The rows of every :func:`_numbered` file (each run of the step adds one), oldest first."""
    rows: list[dict] = []
    for path in _numbered(out, stem):
        rows += json.loads(path.read_text())
    return rows


def _compile_failures(out: pathlib.Path, summary: dict, cases: set[str]) -> list[dict]:
    """``cases`` of the run's backends whose every compile on its stack failed (never measured)."""
    from iconbench.timing.compilation import CompileLedger

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


def _utc(seconds: float) -> str:
    return datetime.datetime.fromtimestamp(seconds, datetime.UTC).strftime("%Y-%m-%d %H:%M")


def _runs(out: pathlib.Path) -> list[dict]:
    """One row per asv result file: one per measuring run, named by the code's commit.

    Its commit, date, and the cases whose samples were taken since the run before (by the
    session ledger's ``started_at``), per backend.
    """
    files = []
    for path in (out / "asv").glob("*/*-existing-*.json"):
        data = json.loads(path.read_text())
        files.append((data["date"] / 1000, data["commit_hash"], path))
    session = out / "work" / "session.jsonl"
    started = [json.loads(line) for line in session.read_text().splitlines() if line.strip()]
    runs, since = [], 0.0
    for date, commit, path in sorted(files):
        mine = [r for r in started if since < r["started_at"] <= date]
        measured = collections.Counter(r["backend"] for r in mine if not r.get("error"))
        runs.append(
            {
                "commit": commit[:7],
                "date": _utc(date),
                "measured": dict(sorted(measured.items())),
                "failed": sum(1 for r in mine if r.get("error")),
                "file": path.relative_to(out).as_posix(),
            }
        )
        since = date
    return runs


def _drivers(out: pathlib.Path) -> list[str]:
    """The driver versions the runs' ``nvidia-smi`` outputs name."""
    found = set()
    for path in (out / "work").glob("nvidia-smi-*.txt"):
        if match := re.search(r"Driver Version: ([0-9.]+)", path.read_text()):
            found.add(match.group(1))
    return sorted(found)


def _compiles(out: pathlib.Path, stack: str) -> dict[str, dict]:
    """Per backend: compile records of ``stack``, how many succeeded, the median seconds."""
    from iconbench.timing.compilation import CompileLedger

    by_backend: dict[str, list] = collections.defaultdict(list)
    for r in CompileLedger(out / "work" / "compile.jsonl").records():
        if r.stack == stack:
            by_backend[r.backend].append(r)
    return {
        backend: {
            "records": len(records),
            "cases": len({r.case for r in records}),
            "compiled": len({r.case for r in records if r.error is None}),
            "failed": len(
                {r.case for r in records if r.error} - {r.case for r in records if r.error is None}
            ),
            "median_s": statistics.median(r.seconds for r in records if r.error is None)
            if any(r.error is None for r in records)
            else None,
        }
        for backend, records in sorted(by_backend.items())
    }


def _grid(summary: dict) -> dict:
    """The grid's preset, counts (recorded, else the preset's) and the real grid it stands for."""
    from iconbench.grids import presets

    spec = presets.spec_for(summary["grid"], None, None)
    counts = summary.get("grid_counts") or {
        k: v for k, v in vars(presets.counts_of(summary["grid"])).items()
    }
    return {
        "name": summary["grid"],
        "description": spec.description,
        "limited_area": spec.limited_area,
        "counts": counts,
        "recorded": "grid_counts" in summary,
        "real": spec.real,
    }


def _speedup(out: pathlib.Path, experiment: str, commit: str) -> dict:
    """``iconbench speedup OUT/asv --experiment NAME --force --json --commit COMMIT``.

    ``commit``: the newest run's (its asv file holds every case of the ledger).
    """
    command = [sys.executable, "-m", "iconbench", "speedup", str(out / "asv"),
               "--experiment", experiment, "--force", "--json",
               "--commit", commit]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"gpu_report.py: {' '.join(command[1:])} failed: {done.stderr.strip()}")
    return json.loads(done.stdout)


def _locked(package: str) -> str | None:
    """``package``'s version in the project's ``uv.lock``."""
    lock = tomllib.loads((ROOT / "uv.lock").read_text())
    return next((p["version"] for p in lock.get("package", []) if p["name"] == package), None)


def _left(out: pathlib.Path, summary: dict, cases: set[str]) -> dict[str, dict]:
    """Per backend: cases of the selection neither measured nor known not to compile."""
    failed = collections.Counter(f["backend"] for f in _compile_failures(out, summary, cases))
    measured = collections.Counter(c["backend"] for c in summary["cases"] if not c.get("error"))
    return {
        b: {"measure": len(cases) - measured[b] - failed[b], "failing": failed[b]}
        for b in summary["backends"]
    }


def _part(out: pathlib.Path, one_variant: bool) -> dict:
    """Everything the report shows of one result directory."""
    from iconbench import suite
    from iconbench.timing import report

    summary_path = _latest(out, "summary")
    if summary_path is None:
        raise SystemExit(
            f"gpu_report.py: no summary.json in {out}: run 'iconbench suite asv' first"
        )
    summary = json.loads(summary_path.read_text())
    experiment = summary.get("experiment")
    cases = suite.case_ids("", None, one_variant=one_variant and not experiment)
    if experiment:
        from iconbench.baselines import experiments

        cases = experiments.load(experiment).case_ids(cases)
    if summary.get("programs"):  # a directory of a --programs selection
        cases = [case for case in cases if suite.matches(summary["programs"], case)]
    cases = set(cases)
    # with --one-variant, the other variants measured so far are not part of this report
    summary["cases"] = [c for c in summary["cases"] if c["case"] in cases]
    failures = _compile_failures(out, summary, cases)
    runs = _runs(out)
    context = report.suite_context(
        summary,
        _rows(out, "crosscheck"),
        len(cases),
        ncu=_rows(out, "ncu"),
        compile_failures=failures,
        variants=collections.Counter(suite.split_case(case)[0] for case in cases),
    )
    body = report.render("gpu_suite.md.j2", context).splitlines()
    # the part's own heading replaces the per-run title; its sections go one level down
    # (stack and GPU are in the part's table)
    body = [
        ("#" + line if line.startswith("## ") else line)
        for line in body[1:]
        if not line.startswith(("Stack: ", "GPU: "))
    ]
    return {
        "dir": out.relative_to(ROOT).as_posix() if out.is_relative_to(ROOT) else str(out),
        "summary": summary,
        "experiment": experiment,
        "programs": sorted({suite.split_case(case)[0] for case in cases})
        if summary.get("programs")
        else None,
        "cases": len(cases),
        "grid": _grid(summary),
        "drivers": _drivers(out),
        "runs": runs,
        "compiles": _compiles(out, summary["stack"]),
        "failures": failures,
        "left": _left(out, summary, cases),
        "speedup": _speedup(out, experiment, runs[-1]["commit"]) if experiment else None,
        "notes": (out / "notes.md").read_text().strip() if (out / "notes.md").exists() else "",
        "body": "\n".join(body).strip(),
    }


def _across_stacks(parts: list[dict]) -> list[dict]:
    """Each part's compile failures against the compiles of parts with another DaCe.

    A case and backend that failed on one stack and compiled on the other: the failure
    belongs to the stack.
    """
    from iconbench.timing.compilation import CompileLedger

    rows = []
    for part in parts:
        if not part["failures"]:
            continue
        failed = {(f["case"], f["backend"]) for f in part["failures"]}
        dace = part["summary"]["provenance"]["packages"].get("dace")
        for other in parts:
            other_dace = other["summary"]["provenance"]["packages"].get("dace")
            if other is part or other_dace == dace:
                continue
            ledger = CompileLedger(ROOT / other["dir"] / "work" / "compile.jsonl")
            compiled = ledger.compiled(other["summary"]["stack"])
            tried = {(r.case, r.backend) for r in ledger.records()}
            programs = collections.defaultdict(lambda: [0, 0, 0])
            for case, backend in failed:
                program = case.split("[")[0]
                programs[(backend, program)][0] += 1
                programs[(backend, program)][1] += (case, backend) in tried
                programs[(backend, program)][2] += (case, backend) in compiled
            rows.append(
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
    return rows


def main(argv: list[str] | None = None) -> int:
    """Print the markdown report of the runs in the given result directories."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "dirs", type=pathlib.Path, nargs="+", metavar="DIR", help="--out directories of a GPU run"
    )
    parser.add_argument(
        "--one-variant", action="store_true", help="coverage vs the first variant of each program"
    )
    args = parser.parse_args(argv)
    from iconbench.timing import report

    parts = [_part(out.resolve(), args.one_variant) for out in args.dirs]
    command = " ".join(
        [COMMAND, *(p["dir"] for p in parts), *(["--one-variant"] if args.one_variant else [])]
    )
    gpus = sorted(
        {(p["summary"]["provenance"].get("gpu") or {}).get("name", "none") for p in parts}
    )
    context = {
        "parts": parts,
        "gpus": gpus,
        "command": command,
        "across_stacks": _across_stacks(parts),
        "locked_dace": _locked("dace"),
        "locked_gt4py": _locked("gt4py"),
    }
    print(report.render("gpu_results.md.j2", context).rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main())

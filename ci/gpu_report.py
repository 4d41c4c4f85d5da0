#!/usr/bin/env python3
"""Render the docs report of an ``iconbench suite`` run: python ci/gpu_report.py results/h100."""

from __future__ import annotations

import argparse
import collections
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))


def _numbered(out: pathlib.Path, stem: str) -> list[pathlib.Path]:
    """``stem.json``, ``stem.1.json``, ``stem.2.json``, … in the order they were written.

    Results are never overwritten (``iconbench.runner.output.write_new_or_suffixed``), and the
    suffix, not the modification time, says which is newer: a fresh clone gives every file the
    same time.
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
    """The rows of every :func:`_numbered` file (each lease adds one), oldest first."""
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


def main(argv: list[str] | None = None) -> int:
    """Print the markdown report of the run in ``out``."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=pathlib.Path, help="the --out directory of iconbench suite")
    parser.add_argument("--one-variant", action="store_true", help="coverage vs one per program")
    args = parser.parse_args(argv)
    from iconbench import suite
    from iconbench.timing import report

    summary_path = _latest(args.out, "summary")
    if summary_path is None:
        print(f"no summary.json in {args.out}: run 'iconbench suite asv' first", file=sys.stderr)
        return 2
    summary = json.loads(summary_path.read_text())
    cases = set(suite.case_ids("", None, one_variant=args.one_variant))
    # with --one-variant, the other variants measured so far are not part of this report
    summary["cases"] = [c for c in summary["cases"] if c["case"] in cases]
    context = report.suite_context(
        summary,
        _rows(args.out, "crosscheck"),
        len(cases),
        ncu=_rows(args.out, "ncu"),
        compile_failures=_compile_failures(args.out, summary, cases),
        variants=collections.Counter(suite.split_case(case)[0] for case in cases),
    )
    print(report.render("gpu_suite.md.j2", context))
    return 0


if __name__ == "__main__":
    sys.exit(main())

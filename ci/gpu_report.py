#!/usr/bin/env python3
"""Render the docs report of a ``ci/gpu_suite.py`` run: python ci/gpu_report.py results/h100."""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))


def _latest(out: pathlib.Path, stem: str) -> pathlib.Path | None:
    """The newest of ``stem.json``, ``stem.1.json``, … (results are never overwritten)."""
    found = sorted(out.glob(f"{stem}*.json"), key=lambda p: p.stat().st_mtime)
    return found[-1] if found else None


def main(argv: list[str] | None = None) -> int:
    """Print the markdown report of the run in ``out``."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=pathlib.Path, help="the --out directory of gpu_suite.py")
    parser.add_argument("--one-variant", action="store_true", help="coverage vs one per program")
    args = parser.parse_args(argv)
    from iconbench import suite
    from iconbench.timing import report

    summary_path = _latest(args.out, "summary")
    if summary_path is None:
        print(f"no summary.json in {args.out}: run 'ci/gpu_suite.py asv' first", file=sys.stderr)
        return 2
    summary = json.loads(summary_path.read_text())
    cross_path = _latest(args.out, "crosscheck")
    crosscheck = json.loads(cross_path.read_text()) if cross_path else []
    expected = len(suite.case_ids("", None, one_variant=args.one_variant))
    context = report.suite_context(summary, crosscheck, expected)
    print(report.render("gpu_suite.md.j2", context))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Combine the output directories of a run's shards into one result set.

Each shard (a job of a GitHub matrix, a task of a SLURM array) writes ``OUT/asv``,
``OUT/summary.json`` and its ledgers ``OUT/work/*.jsonl`` for its share of the cases. The
merged directory holds one asv result file per (machine, commit, environment) with every
shard's values (:func:`iconbench.results.merge`), one ``summary.json`` with every case, and
the union of the ledgers (so the next run resumes from all shards' work). Shards that measured
on different GPUs, grids or stacks are refused: their times do not belong in one result set.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
from collections.abc import Sequence

from iconbench import results
from iconbench.errors import IconbenchError
from iconbench.files.atomic import write_atomic
from iconbench.runner.resultdir import newest_summary, read_summary, write_new_or_suffixed

LEDGERS = ("compile.jsonl", "session.jsonl", "phases.jsonl", "copy-peak.jsonl")


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
    """Union of the lines of each ledger, first appearance first (existing lines kept)."""
    for name in LEDGERS:
        lines: dict[str, None] = {}
        for path in [target / name, *(s / "work" / name for s in sources)]:
            if path.exists():
                for line in path.read_text(encoding="utf-8").splitlines():
                    if line.strip():
                        lines.setdefault(line, None)
        if lines:
            write_atomic(target / name, "".join(f"{line}\n" for line in lines))


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

"""From the history to what readers take: an asv results directory and the gate summaries.

The site is rebuilt from the history alone: :func:`export` lays out every asv result file
(merged where several entries hold the same commit, machine and environment, e.g. the shards
of one nightly appended one by one, or a re-run) and every gate summary, and ``iconbench
history publish`` hands that to ``iconbench publish``.
"""

from __future__ import annotations

import dataclasses
import pathlib
import tempfile
from collections.abc import Sequence

from iconbench import results
from iconbench.files.atomic import write_atomic
from iconbench.history.store import Entry, HistoryStore


@dataclasses.dataclass(frozen=True)
class Exported:
    """What :func:`export` wrote."""

    asv_dir: pathlib.Path
    gate_dir: pathlib.Path
    result_files: int
    gate_summaries: int


def export(
    store: HistoryStore, target: pathlib.Path, entries: Sequence[Entry] | None = None
) -> Exported:
    """Write ``target/asv`` (an asv results_dir) and ``target/gate/<entry>-<name>.json``.

    Entries are merged oldest first, so a newer value of the same benchmark wins and a
    benchmark a newer run left out keeps its older value; ``benchmarks.json`` (the suite's
    description) is the newest one.
    """
    chosen = store.entries() if entries is None else sorted(entries, key=lambda e: e.created)
    asv_dir, gate_dir = target / "asv", target / "gate"
    gate_count = 0
    newest_benchmarks: bytes | None = None
    with tempfile.TemporaryDirectory(prefix="iconbench-export-") as scratch:
        sources = []
        for number, entry in enumerate(chosen):
            source = pathlib.Path(scratch) / f"{number:06d}"
            for ref in entry.files:
                if ref.role == "asv":
                    data = store.read(ref)
                    if ref.path == "benchmarks.json":
                        newest_benchmarks = data
                    path = source / ref.path
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_bytes(data)
                elif ref.role == "gate":
                    name = f"{entry.id[:16]}-{pathlib.PurePath(ref.path).name}"
                    write_atomic(gate_dir / name, store.read(ref).decode())
                    gate_count += 1
            if source.exists():
                sources.append(source)
        asv_dir.mkdir(parents=True, exist_ok=True)
        written = results.merge(sources, asv_dir) if sources else 0
    if newest_benchmarks is not None:
        write_atomic(asv_dir / "benchmarks.json", newest_benchmarks.decode())
    return Exported(asv_dir, gate_dir, written, gate_count)

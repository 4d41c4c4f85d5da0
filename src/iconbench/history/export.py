"""From the history to what readers take: an asv results directory, gate summaries, confirmations.

The site is rebuilt from the history alone: :func:`export` lays out every asv result file
(merged where several entries hold the same commit, machine and environment, e.g. the shards
of one nightly appended one by one, or a re-run), every gate summary and every change point's
confirmation (:mod:`iconbench.history.confirmation`), and ``iconbench history publish``
hands that to ``iconbench publish``.

The export is a copy for readers, so it may differ from the stored bytes where a reader
needs it: a result file that records an abbreviated commit (``432aa3c``; asv keys runs by
the full hash and drops such a file without a word) is exported with the full hash, as
the repository resolves it. The stored entry is not touched (the history is append-only).
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
import tempfile
from collections.abc import Sequence

from iconbench.files.atomic import write_atomic
from iconbench.history.store import Entry, HistoryStore
from iconbench.records import asv as results


@dataclasses.dataclass(frozen=True)
class Exported:
    """What :func:`export` wrote."""

    asv_dir: pathlib.Path
    gate_dir: pathlib.Path
    result_files: int
    gate_summaries: int
    confirmation_dir: pathlib.Path | None = None
    confirmations: int = 0
    summary_dir: pathlib.Path | None = None
    summaries: int = 0


def export(
    store: HistoryStore,
    target: pathlib.Path,
    entries: Sequence[Entry] | None = None,
    *,
    repo: pathlib.Path | None = None,
) -> Exported:
    """Write ``target/``'s ``asv`` (an asv results_dir), ``gate``, ``confirmations``, ``summaries``.

    Gate summaries and confirmations are named ``<entry id>-<name>.json``; runner summaries
    ``summary.<entry id>.json`` (they hold the runs' stacks, which the site shows).

    Entries are merged oldest first, so a newer value of the same benchmark wins and a
    benchmark a newer run left out keeps its older value; ``benchmarks.json`` (the suite's
    description) is the newest one. Abbreviated commits are expanded with ``repo`` (default:
    this checkout).
    """
    chosen = store.entries() if entries is None else sorted(entries, key=lambda e: e.created)
    asv_dir, gate_dir = target / "asv", target / "gate"
    confirmation_dir, summary_dir = target / "confirmations", target / "summaries"
    gate_count = confirmation_count = summary_count = 0
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
                elif ref.role == "confirmation":
                    name = f"{entry.id[:16]}-{pathlib.PurePath(ref.path).name}"
                    write_atomic(confirmation_dir / name, store.read(ref).decode())
                    confirmation_count += 1
                elif ref.role == "summary":
                    name = f"summary.{entry.id[:16]}.json"
                    write_atomic(summary_dir / name, store.read(ref).decode())
                    summary_count += 1
            if source.exists():
                sources.append(source)
        asv_dir.mkdir(parents=True, exist_ok=True)
        written = results.merge(sources, asv_dir) if sources else 0
    if newest_benchmarks is not None:
        write_atomic(asv_dir / "benchmarks.json", newest_benchmarks.decode())
    _expand_commits(asv_dir, repo)
    return Exported(
        asv_dir, gate_dir, written, gate_count, confirmation_dir, confirmation_count,
        summary_dir, summary_count,
    )  # fmt: skip


def _expand_commits(asv_dir: pathlib.Path, repo: pathlib.Path | None) -> None:
    """Rewrite exported result files whose ``commit_hash`` is abbreviated with the full hash."""
    from iconbench.commits import full_hash, is_full

    if repo is None:
        from iconbench.buildcache import REPO_ROOT

        repo = REPO_ROOT
    for path in results.result_files(asv_dir):
        try:
            data = json.loads(path.read_bytes())
        except (OSError, ValueError):
            continue  # the site's reader reports it in one line
        recorded = data.get("commit_hash") if isinstance(data, dict) else None
        if not isinstance(recorded, str) or is_full(recorded):
            continue
        full = full_hash(repo, recorded)
        if full != recorded:
            write_atomic(path, json.dumps({**data, "commit_hash": full}))

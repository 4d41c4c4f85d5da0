"""What a published site already holds: its index and its stored copy of every run.

The site keeps its own history under ``DIR/data/``: one JSON per run (``runs/<id>.json``),
a copy of every gate summary (``gates/``) and change point confirmation (``confirmations/``)
and ``index.json``, which records for every input
file the size and modification time it had when it was read and the runs it gave. Publishing
again reads only files that are new or changed, so the history grows without rebuilding;
runs whose source file has since been removed stay on the site (history is append-only).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import pathlib
from typing import Any

from iconbench.errors import IconbenchError
from iconbench.files.atomic import write_atomic
from iconbench.history.runs import Run, run_from_dict

SCHEMA = "iconbench-site-index"
VERSION = 1


def stamp(path: pathlib.Path) -> list[int]:
    """``[size, mtime_ns]``: what says a file changed without reading it."""
    info = path.stat()
    return [info.st_size, info.st_mtime_ns]


@dataclasses.dataclass
class Index:
    """The index of a published site (mutable while publishing, written once at the end)."""

    root: pathlib.Path
    design: str = ""
    comparison: str = ""
    sources: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    runs: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    gates: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    confirmations: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    asv: dict[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def path(self) -> pathlib.Path:
        """``DIR/data/index.json``."""
        return self.root / "data" / "index.json"

    def run_path(self, run_id: str) -> pathlib.Path:
        """Where the site keeps its copy of a run."""
        return self.root / "data" / "runs" / f"{run_id}.json"

    def store_run(self, run: Run, estimates: dict[str, dict[str, float]]) -> None:
        """Keep ``run`` (replacing an earlier copy of the same file's run) and index it."""
        write_atomic(self.run_path(run.id), json.dumps(run.as_dict(), separators=(",", ":")))
        self.runs[run.id] = {
            "device": run.target.device,
            "grid": run.target.grid,
            "commit": run.commit,
            "date_ms": run.date_ms,
            "programs": list(run.programs),
            "estimates": estimates,
        }

    def load_runs(self) -> list[Run]:
        """Every run the site holds."""
        loaded = []
        for run_id in sorted(self.runs):
            data = json.loads(self.run_path(run_id).read_text(encoding="utf-8"))
            loaded.append(run_from_dict(data))
        return loaded

    def save(self) -> None:
        """Write the index (atomically, last: an interrupted publish re-reads its inputs)."""
        data = {
            "schema": SCHEMA,
            "version": VERSION,
            "design": self.design,
            "comparison": self.comparison,
            "sources": self.sources,
            "runs": self.runs,
            "gates": self.gates,
            "confirmations": self.confirmations,
            "asv": self.asv,
        }
        write_atomic(self.path, json.dumps(data, indent=1, sort_keys=True))


def open_site(root: pathlib.Path) -> Index:
    """The index of the site at ``root``: empty for a new or empty directory.

    A non-empty directory without an index is refused, so that ``--out`` never writes into
    something that is not an iconbench site.
    """
    index = Index(root)
    if not index.path.exists():
        if root.exists() and (not root.is_dir() or any(root.iterdir())):
            raise IconbenchError(
                f"--out {root}: exists and is not an iconbench site (no data/index.json); "
                "choose an empty or new directory"
            )
        return index
    try:
        data = json.loads(index.path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise IconbenchError(
            f"{index.path}: unreadable site index ({error}); remove it to rebuild the site"
        ) from None
    if data.get("schema") != SCHEMA or data.get("version") != VERSION:
        raise IconbenchError(
            f"{index.path}: not a version {VERSION} {SCHEMA}; publish into a new directory"
        )
    index.design = data.get("design", "")
    index.comparison = data.get("comparison", "")
    index.sources = data.get("sources", {})
    index.runs = data.get("runs", {})
    index.gates = data.get("gates", {})
    index.confirmations = data.get("confirmations", {})
    index.asv = data.get("asv", {})
    _forget_local_paths(index)
    return index


def _forget_local_paths(index: Index) -> None:
    """Convert a site published by an older iconbench, which named inputs by absolute path.

    Its input files are read again (their runs are rewritten with relative names), gate
    summaries and asv sub-sites are keyed by digest, and a stored run whose input is gone
    keeps only its file name. The next :meth:`Index.save` publishes no local path.
    """
    if all(key.startswith("path-") for key in [*index.sources, *index.gates]):
        return
    index.sources = {k: v for k, v in index.sources.items() if k.startswith("path-")}
    index.gates = {
        (k if k.startswith("path-") else source_key(pathlib.Path(k))): {
            "name": pathlib.PurePath(k).name,
            **v,
        }
        for k, v in index.gates.items()
    }
    index.asv = {
        name: (key if key.startswith("path-") else source_key(pathlib.Path(key)))
        for name, key in index.asv.items()
    }
    for run_id in index.runs:
        path = index.run_path(run_id)
        data = json.loads(path.read_text(encoding="utf-8"))
        if os.path.isabs(data.get("source", "")):
            data["source"] = pathlib.PurePath(data["source"]).name
            write_atomic(path, json.dumps(data, separators=(",", ":")))


def source_key(path: pathlib.Path) -> str:
    """How the index names an input file: a digest of its absolute, resolved path.

    The index is published with the site, so it names no path of the publishing machine;
    the digest is as stable as the path was (the same file is the same key).

    >>> len(source_key(pathlib.Path("/tmp/x"))), source_key(pathlib.Path("/tmp/x"))[:5]
    (24, 'path-')
    """
    digest = hashlib.sha256(os.fsencode(path.resolve())).hexdigest()[:19]
    return f"path-{digest}"

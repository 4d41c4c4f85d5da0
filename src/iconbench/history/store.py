"""An append-only store of result sets that concurrent writers cannot corrupt.

Layout of a store (a plain directory, or the work tree of a git results branch)::

    HISTORY                      format marker ("iconbench-history 1")
    objects/ab/abcdef…           every file once, named by its sha256 (content-addressed)
    entries/2026/11/20261123T201500Z-<id16>.json   one manifest per result set

An entry's manifest names what was measured (component, repository, ref, commit, kind) and
its files (path inside the result set, role, sha256). Nothing is ever rewritten: a blob's
name is its content, a manifest's name is its time and id, so two writers (processes on one
machine, or two clones of the results branch) only ever *add distinct files*: a git merge of
two appends has no conflict and loses nothing. On one machine writers also take an exclusive
``fcntl.flock`` on ``.lock`` so that an append and a :func:`~iconbench.history.retention.prune`
never interleave. Every file is written to a temporary name in its directory and moved into
place with ``os.replace``, so a killed writer leaves no torn file, only a ``*.tmp`` leftover.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import hashlib
import json
import os
import pathlib
import re
from collections.abc import Mapping, Sequence
from typing import Any

from iconbench.errors import IconbenchError
from iconbench.files.atomic import write_atomic
from iconbench.files.lock import exclusive

MARKER = "iconbench-history 1\n"
SCHEMA = "iconbench-history-entry"
#: main: a run of a repository's main branch (kept forever); pr: a pull request's check
#: (pruned after the retention period); manual: a run started by hand (kept like mains).
KINDS = ("main", "pr", "manual")
#: What a file of a result set is, for the readers: asv result files (paths relative to an
#: asv results_dir), a runner's summary.json, a gate summary, a ledger, a change point's
#: confirmation (:mod:`iconbench.history.confirmation`), anything else.
ROLES = ("asv", "summary", "gate", "ledger", "confirmation", "other")
_SAFE_PATH = re.compile(r"^[A-Za-z0-9._+=@-]+(/[A-Za-z0-9._+=@-]+)*$")


@dataclasses.dataclass(frozen=True)
class FileRef:
    """One file of a result set: where it goes, what it is, its content's sha256."""

    path: str
    role: str
    sha256: str
    size: int


@dataclasses.dataclass(frozen=True)
class Entry:
    """One result set in the history (its manifest)."""

    id: str
    created: str
    kind: str
    component: str
    repository: str
    ref: str
    commit: str
    machine: str
    label: str
    pr: int | None
    files: tuple[FileRef, ...]

    @property
    def created_at(self) -> datetime.datetime:
        """``created`` as an aware datetime."""
        return datetime.datetime.fromisoformat(self.created)

    def as_dict(self) -> dict[str, Any]:
        """The manifest as stored (JSON-ready)."""
        data = dataclasses.asdict(self)
        data["files"] = [dataclasses.asdict(f) for f in self.files]
        return {"schema": SCHEMA, "version": 1, **data}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Entry:
        fields = {f.name for f in dataclasses.fields(cls)} - {"files"}
        return cls(
            **{k: data[k] for k in fields},
            files=tuple(FileRef(**f) for f in data["files"]),
        )


def _entry_id(manifest: Mapping[str, Any]) -> str:
    """sha256 of the canonical manifest without its id (the same content, the same id).

    >>> _entry_id({"a": 1, "b": [2]}) == _entry_id({"b": [2], "a": 1})
    True
    """
    canonical = json.dumps(manifest, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def result_set_files(
    *,
    asv: Sequence[str | os.PathLike[str]] = (),
    summary: Sequence[str | os.PathLike[str]] = (),
    gate: Sequence[str | os.PathLike[str]] = (),
    confirmation: Sequence[str | os.PathLike[str]] = (),
    other: Sequence[str | os.PathLike[str]] = (),
) -> dict[str, tuple[str, pathlib.Path]]:
    """The files of one result set as :meth:`HistoryStore.append` takes them.

    Every ``*.json`` of each asv results directory under its path in that directory (role
    ``asv``); the others under ``ROLE/NAME`` (``ROLE/N-NAME`` where a role has several).
    """
    files: dict[str, tuple[str, pathlib.Path]] = {}
    for directory in asv:
        root = pathlib.Path(directory)
        if not (root / "benchmarks.json").exists():
            raise IconbenchError(
                f"--asv {root}: not an asv results directory (no benchmarks.json); give the "
                "directory that holds benchmarks.json and <machine>/*.json"
            )
        for path in sorted(root.rglob("*.json")):
            files[path.relative_to(root).as_posix()] = ("asv", path)
    for role, given in (("summary", summary), ("gate", gate), ("confirmation", confirmation),
                        ("other", other)):  # fmt: skip
        for number, path in enumerate(given):
            name = pathlib.Path(path).name
            key = f"{role}/{number}-{name}" if len(given) > 1 else f"{role}/{name}"
            files[key] = (role, pathlib.Path(path))
    return files


class HistoryStore:
    """The history at ``root`` (created by :meth:`create`, or found by :meth:`open`)."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = pathlib.Path(root)

    @classmethod
    def create(cls, root: str | os.PathLike[str]) -> HistoryStore:
        """A store at ``root``: an existing one, or a new one in an empty/missing directory."""
        path = pathlib.Path(root)
        store = cls(path)
        with store.locked():  # two writers creating the same store at once: one creates it
            if (path / "HISTORY").exists():
                return cls.open(path)
            if any(p.name not in {".git", ".gitignore", ".lock"} for p in path.iterdir()):
                raise IconbenchError(
                    f"--store {path}: not empty and not a history store (no HISTORY file); "
                    "give an empty directory or an existing store"
                )
            # what a results branch should not carry (the lock and temporaries)
            if not (path / ".gitignore").exists():
                write_atomic(path / ".gitignore", b".lock\n*.tmp\n", fsync=True)
            write_atomic(path / "HISTORY", MARKER.encode(), fsync=True)
        return cls(path)

    @classmethod
    def open(cls, root: str | os.PathLike[str]) -> HistoryStore:
        """An existing store; one clear error if ``root`` is none."""
        path = pathlib.Path(root)
        marker = path / "HISTORY"
        if not marker.exists():
            raise IconbenchError(
                f"--store {path}: not a history store (no HISTORY file); create one with "
                f"'iconbench history append --store {path} …' or check the path"
            )
        if marker.read_text(encoding="utf-8") != MARKER:
            raise IconbenchError(
                f"--store {path}: HISTORY says {marker.read_text().strip()!r}, this iconbench "
                f"reads {MARKER.strip()!r}; upgrade iconbench"
            )
        return cls(path)

    def locked(self) -> contextlib.AbstractContextManager[None]:
        """Exclusive lock of this store against other writers on this machine."""
        return exclusive(self.root / ".lock")

    def blob(self, sha256: str) -> pathlib.Path:
        """Where the file with content hash ``sha256`` lives."""
        return self.root / "objects" / sha256[:2] / sha256

    def _put(self, data: bytes) -> str:
        digest = hashlib.sha256(data).hexdigest()
        target = self.blob(digest)
        if not target.exists():  # the same content is the same file: nothing to add
            write_atomic(target, data, fsync=True)
        return digest

    def append(
        self,
        files: Mapping[str, tuple[str, str | os.PathLike[str]]],
        *,
        kind: str,
        component: str,
        commit: str,
        repository: str = "",
        ref: str = "",
        machine: str = "",
        label: str = "",
        pr: int | None = None,
        created: datetime.datetime | None = None,
    ) -> Entry:
        """Add one result set: ``files[path] = (role, source file)``; returns its entry.

        Blobs first, the manifest last: a reader never sees a manifest whose files are missing.
        """
        if kind not in KINDS:
            raise IconbenchError(f"unknown kind {kind!r}; choose one of: {', '.join(KINDS)}")
        if kind == "pr" and pr is None:
            raise IconbenchError("a result set of kind 'pr' needs its pull request number (--pr)")
        if not files:
            raise IconbenchError("nothing to append: give at least one result file")
        for path, (role, source) in files.items():
            if role not in ROLES:
                raise IconbenchError(f"{path}: unknown role {role!r}; one of {', '.join(ROLES)}")
            if not _SAFE_PATH.match(path) or ".." in path.split("/"):
                raise IconbenchError(f"{path!r}: not a relative path inside a result set")
            if not pathlib.Path(source).is_file():
                raise IconbenchError(f"{source}: no such file to append")
        when = (created or datetime.datetime.now(datetime.UTC)).astimezone(datetime.UTC)
        with self.locked():
            refs = []
            for path, (role, source) in sorted(files.items()):
                data = pathlib.Path(source).read_bytes()
                refs.append(FileRef(path, role, self._put(data), len(data)))
            manifest = Entry(
                id="",
                created=when.isoformat(timespec="microseconds"),
                kind=kind,
                component=component,
                repository=repository,
                ref=ref,
                commit=commit,
                machine=machine,
                label=label,
                pr=pr,
                files=tuple(refs),
            ).as_dict()
            del manifest["id"]
            entry = Entry.from_dict({**manifest, "id": _entry_id(manifest)})
            target = self._manifest_path(entry)
            if not target.exists():
                write_atomic(target, json.dumps(entry.as_dict(), indent=1).encode(), fsync=True)
        return entry

    def _manifest_path(self, entry: Entry) -> pathlib.Path:
        when = entry.created_at
        stamp = when.strftime("%Y%m%dT%H%M%S%fZ")
        return self.root / "entries" / f"{when:%Y}" / f"{when:%m}" / f"{stamp}-{entry.id[:16]}.json"

    def entries(self) -> list[Entry]:
        """Every entry, oldest first."""
        found = []
        for path in sorted((self.root / "entries").glob("*/*/*.json")):
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                if data.get("schema") != SCHEMA or data.get("version") != 1:
                    raise ValueError(f"schema {data.get('schema')!r} v{data.get('version')}")
                found.append(Entry.from_dict(data))
            except (ValueError, KeyError, TypeError) as error:
                raise IconbenchError(
                    f"{path}: not a readable history entry ({error}); restore it from the "
                    "results branch (git checkout -- PATH) or remove it"
                ) from None
        return sorted(found, key=lambda e: (e.created, e.id))

    def appended(self, label: str, role: str) -> set[tuple[str, str]]:
        """``(commit, sha256)`` of every file of ``role`` in the entries labelled ``label``.

        What a resumable writer (a backfill, a confirmation) has appended already.
        """
        return {
            (entry.commit, ref.sha256)
            for entry in self.entries()
            if entry.label == label
            for ref in entry.files
            if ref.role == role
        }

    def find(self, prefix: str) -> Entry:
        """The one entry whose id starts with ``prefix``."""
        matches = [e for e in self.entries() if e.id.startswith(prefix)]
        if len(matches) != 1:
            what = "no entry" if not matches else f"{len(matches)} entries"
            raise IconbenchError(
                f"{what} of {self.root} with id {prefix!r}; see 'iconbench history list'"
            )
        return matches[0]

    def read(self, ref: FileRef) -> bytes:
        """The content of one file of an entry, checked against its hash."""
        data = self.blob(ref.sha256).read_bytes()
        if hashlib.sha256(data).hexdigest() != ref.sha256:
            raise IconbenchError(f"{self.blob(ref.sha256)}: content does not match its name")
        return data

    def check(self) -> list[str]:
        """Problems found: blobs missing or not matching their hash (empty: the store is whole)."""
        problems = []
        for entry in self.entries():
            for ref in entry.files:
                blob = self.blob(ref.sha256)
                if not blob.exists():
                    problems.append(f"{entry.id[:16]} {ref.path}: blob {ref.sha256} missing")
                elif hashlib.sha256(blob.read_bytes()).hexdigest() != ref.sha256:
                    problems.append(f"{entry.id[:16]} {ref.path}: blob {ref.sha256} corrupt")
        return problems

    def _manifests(self) -> dict[str, pathlib.Path]:
        return {e.id: self._manifest_path(e) for e in self.entries()}  # entry id -> manifest file

"""Measured runs beside the product: a run's raw files live in git history, not in the tree.

A result set committed under ``results/`` keeps in the tree only what a reader opens first and
the docs' tables are checked against (``README.md``, ``notes.md``, ``check.json``,
``check.md``). Its raw files (asv result files, summaries, gate summaries, ``work/`` ledgers,
process logs, packs) were committed once and then removed from the tree, so that a clone, a
runner's upload and a review do not carry tens of MB of them. ``results/archive.json`` (this
module's manifest) names each removed file with its size, its sha256 and the commit that
holds it; ``iconbench results fetch [PATH...]`` reads the blobs back with ``git cat-file`` and
restores them, byte for byte (the sha256 is checked), as asv keeps results beside the code
and rustc-perf keeps them in its database rather than in the collector's tree.

The commit is the last one that changed the file while it was tracked: a commit of main, so a
full clone (and a partial clone, ``--filter=blob:none``, which fetches the blobs as they are
read) has it; a shallow clone is told to deepen. Nothing is ever overwritten: a file already
there is left as it is when it is the archived one and refused when it differs.
"""

from __future__ import annotations

import base64
import dataclasses
import glob
import hashlib
import json
import pathlib
import shutil
import subprocess
from collections.abc import Iterable, Iterator, Sequence

from iconbench.errors import IconbenchError
from iconbench.files.atomic import write_atomic
from iconbench.files.digest import sha256_of, unpadded_b64

#: Where the manifest lives, relative to the checkout.
MANIFEST = "results/archive.json"
SCHEMA = "iconbench-results-archive"
#: The line above the fetched files in a clone's ``info/exclude``.
EXCLUDE_MARK = "# fetched by 'iconbench results fetch' (results/archive.json)"
#: 3: the files of a commit grouped by folder, each ``name: [size, sha256]`` with the sha256
#: in unpadded URL-safe base64 (43 characters, as a wheel's ``RECORD`` writes it); 2 (read
#: too): the same with the sha256 in hex (64 characters: 0.81 MB for 6 902 files, 0.67 MB as
#: 3); 1 (read too): ``path: {"size": ..., "sha256": ...}``, which repeated every folder and
#: key (1.1 MB for 5 814 files, 0.69 MB as 2).
VERSION = 3
#: The versions :meth:`Archive.read` reads.
READ_VERSIONS = (1, 2, VERSION)


@dataclasses.dataclass(frozen=True)
class ArchivedFile:
    """One file removed from the tree: where it was, what it was, which commit holds it."""

    path: str  # relative to the checkout, with '/'
    size: int
    sha256: str
    commit: str

    @property
    def object_name(self) -> str:
        """Its blob as ``git cat-file`` names it.

        >>> ArchivedFile("results/a.json", 2, "0" * 64, "abc123").object_name
        'abc123:results/a.json'
        """
        return f"{self.commit}:{self.path}"


@dataclasses.dataclass(frozen=True)
class Archive:
    """The manifest of a checkout (``results/archive.json``), read once."""

    root: pathlib.Path
    files: tuple[ArchivedFile, ...]

    @classmethod
    def read(cls, root: pathlib.Path) -> Archive:
        """The archive of the checkout at ``root`` (empty when it has no manifest yet)."""
        path = root / MANIFEST
        if not path.exists():
            return cls(root, ())
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("schema") != SCHEMA or data.get("version") not in READ_VERSIONS:
                raise ValueError(f"not {SCHEMA} version {', '.join(map(str, READ_VERSIONS))}")
            files = tuple(_entries(data["commits"], data["version"]))
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise IconbenchError(
                f"{path}: not a results archive manifest ({error}); restore it with "
                f"'git checkout -- {MANIFEST}'"
            ) from None
        return cls(root, tuple(sorted(files, key=lambda f: f.path)))

    def select(self, paths: Sequence[str]) -> list[ArchivedFile]:
        """The archived files at or under each of ``paths`` (all of them for none).

        >>> a = Archive(pathlib.Path("/r"), (ArchivedFile("results/x/a", 1, "", "c"),
        ...                                  ArchivedFile("results/xy/b", 1, "", "c")))
        >>> [f.path for f in a.select(["results/x"])]
        ['results/x/a']
        >>> a.select(["results/z"])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        iconbench.errors.IconbenchError: results/z: no archived file is or lies under it; ...
        """
        if not paths:
            return list(self.files)
        chosen: dict[str, ArchivedFile] = {}
        for given in paths:
            prefix = self.relative(given)
            found = [f for f in self.files if _under(f.path, prefix)]
            if not found:
                raise IconbenchError(
                    f"{given}: no archived file is or lies under it; "
                    "'iconbench results list' names them"
                )
            chosen.update((f.path, f) for f in found)
        return sorted(chosen.values(), key=lambda f: f.path)

    def relative(self, given: str) -> str:
        """``given`` (relative to the current directory, or absolute) as a checkout path."""
        path = pathlib.Path(given)
        absolute = path if path.is_absolute() else pathlib.Path.cwd() / path
        try:
            inside = absolute.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            inside = path.as_posix().strip("/")  # already relative to the checkout
        return "" if inside == "." else inside

    def write(self, files: Iterable[ArchivedFile]) -> pathlib.Path:
        """Write the manifest atomically: by commit, then folder, one line per file.

        >>> import tempfile
        >>> root = pathlib.Path(tempfile.mkdtemp())
        >>> files = (ArchivedFile("results/x/a.json", 2, "ab", "c1"),
        ...          ArchivedFile("results/x/b.log", 0, "cd", "c1"))
        >>> print((Archive(root, ()).write(files)).read_text())  # doctest: +ELLIPSIS
        {
         "schema": "iconbench-results-archive",
         "version": 3,
         ...
         "commits": {
          "c1": {
           "results/x": {
            "a.json": [2, "qw"],
            "b.log": [0, "zQ"]
           }
          }
         }
        }
        <BLANKLINE>
        >>> Archive.read(root).files == files
        True
        """
        tree: dict[str, dict[str, list[ArchivedFile]]] = {}
        for f in sorted(files, key=lambda f: (f.commit, f.path)):
            folder = f.path.rpartition("/")[0]
            tree.setdefault(f.commit, {}).setdefault(folder, []).append(f)
        groups = []
        for commit, folders in sorted(tree.items()):
            inner = []
            for folder, members in sorted(folders.items()):
                lines = ",\n".join(
                    f"    {json.dumps(f.path.rpartition('/')[2])}: "
                    f"[{f.size}, {json.dumps(_base64(f.sha256))}]"
                    for f in members
                )
                inner.append(f"   {json.dumps(folder)}: {{\n{lines}\n   }}")
            groups.append(f"  {json.dumps(commit)}: {{\n" + ",\n".join(inner) + "\n  }")
        text = (
            "{\n"
            f' "schema": "{SCHEMA}",\n "version": {VERSION},\n'
            ' "fetch": "iconbench results fetch [PATH...] (docs/results-archive.md)",\n'
            ' "commits": {\n' + ",\n".join(groups) + "\n }\n}\n"
        )
        return write_atomic(self.root / MANIFEST, text)


def _base64(sha256: str) -> str:
    """A hex digest as the manifest writes it: unpadded URL-safe base64.

    >>> _base64("ab"), _hex(_base64("ab"))
    ('qw', 'ab')
    >>> len(_base64("0" * 64))
    43
    """
    return unpadded_b64(bytes.fromhex(sha256))


def _hex(written: str) -> str:
    """A digest :func:`_base64` wrote, as hex again (the form files are checked against).

    A character outside URL-safe base64 is an error, not skipped (a damaged manifest):

    >>> _hex("qw!")
    Traceback (most recent call last):
    ...
    binascii.Error: Only base64 data is allowed
    """
    padded = written + "=" * (-len(written) % 4)
    return base64.b64decode(padded.encode(), altchars=b"-_", validate=True).hex()


def _entries(commits: dict, version: int) -> Iterator[ArchivedFile]:
    """The files a manifest's ``commits`` name, in each version's layout."""
    for commit, named in commits.items():
        if version == 1:
            for path, entry in named.items():
                yield ArchivedFile(path, int(entry["size"]), str(entry["sha256"]), commit)
            continue
        for folder, files in named.items():
            for name, (size, sha256) in files.items():
                path = f"{folder}/{name}" if folder else name
                digest = str(sha256) if version == 2 else _hex(str(sha256))
                yield ArchivedFile(path, int(size), digest, commit)


@dataclasses.dataclass(frozen=True)
class Fetched:
    """What ``fetch`` did: files written, files already there, tree files copied beside."""

    out: pathlib.Path
    written: tuple[ArchivedFile, ...]
    present: tuple[ArchivedFile, ...]
    copied: tuple[str, ...]

    @property
    def bytes_written(self) -> int:
        return sum(f.size for f in self.written)


def fetch(
    archive: Archive,
    paths: Sequence[str] = (),
    *,
    out: pathlib.Path | None = None,
    dry_run: bool = False,
) -> Fetched:
    """Restore the archived files at or under ``paths`` into the checkout (or under ``out``).

    Under ``out`` the tree's own files of those paths are copied beside them, so that
    ``out/results/h100`` is the whole result set. Every existing file is checked before
    anything is written: one that differs from what would go there stops the fetch. Files
    restored into the checkout are named in its ``info/exclude`` (this clone's own ignore
    list), so that ``git status`` stays clean and nobody commits them back by accident.
    """
    wanted = archive.select(paths)
    target = archive.root if out is None else out
    present = [f for f in wanted if _same(target / f.path, f.sha256)]
    missing = [f for f in wanted if f not in present]
    copies = [] if out is None else _tree_files(archive, paths, exclude={f.path for f in wanted})
    for f in missing:
        if (target / f.path).exists():
            raise IconbenchError(
                f"{target / f.path}: differs from the archived file (sha256 {f.sha256[:12]}…); "
                "move it away to fetch the archived one"
            )
    for name in copies:
        if (target / name).exists() and not _same(target / name, sha256_of(archive.root / name)):
            raise IconbenchError(f"{target / name}: differs from {name} of the tree; move it away")
    if not dry_run:
        if out is None:
            _exclude(archive.root, [f.path for f in wanted])
        for f, blob in _blobs(archive.root, missing):
            write_atomic(target / f.path, blob)
        for name in copies:
            if not (target / name).exists():
                (target / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(archive.root / name, target / name)
    return Fetched(target, tuple(missing), tuple(present), tuple(copies))


def cached(root: pathlib.Path, path: str) -> pathlib.Path:
    """The archived ``path`` of the checkout at ``root``, whole, in the iconbench cache.

    For a command whose default input is archived: read from git history once. The cache
    folder is named by the sha256s of its files (archived and the tree's own beside them), so
    it never holds another version.
    """
    from iconbench.buildcache import cache_root

    archive = Archive.read(root)
    named = [(f.path, f.sha256) for f in archive.select([path])]
    beside = _tree_files(archive, [path], exclude={n for n, _ in named})
    named += [(n, sha256_of(root / n)) for n in beside]
    key = hashlib.sha256("".join(f"{n} {sha}\n" for n, sha in sorted(named)).encode()).hexdigest()
    out = cache_root() / "archived" / key[:16]
    fetch(archive, [path], out=out)
    return out / path


def check(archive: Archive) -> list[str]:
    """One line per archived file that its commit does not hold as recorded (none: all good)."""
    problems = []
    try:
        for f, blob in _blobs(archive.root, archive.files, stop=False):
            if blob is None:
                problems.append(f"{f.path}: {f.object_name[:12]}… is not in this clone")
    except IconbenchError as error:
        problems.append(str(error))
    return problems


def archive_files(
    archive: Archive, paths: Sequence[str], *, dry_run: bool = False
) -> list[ArchivedFile]:
    """Record the tracked files at or under ``paths`` in the manifest and remove them.

    Both the removal (``git rm``) and the manifest are staged for the next commit. Each file
    must be committed as it is in the tree; its commit is the last one that changed it, so the
    manifest names a commit of the branch it was measured on, not the one removing it.
    """
    if not paths:
        raise IconbenchError("results archive: name the files or directories to archive")
    names = [archive.relative(p) for p in paths]
    tracked = _git(archive.root, "ls-files", "-z", "--", *names).split("\0")
    tracked = [t for t in tracked if t and t != MANIFEST]
    if not tracked:
        raise IconbenchError(f"results archive: no tracked file under {' '.join(paths)}")
    changed = _git(archive.root, "status", "--porcelain", "-z", "--", *tracked)
    if changed:
        first = changed.split("\0")[0][3:]
        raise IconbenchError(
            f"{first}: differs from its last commit; commit it first (the archive restores "
            "files from git history)"
        )
    commits = _last_commits(archive.root, tracked)
    added = []
    for name in tracked:
        path = archive.root / name
        added.append(ArchivedFile(name, path.stat().st_size, sha256_of(path), commits[name]))
    for _ in _blobs(archive.root, added):  # each commit holds exactly this file, or one line
        pass
    if dry_run:
        return added
    kept = [f for f in archive.files if f.path not in {a.path for a in added}]
    archive.write([*kept, *added])
    _git(archive.root, "rm", "-q", "--", *tracked)
    _git(archive.root, "add", "--", MANIFEST)
    return added


def _under(path: str, prefix: str) -> bool:
    """``path`` is ``prefix`` or lies under it.

    >>> _under("results/h100/asv/a.json", "results/h100"), _under("results/h1000/x", "results/h100")
    (True, False)
    """
    return not prefix or path == prefix or path.startswith(prefix.rstrip("/") + "/")


def _same(path: pathlib.Path, sha256: str) -> bool:
    return path.is_file() and sha256_of(path) == sha256


def _tree_files(archive: Archive, paths: Sequence[str], exclude: set[str]) -> list[str]:
    """The tracked files of the tree at or under ``paths`` (a result set's kept records)."""
    names = [archive.relative(p) for p in paths] or ["results"]
    listed = _git(archive.root, "ls-files", "-z", "--", *names).split("\0")
    kept = [n for n in listed if n and n not in exclude and n != MANIFEST]
    return [n for n in kept if (archive.root / n).is_file()]


def _exclude(root: pathlib.Path, names: Sequence[str]) -> None:
    """Add ``names`` to the clone's ``info/exclude`` (untracked, never committed)."""
    path = pathlib.Path(_git(root, "rev-parse", "--path-format=absolute", "--git-path",
                             "info/exclude").strip())  # fmt: skip
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    listed = set(text.splitlines())
    new = [f"/{glob.escape(name)}" for name in names if f"/{glob.escape(name)}" not in listed]
    if not new:
        return
    if EXCLUDE_MARK not in listed:
        new.insert(0, EXCLUDE_MARK)
    write_atomic(
        path, text + ("" if text.endswith("\n") or not text else "\n") + "\n".join(new) + "\n"
    )


def _git(root: pathlib.Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise IconbenchError(f"git {args[0]} in {root}: {done.stderr.strip() or done.returncode}")
    return done.stdout


def _last_commits(root: pathlib.Path, names: Sequence[str]) -> dict[str, str]:
    """The last commit that changed each of ``names`` (one ``git log`` for all)."""
    log = _git(root, "log", "--format=%x00%H", "--name-only", "--no-renames", "--", *names)
    found: dict[str, str] = {}
    for block in log.split("\0")[1:]:
        commit, *changed = block.split("\n")
        for name in changed:
            if name:
                found.setdefault(name, commit)
    return found


def _blobs(
    root: pathlib.Path, files: Sequence[ArchivedFile], *, stop: bool = True
) -> Iterator[tuple[ArchivedFile, bytes | None]]:
    """Each file's blob, read from its commit by one ``git cat-file --batch`` and checked.

    Its size and sha256 must be the manifest's. A blob the clone lacks stops with one line
    (``stop``) or comes as ``None``.
    """
    if not files:
        return
    reader = subprocess.Popen(
        ["git", "-C", str(root), "cat-file", "--batch"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert reader.stdin is not None
    assert reader.stdout is not None
    try:
        for f in files:
            reader.stdin.write(f.object_name.encode() + b"\n")
            reader.stdin.flush()
            header = reader.stdout.readline().split()
            if len(header) != 3:  # '<name> missing' (or ambiguous)
                if stop:
                    raise IconbenchError(
                        f"{f.path}: commit {f.commit[:10]} is not in this clone (a shallow "
                        f"clone?); run 'git fetch --unshallow' (or 'git fetch origin "
                        f"{f.commit}') and fetch again"
                    )
                yield f, None
                continue
            blob = reader.stdout.read(int(header[2]))
            reader.stdout.read(1)  # the newline after the contents
            if len(blob) != f.size or hashlib.sha256(blob).hexdigest() != f.sha256:
                raise IconbenchError(
                    f"{f.path}: {f.object_name[:12]}… is not the archived file (size "
                    f"{len(blob)}, sha256 {hashlib.sha256(blob).hexdigest()[:12]}…; "
                    f"{MANIFEST} says {f.size}, {f.sha256[:12]}…)"
                )
            yield f, blob
    finally:
        reader.stdin.close()
        reader.stdout.close()
        reader.wait()

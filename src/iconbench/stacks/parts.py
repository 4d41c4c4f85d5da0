"""A packed wheelhouse in parts: one archive cut for runners that receive files by upload.

A runner that gets its files through an upload of limited size (a GPU host without network)
cannot take a CUDA 12 wheelhouse in one piece (cupy and NVRTC alone are 120 MB packed). The
archive is cut into ``parts-1/``, ``parts-2/`` ... each with one piece and a manifest naming
the whole archive's digest, so each upload is checked on arrival and kept on the runner
(:func:`stage`) until the last one assembles the archive (:func:`assemble`). Pieces of another
archive are never mixed in: a staged piece is kept under the digest of its archive.

Used by ``ci/gpu-wheelhouse --packed`` (``split``) and ``ci/gpu-env.sh`` (``assemble``),
with the standard library only: ``ci/gpu-env.sh`` runs it before the wheelhouse is installed.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import pathlib
import shutil
import sys

from iconbench.files.digest import sha256_of

MANIFEST = "MANIFEST.json"


@dataclasses.dataclass(frozen=True)
class Piece:
    """One part of an archive, as its manifest names it."""

    archive: str  #: the archive's file name (site.tar.xz)
    archive_sha256: str
    index: int  #: 1-based
    count: int
    sha256: str
    size: int

    @property
    def file_name(self) -> str:
        return f"{self.archive}.{self.index:02d}"


def split(archive: pathlib.Path, part_bytes: int) -> list[pathlib.Path]:
    """Cut ``archive`` into ``parts-N/`` beside it, each piece at most ``part_bytes``.

    >>> import tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "site.tar.xz").write_bytes(bytes(range(256)) * 10)
    >>> [p.name for p in split(d / "site.tar.xz", 1000)]
    ['parts-1', 'parts-2', 'parts-3']
    >>> sorted(f.name for f in (d / "parts-3").iterdir())
    ['MANIFEST.json', 'site.tar.xz.03']
    """
    total = archive.stat().st_size
    count = max(1, -(-total // part_bytes))
    archive_sha = sha256_of(archive)
    made = []
    with archive.open("rb") as f:
        for index in range(1, count + 1):
            folder = archive.parent / f"parts-{index}"
            if folder.exists():
                shutil.rmtree(folder)
            folder.mkdir()
            data = f.read(part_bytes)
            piece = Piece(
                archive.name, archive_sha, index, count, hashlib.sha256(data).hexdigest(), len(data)
            )
            (folder / piece.file_name).write_bytes(data)
            (folder / MANIFEST).write_text(json.dumps(dataclasses.asdict(piece), indent=1) + "\n")
            made.append(folder)
    return made


def _read_piece(folder: pathlib.Path) -> Piece:
    return Piece(**json.loads((folder / MANIFEST).read_text()))


@dataclasses.dataclass(frozen=True)
class Staged:
    """What the runner holds of one archive after :func:`stage`."""

    archive_sha256: str
    count: int
    have: tuple[int, ...]  #: the indexes staged

    @property
    def missing(self) -> tuple[int, ...]:
        return tuple(i for i in range(1, self.count + 1) if i not in self.have)


class PartError(ValueError):
    """A part whose piece does not match its manifest, or parts of two archives."""


def stage(wheelhouse: pathlib.Path, staging: pathlib.Path) -> Staged:
    """Copy the parts present under ``wheelhouse`` to ``staging/<archive digest>/``.

    Every piece is checked against its manifest first; the parts carried must all belong to
    one archive (the wheelhouse of one build).
    """
    pieces = [(folder, _read_piece(folder)) for folder in sorted(wheelhouse.glob("parts-*"))]
    if not pieces:
        raise PartError(f"no parts-N/{MANIFEST} under {wheelhouse}")
    digests = {piece.archive_sha256 for _, piece in pieces}
    if len(digests) > 1:
        raise PartError(
            f"{wheelhouse} holds parts of {len(digests)} wheelhouses; remove the old parts-N "
            "folders and carry the parts of one build"
        )
    first = pieces[0][1]
    target = staging / first.archive_sha256
    target.mkdir(parents=True, exist_ok=True)
    for folder, piece in pieces:
        source = folder / piece.file_name
        staged = target / piece.file_name
        if staged.exists() and staged.stat().st_size == piece.size:
            continue
        if not source.is_file() or sha256_of(source) != piece.sha256:
            raise PartError(f"{source} does not match its {MANIFEST}; carry that part again")
        shutil.copyfile(source, staged.with_suffix(".partial"))
        staged.with_suffix(".partial").replace(staged)
    have = tuple(
        i for i in range(1, first.count + 1) if (target / f"{first.archive}.{i:02d}").is_file()
    )
    return Staged(first.archive_sha256, first.count, have)


def assemble(wheelhouse: pathlib.Path, staging: pathlib.Path) -> pathlib.Path | None:
    """Stage the parts present; the whole archive once every part is staged, else ``None``."""
    staged = stage(wheelhouse, staging)
    if staged.missing:
        return None
    target = staging / staged.archive_sha256
    archive_name = _read_piece(next(iter(sorted(wheelhouse.glob("parts-*"))))).archive
    whole = target / archive_name
    if whole.is_file() and sha256_of(whole) == staged.archive_sha256:
        return whole
    partial = target / f"{archive_name}.partial"
    with partial.open("wb") as out:
        for index in range(1, staged.count + 1):
            with (target / f"{archive_name}.{index:02d}").open("rb") as piece:
                shutil.copyfileobj(piece, out)
    if sha256_of(partial) != staged.archive_sha256:
        partial.unlink()
        raise PartError(
            f"the parts staged in {target} do not make the archive their manifests name"
        )
    partial.replace(whole)
    return whole


def main(argv: list[str]) -> int:
    """``split ARCHIVE --bytes N`` or ``assemble WHEELHOUSE STAGING`` (prints the archive)."""
    if len(argv) == 4 and argv[0] == "split" and argv[2] == "--bytes":
        for folder in split(pathlib.Path(argv[1]), int(argv[3])):
            print(f"parts: {folder} {sum(f.stat().st_size for f in folder.iterdir()) / 1e6:.1f} MB")
        return 0
    if len(argv) == 3 and argv[0] == "assemble":
        try:
            whole = assemble(pathlib.Path(argv[1]), pathlib.Path(argv[2]))
        except PartError as error:
            print(f"parts: {error}", file=sys.stderr)
            return 2
        if whole is None:
            staged = stage(pathlib.Path(argv[1]), pathlib.Path(argv[2]))
            print(
                f"parts: {len(staged.have)} of {staged.count} parts of the wheelhouse staged in "
                f"{argv[2]}; carry parts-{','.join(map(str, staged.missing))} next",
                file=sys.stderr,
            )
            return 3
        print(whole)
        return 0
    print(
        "usage: python -m iconbench.stacks.parts split ARCHIVE --bytes N | "
        "assemble WHEELHOUSE STAGING",
        file=sys.stderr,
    )
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

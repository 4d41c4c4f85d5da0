"""The ``baselines/`` directory: list, load and save baselines, append-only.

Layout: ``baselines/<experiment>/<machine>_<gpu>_<date>.json`` (see
:attr:`iconbench.baselines.format.Baseline.name`); ``baselines/mapping/`` holds the
timer-to-program mapping, not baselines. A baseline is a historical measurement, so a stored
file is never overwritten: saving one whose name exists is an error. The writer fills a
temporary file in the same directory and then hard-links it into place: as atomic as
``os.replace`` (a crash never leaves half a file) but it fails instead of overwriting.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from iconbench.baselines import format as baseline_format
from iconbench.baselines.format import Baseline
from iconbench.errors import IconbenchError

#: Environment variable that points iconbench at another baselines directory.
ENV_VAR = "ICONBENCH_BASELINES"

#: Sub-directories of the store that hold no baselines.
NOT_BASELINES = frozenset({"mapping"})


def default_root() -> Path:
    """``$ICONBENCH_BASELINES``, else the repository's ``baselines/``, else ``./baselines``."""
    if env := os.environ.get(ENV_VAR):
        return Path(env)
    repo = Path(__file__).resolve().parents[3] / "baselines"
    return repo if repo.is_dir() else Path.cwd() / "baselines"


def names(root: Path) -> list[str]:
    """Every stored baseline name (``experiment/machine_gpu_date``), sorted."""
    if not root.is_dir():
        return []
    return sorted(
        p.relative_to(root).with_suffix("").as_posix()
        for p in root.glob("*/*.json")
        if p.parent.name not in NOT_BASELINES
    )


def path_of(root: Path, name: str) -> Path:
    """The file of baseline ``name`` (a store name, or a path to a JSON file)."""
    candidate = Path(name)
    if candidate.suffix == ".json" and candidate.is_file():
        return candidate
    return root / f"{name}.json"


def load(root: Path, name: str) -> Baseline:
    """Load baseline ``name``; an unknown name lists the stored ones."""
    path = path_of(root, name)
    if not path.is_file():
        known = ", ".join(names(root)) or "none"
        raise IconbenchError(
            f"baseline '{name}' not found in {root} (stored: {known}); "
            "import one with 'iconbench baseline import'"
        )
    return baseline_format.load(path)


def listing(root: Path) -> tuple[list[Baseline], list[IconbenchError]]:
    """Every stored baseline that reads, and one error per file that does not.

    One broken file must not hide the others: ``baseline list`` prints the good ones and
    names each bad one.
    """
    good, bad = [], []
    for name in names(root):
        try:
            good.append(load(root, name))
        except IconbenchError as error:
            bad.append(error)
    return good, bad


def stored_sha256(root: Path) -> dict[str, str]:
    """``{source sha256: baseline name}`` of the stored baselines.

    Broken files are skipped here; ``baseline list`` names them.
    """
    found = {}
    for baseline in listing(root)[0]:
        found.setdefault(baseline.source.sha256, baseline.name)
    return found


#: Mode of stored baselines: everyone may read the history, only its owner change it.
FILE_MODE = 0o644


def save(root: Path, baseline: Baseline) -> Path:
    """Write ``baseline`` under its name; refuse to overwrite (baselines are append-only).

    The same source file (same sha256) is stored once: importing it again under another
    ``--date`` or ``--machine`` would count one run twice, so it is refused and nothing is
    written.
    """
    path = root / f"{baseline.name}.json"
    if path.exists():
        raise IconbenchError(
            f"{path} exists and baselines are never overwritten; "
            "use another --date or --machine, or remove the file by hand if it is wrong"
        )
    same = stored_sha256(root).get(baseline.source.sha256)
    if same is not None:
        raise IconbenchError(
            f"{baseline.source.file} (sha256 {baseline.source.sha256[:12]}) is already stored "
            f"as {same!r}; nothing imported ('iconbench baseline show {same}')"
        )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as error:
        raise IconbenchError(
            f"baseline store {root}: cannot write {path.parent} ({error.strerror or error}); "
            "pass a writable --store DIR"
        ) from None
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(baseline.to_json())
        os.chmod(tmp, FILE_MODE)
        # os.link fails if the target appeared meanwhile: no race can overwrite a baseline.
        os.link(tmp, path)
    except FileExistsError:
        raise IconbenchError(f"{path} was created concurrently; it is kept as is") from None
    finally:
        os.unlink(tmp)
    return path

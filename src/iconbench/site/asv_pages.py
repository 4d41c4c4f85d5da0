"""asv's own published pages (``asv publish``), built next to iconbench's and linked from them.

asv publishes one results directory per configuration, so each result set gets its own
sub-site ``DIR/asv/<name>/``, written by asv's command line with a temporary
``asv.conf.json`` (the way ``tests/timing/test_asv_run.py`` and docs/timing.md run it).
asv reads the repository to order commits; results of commits it cannot find make it fail,
which is reported in one line and leaves iconbench's pages untouched. The pages asv writes
load their libraries from CDNs; ``asv_offline`` points them at the copies iconbench ships
before they replace the previous ones. asv lists (and its grid requests a summary graph of)
every benchmark in ``benchmarks.json``, measured or not, so a result set that ran a part of
the suite (three programs on a CPU) is handed to asv with only its measured benchmarks.
A result file that records an abbreviated commit (which asv would silently leave out) is
handed over as a copy with the full hash (:mod:`iconbench.commits`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import pathlib
import subprocess
import sys
import tempfile

from iconbench import commits
from iconbench.history.runs import ResultSet, slug
from iconbench.records import asv as results
from iconbench.site import asv_offline


@dataclasses.dataclass(frozen=True)
class Published:
    """What ``asv publish`` of one result set gave: the failure, or the pages' remote loads."""

    error: str | None
    remote: tuple[str, ...] = ()


#: Tracked benchmarks whose value is an identity, not a number to plot.
NOT_A_QUANTITY = ("track_codegen_fingerprint",)


def name_of(result_set: ResultSet) -> str:
    """The sub-directory of a result set's asv pages, e.g. ``results-h100``."""
    return slug("-".join(result_set.root.resolve().parts[-2:]))


def publish(result_set: ResultSet, out: pathlib.Path, repo: pathlib.Path) -> Published:
    """Run ``asv publish`` for ``result_set`` into ``out/asv/<name>``, made offline."""
    html = out / "asv" / name_of(result_set)
    with tempfile.TemporaryDirectory(prefix="iconbench-asv-") as work:
        config = pathlib.Path(work) / "asv.conf.json"
        config.write_text(
            json.dumps(
                {
                    "version": 1,
                    "project": "iconbench",
                    "repo": str(repo.resolve()),  # asv reads paths from its config's folder
                    "branches": ["HEAD"],
                    "environment_type": "existing",
                    "results_dir": str(_measured_only(result_set, pathlib.Path(work), repo)),
                    "html_dir": str(pathlib.Path(work) / "html"),
                }
            )
        )
        asv = pathlib.Path(sys.executable).parent / "asv"
        command = [str(asv)] if asv.exists() else [sys.executable, "-m", "asv"]
        done = subprocess.run(
            [*command, "publish", "--config", str(config)],
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "PYTHONWARNINGS": "ignore"},
        )
        if done.returncode != 0:
            lines = [line for line in (done.stderr + done.stdout).splitlines() if line.strip()]
            return Published(
                f"asv publish of {result_set.asv_dir} failed: {lines[-1] if lines else '?'}"
            )
        built = pathlib.Path(work) / "html"
        remote = tuple(asv_offline.make_offline(built))
        staged = html.with_name(html.name + ".new")
        if staged.exists():
            _remove(staged)
        staged.parent.mkdir(parents=True, exist_ok=True)
        os.replace(built, staged) if _same_device(built, staged) else _copy(built, staged)
        if html.exists():
            old = html.with_name(html.name + ".old")
            os.replace(html, old)
            os.replace(staged, html)
            _remove(old)
        else:
            os.replace(staged, html)
    return Published(None, remote)


def _measured_only(result_set: ResultSet, work: pathlib.Path, repo: pathlib.Path) -> pathlib.Path:
    """A results dir of links to ``result_set``'s files, ``benchmarks.json`` cut to measured.

    A file asv cannot read is linked as it is: asv skips it with a warning, as it would. A
    file with an abbreviated ``commit_hash`` is copied with the full hash ``repo`` gives.
    """
    source = result_set.asv_dir.resolve()
    staged = work / "results"
    measured: set[str] = set()
    for path in results.result_files(source):
        data: dict = {}
        with contextlib.suppress(OSError, ValueError, AttributeError):
            data = json.loads(path.read_bytes())
            measured |= set(data.get("results", {}))
        target = staged / path.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        recorded = data.get("commit_hash") if isinstance(data, dict) else None
        full = commits.full_hash(repo, recorded) if isinstance(recorded, str) else recorded
        if full != recorded:
            target.write_text(json.dumps({**data, "commit_hash": full}))
        else:
            target.symlink_to(path)
    for machine in source.glob("*/machine.json"):
        (staged / machine.relative_to(source)).parent.mkdir(parents=True, exist_ok=True)
        (staged / machine.relative_to(source)).symlink_to(machine)
    staged.mkdir(exist_ok=True)
    benchmarks = source / "benchmarks.json"
    if benchmarks.exists():
        listed = json.loads(benchmarks.read_bytes())
        # a fingerprint is a hash, no quantity: asv would draw it as a line (iconbench's pages
        # mark the commits where it changed)
        kept = {
            k: v
            for k, v in listed.items()
            if k == "version" or (k in measured and not k.endswith(NOT_A_QUANTITY))
        }
        (staged / "benchmarks.json").write_text(json.dumps(kept))
    return staged


def _same_device(a: pathlib.Path, b: pathlib.Path) -> bool:
    return a.stat().st_dev == b.parent.stat().st_dev


def _copy(source: pathlib.Path, target: pathlib.Path) -> None:
    import shutil

    shutil.copytree(source, target)


def _remove(path: pathlib.Path) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)

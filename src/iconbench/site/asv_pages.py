"""asv's own published pages (``asv publish``), built next to iconbench's and linked from them.

asv publishes one results directory per configuration, so each result set gets its own
sub-site ``DIR/asv/<name>/``, written by asv's command line with a temporary
``asv.conf.json`` (the way ``tests/timing/test_asv_run.py`` and docs/timing.md run it).
asv reads the repository to order commits; results of commits it cannot find make it fail,
which is reported in one line and leaves iconbench's pages untouched.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import tempfile

from iconbench.site.history import ResultSet, slug


def name_of(result_set: ResultSet) -> str:
    """The sub-directory of a result set's asv pages, e.g. ``results-h100``."""
    return slug("-".join(result_set.root.resolve().parts[-2:]))


def publish(result_set: ResultSet, out: pathlib.Path, repo: pathlib.Path) -> str | None:
    """Run ``asv publish`` for ``result_set`` into ``out/asv/<name>``; None or the error line."""
    html = out / "asv" / name_of(result_set)
    with tempfile.TemporaryDirectory(prefix="iconbench-asv-") as work:
        config = pathlib.Path(work) / "asv.conf.json"
        config.write_text(
            json.dumps(
                {
                    "version": 1,
                    "project": "iconbench",
                    "repo": str(repo),
                    "branches": ["HEAD"],
                    "environment_type": "existing",
                    "results_dir": str(result_set.asv_dir.resolve()),
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
            return f"asv publish of {result_set.asv_dir} failed: {lines[-1] if lines else '?'}"
        built = pathlib.Path(work) / "html"
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
    return None


def _same_device(a: pathlib.Path, b: pathlib.Path) -> bool:
    return a.stat().st_dev == b.parent.stat().st_dev


def _copy(source: pathlib.Path, target: pathlib.Path) -> None:
    import shutil

    shutil.copytree(source, target)


def _remove(path: pathlib.Path) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)

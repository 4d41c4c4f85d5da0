"""Real CPU result files for the gate's tests, built once per machine and cached."""

import hashlib
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import pytest

from iconbench import buildcache

HERE = pathlib.Path(__file__).resolve().parent
SCRIPT = HERE / "make_cpu_results.py"


@pytest.fixture(scope="session")
def cpu_results() -> pathlib.Path:
    """asv results of two commits (base, head) on embedded/tiny; see make_cpu_results.py.

    Cached under the build cache dir, keyed by the script's text (~40 s to build).
    """
    key = hashlib.sha256(SCRIPT.read_bytes()).hexdigest()[:12]
    root = buildcache.cache_root() / "gate-test-results" / key
    if (root / "typical.json").exists():
        return root
    root.parent.mkdir(parents=True, exist_ok=True)
    scratch = pathlib.Path(tempfile.mkdtemp(dir=root.parent))
    env = {k: v for k, v in os.environ.items() if k != "ICONBENCH_CATALOG"}
    env["PYTHONPATH"] = str(HERE.parents[1] / "src")
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(scratch)],
        env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    try:
        os.replace(scratch, root)
    except OSError:  # built meanwhile by another test run
        shutil.rmtree(scratch, ignore_errors=True)
    return root

"""Real CPU result files for the gate's tests: measured once on a quiet machine, committed.

``make_cpu_results.py`` measures two "commits" on the CPU through the suite's own path. The
tests used to measure them in the first test run of a machine, beside the rest of the suite:
on a 2-core runner a fresh clone's run then loaded the cores so much that a planted change
or an unchanged case came out inconclusive now and then (results/test-suite/README.md). The files in
``data/cpu-results`` are one such measurement, made alone on a 2-core workstation
(``python tests/gate/make_cpu_results.py tests/gate/data/cpu-results``, the script's hash in
``script.sha256``); ``test_compare_cpu.py::test_the_script_measures_every_role_again``
(``-m slow``) measures them again and asks the same verdicts.
"""

import hashlib
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
SCRIPT = HERE / "make_cpu_results.py"
DATA = HERE / "data" / "cpu-results"


def script_key() -> str:
    """The first 12 hex digits of the sha256 of ``make_cpu_results.py``."""
    return hashlib.sha256(SCRIPT.read_bytes()).hexdigest()[:12]


def measure(out: pathlib.Path) -> pathlib.Path:
    """Run ``make_cpu_results.py`` into ``out`` (the catalog on, iconbench's sources first)."""
    env = {k: v for k, v in os.environ.items() if k != "ICONBENCH_CATALOG"}
    env["PYTHONPATH"] = str(HERE.parents[1] / "src")
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(out)],
        env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    return out


@pytest.fixture(scope="session")
def cpu_results(tmp_path_factory) -> pathlib.Path:
    """asv results of two commits (base, head) on embedded/tiny: a copy of the committed ones.

    A copy: tests write beside them (a broken file to read).
    """
    recorded = (DATA / "script.sha256").read_text().strip()
    assert recorded == script_key(), (
        f"{SCRIPT.name} changed since {DATA} was measured: measure again with "
        f"'python {SCRIPT.relative_to(HERE.parents[1])} {DATA.relative_to(HERE.parents[1])}' "
        "on a quiet machine and write the new hash to script.sha256"
    )
    root = tmp_path_factory.mktemp("cpu-results") / "results"
    shutil.copytree(DATA, root)
    return root

"""The CI criterion: ``iconbench run --quick`` writes asv results that ``asv publish`` takes."""

import json
import os
import pathlib
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_iconbench_run_quick_then_asv_publish(tmp_path):
    env = {**os.environ, "ICONBENCH_CATALOG": "0", "GT4PY_BUILD_JOBS": "1"}
    asv_env = {**os.environ, "HOME": str(tmp_path)}  # asv's machine file: ~/.asv-machine.json
    run = subprocess.run(
        [sys.executable, "-m", "iconbench", "run", "--quick", "--programs", "tangential",
         "--backends", "embedded,gtfn_cpu", "--machine", "iconbench-ci-test",
         "--out", str(tmp_path / "runs")],
        env=env, capture_output=True, text=True, check=False, timeout=1400,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    (results,) = (tmp_path / "runs").glob("run-*/asv")
    files = [p for p in results.glob("*/*.json") if p.name != "machine.json"]
    assert len(files) == 1
    data = json.loads(files[0].read_text())
    assert "programs.Programs.time_device" in data["results"]
    # the compiled backend's variant has a fingerprint; embedded compiles nothing (no value)
    embedded, gtfn = data["results"]["programs.Programs.track_codegen_fingerprint"][0]
    assert embedded is None
    assert gtfn > 0
    conf = {
        "version": 1,
        "project": "iconbench",
        "repo": str(REPO),
        "branches": ["main"],
        "benchmark_dir": str(REPO / "benchmarks"),
        "environment_type": "existing",
        "results_dir": str(results),
        "html_dir": str(tmp_path / "html"),
    }
    config = tmp_path / "asv.conf.json"
    config.write_text(json.dumps(conf))
    asv = pathlib.Path(sys.executable).parent / "asv"
    publish = subprocess.run(
        [str(asv), "publish", "--config", str(config)],
        env=asv_env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert publish.returncode == 0, publish.stdout + publish.stderr
    assert (tmp_path / "html" / "index.json").exists()

"""``asv run`` / ``asv continuous`` compile the suite in parallel before asv times anything.

The asv suite's ``setup_cache`` compiles every (program, backend) of its parameter space with
the runner's precompile driver, in a process pool, into the persistent build cache; the
benchmarks then only load. Shown on gtfn_cpu, two programs, the tiny grid, an empty cache.
"""

import json
import os
import pathlib
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
PROGRAMS = r"^(compute_tangential_wind|compute_perturbation_of_rho_and_theta)\["


@pytest.mark.slow  # two cold gtfn_cpu compiles and three asv processes: ~4 min on 2 cores
def test_setup_cache_compiles_in_parallel_before_the_timing(tmp_path):
    conf = {
        "version": 1, "project": "iconbench", "repo": str(REPO), "branches": ["HEAD"],
        "benchmark_dir": str(REPO / "benchmarks"), "environment_type": "existing",
        "results_dir": str(tmp_path / "results"), "html_dir": str(tmp_path / "html"),
    }  # fmt: skip
    (tmp_path / "asv.conf.json").write_text(json.dumps(conf))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ICONBENCH_", "GT4PY_"))}
    # HOME: asv's machine file (~/.asv-machine.json) is the test's own
    env |= {"ICONBENCH_CACHE_DIR": str(tmp_path / "cache"), "ICONBENCH_BACKENDS": "gtfn_cpu",
            "ICONBENCH_PROGRAMS": PROGRAMS, "GT4PY_BUILD_JOBS": "1",
            "HOME": str(tmp_path)}  # fmt: skip
    asv = [sys.executable, "-m", "asv"]
    subprocess.run([*asv, "machine", "--yes", "--machine", "ci"], cwd=tmp_path, env=env,
                   check=True, capture_output=True)  # fmt: skip
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, check=True,
                            capture_output=True, text=True).stdout.strip()  # fmt: skip
    done = subprocess.run(
        [*asv, "run", "--python=same", "--quick", "--machine", "ci", "--show-stderr",
         "--bench", r"Programs\.track_compile_(cold|cached)", "--set-commit-hash", commit],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=False, timeout=1400,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (path,) = (p for p in (tmp_path / "results" / "ci").glob("*.json") if p.name != "machine.json")
    data = json.loads(path.read_text())
    columns = data["result_columns"]
    results = {name: dict(zip(columns, row, strict=False)) for name, row in data["results"].items()}
    (setup_s,) = (s for name, s in data["durations"].items() if name.startswith("<setup_cache"))
    cold = results["programs.Programs.track_compile_cold"]["result"]
    cached = results["programs.Programs.track_compile_cached"]["result"]
    # both programs compiled cold in setup_cache (only it records a compile) ...
    assert len(cold) == 2
    assert all(seconds > 5.0 for seconds in cold)
    # ... side by side: setup_cache took less than the two compiles one after the other
    assert setup_s < sum(cold), (setup_s, cold)
    # ... and the benchmarks, timed after it, only loaded them from the build cache
    assert all(seconds < min(cold) / 5 for seconds in cached), (cached, cold)

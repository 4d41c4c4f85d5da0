"""``iconbench changepoints`` on a nightly asv history with a planted step (test input)."""

from __future__ import annotations

import json
import pathlib

import numpy as np

from iconbench import results
from iconbench.cli import main

CASES = ["a[default]", "b[x=1]"]
BENCHMARK = {
    "name": "programs.Programs.time_device",
    "params": [[repr(c) for c in CASES], [repr("gtfn_gpu")], [repr("tiny")]],
    "type": "time",
    "unit": "seconds",
    "param_names": ["program", "backend", "grid"],
    "version": "1",
}
MACHINE = {"machine": "ci", "arch": "x86_64", "cpu": "", "num_cpu": "2", "os": "", "ram": ""}


def commit_of(night: int) -> str:
    return f"{night:08x}" + "c" * 32


def write_night(root: pathlib.Path, night: int, rng, *, step_from: int) -> pathlib.Path:
    """One nightly's asv result file: ``a[default]`` 8 % slower from ``step_from`` on."""
    values = {}
    for case, level in zip(CASES, (1.2e-4, 3.4e-4), strict=True):
        step = 1.08 if case == "a[default]" and night >= step_from else 1.0
        samples = list(level * step * np.exp(rng.normal(0, 0.01, 10)))
        values[case, "gtfn_gpu", "tiny"] = (float(np.median(samples)), samples)
    results.write_asv(root, [BENCHMARK], {"time_device": values}, machine=MACHINE,
                      commit=commit_of(night), env_name="e", python="3.12",
                      date_ms=1_795_000_000_000 + night * 86_400_000)  # fmt: skip
    return root


def test_cli_reports_the_step_and_the_bisect_range(tmp_path, capsys):
    rng = np.random.default_rng(7)
    for night in range(30):
        write_night(tmp_path, night, rng, step_from=18)
    assert main(["changepoints", str(tmp_path), "--json"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    point = json.loads(line)
    assert point["case"] == "a[default]"
    assert (point["good"], point["bad"]) == (commit_of(17), commit_of(18))
    assert 1.06 < point["magnitude"] < 1.10
    assert f"--good {commit_of(17)[:12]} --bad {commit_of(18)[:12]}" in point["bisect"]
    # a nightly: the step is old news once later runs came after it
    assert main(["changepoints", str(tmp_path), "--new"]) == 0
    assert capsys.readouterr().out.strip() == "0 new change points in 30 runs"

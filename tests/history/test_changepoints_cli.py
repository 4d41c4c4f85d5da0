"""``iconbench changepoints`` on a nightly asv history with a planted step (test input)."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess

import numpy as np

from iconbench.cli import main
from iconbench.records import asv as results

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


def write_night(
    root: pathlib.Path, night: int, rng, *, step_from: int, machine=MACHINE, scale: float = 1.0
) -> pathlib.Path:
    """One nightly's asv result file: ``a[default]`` 8 % slower from ``step_from`` on.

    ``machine``: the runner's description (its ``machine.json``); ``scale``: its speed (2.0:
    every case twice as slow).
    """
    values = {}
    for case, level in zip(CASES, (1.2e-4, 3.4e-4), strict=True):
        step = 1.08 if case == "a[default]" and night >= step_from else 1.0
        samples = list(level * scale * step * np.exp(rng.normal(0, 0.01, 10)))
        values[case, "gtfn_gpu", "tiny"] = (float(np.median(samples)), samples)
    results.write_asv(root, [BENCHMARK], {"time_device": values}, machine=machine,
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


def test_a_backfill_measured_out_of_order_is_read_in_commit_order(tmp_path, capsys):
    """Old commits measured after new ones (a backfill): ``--repo`` puts them in commit order."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    commits = []
    for number in range(30):
        stamp = f"{1_780_000_000 + number * 86_400} +0000"
        env = {**os.environ, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
        subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", f"c{number}"], env=env,
                       check=True)  # fmt: skip
        commits.append(subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True,
                                      text=True, check=True).stdout.strip())  # fmt: skip
    results_dir = tmp_path / "asv"
    rng = np.random.default_rng(7)
    # measured newest first: commit 29 on the first day, commit 0 on the 30th
    for day, number in enumerate(reversed(range(30))):
        values = {}
        for case, level in zip(CASES, (1.2e-4, 3.4e-4), strict=True):
            step = 1.08 if case == "a[default]" and number >= 18 else 1.0
            samples = list(level * step * np.exp(rng.normal(0, 0.01, 10)))
            values[case, "gtfn_gpu", "tiny"] = (float(np.median(samples)), samples)
        results.write_asv(results_dir, [BENCHMARK], {"time_device": values}, machine=MACHINE,
                          commit=commits[number], env_name="e", python="3.12",
                          date_ms=1_795_000_000_000 + day * 86_400_000)  # fmt: skip
    assert main(["changepoints", str(results_dir), "--json", "--repo", str(repo)]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    point = json.loads(line)
    assert (point["good"], point["bad"]) == (commits[17], commits[18])
    assert 1.06 < point["magnitude"] < 1.10
    # in the order measured the step runs backwards: an improvement, between the wrong commits
    assert main(["changepoints", str(results_dir), "--json"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    point = json.loads(line)
    assert (point["good"], point["bad"]) == (commits[18], commits[17])
    assert point["magnitude"] < 0.95

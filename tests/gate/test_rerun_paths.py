"""``--rerun-inconclusive`` measures a side again through the runner, whatever wrote it.

A runner set (``iconbench suite``) runs here on gtfn_cpu and the tiny grid (embedded has no
device clock, so no device samples); a side read from asv's files (embedded: asv's
``time_device`` is the host time) too; both run with ``-m slow``. Neither uses a stand-in.
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
import subprocess
import sys

import pytest

from iconbench import provenance
from iconbench.gate import rerun, verdict
from iconbench.records import resultset

REPO = pathlib.Path(__file__).resolve().parents[2]
CASE = "compute_tangential_wind[default]"


def _suite(out: pathlib.Path, *step: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "ICONBENCH_CATALOG"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "src"), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-m", "iconbench", "suite", "--out", str(out), "--backends", "gtfn_cpu",
         "--grid", "tiny", "--programs", r"^compute_tangential_wind\[", *step],
        cwd=REPO, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.mark.slow  # three runner processes: 70-110 s on 2 cores
def test_runner_side_is_measured_again_by_the_suite_runner(tmp_path, monkeypatch):
    monkeypatch.delenv("ICONBENCH_CATALOG", raising=False)
    _suite(tmp_path, "measure", "--samples", "5", "--max-s", "0.3")
    _suite(tmp_path, "asv")
    side = resultset.resolve(str(tmp_path))
    assert side.kind == "runner"
    key = f"{CASE}|gtfn_cpu|device_time"
    before = side.entries[key].samples
    assert len(before) >= 5

    # inconclusive until the head side has twice its samples: one round of the real runner
    still = lambda b, h: [key] if len(h.entries[key].samples) < 2 * len(before) else []  # noqa: E731
    _, head, done = rerun.rerun_inconclusive(
        side, side, still, max_s=120, measure_head=rerun.runner_measure
    )
    assert done.rounds == 1
    assert done.added["head"] >= len(before)
    added = head.entries[key].samples[len(before) :]
    assert len(added) >= len(before)
    assert all(value > 0 for value in added)
    # the stored result set is untouched: the new samples went to a scratch directory
    assert resultset.resolve(str(tmp_path)).entries[key].samples == before
    assert verdict.compare(side, head).benchmarks


@pytest.mark.slow  # the cpu_results fixture measures 9 cases on both sides first
def test_asv_side_is_measured_again_by_the_suite_runner(cpu_results, monkeypatch):
    monkeypatch.delenv("ICONBENCH_CATALOG", raising=False)
    head = resultset.resolve(f"{cpu_results}/asv@{'e1' * 4}", label="head")
    assert head.kind == "asv"
    side = dataclasses.replace(head, commit=provenance.checkout_commit())
    new = rerun.runner_measure(side, [(CASE, "embedded")], 300)
    # asv's time_device on embedded is host time: the runner's host samples stand for it
    assert len(new[f"{CASE}|embedded|device_time"]) >= 5
    assert all(value > 0 for value in new[f"{CASE}|embedded|device_time"])
    assert f"{CASE}|embedded|host_overhead" not in new

# ruff: noqa: E501  (the browser-side JavaScript snippets read best on one line each)
"""A backfill's change point on its program page, and what its A/B against its parent said.

The history is a backfill's store (:mod:`tests.history.fake_backfill`: one change point, at
K); confirmation records are appended to it as ``iconbench history confirm`` appends them
(the numbers given here), and the site is built with ``iconbench history publish`` (the
history alone) and read in headless Chromium.
"""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys

import pytest
from tests.history import fake_backfill as fake

from iconbench.history import confirm, confirmation
from iconbench.history.store import HistoryStore, result_set_files

COMMITS = {name: f"{n:02x}" * 20 for n, name in enumerate(  # fake hashes, 0101… 0e0e…
    ["c1", "c2", "c3", "c4", "c5", "docs", "K", "c7", "c8", "c9", "c10", "c11", "pin", "c12"], 1)}  # fmt: skip
#: The change points listed under a chart and the markers on it, as the page shows them.
READ = """({
  points: [...document.querySelectorAll('ul.change-points li')].map(li => ({commit: li.dataset.commit, backend: li.dataset.backend, status: li.dataset.status, text: li.textContent})),
  markers: [...document.querySelectorAll('svg.chart g.marker title')].map(t => t.textContent),
})"""


def _append(store: pathlib.Path, record: confirmation.Confirmation, scratch: pathlib.Path) -> None:
    path = record.write(scratch / record.created[:10] / confirm.RECORD)
    HistoryStore.open(store).append(
        result_set_files(confirmation=[path]), kind="main", component="icon4py",
        commit=record.commit, label=confirm.LABEL,
    )  # fmt: skip


def _record(verdict: str, ratio: float, ci: tuple[float, float], created: str):
    bench = confirmation.Benchmark(
        fake.STEPPED, fake.BACKEND, "device_time", 2.0, COMMITS["c5"], ratio, ci, "regression",
        verdict, (), 0.99,
    )  # fmt: skip
    return confirmation.Confirmation(
        COMMITS["K"], COMMITS["docs"], "none", "tiny", created, "ci", "s", "s", False, 8, "x",
        (bench,),
    )  # fmt: skip


def _publish(store: pathlib.Path, site: pathlib.Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "iconbench", "history", "publish", "--store", str(store),
         "--out", str(site)], capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    return fake.write_backfill(tmp_path_factory.mktemp("confirm-site") / "backfill", COMMITS)


def test_a_change_point_names_its_commit_and_its_confirmation(history, tmp_path, browser):
    store, site = history / "history", tmp_path / "site"
    page = (site / "programs" / "compute_tangential_wind.html").as_uri()
    _publish(store, site)
    loaded = browser.open(page, READ)
    assert loaded.problems == ()
    (point,) = loaded.value["points"]
    assert (point["commit"], point["backend"]) == (COMMITS["K"], fake.BACKEND)
    assert point["status"] == "not re-measured yet"
    assert f"at {COMMITS['K'][:8]} (after {COMMITS['c5'][:8]}" in point["text"]
    step = float(re.search(r"x(\d\.\d{3}) at", point["text"]).group(1))
    assert step == pytest.approx(fake.STEP, rel=0.03)  # the planted step, ±1 % noise
    steps = [m for m in loaded.value["markers"] if "step" in m]
    assert steps == [f"{fake.BACKEND} step x{step:.2f}: not re-measured yet"]
    flat = browser.open((site / "programs" / "add_analysis_increments_to_vn.html").as_uri(), READ)
    assert flat.value["points"] == []

    _append(
        store, _record("confirmed", 2.104, (1.612, 2.745), "2026-11-26T12:00:00+00:00"), tmp_path
    )
    _publish(store, site)  # the new record re-renders the page of its program
    confirmed = browser.open(page, READ)
    assert confirmed.problems == ()
    (point,) = confirmed.value["points"]
    assert point["status"] == "confirmed"
    assert (
        f"against its parent {COMMITS['docs'][:8]}, interleaved: confirmed: 2.104x [1.612, 2.745]"
        in point["text"]
    )
    steps = [m for m in confirmed.value["markers"] if "step" in m]
    assert steps == [f"{fake.BACKEND} step x{step:.2f}: confirmed"]

    _append(
        store,
        _record("not confirmed", 1.004, (0.981, 1.027), "2026-11-27T12:00:00+00:00"),
        tmp_path,
    )
    _publish(store, site)  # a newer A/B of the same commit is what the page shows
    (point,) = browser.open(page, READ).value["points"]
    assert point["status"] == "not confirmed"
    assert "not confirmed: 1.004x [0.981, 1.027]" in point["text"]

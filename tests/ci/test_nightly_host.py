"""``ci/gpu/nightly-host`` on the CPU: the whole nightly on one host, two nights.

Two programs (first variant) on gtfn_cpu and the tiny grid, ``--gpus 2``: the first night
measures two shards at once (``ci/run-shard``, one core each) into a new results repository;
the second measures with two workers of one suite (``--road devices``) and finishes against
the first (``--previous``): compare, confirm, history append, change points, site.
"""

import json
import os
import pathlib
import subprocess
import sys

import pytest

from iconbench.history.store import HistoryStore

REPO = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = REPO / "ci" / "gpu" / "nightly-host"
PROGRAMS = r"^(compute_tangential_wind|update_theta_and_exner)\["
PHASES = ["setup", "stack", "precompile", "measure", "merge", "finish"]
ENV = dict(
    os.environ,
    ICONBENCH_PYTHON=sys.executable,
    PYTHONPATH=os.pathsep.join(filter(None, [str(REPO / "src"), os.environ.get("PYTHONPATH")])),
    ICONBENCH_BACKENDS="gtfn_cpu",
    ICONBENCH_GRID="tiny",
    ICONBENCH_PROGRAMS=PROGRAMS,
    ICONBENCH_ONE_VARIANT="1",
    ICONBENCH_CONFIRM_OPTIONS="--quick",
    # the GPU scripts' CPU path judges device time between nights as a GPU host does
    ICONBENCH_GATE_CONFIG=str(pathlib.Path(__file__).with_name("cpu-path-gate.toml")),
)


def _night(out: pathlib.Path, *options: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", str(SCRIPT), str(out), *options],
        env=ENV, capture_output=True, text=True, check=False,
    )  # fmt: skip


def _cases(result_dir: pathlib.Path) -> int:
    return len(json.loads((result_dir / "summary.json").read_text())["cases"])


@pytest.mark.slow  # two nights, each four suite processes and a confirm: 65 s on 2 shared cores
def test_two_nights_on_one_host_land_in_the_results_repository_and_the_site(tmp_path, git):
    first = _night(tmp_path / "n1", "--gpus", "2")
    assert first.returncode == 0, first.stderr[-3000:]
    remote = tmp_path / "n1" / "results.git"
    second = _night(tmp_path / "n2", "--gpus", "2", "--road", "devices", "--previous", str(remote))
    assert second.returncode == 0, second.stderr[-3000:]

    for night, road in (("n1", "shards"), ("n2", "devices")):
        phases = json.loads((tmp_path / night / "phases.json").read_text())
        assert (phases["gpus"], phases["road"]) == (2, road)
        assert list(phases["phases_s"]) == PHASES
        assert all(seconds >= 0 for seconds in phases["phases_s"].values())
        assert phases["remote"] == str(remote)
        assert _cases(tmp_path / night / "merged") == 2
        assert (tmp_path / night / "site" / "index.html").is_file()
    # the first night: one case a shard, each shard on its own core
    assert [_cases(tmp_path / "n1" / f"shard-{i}") for i in (1, 2)] == [1, 1]
    # each shard's cases record its GPU (CUDA_VISIBLE_DEVICES=i-1), not "the one it found"
    for i in (1, 2):
        ledger = (tmp_path / "n1" / f"shard-{i}" / "work" / "session.jsonl").read_text()
        assert {json.loads(line)["device"] for line in ledger.splitlines()} == {str(i - 1)}
    assert "no earlier nightly in the history" in first.stderr
    # the second night is compared with the first, and what it flags is measured again
    assert "gate against the last nightly: exit" in second.stderr
    # whatever the two-run compare flagged, the confirmation decides: nothing confirmed
    assert "confirmed against the last nightly: exit 0" in second.stderr, second.stderr[-3000:]
    # both nights measured the same commits (the installed releases, fixed commit dates)
    stacks = [
        json.loads((tmp_path / night / "checkouts" / "stack.json").read_text())
        for night in ("n1", "n2")
    ]
    assert stacks[0] == stacks[1]
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "-b", "results", str(remote), str(clone))
    store = HistoryStore.open(clone)
    entries = store.entries()
    assert [e.label for e in entries] == ["nightly", "nightly"]
    assert {e.commit for e in entries} == {stacks[0]["commits"]["icon4py"]}
    assert [any(f.role == "gate" for f in e.files) for e in entries] == [False, True]
    assert store.check() == []


def test_a_road_that_is_not_one_is_one_line(tmp_path):
    done = _night(tmp_path / "out", "--road", "both")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "ci/gpu/nightly-host: --road both: give shards or devices"
    ]
    assert not (tmp_path / "out").exists()


@pytest.mark.slow  # one night's four phases on one core: about 30 s on 2 shared cores
def test_until_merge_measures_and_merges_but_finishes_nothing(tmp_path):
    done = _night(tmp_path / "n", "--gpus", "1", "--until", "merge")
    assert done.returncode == 0, done.stderr[-3000:]
    phases = json.loads((tmp_path / "n" / "phases.json").read_text())
    assert (phases["gpus"], phases["until"], phases["remote"]) == (1, "merge", None)
    assert list(phases["phases_s"]) == PHASES[:-1]
    assert _cases(tmp_path / "n" / "merged") == 2
    assert not (tmp_path / "n" / "results.git").exists()
    assert not (tmp_path / "n" / "site").exists()


def test_until_takes_merge_only(tmp_path):
    done = _night(tmp_path / "n", "--until", "measure")
    assert done.returncode == 2
    assert "--until measure: give merge" in done.stderr
    assert not (tmp_path / "n").exists()


@pytest.mark.parametrize(
    ("options", "line"),
    [
        (("--load-ahead", "8"), "--load-ahead is the devices road's (give --road devices)"),
        (("--road", "devices", "--load-ahead", "x"), "--load-ahead x is no count of cases"),
        (("--road", "devices", "--load-ahead", "0"), "--load-ahead 0 is no count of cases"),
    ],
)
def test_load_ahead_is_a_count_on_the_devices_road(tmp_path, options, line):
    done = _night(tmp_path / "n", *options)
    assert done.returncode == 2
    assert line in done.stderr
    assert not (tmp_path / "n").exists()

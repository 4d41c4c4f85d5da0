"""``ci/nightly finish`` on the CPU: merged results into the git results branch, site rebuilt.

Two nights against a local bare repository as the results branch's remote: the first has
nothing to compare with; the second compares with the first (``iconbench compare``) and
appends its results. Then a history with a planted step: the night that makes the step
detectable reports its change point, once.
"""

import datetime
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
from tests.history.test_changepoints_cli import MACHINE, commit_of, write_night
from tests.runner.test_merge import _shard

from iconbench.history.store import HistoryStore

REPO = pathlib.Path(__file__).resolve().parents[2]
ENV = dict(
    os.environ,
    ICONBENCH_PYTHON=sys.executable,
    PYTHONPATH=os.pathsep.join(filter(None, [str(REPO / "src"), os.environ.get("PYTHONPATH")])),
)


def _checkouts(tmp_path, git) -> tuple[pathlib.Path, dict[str, str]]:
    """CHECKOUTS of ``ci/nightly``: the three mains (one commit each) and their stack.json."""
    checkouts = tmp_path / "checkouts"
    commits = {}
    for component in ("gt4py", "dace", "icon4py"):
        git(tmp_path, "init", "-q", "-b", "main", str(checkouts / component))
        (checkouts / component / "README").write_text(component)
        git(checkouts / component, "add", "-A")
        git(checkouts / component, "commit", "-qm", "main")
        commits[component] = git(checkouts / component, "rev-parse", "HEAD")
    (checkouts / "stack.json").write_text(json.dumps({"commits": commits}))
    return checkouts, commits


def _finish(checkouts, merged, site, remote, env=ENV) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", str(REPO / "ci" / "nightly"), "finish", str(checkouts), str(merged),
         str(site), str(remote), "results"],
        env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip


def test_two_nights_land_in_the_results_branch_and_the_site(tmp_path, git):
    checkouts, commits = _checkouts(tmp_path, git)
    merged = _shard(tmp_path / "merged", [1.0e-3, 2.0e-3], ["a[default]", "b[x]"])
    remote = tmp_path / "results.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    statuses, logs = [], []
    for night in (1, 2):
        done = _finish(checkouts, merged, tmp_path / f"site{night}", remote)
        statuses.append(done.returncode)
        logs.append(done.stderr)
        assert (tmp_path / f"site{night}" / "index.html").is_file(), done.stderr[-2000:]
    # the first night has nothing to compare with; the second is compared with the first:
    # the same values, so no regression, and no change point
    assert statuses == [0, 0]
    assert "no earlier nightly in the history" in logs[0]
    assert "gate against the last nightly: exit 0" in logs[1], logs[1][-2000:]
    assert all("change points: 0 new change points" in log for log in logs), logs
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "-b", "results", str(remote), str(clone))
    store = HistoryStore.open(clone)
    entries = store.entries()
    assert [e.label for e in entries] == ["nightly", "nightly"]
    for entry in entries:
        (stack,) = [f for f in entry.files if f.path.endswith("stack.json")]
        assert json.loads(store.read(stack))["commits"] == commits
        assert entry.commit == commits["icon4py"]
    # the second night carries its gate summary against the first
    assert [sorted(f.role for f in e.files if f.role == "gate") for e in entries] == [[], ["gate"]]
    assert store.check() == []

    # what the next night bisects from: the last nightly's commits, read back by commands
    def iconbench(*args):
        done = subprocess.run([sys.executable, "-m", "iconbench", *args], env=ENV,
                              capture_output=True, text=True, check=True)  # fmt: skip
        return done.stdout

    last = tmp_path / "last-stack.json"
    cat = ["history", "cat", "--store", str(clone), "--label", "nightly", "--path"]
    last.write_text(iconbench(*cat, "other/stack.json"))
    for component, sha in commits.items():
        assert iconbench("stack", "commits", str(last), "--component", component) == sha + "\n"
    asv = iconbench("history", "list", "--store", str(clone), "--kind", "main", "--label",
                    "nightly", "--last", "--files", "asv").split()  # fmt: skip
    assert "benchmarks.json" in asv
    assert len(asv) == len({f.path for f in entries[1].files if f.role == "asv"})


def test_the_night_a_step_becomes_detectable_reports_its_change_point(tmp_path, git):
    """13 earlier nights in the results branch, tonight the 14th: the 5th at the new level."""
    checkouts, _ = _checkouts(tmp_path, git)
    remote = tmp_path / "results.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    seed = tmp_path / "seed"
    git(tmp_path, "init", "-q", "-b", "results", str(seed))
    store = HistoryStore.create(seed)
    rng = np.random.default_rng(11)
    start = datetime.datetime(2026, 11, 1, 2, 0, tzinfo=datetime.UTC)
    for night in range(13):
        asv = write_night(tmp_path / "nights" / str(night), night, rng, step_from=9)
        files = {p.relative_to(asv).as_posix(): ("asv", p) for p in sorted(asv.rglob("*.json"))}
        store.append(files, kind="main", component="icon4py", commit=commit_of(night),
                     label="nightly", machine="ci",  # MACHINE's name: no GPU, asv's name
                     created=start + datetime.timedelta(days=night))  # fmt: skip
    git(seed, "add", "-A")
    git(seed, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "13 nights")
    git(seed, "push", "-q", str(remote), "HEAD:refs/heads/results")
    merged = tmp_path / "merged"
    write_night(merged / "asv", 13, rng, step_from=9)
    summary = tmp_path / "step-summary.md"
    done = _finish(checkouts, merged, tmp_path / "site", remote,
                   env=dict(ENV, GITHUB_STEP_SUMMARY=str(summary)))  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "gate against the last nightly: exit 0" in done.stderr  # 8 % slower on both sides
    assert "change points: 1 new change points in 14 runs" in done.stderr, done.stderr[-3000:]
    # the step, with the commit range to bisect: from night 9's commit, after night 8's
    reported = [ln for ln in done.stderr.splitlines() if "gtfn_gpu on" in ln]
    assert len(reported) == 1, reported
    assert reported[0].startswith("a[default] gtfn_gpu on ")
    assert f"from {commit_of(9)[:8]} (after {commit_of(8)[:8]}, run 9" in reported[0]
    assert f"--good {commit_of(8)[:12]} --bad {commit_of(9)[:12]}" in done.stderr
    text = summary.read_text()
    # tonight's changes against the last nightly (none: 8 % on both sides), then the history's
    changes, points = text.split("### New change points")
    assert changes.startswith("### Changes against the last nightly\n\n0 changes reported")
    text = points
    assert reported[0] in text
    assert "1 new change points in 14 runs" in text


def test_a_night_is_compared_with_the_last_night_of_its_own_machine(tmp_path, git):
    """Two GPU models in one runner pool, both hosts named ``vm``: an H200 night compares with
    the last H200 night, not with the newer H100 night (twice as fast: a regression if
    compared)."""
    checkouts, _ = _checkouts(tmp_path, git)
    remote = tmp_path / "results.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    seed = tmp_path / "seed"
    git(tmp_path, "init", "-q", "-b", "results", str(seed))
    rng = np.random.default_rng(5)
    h200, h100 = ({**MACHINE, "machine": "vm", "gpu": gpu} for gpu in
                  ("NVIDIA H200", "NVIDIA H100 80GB HBM3"))  # fmt: skip
    for night, (machine, scale) in enumerate([(h200, 1.0), (h100, 0.5)]):
        asv = write_night(tmp_path / "nights" / str(night), night, rng, step_from=99,
                          machine=machine, scale=scale)  # fmt: skip
        subprocess.run([sys.executable, "-m", "iconbench", "history", "append", "--store",
                        str(seed), "--kind", "main", "--component", "icon4py", "--label",
                        "nightly", "--commit", commit_of(night), "--asv", str(asv)],
                       env=ENV, check=True, capture_output=True)  # fmt: skip
    git(seed, "add", "-A")
    git(seed, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "2 nights")
    git(seed, "push", "-q", str(remote), "HEAD:refs/heads/results")
    merged = tmp_path / "merged"
    write_night(merged / "asv", 2, rng, step_from=99, machine=h200)
    done = _finish(checkouts, merged, tmp_path / "site", remote)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "gate against the last nightly: exit 0" in done.stderr, done.stderr[-3000:]
    # a runner that names its machine: no night of that name yet, so none to compare with
    done = _finish(checkouts, merged, tmp_path / "site2", remote,
                   env=dict(ENV, ICONBENCH_MACHINE="gh200"))  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "no earlier nightly of machine gh200 in the history: nothing to compare with" in (
        done.stderr
    )
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "-b", "results", str(remote), str(clone))
    store = HistoryStore.open(clone)
    entries = store.entries()
    assert [e.machine for e in entries] == ["h200", "h100", "h200", "gh200"]
    (gate,) = [f for f in entries[2].files if f.role == "gate"]
    base = json.loads(store.read(gate))["base"]
    assert (base["commit"], base["machine"]["gpu"]) == (commit_of(0), "NVIDIA H200")
    assert [f.role for f in entries[3].files if f.role == "gate"] == []

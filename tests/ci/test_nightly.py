"""``ci/nightly finish`` on the CPU: merged results into the git results branch, site rebuilt.

Two nights against a local bare repository as the results branch's remote: the first has
nothing to compare with; the second compares with the first (``iconbench compare``) and
appends its results.
"""

import json
import os
import pathlib
import subprocess
import sys

from tests.runner.test_merge import _shard

from iconbench.history.store import HistoryStore

REPO = pathlib.Path(__file__).resolve().parents[2]


def test_two_nights_land_in_the_results_branch_and_the_site(tmp_path, git):
    checkouts = tmp_path / "checkouts"
    commits = {}
    for component in ("gt4py", "dace", "icon4py"):
        git(tmp_path, "init", "-q", "-b", "main", str(checkouts / component))
        (checkouts / component / "README").write_text(component)
        git(checkouts / component, "add", "-A")
        git(checkouts / component, "commit", "-qm", "main")
        commits[component] = git(checkouts / component, "rev-parse", "HEAD")
    (checkouts / "stack.json").write_text(json.dumps({"commits": commits}))
    merged = _shard(tmp_path / "merged", [1.0e-3, 2.0e-3], ["a[default]", "b[x]"])
    remote = tmp_path / "results.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    env = dict(
        os.environ,
        ICONBENCH_PYTHON=sys.executable,
        PYTHONPATH=os.pathsep.join(filter(None, [str(REPO / "src"), os.environ.get("PYTHONPATH")])),
    )
    statuses, logs = [], []
    for night in (1, 2):
        done = subprocess.run(
            [
                "bash",
                str(REPO / "ci" / "nightly"),
                "finish",
                str(checkouts),
                str(merged),
                str(tmp_path / f"site{night}"),
                str(remote),
                "results",
            ],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        statuses.append(done.returncode)
        logs.append(done.stderr)
        assert (tmp_path / f"site{night}" / "index.html").is_file(), done.stderr[-2000:]
    # the first night has nothing to compare with; the second is compared with the first:
    # the same values, so no regression
    assert statuses == [0, 0]
    assert "no earlier nightly in the history" in logs[0]
    assert "gate against the last nightly: exit 0" in logs[1], logs[1][-2000:]
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
        done = subprocess.run([sys.executable, "-m", "iconbench", *args], env=env,
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

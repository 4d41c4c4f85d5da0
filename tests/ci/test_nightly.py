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
    statuses = []
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
        assert (tmp_path / f"site{night}" / "index.html").is_file(), done.stderr[-2000:]
    # the first night has nothing to compare with; the second is compared with the first:
    # the same values, so no regression
    assert statuses == [0, 0]
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "-b", "results", str(remote), str(clone))
    store = HistoryStore.open(clone)
    entries = store.entries()
    assert [e.label for e in entries] == ["nightly", "nightly"]
    for entry in entries:
        (stack,) = [f for f in entry.files if f.path.endswith("stack.json")]
        assert json.loads(store.read(stack))["commits"] == commits
        assert entry.commit == commits["icon4py"]
    assert store.check() == []

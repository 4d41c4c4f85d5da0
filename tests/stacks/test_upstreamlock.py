"""The default dace is the pin of gt4py's own uv.lock, read from the upstream file."""

import json
import pathlib

import pytest

from iconbench.cli import main
from iconbench.errors import IconbenchError
from iconbench.stacks import lockpins, resolve, upstreamlock
from iconbench.stacks.spec import Stack

GT4PY_LOCK = """version = 1
[[package]]
name = "dace"
version = "{dace}"
source = {{ registry = "https://pypi.org/simple" }}

[[package]]
name = "gt4py"
source = {{ editable = "." }}

[[package]]
name = "networkx"
version = "3.5"
"""


@pytest.fixture
def gt4py_with_lock(toy_repo, run_git) -> pathlib.Path:
    """The toy gt4py with a uv.lock: v1.2.1 locks dace 2.0.0a6, v1.3.0 locks dace 2.0.0b1."""
    (toy_repo / "uv.lock").write_text(GT4PY_LOCK.format(dace="2.0.0a6"))
    run_git(toy_repo, "add", "-A", ".")
    run_git(toy_repo, "commit", "-q", "-m", "lock")
    run_git(toy_repo, "tag", "-f", "v1.2.1")
    (toy_repo / "uv.lock").write_text(GT4PY_LOCK.format(dace="2.0.0b1"))
    run_git(toy_repo, "commit", "-q", "-am", "newer dace")
    run_git(toy_repo, "tag", "v1.3.0")
    return toy_repo


def test_project_lock_follows_gt4py_lock():
    # iconbench's uv.lock must pin what the locked gt4py release's own lock pins
    locked = lockpins.locked_versions()
    pins = upstreamlock.released_pins(locked["gt4py"])
    assert pins.pins["dace"] == locked["dace"] == "2.0.0a6"
    assert pins.pins["networkx"] == locked["networkx"]
    assert (pins.ref, pins.path) == (f"v{locked['gt4py']}", "uv.lock")
    assert len(pins.blob) == len(pins.commit) == 40


def test_refresh_reads_the_upstream_file(gt4py_with_lock, run_git, tmp_path):
    extract = tmp_path / "pins.json"
    read = upstreamlock.refresh(gt4py_with_lock, ["v1.2.1", "v1.3.0"], extract)
    assert [(p.gt4py_version, p.pins["dace"]) for p in read] == [
        ("1.2.1", "2.0.0a6"),
        ("1.3.0", "2.0.0b1"),
    ]
    entries = upstreamlock.load_extract(extract)
    assert entries["1.3.0"].blob == run_git(gt4py_with_lock, "rev-parse", "v1.3.0:uv.lock")
    assert entries["1.2.1"].commit == run_git(gt4py_with_lock, "rev-parse", "v1.2.1")
    # a later refresh keeps the other releases
    upstreamlock.refresh(gt4py_with_lock, ["v1.3.0"], extract)
    assert set(json.loads(extract.read_text())["gt4py"]) == {"1.2.1", "1.3.0"}
    with pytest.raises(IconbenchError, match=r"unknown ref 'v0\.0'"):
        upstreamlock.refresh(gt4py_with_lock, ["v0.0"], extract)
    with pytest.raises(IconbenchError, match=r"no record of gt4py 9\.9's uv\.lock"):
        upstreamlock.released_pins("9.9", extract)


def test_a_gt4py_commit_brings_its_locked_dace(gt4py_with_lock, toy_repo):
    gt4py, dace, _ = resolve.resolve(Stack.parse([f"gt4py={gt4py_with_lock}@v1.3.0"]))
    assert (dace.source, dace.version) == ("gt4py-lock", "2.0.0b1")
    # a dace given explicitly wins over the lock of the gt4py commit
    _, dace, _ = resolve.resolve(Stack.parse([f"gt4py={gt4py_with_lock}@v1.3.0", "dace==2.0.0a6"]))
    assert (dace.source, dace.version) == ("release", "2.0.0a6")
    entry = {"version": "1.3.0", "commit": gt4py.commit, "repo": str(gt4py_with_lock)}
    assert upstreamlock.pins_for(entry).pins["dace"] == "2.0.0b1"


def test_stack_show_says_where_each_pin_comes_from(capsys):
    assert main(["stack", "show"]) == 0
    out = capsys.readouterr().out
    assert "gt4py     1.2.1      from icon4py-common 0.4.1's requirement gt4py==1.2.1" in out
    assert "dace      2.0.0a6    from gt4py 1.2.1's GridTools/gt4py@v1.2.1:uv.lock" in out
    assert "DIFFERS" not in out
    assert main(["stack", "pins"]) == 0
    assert "gt4py 1.2.1    dace 2.0.0a6, networkx 3.5" in capsys.readouterr().out
    assert main(["stack", "pins", "--refresh"]) == 2
    assert "needs --gt4py-repo PATH" in capsys.readouterr().err

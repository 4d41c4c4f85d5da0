import json
import os
import subprocess
import sys

from iconbench import cli
from iconbench.stacks import identity


def test_record_changes_the_key_and_same_record_keeps_it(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    released = identity.environment_stack()
    assert released["gt4py"]["source"] == "release"
    key_release = identity.stack_key()

    identity.write_record(tmp_path, "gt4py", "a" * 40, "/src/gt4py")
    stack = identity.environment_stack()
    assert stack["gt4py"] == {
        "version": released["gt4py"]["version"],
        "source": "git",
        "commit": "a" * 40,
        "repo": "/src/gt4py",
    }
    key_a = identity.stack_key()
    assert key_a != key_release
    assert identity.stack_key() == key_a  # unchanged stack: the same cache

    identity.write_record(tmp_path, "gt4py", "b" * 40, "/src/gt4py")
    assert identity.stack_key() not in (key_a, key_release)
    assert identity.stack_key(backend_options={"GT4PY_X": "1"}) != identity.stack_key()
    assert json.loads((tmp_path / identity.RECORD_NAME).read_text())["gt4py"]["commit"] == "b" * 40


def test_editable_checkout_is_identified_by_commit_and_diff(tmp_path, toy_repo, run_git):
    base = identity.checkout_identity(toy_repo)
    assert base == {
        "source": "editable",
        "commit": run_git(toy_repo, "rev-parse", "HEAD"),
        "repo": str(toy_repo),
    }
    (toy_repo / "pyproject.toml").write_text((toy_repo / "pyproject.toml").read_text() + "# edit\n")
    edited = identity.checkout_identity(toy_repo)
    assert edited["commit"] == base["commit"]
    assert len(edited["diff_sha256"]) == 16


def test_buildcache_is_keyed_by_the_stack(tmp_path):
    code = (
        "from iconbench import buildcache; from iconbench.stacks.identity import stack_key; "
        "print(buildcache.configure(stack_key()))"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("GT4PY_")}
    env["ICONBENCH_CACHE_DIR"] = str(tmp_path)
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == str(tmp_path / "gt4py" / identity.stack_key())


def test_stack_cli(capsys, toy_repo, run_git):
    assert cli.main(["stack", "show", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert set(shown["components"]) == {"gt4py", "dace", "icon4py"}
    assert shown["stack_key"] == identity.stack_key()
    assert cli.main(["stack", "resolve", f"gt4py={toy_repo}@feature", "--json"]) == 0
    resolved = {c["component"]: c for c in json.loads(capsys.readouterr().out)}
    assert resolved["gt4py"]["commit"] == run_git(toy_repo, "rev-parse", "feature")
    assert resolved["dace"]["source"] == "lock"
    assert cli.main(["stack", "resolve", f"gt4py={toy_repo}@nope"]) == 2
    assert "gt4py: unknown ref 'nope'" in capsys.readouterr().err

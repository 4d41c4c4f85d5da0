"""``python -m iconbench.check.confine``: what a confined command sees and may write.

A probe stands for the code under test: it reports its environment, the token files of the
home, a checkout's git config, and which writes succeeded. The machine's user namespaces
(``unshare``) do the confining, as on a CI machine without a container runtime.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

from iconbench.check import confine

REPO = pathlib.Path(__file__).resolve().parents[2]
SECRET = "ghp_iconbenchCONFINE0123456789secret"
PROBE = r"""
import json, os, pathlib, sys
home, checkout, shared, out = map(pathlib.Path, sys.argv[1:5])
seen = {"env": dict(os.environ), "files": {}, "writes": {}}
for path in (home / ".config/gh/hosts.yml", home / ".git-credentials", checkout / ".git/config"):
    try:
        seen["files"][str(path)] = path.read_text()
    except OSError as error:
        seen["files"][str(path)] = repr(error)
for path in (shared / "gt4py/other/BUILD", home / ".bashrc", out / "result.json"):
    try:
        path.write_text("written")
        seen["writes"][str(path)] = "written"
    except OSError as error:
        seen["writes"][str(path)] = type(error).__name__ + " " + str(error.strerror)
print(json.dumps(seen))
"""

pytestmark = pytest.mark.skipif(not confine.available(), reason="no user namespaces here")


@pytest.fixture
def confined(tmp_path):
    home = tmp_path / "home"
    (home / ".config" / "gh").mkdir(parents=True)
    (home / ".config" / "gh" / "hosts.yml").write_text(f"oauth_token: {SECRET}\n")
    (home / ".git-credentials").write_text(f"https://x:{SECRET}@github.com\n")
    (home / ".bashrc").write_text("# the runner's\n")
    checkout = tmp_path / "checkout"
    (checkout / ".git").mkdir(parents=True)
    (checkout / ".git" / "config").write_text(
        f'[core]\n\tbare = false\n[http "https://github.com/"]\n\textraheader = {SECRET}\n'
    )
    shared = tmp_path / "shared"
    (shared / "gt4py" / "other").mkdir(parents=True)
    (shared / "gt4py" / "other" / "BUILD").write_text("trusted\n")
    out = tmp_path / "out"
    env = {**os.environ, "HOME": str(home), "GITHUB_TOKEN": SECRET, "MY_API_TOKEN": SECRET,
           "ACTIONS_RUNTIME_TOKEN": SECRET, "PYTHONPATH": str(REPO / "src")}  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "iconbench.check.confine", "--scratch", str(tmp_path / "scratch"),
         "--writable", str(out), "--read-only", str(shared), "--read-only", str(home),
         "--home", str(home), "--checkout", str(checkout), "--",
         sys.executable, "-c", PROBE, str(home), str(checkout), str(shared), str(out)],
        env=env, capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), tmp_path


def test_no_secret_in_the_environment(confined):
    seen, tmp_path = confined
    assert SECRET not in json.dumps(seen["env"])
    assert not {"GITHUB_TOKEN", "MY_API_TOKEN", "ACTIONS_RUNTIME_TOKEN"} & set(seen["env"])
    assert seen["env"]["HOME"] == str(tmp_path / "scratch" / "home")
    assert "PYTHONPATH" in seen["env"]  # what the check needs stays


def test_the_token_files_are_empty_and_the_checkout_has_no_credentials(confined):
    seen, _ = confined
    assert SECRET not in json.dumps(seen["files"])
    config = next(text for path, text in seen["files"].items() if path.endswith(".git/config"))
    assert "bare = false" in config  # the rest of the config is still there for git


def test_only_the_scratch_is_writable(confined):
    seen, tmp_path = confined
    writes = seen["writes"]
    assert writes[str(tmp_path / "out" / "result.json")] == "written"
    for path in (tmp_path / "shared" / "gt4py" / "other" / "BUILD", tmp_path / "home" / ".bashrc"):
        assert writes[str(path)] == "OSError Read-only file system", path
    assert (tmp_path / "shared" / "gt4py" / "other" / "BUILD").read_text() == "trusted\n"
    assert (tmp_path / "home" / ".bashrc").read_text() == "# the runner's\n"


def test_a_machine_without_namespaces_is_said_in_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(confine, "available", lambda: False)
    code = confine.main(["--scratch", str(tmp_path), "--", "true"])
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert line.startswith("confine: no user namespaces here (unshare --user --mount fails)")

"""An evil head, end to end: ``ci/pr-check --untrusted`` of a fork's icon4py change on the CPU.

The head's stencil module, when imported (by the precompile and by every measuring process),
reads its environment and the usual token files (``~/.config/gh/hosts.yml``,
``~/.git-credentials``, the iconbench checkout's ``.git/config``), and tries to write into the
shared build cache, the history and another stack's folder. It writes what it saw and did into
a loot file. The check runs confined (``iconbench.check.confine``): the loot holds no secret,
every write failed, nothing outside the check's scratch changed, and the check still reports.
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest
from tests.ci.installed_repos import main_of

REPO = pathlib.Path(__file__).resolve().parents[2]
STENCIL = "model/atmosphere/dycore/src/icon4py/model/atmosphere/dycore/stencils"
SECRETS = {
    "env": "ghp_iconbenchENV0123456789secret",
    "gh": "gho_iconbenchGHCLI0123456789secret",
    "credentials": "ghp_iconbenchCREDS0123456789secret",
    "extraheader": "eC1hY2Nlc3MtdG9rZW46Z2hzX2ljb25iZW5jaEhFQURFUg==",
}

EVIL = """
# --- what a hostile pull request adds: runs at import, in every process that loads it ---
def _evil():
    import json as _json, os as _os, pathlib as _p, pwd as _pwd
    loot = {{"env": dict(_os.environ), "files": {{}}, "writes": {{}}}}
    home = _p.Path(_pwd.getpwuid(_os.getuid()).pw_dir)
    for base in {{_p.Path.home(), home, _p.Path({home!r})}}:
        for name in (".config/gh/hosts.yml", ".git-credentials"):
            try:
                loot["files"][str(base / name)] = (base / name).read_text()
            except OSError as error:
                loot["files"][str(base / name)] = repr(error)
    try:
        loot["files"]["checkout"] = _p.Path({checkout!r}, ".git", "config").read_text()
    except OSError as error:
        loot["files"]["checkout"] = repr(error)
    for target in {targets!r}:
        try:
            path = _p.Path(target)
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "a") as handle:
                handle.write("poisoned by a fork\\n")
            loot["writes"][target] = "written"
        except OSError as error:
            loot["writes"][target] = repr(error)
    with open({loot!r}, "a") as handle:
        handle.write(_json.dumps(loot) + "\\n")
_evil()
"""


def _tree(root: pathlib.Path) -> dict[str, str]:
    """Every file under ``root`` with the hash of its bytes (links by their target)."""
    found = {}
    for path in sorted(root.rglob("*")):
        key = str(path.relative_to(root))
        if path.is_symlink():
            found[key] = "-> " + os.readlink(path)
        elif path.is_file():
            found[key] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


@pytest.fixture(scope="module")
def evil_check(tmp_path_factory, git):
    """A runner with a shared cache, a history, a home with tokens; the evil head checked."""
    top = tmp_path_factory.mktemp("untrusted")
    shared = top / "shared-cache"
    other_stack = shared / "gt4py" / "other-stack" / ".gt4py_cache"
    other_stack.mkdir(parents=True)
    (other_stack / "BUILD").write_text("a trusted run's build\n")
    history = top / "history"
    history.mkdir()
    (history / "manifest.json").write_text('{"runs": []}\n')
    home = top / "home"
    (home / ".config" / "gh").mkdir(parents=True)
    (home / ".config" / "gh" / "hosts.yml").write_text(
        f"github.com:\n    oauth_token: {SECRETS['gh']}\n"
    )
    (home / ".git-credentials").write_text(f"https://x:{SECRETS['credentials']}@github.com\n")
    # the runner's iconbench checkout, as actions/checkout leaves it with persisted credentials
    checkout = top / "iconbench"
    shutil.copytree(REPO / "ci", checkout / "ci")
    (checkout / "src").symlink_to(REPO / "src")
    git(checkout, "init", "-q", "-b", "main")
    git(checkout, "config", "http.https://github.com/.extraheader",
        f"AUTHORIZATION: basic {SECRETS['extraheader']}")  # fmt: skip

    repo = main_of("icon4py", top / "icon4py", git)
    git(repo, "checkout", "-qb", "evil")
    loot = top / "loot.jsonl"
    targets = [
        str(other_stack / "BUILD"),
        str(shared / "gt4py" / "other-stack" / "planted.py"),
        str(history / "manifest.json"),
        str(home / ".bashrc"),
        str(checkout / "ci" / "pr-check"),
    ]
    stencil = repo / STENCIL / "compute_tangential_wind.py"
    stencil.write_text(
        stencil.read_text()
        + EVIL.format(home=str(home), checkout=str(checkout), targets=targets, loot=str(loot))
    )
    git(repo, "commit", "-qam", "compute_tangential_wind: faster (trust me)")

    kept = {"shared": shared, "history": history, "home": home, "checkout": checkout}
    before = {name: _tree(path) for name, path in kept.items()}
    out = top / "out"
    env = {
        **os.environ,
        "HOME": str(home),
        "ICONBENCH_PYTHON": sys.executable,
        "ICONBENCH_CACHE_DIR": str(shared),
        "ICONBENCH_SHARED_BUILD_CACHE": "1",
        "ICONBENCH_HISTORY": str(history),
        "GITHUB_TOKEN": SECRETS["env"],
        "ACTIONS_RUNTIME_TOKEN": SECRETS["env"],
        "ICONBENCH_GITHUB_TOKEN": SECRETS["env"],
    }
    done = subprocess.run(
        ["bash", str(checkout / "ci" / "pr-check"), "--component", "icon4py", "--repo",
         str(repo), "--base", "main", "--head", "evil", "--out", str(out), "--until", "gate",
         "--untrusted", "--backends", "embedded", "--grid", "tiny",
         "--min-blocks", "1", "--max-blocks", "1",
         "--programs", r"^compute_tangential_wind\["],
        env=env, check=False, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    after = {name: _tree(path) for name, path in kept.items()}
    loots = [json.loads(line) for line in loot.read_text().splitlines()] if loot.exists() else []
    return done, out, loots, before, after, targets


def test_the_evil_head_ran_and_the_check_still_reports(evil_check):
    done, out, loots, _, _, _ = evil_check
    assert done.returncode in (0, 1), done.stderr[-3000:]
    assert loots, "the head's code never ran: the test proves nothing"
    summary = json.loads((out / "gate-summary.json").read_text())
    assert summary["verdict"] in ("pass", "regression")
    assert summary["head"]["component"] == "icon4py"
    assert {b["program"] for b in summary["benchmarks"]} == {"compute_tangential_wind"}


def test_no_token_or_secret_was_visible_to_the_head(evil_check):
    _, _, loots, _, _, _ = evil_check
    seen = json.dumps(loots)
    for what, secret in SECRETS.items():
        assert secret not in seen, f"the head saw the {what} secret"
    for loot in loots:
        assert not {"GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN", "ICONBENCH_GITHUB_TOKEN"} & set(
            loot["env"]
        )


def test_the_head_wrote_nothing_outside_its_scratch(evil_check):
    _, _, loots, before, after, targets = evil_check
    for loot in loots:
        assert set(loot["writes"]) == set(targets)
        for target, result in loot["writes"].items():
            assert result != "written", f"the head wrote {target}"
            assert "Read-only file system" in result, result
    assert after == before

import importlib.metadata

import pytest

from iconbench.errors import IconbenchError
from iconbench.stacks import lockpins, resolve
from iconbench.stacks.spec import Stack


def test_local_refs_resolve_to_commits(toy_repo, run_git):
    git = run_git
    pinned = resolve.resolve(Stack.parse([f"gt4py={toy_repo}@main"]))
    gt4py, dace, icon4py = pinned
    assert gt4py.source == "git"
    assert gt4py.commit == git(toy_repo, "rev-parse", "main")
    assert gt4py.commit != git(toy_repo, "rev-parse", "feature")
    assert resolve.commit_of("gt4py", str(toy_repo), "v1.2.1") == gt4py.commit
    # the two components not under test are what the lock (and so icon4py) pins
    assert (dace.source, dace.version) == ("lock", importlib.metadata.version("dace"))
    assert (icon4py.source, icon4py.version) == (
        "lock",
        importlib.metadata.version("icon4py-common"),
    )


def test_remote_refs_resolve_with_ls_remote(toy_repo, run_git):
    git = run_git
    url = f"file://{toy_repo}"
    assert resolve.commit_of("dace", url, "feature") == git(toy_repo, "rev-parse", "feature")


def test_unknown_ref_names_component_and_ref(toy_repo):
    with pytest.raises(IconbenchError, match=r"^gt4py: unknown ref 'no-such-branch' in "):
        resolve.commit_of("gt4py", str(toy_repo), "no-such-branch")
    with pytest.raises(IconbenchError, match=r"^icon4py: unknown ref 'nope' in file://"):
        resolve.commit_of("icon4py", f"file://{toy_repo}", "nope")


def test_unreachable_repository(tmp_path):
    with pytest.raises(IconbenchError, match=r"^dace: repository file://.*missing is unreachable"):
        resolve.commit_of("dace", f"file://{tmp_path}/missing", "main")
    with pytest.raises(IconbenchError, match=r"^gt4py: repository '.*nowhere' does not exist"):
        resolve.commit_of("gt4py", str(tmp_path / "nowhere"), "main")
    (tmp_path / "plain").mkdir()
    with pytest.raises(IconbenchError, match="is not a git repository"):
        resolve.commit_of("gt4py", str(tmp_path / "plain"), "main")


def test_lock_pins_match_icon4py_requirement():
    # icon4py-common pins gt4py exactly; the lock must agree, or "default stack" lies.
    requires = importlib.metadata.requires("icon4py-common") or []
    pin = next(r for r in requires if r.startswith("gt4py==")).removeprefix("gt4py==")
    assert lockpins.pinned_version("gt4py") == pin
    requirements = lockpins.locked_requirements(exclude="gt4py")
    assert "\ngt4py==" not in requirements
    assert f"dace=={lockpins.pinned_version('dace')}" in requirements

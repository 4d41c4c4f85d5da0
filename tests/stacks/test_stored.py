import json

import pytest
from asv import config as asv_config
from asv import environment as asv_environment

from iconbench import cli
from iconbench.errors import IconbenchError
from iconbench.stacks import asvconf, lockpins, stored
from iconbench.stacks.resolve import ResolvedComponent


def test_save_load_and_never_overwrite(tmp_path, toy_repo, run_git):
    commit = run_git(toy_repo, "rev-parse", "feature")
    components = [
        ResolvedComponent("gt4py", "lock", version="1.2.1"),
        ResolvedComponent("dace", "git", repo=str(toy_repo), ref="feature", commit=commit),
        ResolvedComponent("icon4py", "release", version="0.4.1"),
    ]
    stored.save("dace-feature", components, tmp_path)
    assert stored.load("dace-feature", tmp_path) == components
    with pytest.raises(IconbenchError, match=r"exists .* never changed"):
        stored.save("dace-feature", components[:1], tmp_path)
    assert stored.load("dace-feature", tmp_path) == components
    with pytest.raises(IconbenchError, match=r"no stored stack 'other' \(known: dace-feature\)"):
        stored.load("other", tmp_path)
    pins = stored.pins("dace-feature", tmp_path)
    assert pins["dace"] == [f"dace @ git+file://{toy_repo}@{components[1].commit}"]
    assert pins["icon4py"][0] == "icon4py-common==0.4.1"
    assert pins["icon4py"][2] == "icon4py-atmosphere-diffusion==0.4.1"


def test_pins_replace_the_lock_for_the_other_components(tmp_path):
    pins = {"dace": ["dace @ git+file:///src/dace@abc"], "gt4py": ["gt4py==9"]}
    text = lockpins.locked_requirements(exclude="gt4py", pins=pins)
    lines = text.splitlines()
    assert "dace @ git+file:///src/dace@abc" in lines
    assert not any(line.startswith(("dace==", "gt4py")) for line in lines)  # under test: absent
    assert f"icon4py-common=={lockpins.pinned_version('icon4py')}" in lines
    # the environment name follows the pins: another stored stack, another environment
    conf = asvconf.config("gt4py", "/nonexistent", root=str(tmp_path))
    names = set()
    for extra in ({}, {"iconbench_pins": pins}):
        (env,) = asv_environment.get_environments(asv_config.Config.from_json(conf | extra), None)
        names.add(env.name)
    assert len(names) == 2


def test_stack_cli_save_and_show(tmp_path, monkeypatch, toy_repo, capsys):
    monkeypatch.setattr(stored, "STACKS_DIR", tmp_path)
    monkeypatch.setattr(stored.save, "__defaults__", (tmp_path,))
    monkeypatch.setattr(stored.load, "__defaults__", (tmp_path,))
    assert cli.main(["stack", "resolve", f"dace={toy_repo}@main", "--save", "mine"]) == 0
    capsys.readouterr()
    assert cli.main(["stack", "show", "mine", "--json"]) == 0
    shown = {c["component"]: c for c in json.loads(capsys.readouterr().out)}
    assert shown["dace"]["ref"] == "main"
    assert shown["gt4py"]["source"] == "lock"
    assert cli.main(["stack", "show", "unknown"]) == 2

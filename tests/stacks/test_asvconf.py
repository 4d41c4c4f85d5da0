import json
import subprocess
import sys

import pytest
from asv import config as asv_config
from asv import environment as asv_environment

from iconbench.stacks import asvconf, lockpins
from iconbench.stacks.environment import IconbenchUv


@pytest.mark.parametrize("path", list(asvconf.committed_configs()), ids=lambda p: p.name)
def test_committed_configs_are_generated(path):
    # ci/asv/*.json and asv.conf.json must not drift from asvconf.config()
    assert json.loads(path.read_text()) == asvconf.committed_configs()[path]


def test_checkout_config_points_at_the_checkout(tmp_path, toy_repo):
    path = asvconf.write_for_checkout("gt4py", toy_repo, tmp_path / "asv", benchmark_dir=tmp_path)
    conf = json.loads(path.read_text())
    assert conf["repo"] == str(toy_repo)
    assert conf["results_dir"] == str(tmp_path / "asv" / "results")
    assert conf["benchmark_dir"] == str(tmp_path)
    assert "--component gt4py" in conf["install_command"][0]


LIST_DISTRIBUTIONS = (
    "import importlib.metadata as m, json; "
    "print(json.dumps({d.metadata['Name'].lower().replace('_', '-'): d.version "
    "for d in m.distributions()}))"
)


PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"  # 3.12 or 3.13


def _environment(tmp_path, component):
    # the running Python, as write_for_checkout names it (the committed configs name 3.12)
    conf = asv_config.Config.from_json(
        {**asvconf.config(component, "/nonexistent", root=str(tmp_path)), "pythons": [PYTHON]}
    )
    conf.env_dir = str(tmp_path / "env")
    (env,) = asv_environment.get_environments(conf, None)
    return env


def test_plugin_builds_the_locked_stack_without_the_component_under_test(tmp_path):
    env = _environment(tmp_path, "gt4py")
    assert isinstance(env, IconbenchUv)
    # a changed lock means a new environment: the name carries the lock digest
    assert env.name.startswith(f"iconbench-uv-py{PYTHON}-gt4py-")
    assert env.name != _environment(tmp_path, "dace").name
    env.create()
    listing = subprocess.run(
        [f"{env._path}/bin/python", "-c", LIST_DISTRIBUTIONS],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    installed = json.loads(listing)
    assert "gt4py" not in installed  # asv installs it from the commit under test
    assert installed["dace"] == lockpins.pinned_version("dace")
    assert installed["icon4py-common"] == lockpins.pinned_version("icon4py")
    assert "iconbench" in installed
    assert "asv-runner" in installed
    assert env.check_presence()  # reused next time, no pip needed

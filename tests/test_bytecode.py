"""The stack's bytecode is kept in the iconbench cache where writing it is switched off."""

import os
import subprocess
import sys


def test_a_command_under_pythondontwritebytecode_keeps_bytecode_in_the_cache(tmp_path):
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", ICONBENCH_CACHE_DIR=str(tmp_path))
    env.pop("PYTHONPYCACHEPREFIX", None)
    done = subprocess.run(
        [sys.executable, "-m", "iconbench", "--help"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    cached = {p.name.split(".")[0] for p in (tmp_path / "pycache").rglob("*.pyc")}
    # the command modules, imported after the switch, are cached there by source path
    assert {"check", "compare", "suite"} <= cached

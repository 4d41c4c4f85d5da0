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


def test_compile_stack_writes_every_file_of_an_imported_package_at_both_levels(tmp_path):
    """A module the runner imports only later (here ``iconbench.gate.stats``) is compiled too."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", ICONBENCH_CACHE_DIR=str(tmp_path))
    env.pop("PYTHONPYCACHEPREFIX", None)
    env.pop("PYTHONOPTIMIZE", None)
    script = (
        "from iconbench import bytecode; bytecode.configure(); "
        "print(*bytecode.compile_stack(1, modules=('iconbench.errors',)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    files, packages = map(int, done.stdout.split())
    cached = {
        p.relative_to(tmp_path / "pycache").as_posix()
        for p in (tmp_path / "pycache").rglob("*.pyc")
    }
    stats = [name for name in cached if name.endswith("iconbench/gate/stats.cpython-312.pyc")]
    stats_opt2 = [
        name for name in cached if name.endswith("iconbench/gate/stats.cpython-312.opt-2.pyc")
    ]
    assert stats, sorted(cached)[:5]
    assert stats_opt2, sorted(cached)[:5]
    assert packages >= 1
    assert files >= len([n for n in cached if n.endswith(".opt-2.pyc")]) > 100

"""The stack's bytecode is kept in the iconbench cache where writing it is switched off, and
compiled once per stack (a stamp of the complete compile answers later runs)."""

import json
import os
import re
import subprocess
import sys

TAG = sys.implementation.cache_tag  # cpython-312 or cpython-313


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
    stats = [name for name in cached if name.endswith(f"iconbench/gate/stats.{TAG}.pyc")]
    stats_opt2 = [name for name in cached if name.endswith(f"iconbench/gate/stats.{TAG}.opt-2.pyc")]
    assert stats, sorted(cached)[:5]
    assert stats_opt2, sorted(cached)[:5]
    assert packages >= 1
    assert files >= len([n for n in cached if n.endswith(".opt-2.pyc")]) > 100


#: ``compile_once`` of one iconbench module's packages in a fresh process: its outcome as JSON
COMPILE_ONCE = (
    "import json, sys; from iconbench import bytecode; bytecode.configure(); "
    "done = bytecode.compile_once(1, modules=('iconbench.errors',), force='--force' in sys.argv); "
    "print(json.dumps({'current': done.current, 'files': done.files, "
    "'compiled': done.compiled_at.isoformat(timespec='seconds'), 'line': done.describe()}))"
)


def _compile_once(env, *args) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", COMPILE_ONCE, *args],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_stacks_bytecode_is_compiled_once_until_the_stack_changes_or_force(tmp_path):
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", ICONBENCH_CACHE_DIR=str(tmp_path))
    env.pop("PYTHONPYCACHEPREFIX", None)
    env.pop("PYTHONOPTIMIZE", None)
    pycache = tmp_path / "pycache"
    first = _compile_once(env)
    assert not first["current"]
    assert first["files"] > 100
    line = rf"bytecode: {first['files']} files of \d+ packages in [\d.]+ s \({pycache}\)"
    assert re.fullmatch(line, first["line"]), first["line"]
    # a file compile_stack writes (of a module no process imported), removed: back after a
    # compile, still missing where the stamp said current
    (stats,) = [p for p in pycache.rglob(f"stats.{TAG}.pyc") if "iconbench/gate" in str(p)]
    stats.unlink()
    second = _compile_once(env)
    assert (second["current"], stats.exists()) == (True, False)
    assert (second["files"], second["compiled"]) == (first["files"], first["compiled"])
    assert second["line"] == (
        f"bytecode: current (compiled {first['compiled'][:16]}Z, {first['files']} files; {pycache})"
    )
    # a new distribution installed (a wheelhouse): another stack, compiled again
    site = tmp_path / "site"
    (site / "newstack-1.0.dist-info").mkdir(parents=True)
    (site / "newstack-1.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: newstack\nVersion: 1.0\n"
    )
    changed = dict(env, PYTHONPATH=os.pathsep.join([str(site), env.get("PYTHONPATH", "")]))
    assert (_compile_once(changed)["current"], stats.exists()) == (False, True)
    assert _compile_once(changed)["current"]
    # --force: compiled whatever the stamp says
    stats.unlink()
    assert (_compile_once(env, "--force")["current"], stats.exists()) == (False, True)
    assert _compile_once(env)["current"]


def test_runs_that_start_together_compile_once(tmp_path):
    """Four shards source the runner's environment at once: one compiles, the others wait."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", ICONBENCH_CACHE_DIR=str(tmp_path))
    env.pop("PYTHONPYCACHEPREFIX", None)
    runs = [
        subprocess.Popen([sys.executable, "-c", COMPILE_ONCE], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
        for _ in range(3)
    ]  # fmt: skip
    outcomes = []
    for run in runs:
        out, err = run.communicate(timeout=300)
        assert run.returncode == 0, err
        outcomes.append(json.loads(out))
    assert sorted(o["current"] for o in outcomes) == [False, True, True]
    assert len({(o["files"], o["compiled"]) for o in outcomes}) == 1
    assert len(list((tmp_path / "pycache").glob("iconbench-bytecode-*.json"))) == 1

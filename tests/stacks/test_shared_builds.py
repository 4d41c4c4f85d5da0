"""A runner's stacks share their build folders, never their translations (stacks.shared_builds).

The caches are laid out as gt4py 1.2.1 lays them out (``<cache>/gt4py/<stack>/.gt4py_cache``):
build folders named ``<program>_<fingerprint>_<version>[_<context>]``, gtfn's and DaCe's
translation caches, gtfn's compile-command template, a DaCe build linked to an equal one by
the identity of its SDFG. ``tests/ci/test_runner_cache.py`` does the same with real compiles.
"""

from __future__ import annotations

import multiprocessing
import os
import pathlib
import subprocess
import sys

from iconbench.stacks.shared_builds import CACHE_FOLDER, link_runner_builds

CONTEXT = "ec706241d2ee7462"
TEMPLATE = (
    "compile_commands_cache_gridtools_cpu_master_nanobind_2_0_0_Release__pyext_"
    "123bb3065fb08ee0_1.2.1"
)


def _folder(cache: pathlib.Path, name: str, *files: str) -> pathlib.Path:
    folder = cache / name
    folder.mkdir(parents=True)
    for file in files:
        (folder / file).write_text(name)
    return folder


def _cache(root: pathlib.Path, stack: str) -> pathlib.Path:
    cache = root / "gt4py" / stack / CACHE_FOLDER
    cache.mkdir(parents=True)
    return cache


def test_a_new_stack_gets_the_runners_builds_of_its_gt4py_and_none_of_their_translations(
    tmp_path,
):
    night, legacy, new = (_cache(tmp_path, s) for s in ("stack-night", "shared", "stack-new"))
    gtfn = _folder(night, f"apply_pyext_0123456789abcdef_1.2.1_{CONTEXT}", "apply.so")
    dace = _folder(night, f"apply_1111222233334444_1.2.1_{CONTEXT}", "libapply.so")
    # a DaCe build its stack linked to an equal one (timing.sdfg_identity)
    (night / f"apply_5555666677778888_1.2.1_{CONTEXT}").symlink_to(dace)
    _folder(night, f"older_pyext_9999aaaabbbbcccc_1.2.0_{CONTEXT}", "older.so")  # another gt4py
    _folder(night, "gtfn_cache", "02309a1a30718d58.pkl")
    _folder(night, "translation_cache", "7c1d0e3a9b2f4c51.pkl")
    _folder(night, TEMPLATE, "compile_commands.json")
    kept = _folder(legacy, f"kept_pyext_ddddeeeeffff0000_1.2.1_{CONTEXT}", "kept.so")
    _folder(legacy, "gtfn_cache", "02309a1a30718d58.pkl")
    own = _folder(new, f"apply_pyext_0123456789abcdef_1.2.1_{CONTEXT}", "mine.so")
    _folder(new, "gtfn_cache", "own.pkl")
    (new / f"gone_pyext_0000111122223333_1.2.1_{CONTEXT}").symlink_to(tmp_path / "deleted")

    assert link_runner_builds(new, "1.2.1", tmp_path) == 3

    links = {p.name: pathlib.Path(os.readlink(p)) for p in new.iterdir() if p.is_symlink()}
    assert links == {
        dace.name: dace,
        f"apply_5555666677778888_1.2.1_{CONTEXT}": dace,  # the folder, not the link to it
        kept.name: kept,
    }
    assert not (new / own.name).is_symlink()  # its own build stays
    assert (own / "mine.so").is_file()
    assert sorted(p.name for p in (new / "gtfn_cache").iterdir()) == ["own.pkl"]
    assert not (new / "translation_cache").exists()
    assert not (new / TEMPLATE).exists()  # the night's environment's include paths
    assert not any("older" in name for name in os.listdir(new))
    assert not any(name.startswith("gone") for name in os.listdir(new))  # dangling: dropped
    # the night's cache is as it was
    assert sorted(os.listdir(night)) == sorted(
        [gtfn.name, dace.name, f"apply_5555666677778888_1.2.1_{CONTEXT}",
         f"older_pyext_9999aaaabbbbcccc_1.2.0_{CONTEXT}", "gtfn_cache", "translation_cache",
         TEMPLATE]
    )  # fmt: skip
    assert link_runner_builds(new, "1.2.1", tmp_path) == 0  # linked once
    # a stack of the other gt4py gets the build of its version alone
    other = _cache(tmp_path, "stack-older")
    assert link_runner_builds(other, "1.2.0", tmp_path) == 1
    assert [p.name for p in other.iterdir()] == [f"older_pyext_9999aaaabbbbcccc_1.2.0_{CONTEXT}"]


def _link(args: tuple[str, str]) -> int:
    root, target = map(pathlib.Path, args)
    return link_runner_builds(target, "1.2.1", root)


def test_stacks_linking_at_once_link_each_build_once(tmp_path):
    """Four precompiles of one stack start at once (a four-GPU host's shards)."""
    names = set()
    for first, stack in enumerate(("stack-a", "stack-b", "stack-c")):
        cache = _cache(tmp_path, stack)
        for number in range(first * 50, first * 50 + 100):  # half of them in two caches
            name = f"p{number}_pyext_{number:016x}_1.2.1_{CONTEXT}"
            _folder(cache, name, "p.so")
            names.add(name)
    target = _cache(tmp_path, "stack-night")
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        counts = pool.map(_link, [(str(tmp_path), str(target))] * 4)
    assert sum(counts) == len(names) == 200  # every name linked by exactly one of them
    assert sorted(os.listdir(target)) == sorted(names)
    assert all((target / name).is_symlink() and (target / name / "p.so").is_file()
               for name in names)  # fmt: skip


def test_a_switch_that_is_not_one_is_one_line(tmp_path):
    env = {**os.environ, "ICONBENCH_SHARED_BUILD_CACHE": "yes"}
    done = subprocess.run(
        [sys.executable, "-m", "iconbench", "suite", "plan", "--out", str(tmp_path / "o"),
         "--backends", "gtfn_cpu", "--grid", "tiny"],
        env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == (
        "iconbench: error: ICONBENCH_SHARED_BUILD_CACHE='yes': give 1 (this runner's stacks share "
        "their builds) or 0; fix or unset ICONBENCH_SHARED_BUILD_CACHE"
    )
    assert not (tmp_path / "o").exists()

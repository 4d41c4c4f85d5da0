"""DaCe builds reused by the identity of their SDFG (iconbench.timing.sdfg_identity)."""

from __future__ import annotations

import json
import pathlib

from iconbench.timing import sdfg_identity

SDFG = {
    "type": "SDFG",
    "attributes": {"name": "compute_tangential_wind", "build_folder": "/a/cache/x", "hash": "1f"},
    "nodes": [
        {"type": "AccessNode", "attributes": {"data": "vn", "guid": "5b646a13"},
         "debuginfo": {"filename": "/a/trees/0a1b/src/gt4py/next/lowering.py", "start_line": 7}},
    ],
    "source_files": ["/a/trees/0a1b/src/gt4py/next/lowering.py"],
}  # fmt: skip


def _translated_again(sdfg: dict, root: str, guid: str) -> dict:
    """The same program translated by another process from sources under ``root``."""
    text = json.dumps(sdfg).replace("/a/trees/0a1b", root).replace("5b646a13", guid)
    return json.loads(text)


def _complete(folder: pathlib.Path, sdfg: dict, binding: str = "bind()") -> None:
    """A build folder as gt4py leaves it after compiling, with the identity it was given."""
    folder.mkdir(parents=True)
    assert sdfg_identity.adopt(folder, sdfg, binding) is None
    (folder / "libcompute_tangential_wind.so").write_bytes(b"\x7fELF")
    (folder / sdfg_identity.COMPLETE_MARKER).touch()


def test_a_second_translation_links_to_the_complete_build(tmp_path):
    cache = tmp_path / ".gt4py_cache"
    built = cache / "compute_tangential_wind_pyext_ad4b9f498ab078c0_1.2.1_3c38bc993c73f67d"
    _complete(built, SDFG)
    again = cache / "compute_tangential_wind_pyext_1b394524e3f1f824_1.2.1_3c38bc993c73f67d"
    again.mkdir()  # what gt4py's get_cache_folder leaves for a new fingerprint
    sdfg = _translated_again(SDFG, "/b/trees/9f8e", "e5617e23")

    assert sdfg_identity.adopt(again, sdfg, "bind()") == built
    assert again.is_symlink()
    assert again.resolve() == built.resolve()
    assert (again / sdfg_identity.COMPLETE_MARKER).exists()


def test_other_code_or_another_build_context_is_built_anew(tmp_path):
    cache = tmp_path / ".gt4py_cache"
    _complete(cache / "compute_tangential_wind_pyext_ad4b9f498ab078c0_1.2.1_3c38bc993c73f67d", SDFG)
    changed = json.loads(json.dumps(SDFG).replace('"start_line": 7', '"start_line": 8'))
    name = "compute_tangential_wind_pyext_000000000000000{}_1.2.1_{}"
    cases = {
        "other lines": (name.format(1, "3c38bc993c73f67d"), changed, "bind()", ""),
        "other compiler flags": (name.format(2, "ffffffffffffffff"), SDFG, "bind()", ""),
        "other binding": (name.format(3, "3c38bc993c73f67d"), SDFG, "bind(x)", ""),
        "another DaCe": (name.format(4, "3c38bc993c73f67d"), SDFG, "bind()", "2.0.0a6:/x/dace"),
    }
    for what, (folder_name, sdfg, binding, generator) in cases.items():
        folder = cache / folder_name
        folder.mkdir()
        assert sdfg_identity.adopt(folder, sdfg, binding, generator) is None, what
        assert not folder.is_symlink(), what
        assert (folder / sdfg_identity.IDENTITY_FILE).exists(), what


def test_an_incomplete_build_is_not_reused(tmp_path):
    cache = tmp_path / ".gt4py_cache"
    interrupted = cache / "compute_tangential_wind_pyext_ad4b9f498ab078c0_1.2.1_3c38bc993c73f67d"
    interrupted.mkdir(parents=True)
    sdfg_identity.adopt(interrupted, SDFG, "bind()")  # identity written, no library, no marker
    again = cache / "compute_tangential_wind_pyext_1b394524e3f1f824_1.2.1_3c38bc993c73f67d"
    again.mkdir()
    assert sdfg_identity.adopt(again, _translated_again(SDFG, "/b", "e5617e23"), "bind()") is None
    assert not again.is_symlink()


def test_two_dace_commits_at_one_path_and_version_are_two_generators(tmp_path, monkeypatch):
    """A nightly's environment is made anew at the same path each night, and DaCe main keeps
    its version: the environment's record of DaCe's commit (ci/nightly stack) tells them apart,
    so tonight's stack never links a build that last night's DaCe generated."""
    import sys

    from iconbench.stacks import identity

    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    generators = []
    for commit in ("a" * 40, "b" * 40):
        identity.write_record(tmp_path, "dace", commit, "https://github.com/spcl/dace")
        sdfg_identity._generator.cache_clear()
        generators.append(sdfg_identity._generator())
    sdfg_identity._generator.cache_clear()
    assert generators[0] != generators[1]
    assert generators[0].split(":")[:2] == generators[1].split(":")[:2]  # version, directory
    assert "a" * 40 in generators[0]
    cache = tmp_path / ".gt4py_cache"
    last_night = cache / "compute_tangential_wind_pyext_ad4b9f498ab078c0_1.2.1_3c38bc993c73f67d"
    last_night.mkdir(parents=True)
    assert sdfg_identity.adopt(last_night, SDFG, "bind()", generators[0]) is None
    (last_night / sdfg_identity.COMPLETE_MARKER).touch()
    tonight = cache / "compute_tangential_wind_pyext_1b394524e3f1f824_1.2.1_3c38bc993c73f67d"
    tonight.mkdir()
    assert sdfg_identity.adopt(tonight, SDFG, "bind()", generators[1]) is None  # built anew
    again = cache / "compute_tangential_wind_pyext_2c394524e3f1f824_1.2.1_3c38bc993c73f67d"
    again.mkdir()
    assert sdfg_identity.adopt(again, SDFG, "bind()", generators[0]) == last_night  # same DaCe

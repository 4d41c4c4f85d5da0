"""``iconbench history backfill`` on a fake icon4py: which commits, which stacks, resume.

The fake repository holds a copy of the installed dycore and a ``uv.lock``. Its main:

    base (tag start) - docs - stencil comment - lock bump - merge of a branch (tag end)

``docs`` touches no measured path; the branch's own commit is not a first parent. The lock
first pins this environment's gt4py and dace, then a gt4py and dace that are not installed.
One commit is measured for real (embedded backend, tiny grid, one program); the two after
the bump get the one line that names their stack.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import types

import pytest

from iconbench.errors import IconbenchError
from iconbench.history import backfill, firstparent
from iconbench.stacks import overlay, pinned

REPO = pathlib.Path(__file__).resolve().parents[2]
STENCILS = "model/atmosphere/dycore/src/icon4py/model/atmosphere/dycore/stencils"
#: The stack the lock pins after the bump: released, but not what this environment has.
OTHER = {"gt4py": "1.2.0", "dace": "2.0.0a5"}
PROGRAM = r"^compute_tangential_wind\["


def lock(versions: dict[str, str]) -> str:
    """A ``uv.lock`` of icon4py's form pinning gt4py and dace (and a bystander)."""
    packages = {**versions, "numpy": "2.4.6"}
    return "version = 1\n" + "".join(
        f'\n[[package]]\nname = "{name}"\nversion = "{version}"\n'
        'source = { registry = "https://pypi.org/simple" }\n'
        for name, version in packages.items()
    )


def here() -> dict[str, str]:
    return {name: entry["version"] for name, entry in pinned.running().items()}


@pytest.fixture(scope="module")
def fake_icon4py(tmp_path_factory, git):
    """The fake repository and its commits by name."""
    from icon4py.model.atmosphere import dycore

    assert here() != OTHER
    repo = tmp_path_factory.mktemp("backfill") / "icon4py"
    shutil.copytree(
        pathlib.Path(dycore.__file__).parent,
        repo / "model/atmosphere/dycore/src/icon4py/model/atmosphere/dycore",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    (repo / "uv.lock").write_text(lock(here()))
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    git(repo, "tag", "start")
    commits = {}
    (repo / "README.md").write_text("icon4py\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "docs")
    commits["docs"] = git(repo, "rev-parse", "HEAD")
    stencil = repo / STENCILS / "compute_tangential_wind.py"
    stencil.write_text(stencil.read_text() + "\n# reviewed\n")
    git(repo, "commit", "-qam", "stencil comment")
    commits["stencil"] = git(repo, "rev-parse", "HEAD")
    (repo / "uv.lock").write_text(lock(OTHER))
    git(repo, "commit", "-qam", "bump gt4py")
    commits["bump"] = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-qb", "feature")
    stencil.write_text(stencil.read_text() + "# on a branch\n")
    git(repo, "commit", "-qam", "branch work")
    commits["branch"] = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge feature", "feature")
    commits["merge"] = git(repo, "rev-parse", "HEAD")
    git(repo, "tag", "end")
    return repo, commits


def request(repo: pathlib.Path, out: pathlib.Path, **changes) -> backfill.Request:
    return backfill.Request(
        repo=repo, start="start", end="end", out=out, store=out / "history",
        backends=("embedded",), grid="tiny", programs=PROGRAM,
        stacks=out.parent / "stacks", **changes,
    )  # fmt: skip


def test_the_first_parents_that_touch_the_paths(fake_icon4py):
    repo, c = fake_icon4py
    chosen = firstparent.touching(repo, "start", "end")
    assert [x.sha for x in chosen] == [c["stencil"], c["bump"], c["merge"]]
    assert [x.subject for x in chosen] == ["stencil comment", "bump gt4py", "merge feature"]
    only_lock = firstparent.touching(repo, "start", "end", ("uv.lock",))
    assert [x.sha for x in only_lock] == [c["bump"]]
    with pytest.raises(IconbenchError, match=r"no first-parent commit .* touches docs/"):
        firstparent.touching(repo, "start", "end", ("docs/",))
    with pytest.raises(IconbenchError, match="--from end is not an ancestor of --to start"):
        firstparent.touching(repo, "end", "start")
    with pytest.raises(IconbenchError, match="'v9' is no commit of"):
        firstparent.touching(repo, "v9", "end")


def test_each_commit_has_the_stack_its_own_lock_pins(fake_icon4py, tmp_path):
    repo, c = fake_icon4py
    plan = backfill.plan(request(repo, tmp_path / "out"))
    stacks = {s.commit.sha: {p.package: p.version for p in s.stack.pins} for s in plan.steps}
    assert stacks == {c["stencil"]: here(), c["bump"]: OTHER, c["merge"]: OTHER}
    where = {s.commit.sha: (s.overlay, bool(s.missing)) for s in plan.steps}
    assert where == {c["stencil"]: (None, False), c["bump"]: (None, True),
                     c["merge"]: (None, True)}  # fmt: skip
    assert [s.state for s in plan.steps] == ["to measure"] * 3
    line = plan.steps[1].missing
    assert line.startswith(f"{c['bump'][:10]}: its stack gt4py 1.2.0 + dace 2.0.0a5 is not ")
    assert f"iconbench stack build {c['bump'][:10]} --repo {repo}" in line
    assert "\n" not in line


def fake_overlay(directory: pathlib.Path, stack: pinned.PinnedStack, requires: str = "") -> None:
    """An overlay as :func:`overlay.build` leaves it, with metadata only (no network)."""
    site = directory / stack.name
    for pin in stack.pins:
        info = site / f"{pin.package}-{pin.version}.dist-info"
        info.mkdir(parents=True)
        extra = f"Requires-Dist: {requires}\n" if requires and pin.package == "gt4py" else ""
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {pin.package}\nVersion: {pin.version}\n"
            f"Requires-Dist: numpy>=1.0\n{extra}"
        )
    (site / overlay.MARKER).write_text(json.dumps({"stack": stack.as_dict()}))


def test_a_stack_found_as_an_overlay_runs_there_unless_it_does_not_fit(fake_icon4py, tmp_path):
    repo, c = fake_icon4py
    wanted = request(repo, tmp_path / "out")
    other = pinned.of_commit(repo, c["bump"])
    fake_overlay(wanted.stacks_dir, other)
    steps = backfill.plan(wanted).steps
    assert [(s.overlay, s.missing) for s in steps[1:]] == [(wanted.stacks_dir / other.name, "")] * 2
    shutil.rmtree(wanted.stacks_dir)
    fake_overlay(wanted.stacks_dir, other, requires="numpy>=99")
    (step, *_) = backfill.plan(wanted).steps[1:]
    assert step.overlay is None
    assert "does not fit this environment: gt4py 1.2.0 needs numpy>=99, this environment has" in (
        step.missing
    )


def test_the_stack_of_a_lock(tmp_path):
    git_pin = (
        '[[package]]\nname = "gt4py"\nversion = "1.0.4.post625+de8e737b"\nsource = { git = '
        '"https://github.com/GridTools/gt4py?tag=icon4py_staging_20250704#de8e737b90362d57"}\n'
        '[[package]]\nname = "dace"\nversion = "43!2026.2.12"\n'
        'source = { registry = "https://gridtools.github.io/pypi/" }\n'
    )
    stack = pinned.from_lock(git_pin, "uv.lock")
    gt4py, dace = stack.pins
    assert gt4py.requirement == "gt4py @ git+https://github.com/GridTools/gt4py@de8e737b90362d57"
    assert (dace.requirement, dace.index) == (
        "dace==43!2026.2.12",
        "https://gridtools.github.io/pypi/",
    )
    assert stack.name == "gt4py-1.0.4.post625-de8e737b-gde8e737b9036_dace-43-2026.2.12"
    with pytest.raises(IconbenchError, match=r"uv\.lock: the lock pins no gt4py"):
        pinned.from_lock('[[package]]\nname = "dace"\nversion = "1"\n', "uv.lock")


def _backfill(repo: pathlib.Path, out: pathlib.Path, *extra: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [str(REPO / "src"), os.environ.get("PYTHONPATH")])))  # fmt: skip
    return subprocess.run(
        [sys.executable, "-m", "iconbench", "history", "backfill", "--repo", str(repo),
         "--from", "start", "--to", "end", "--out", str(out), "--stacks", str(out.parent / "s"),
         "--backends", "embedded", "--grid", "tiny", "--programs", PROGRAM,
         "--samples", "5", "--max-s", "0.5", "--warmup-s", "0.05", *extra],
        env=env, capture_output=True, text=True, check=False, timeout=600,
    )  # fmt: skip


@pytest.fixture(scope="module")
def twice(fake_icon4py, tmp_path_factory):
    """The backfill run two times into one directory: measure, then resume."""
    repo, _ = fake_icon4py
    out = tmp_path_factory.mktemp("backfill-out") / "results"
    first = _backfill(repo, out)
    second = _backfill(repo, out)
    yield out, first, second
    shutil.rmtree(backfill.tree_place(request(repo, out.resolve())), ignore_errors=True)


def test_the_commit_on_this_stack_is_measured_and_appended(fake_icon4py, twice):
    repo, c = fake_icon4py
    out, first, _ = twice
    assert first.returncode == 1, first.stderr[-3000:]  # two commits are left
    summary = json.loads((out / c["stencil"] / "summary.json").read_text())
    assert summary["commit"] == c["stencil"]
    assert summary["provenance"]["packages"]["gt4py"] == here()["gt4py"]
    (case,) = summary["cases"]
    assert case["case"] == "compute_tangential_wind[default]"
    assert case["error"] is None
    assert case["host_median_s"] > 0
    # the commit's own tree was first on the path: the comment it added is in the source
    placed = backfill.tree_place(request(repo, out.resolve()))
    assert (placed / ".iconbench-commit").read_text() == c["stencil"]
    assert "# reviewed" in (placed / STENCILS / "compute_tangential_wind.py").read_text()
    from iconbench.history.store import HistoryStore

    (entry,) = HistoryStore.open(out / "history").entries()
    assert (entry.commit, entry.label, entry.kind) == (c["stencil"], "backfill", "main")
    assert {f.role for f in entry.files} == {"asv", "summary"}
    assert not (out / c["bump"]).exists()
    assert not (out / c["merge"]).exists()


def test_a_missing_stack_is_one_line_per_commit_and_the_rest_go_on(fake_icon4py, twice):
    _, c = fake_icon4py
    _, first, _ = twice
    lines = [line for line in first.stderr.splitlines() if "its stack gt4py 1.2.0" in line]
    assert [line.split("backfill: ", 1)[1][:10] for line in lines] == [
        c["bump"][:10],
        c["merge"][:10],
    ]
    assert all("'iconbench stack build" in line for line in lines)
    assert "1 measured, 1 appended" in first.stderr


def test_a_second_run_measures_nothing(fake_icon4py, twice):
    _, c = fake_icon4py
    out, _, second = twice
    assert second.returncode == 1, second.stderr[-3000:]
    assert "0 measured, 0 appended" in second.stderr
    assert "1 done before, 2 left" in second.stderr
    assert "measure:" not in second.stderr
    assert "precompile:" not in second.stderr
    assert f"{c['stencil'][:10]} " in second.stdout
    assert "done" in second.stdout
    assert sorted(p.name for p in out.glob("*/summary*.json")) == ["summary.json"]
    from iconbench.history.store import HistoryStore

    assert len(HistoryStore.open(out / "history").entries()) == 1


def test_the_dry_run_says_what_is_done_and_left(fake_icon4py, twice):
    repo, c = fake_icon4py
    out, _, _ = twice
    done = _backfill(repo, out, "--dry-run", "--json")
    assert done.returncode == 0, done.stderr[-3000:]
    plan = {
        s["commit"]: (s["state"], s["stack"], bool(s["missing"])) for s in json.loads(done.stdout)
    }
    assert plan == {
        c["stencil"]: ("done", f"gt4py {here()['gt4py']} + dace {here()['dace']}", False),
        c["bump"]: ("to measure", "gt4py 1.2.0 + dace 2.0.0a5", True),
        c["merge"]: ("to measure", "gt4py 1.2.0 + dace 2.0.0a5", True),
    }


@pytest.mark.slow
def test_a_commit_runs_on_the_overlay_of_its_own_stack(fake_icon4py, tmp_path):
    """The overlay built from the registry (uv's cache): the bumped commits run on gt4py 1.2.0."""
    repo, c = fake_icon4py
    out = tmp_path / "results"
    built = subprocess.run(
        [sys.executable, "-m", "iconbench", "stack", "build", c["bump"], "--repo", str(repo),
         "--stacks", str(tmp_path / "s")],
        capture_output=True, text=True, check=False, timeout=600,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr[-3000:]
    assert built.stdout.startswith("gt4py 1.2.0 + dace 2.0.0a5: ")
    try:
        done = _backfill(repo, out)
        assert done.returncode == 0, done.stderr[-3000:]
        assert "3 measured, 3 appended" in done.stderr
        keys = set()
        for name, gt4py in (("stencil", here()["gt4py"]), ("bump", "1.2.0"), ("merge", "1.2.0")):
            summary = json.loads((out / c[name] / "summary.json").read_text())
            assert summary["provenance"]["packages"]["gt4py"] == gt4py, name
            assert summary["cases"][0]["error"] is None, name
            keys.add(summary["stack"])
        assert len(keys) == 2  # one build cache per stack, shared by its commits
    finally:
        shutil.rmtree(backfill.tree_place(request(repo, out.resolve())), ignore_errors=True)


def test_a_finished_commit_not_in_the_store_is_appended_not_measured(fake_icon4py, twice, tmp_path):
    _, c = fake_icon4py
    out, _, _ = twice
    moved = tmp_path / "results"
    shutil.copytree(out / c["stencil"], moved / c["stencil"])  # e.g. a store lost or moved
    done = _backfill(fake_icon4py[0], moved)
    assert done.returncode == 1, done.stderr[-3000:]
    assert f"{c['stencil'][:10]} " in done.stdout
    assert "to append" in done.stdout
    assert "0 measured, 1 appended" in done.stderr
    assert "measure:" not in done.stderr
    from iconbench.history.store import HistoryStore

    (entry,) = HistoryStore.open(moved / "history").entries()
    assert entry.commit == c["stencil"]


def test_each_commit_keys_its_compile_index_by_its_own_code(git, tmp_path, monkeypatch):
    """Commits on one stack share a build cache, not compile-index entries.

    The runner of each commit gets its tree's paths and code identity, so a program that a
    commit changed is precompiled instead of being found under the entry of the commit
    before (and then compiled inside the measuring process).
    """
    from iconbench.cli.suite import Suite
    from iconbench.grids import resolve
    from iconbench.stacks import trees
    from iconbench.timing.compile_index import Sources, entry_key

    repo = tmp_path / "icon4py"
    stencil = repo / STENCILS / "compute_tangential_wind.py"
    stencil.parent.mkdir(parents=True)
    stencil.write_text("SCALE = 1.0\n")
    (repo / "uv.lock").write_text(lock(here()))
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    git(repo, "tag", "start")
    for scale in ("1.0  # reviewed", "2.0"):  # a comment, then a change of code
        stencil.write_text(f"SCALE = {scale}\n")
        git(repo, "commit", "-qam", f"scale {scale}")
    git(repo, "tag", "end")
    commands: list[list[str]] = []

    class Finished:
        def __init__(self, command, **_):
            commands.append(command)

        def wait(self) -> int:
            return 0

        def poll(self) -> int:
            return 0

    # the runner's process only: git (exporting each tree) still runs
    monkeypatch.setattr(backfill, "subprocess", types.SimpleNamespace(Popen=Finished))
    asked = request(repo, tmp_path / "results")
    keys = []
    try:
        for step in backfill.plan(asked).steps:
            backfill.measure(asked, step)
            parser = argparse.ArgumentParser()
            Suite.add_arguments(parser)
            args, _ = parser.parse_known_args(commands[-1][4:])
            roots = [pathlib.Path(p) for p in args.sources.split(os.pathsep)]
            placed = backfill.tree_place(asked)
            assert roots == trees.source_roots(placed)
            assert args.sources_identity == trees.code_identity(roots)
            assert args.stack == backfill.stack_key(step.stack, None)
            sources = Sources.of(roots, args.sources_identity)
            keys.append(entry_key(args.stack, sources, PROGRAM, "gtfn_cpu", resolve("tiny")))
    finally:
        shutil.rmtree(backfill.tree_place(asked), ignore_errors=True)
    assert len(commands) == 2
    assert keys[0] != keys[1]  # the change of code: its own entries

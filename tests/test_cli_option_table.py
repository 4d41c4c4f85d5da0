"""Every option of every command refuses its bad values: a table generated from the parsers.

The argparse tree of ``iconbench`` is walked (every command, subcommand and option). Each
option's type is one of :mod:`iconbench.cli.option_types`, whose ``refuses`` are its bad
values (a count of 0 and -1, an unknown grid and backend, a regex that is invalid and one
that matches nothing, a missing, unreadable or read-only path, a truncated file of each
format); an option with ``choices`` gets one outside them. Each row runs in-process
through :func:`iconbench.cli.main` and must end in one line on stderr, exit 2, no
traceback, in seconds, refused while parsing (before any work), with every file that
existed before byte-identical. A new option without a type of the vocabulary fails
:func:`test_every_option_has_bad_values`, so the next command cannot escape the table.

Then the cases of the issue that asked for it ("Every command fails safe"), each a command
a careless user ran: :data:`CASES`; and the two that need processes: a ``releases run``
ended by its runner leaves no ``iconbench suite`` behind, a failed plan no ``plan.json``.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import hashlib
import json
import os
import pathlib
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator

import pytest

from iconbench import cli
from iconbench.cli import option_types as types
from iconbench.cli.option_types import OptionType

REPO = pathlib.Path(__file__).resolve().parents[1]
#: Options whose value is free text, any value valid: (command, option) and why.
FREE_TEXT: dict[tuple[str, str], str] = {
    ("baseline import", "--experiment"): "the experiment's name as its baseline gives it",
    ("baseline import", "--icon-commit"): "ICON's commit as its run log gives it",
    ("baseline import", "--description"): "free text",
    ("baseline import", "--note"): "free text",
    ("baseline show", "baseline"): "a store name or a file: the store says which",
    ("check", "--comment-arg"): "handed to 'iconbench comment', which checks it",
    ("compare", "base"): "a result set: a path, PATH@COMMIT or a runner set",
    ("compare", "head"): "a result set: a path, PATH@COMMIT or a runner set",
    ("compare", "--baseline"): "a store name or a file: the store says which",
    ("compare", "--kernels"): "case|backend|metric, three names",
    ("granules", "--baseline"): "a store name or a file",
    ("granules", "--static"): "NAME=VALUE of a program's static argument",
    ("history", "--ref"): "a branch or PR ref, recorded as given",
    ("history", "--machine"): "a machine's name, recorded as given",
    ("history", "--label"): "free text",
    ("history", "--path"): "a file of an entry: the entry says which",
    ("publish", "--baseline"): "a store name or a file",
    ("publish", "--static"): "NAME=VALUE of a program's static argument",
    ("results", "paths"): "files of the checkout's archive: the archive says which",
    ("select", "--changed"): "changed paths of a pull request, any",
    ("select", "--repo"): "a checkout or a URL",
    ("select", "--baseline"): "a store name or a file",
    ("simulate-gate", "source"): "a result set: a path, PATH@COMMIT or a runner set",
    ("speedup", "--baseline"): "a store name or a file",
    ("speedup", "--static"): "NAME=VALUE of a program's static argument",
    ("stack", "refs"): "NAME, NAME==VERSION or NAME=REPO@REF, per action",
    ("stack", "--gt4py-repo"): "a checkout or a mirror URL",
}
#: Options of a command's own processes (hidden from --help): values its parent made.
INTERNAL = {"--sources", "--sources-identity", "--worker-jobs", "--inflight", "--round-name",
            "--turn", "--load-after", "--hold-loads", "--measure-cores", "--startup-cores",
            "--device"}  # fmt: skip


@dataclasses.dataclass(frozen=True)
class Option:
    """One option (or positional) of one command, and the argv that reaches it."""

    command: tuple[str, ...]
    action: argparse.Action

    @property
    def name(self) -> str:
        return self.action.option_strings[0] if self.action.option_strings else self.action.dest

    @property
    def where(self) -> tuple[str, str]:
        return " ".join(self.command), self.name

    def argv(self, value: str) -> list[str]:
        """The command line that gives ``value`` to this option (and nothing else wrong)."""
        count = self.action.nargs if isinstance(self.action.nargs, int) else 1
        if self.action.option_strings:
            flag = self.action.option_strings[0]
            if count == 1:
                return [*self.command, f"{flag}={value}"]
            return [*self.command, flag, *[value] * count]
        before = []  # earlier positionals: their first choice, else a name
        for other in self.parser_positionals:
            if other is self.action:
                break
            before.append(next(iter(other.choices)) if other.choices else "HEAD")
        return [*self.command, *before, "--", value]  # "--": "-x" is a value, not an option

    parser_positionals: tuple[argparse.Action, ...] = ()


def _options() -> list[Option]:
    found: list[Option] = []

    def walk(command: tuple[str, ...], parser: argparse.ArgumentParser) -> None:
        positionals = tuple(a for a in parser._actions if not a.option_strings)
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk((*command, name), sub)
            elif action.nargs != 0 and not isinstance(
                action, argparse._HelpAction | argparse._VersionAction
            ):
                found.append(Option(command, action, positionals))

    walk((), cli.build_parser())
    return found


OPTIONS = _options()


def _bad_values(option: Option) -> tuple[str, ...]:
    action = option.action
    if type(action).__name__ == "_Removed":  # an option a command no longer takes
        return ("x",)
    if isinstance(action.type, OptionType):
        return action.type.refuses
    if action.choices:
        return ("no_such_choice",)
    return ()


ROWS = [
    pytest.param(option, bad, id=f"{' '.join(option.command) or 'iconbench'} {option.name}={bad!r}")
    for option in OPTIONS
    for bad in _bad_values(option)
]


def test_every_option_has_bad_values():
    """Every option takes a type of the vocabulary or choices; free text is named here."""
    lacking = []
    for option in OPTIONS:
        action = option.action
        if type(action).__name__ == "_Removed" or (action.choices and action.type is None):
            continue
        if not isinstance(action.type, OptionType):
            lacking.append(f"{option.where}: type {getattr(action.type, '__name__', action.type)}")
        elif (
            not action.type.refuses
            and option.where not in FREE_TEXT
            and (option.name not in INTERNAL)
        ):
            lacking.append(f"{option.where}: {action.type.name} refuses nothing")
    assert not lacking, "options with no bad value to try:\n" + "\n".join(lacking)
    assert not set(FREE_TEXT) - {o.where for o in OPTIONS}, "FREE_TEXT names a gone option"
    assert len(ROWS) > 500  # every command, every option: the table is the parsers'


def test_every_default_passes_its_type():
    """argparse converts a string default with the type: a default the type refuses would
    fail every call that does not give the option."""
    for option in OPTIONS:
        action = option.action
        if isinstance(action.type, OptionType) and isinstance(action.default, str):
            action.type(action.default)


# --- the scratch tree the placeholders name ---------------------------------------------


def _read_only(path: pathlib.Path) -> None:
    """A directory no one can write in: its mode, and for root (whom modes do not stop) the
    immutable attribute; skips where neither holds."""
    path.mkdir(parents=True, exist_ok=True)
    path.chmod(0o555)
    if os.geteuid() == 0:
        subprocess.run(["chattr", "+i", str(path)], check=False, capture_output=True)
    try:
        (path / ".probe").write_text("x")
    except OSError:
        return
    (path / ".probe").unlink()
    pytest.skip("no read-only directory can be made here")


def _writable_again(root: pathlib.Path) -> None:
    subprocess.run(["chattr", "-R", "-i", str(root)], check=False, capture_output=True)
    for path in [root, *root.rglob("*")]:
        if path.is_dir() and not path.is_symlink():
            path.chmod(0o755)


def _netcdf_classic() -> bytes:
    """A whole classic NetCDF file: one dimension of 4, one int variable (made here)."""

    def padded(text: bytes) -> bytes:
        return len(text).to_bytes(4, "big") + text + b"\0" * (-len(text) % 4)

    header_size = 4 + 4 + (8 + padded(b"cell").__len__() + 4) + 8 + 8
    var = padded(b"v") + (1).to_bytes(4, "big") + (0).to_bytes(4, "big") + (0).to_bytes(8, "big")
    var += (4).to_bytes(4, "big") + (16).to_bytes(4, "big")
    header_size += len(var) + 4
    header = b"CDF\x01" + (0).to_bytes(4, "big")
    header += (0x0A).to_bytes(4, "big") + (1).to_bytes(4, "big") + padded(b"cell")
    header += (4).to_bytes(4, "big") + bytes(8)
    header += (0x0B).to_bytes(4, "big") + (1).to_bytes(4, "big") + var
    header += header_size.to_bytes(4, "big")
    return header + bytes(16)


def _overlay_marker() -> str:
    stack = {p: {"package": p, "version": v} for p, v in (("gt4py", "1.2.3"), ("dace", "2.0.0a10"))}
    return json.dumps({"stack": stack, "python": "3.12.1", "added": []})


PLACES: dict[str, Callable[[pathlib.Path], pathlib.Path]] = {
    "missing": lambda root: root / "nonexistent",
    "dir": lambda root: root / "dir",
    "file": lambda root: root / "file.txt",
    "text_file": lambda root: root / "file.txt",
    "truncated_json": lambda root: root / "truncated.json",
    "truncated_nc": lambda root: root / "truncated.nc",
    "readonly": lambda root: root / "readonly",
    "plain_dir": lambda root: root / "dir",
    "garbage_overlay": lambda root: root / "overlay-garbage",
    "truncated_overlay": lambda root: root / "overlay-truncated",
    "empty_overlay": lambda root: root / "overlay-empty",
}


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Iterator[pathlib.Path]:
    """The files the placeholders name, made once for the table."""
    root = tmp_path_factory.mktemp("bad-values")
    (root / "dir").mkdir()
    (root / "file.txt").write_text("not JSON, not NetCDF\n")
    summary = (REPO / "docs" / "examples" / "summary-h100-7212540-fd920c0.json").read_text()
    (root / "truncated.json").write_text(summary[: len(summary) // 2])
    whole = _netcdf_classic()
    (root / "whole.nc").write_bytes(whole)
    types.netcdf_file(str(root / "whole.nc"))  # the whole file passes: only the cut one fails
    (root / "truncated.nc").write_bytes(whole[:-8])
    for name, text in (("garbage", "garbage"), ("truncated", _overlay_marker()[:30]),
                       ("empty", _overlay_marker())):  # fmt: skip
        (root / f"overlay-{name}").mkdir()
        (root / f"overlay-{name}" / "iconbench-overlay.json").write_text(text)
    _read_only(root / "readonly")
    yield root
    _writable_again(root)


def _place(value: str, root: pathlib.Path) -> str:
    return value.format(**{name: str(where(root)) for name, where in PLACES.items()})


def _snapshot(*roots: pathlib.Path) -> dict[str, str]:
    found = {}
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_file() and not path.is_symlink():
                found[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


_build_parser = cli.build_parser


@functools.cache
def _parser() -> argparse.ArgumentParser:
    return _build_parser()


@pytest.fixture
def in_process(monkeypatch, tmp_path, capsys):
    """``iconbench ARGV`` in this process: (exit status, stderr, stdout, seconds)."""
    monkeypatch.setenv("ICONBENCH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(cli, "build_parser", _parser)  # one parser for the whole table

    def run(argv: list[str]) -> tuple[int, str, str, float]:
        capsys.readouterr()
        start = time.monotonic()
        try:
            code = cli.main(argv)
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else 2
        took = time.monotonic() - start
        out, err = capsys.readouterr()
        return code, err, out, took

    return run


def _one_line(code: int, err: str, took: float) -> str:
    lines = err.splitlines()
    assert code == 2, (code, err)
    assert "Traceback" not in err, err
    assert len(lines) == 1, err
    assert lines[0].startswith("iconbench: error: "), err
    assert took < 10, f"{took:.1f} s before the error"
    return lines[0]


@pytest.mark.parametrize(("option", "bad"), ROWS)
def test_a_bad_value_is_one_line_before_any_work(option, bad, scratch, in_process):
    before = _snapshot(scratch)
    code, err, _, took = in_process(option.argv(_place(bad, scratch)))
    line = _one_line(code, err, took)
    if type(option.action).__name__ != "_Removed":  # refused by argparse: while parsing
        assert line.startswith("iconbench: error: argument "), line
    assert _snapshot(scratch) == before


# --- the cases of the issue ------------------------------------------------------------


def _stack(gt4py: str, dace: str) -> dict:
    return {"gt4py": {"package": "gt4py", "version": gt4py},
            "dace": {"package": "dace", "version": dace}}  # fmt: skip


PINNED, NEWER = ("1.2.1", "2.0.0a6"), ("1.2.1", "2.0.0a10")
RUNS = [f"gt4py-{g}_dace-{d}" for g, d in (PINNED, NEWER)]


def _plan(out: pathlib.Path, grid: str = "tiny", overlay: bool = True) -> None:
    """A plan of one step (the pinned stack -> dace 2.0.0a10), its overlay's marker."""
    out.mkdir(parents=True, exist_ok=True)
    step = {"base": _stack(*PINNED), "head": _stack(*NEWER), "explained_by": []}
    args = ["--backends", "embedded", "--grid", grid]
    (out / "plan.json").write_text(json.dumps({"steps": [step], "suite_args": args}))
    if overlay:
        (out / "stacks" / RUNS[1]).mkdir(parents=True)
        marker = json.dumps({"stack": _stack(*NEWER), "python": "3.12.1", "added": []})
        (out / "stacks" / RUNS[1] / "iconbench-overlay.json").write_text(marker)


def _run(out: pathlib.Path, stack: str, grid: str = "tiny", text: str | None = None) -> None:
    (out / "runs" / stack).mkdir(parents=True, exist_ok=True)
    case = {"case": "compute_tangential_wind[default]", "backend": "embedded"}
    summary = {"grid": grid, "programs": None, "backends": ["embedded"], "broken": {},
               "cases": [case]}  # fmt: skip
    (out / "runs" / stack / "summary.json").write_text(text or json.dumps(summary))


def _history_of_another_grid(tmp: pathlib.Path) -> None:
    _plan(tmp / "rel", grid="tiny")
    for stack in RUNS:
        _run(tmp / "rel", stack, grid="tiny")


def _runs_of_another_grid(tmp: pathlib.Path) -> None:
    _plan(tmp / "rel", grid="small")
    for stack in RUNS:
        _run(tmp / "rel", stack, grid="tiny")


def _truncated_run(tmp: pathlib.Path) -> None:
    _plan(tmp / "rel")
    _run(tmp / "rel", RUNS[0])
    _run(tmp / "rel", RUNS[1], text='{"grid": "tiny", "backe')


def _git_repository(path: pathlib.Path) -> None:
    path.mkdir(parents=True)
    git = ["git", "-C", str(path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    for n in (1, 2):
        (path / "f").write_text(str(n))
        subprocess.run([*git, "add", "f"], check=True)
        subprocess.run([*git, "commit", "-qm", f"c{n}"], check=True)


def _summaries(tmp: pathlib.Path) -> None:
    (tmp / "notes.txt").write_text("not a summary\n")
    (tmp / "summary.json").write_text(json.dumps({"grid": "tiny", "cases": []}))


def _marker(directory: pathlib.Path, text: str) -> None:
    directory.mkdir(parents=True)
    (directory / "iconbench-overlay.json").write_text(text)


COMMIT = "0e8595e4" * 5
APPEND = ("history", "append", "--kind", "main", "--commit", COMMIT)
CASES: list[tuple[str, Callable[[pathlib.Path], None] | None, tuple[str, ...], tuple[str, ...]]] = [
    # (id, setup under the case's scratch tree T, argv, what the one line names)
    ("overlay-marker-garbage", lambda t: _marker(t / "ov", "garbage"),
     ("--overlay", "{t}/ov", "info"), ("iconbench-overlay.json", "invalid JSON")),
    ("overlay-marker-truncated", lambda t: _marker(t / "ov", _overlay_marker()[:30]),
     ("--overlay", "{t}/ov", "info"), ("truncated",)),
    ("overlay-without-its-packages", lambda t: _marker(t / "ov", _overlay_marker()),
     ("--overlay", "{t}/ov", "info"), ("has no gt4py",)),
    ("overlay-empty", None, ("--overlay", "", "info"), ("--overlay ''",)),
    ("overlay-after-the-command", None, ("info", "--overlay", "X"),
     ("'iconbench --overlay X info'",)),
    ("releases-jobs-0", None, ("releases", "plan", "--out", "{t}/rel", "--jobs", "0"),
     ("argument --jobs", ">= 1")),
    ("releases-grid-typo", None, ("releases", "run", "--out", "{t}/rel", "--grid", "tinyy"),
     ("argument --grid", "'tinyy'")),
    ("releases-plan-over-another-grid", _history_of_another_grid,
     ("releases", "plan", "--out", "{t}/rel", "--grid", "small", "--backends", "embedded",
      "--gt4py", "1.2.1,1.2.3", "--dace", "2.0.0a6,2.0.0a10"), ("--grid tiny", "--force")),
    ("releases-run-over-runs-of-another-grid", _runs_of_another_grid,
     ("releases", "run", "--out", "{t}/rel", "--until", "measure"),
     ("grid 'tiny', the plan 'small'", "--force")),
    ("releases-table-of-a-truncated-run", _truncated_run, ("releases", "table", "--out", "{t}/rel"),
     ("truncated",)),
    ("releases-run-programs", lambda t: _plan(t / "rel"),
     ("releases", "run", "--out", "{t}/rel", "--programs", "diffusion"),
     ("does not use --programs",)),
    ("releases-plan-programs-matching-nothing", None,
     ("releases", "plan", "--out", "{t}/rel", "--programs", "no_such_program_xyz"),
     ("'no_such_program_xyz' matches none",)),
    ("releases-run-plan-of-another-shape",
     lambda t: (t / "rel").mkdir() or (t / "rel" / "plan.json").write_text('{"steps": 3}'),
     ("releases", "run", "--out", "{t}/rel"), ("not a plan",)),
    ("releases-plan-unknown-release", lambda t: (t / "wheels").mkdir(),
     ("releases", "plan", "--out", "{t}/rel", "--find-links", "{t}/wheels", "--gt4py",
      "1.2.1,1.2.3", "--dace", "2.0.0a6,2.0.0a99"), ("dace 2.0.0a6: no such release",)),
    ("compare-history-missing", None,
     ("compare", "a.json", "b.json", "--history", "/nonexistent"), ("/nonexistent",)),
    ("history-append-a-text-file", _summaries,
     (*APPEND, "--store", "{t}/hist", "--component", "gt4py", "--summary", "{t}/notes.txt"),
     ("notes.txt", "invalid JSON")),
    ("history-append-unknown-component", _summaries,
     (*APPEND, "--store", "{t}/hist", "--component", "gt5py", "--summary", "{t}/summary.json"),
     ("'gt5py'",)),
    ("history-append-a-commit-that-does-not-resolve", _summaries,
     ("history", "append", "--kind", "main", "--commit", "nosuch", "--store", "{t}/hist",
      "--component", "gt4py", "--summary", "{t}/summary.json"), ("--commit 'nosuch'",)),
    ("history-append-to-a-read-only-store", lambda t: (_summaries(t), _read_only(t / "ro")),
     (*APPEND, "--store", "{t}/ro/hist", "--component", "gt4py", "--summary",
      "{t}/summary.json"), ("not writable",)),
    ("grid-out-read-only", lambda t: _read_only(t / "ro"),
     ("grid", "--grid", "tiny", "--out", "{t}/ro/grid"), ("not writable",)),
    ("results-fetch-out-read-only", lambda t: _read_only(t / "ro"),
     ("results", "fetch", "results/h100", "--repo", str(REPO), "--out", "{t}/ro/x"),
     ("not writable",)),
    ("stack-build-over-a-truncated-marker",
     lambda t: _marker(t / "st" / "gt4py-1.2.3_dace-2.0.0a10", _overlay_marker()[:30]),
     ("stack", "build", "gt4py==1.2.3", "dace==2.0.0a10", "--stacks", "{t}/st"),
     ("no complete overlay", "truncated")),
    ("stack-build-without-a-spec", None, ("stack", "build"), ("gt4py==",)),
    ("bisect-swapped-ends", lambda t: _git_repository(t / "repo"),
     ("bisect", "--repo", "{t}/repo", "--good", "HEAD", "--bad", "HEAD~1", "--bench",
      "compute_tangential_wind", "--component", "gt4py"), ("swapped",)),
    ("grid-file-truncated-netcdf",
     lambda t: (t / "g.nc").write_bytes(_netcdf_classic()[:-8]),
     ("grid", "--grid-file", "{t}/g.nc"), ("truncated NetCDF",)),
    ("repo-not-a-git-repository", lambda t: (t / "plain").mkdir(),
     ("history", "export", "--store", "{t}/plain", "--out", "{t}/x", "--repo", "{t}/plain"),
     ("not a git repository",)),
]  # fmt: skip


@pytest.mark.parametrize(("setup", "argv", "names"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])  # fmt: skip
def test_a_case_of_the_issue_is_one_line(setup, argv, names, tmp_path, in_process):
    tmp = tmp_path / "t"
    tmp.mkdir()
    try:
        if setup is not None:
            setup(tmp)
        before = _snapshot(tmp)
        code, err, _, took = in_process([a.replace("{t}", str(tmp)) for a in argv])
        line = _one_line(code, err, took).replace(str(tmp), "T")
        for name in names:
            assert name in line, line
        assert _snapshot(tmp) == before
    finally:
        _writable_again(tmp)


def test_stack_build_names_where_the_overlay_is(tmp_path, in_process):
    """``stack build --stacks DIR`` prints a ``run on it:`` command that finds the overlay."""
    stacks = tmp_path / "st"
    _marker(stacks / "gt4py-1.2.3_dace-2.0.0a10", _overlay_marker())
    (tmp_path / "wheels").mkdir()
    code, err, _, _ = in_process(["stack", "build", "gt4py==1.2.3", "dace==2.0.0a10",
                                    "--stacks", str(stacks), "--find-links",
                                    str(tmp_path / "wheels")])  # fmt: skip
    assert code == 0, err
    hint = next(line for line in err.splitlines() if line.startswith("run on it:"))
    assert (
        hint == f"run on it: iconbench --overlay {stacks / 'gt4py-1.2.3_dace-2.0.0a10'} COMMAND ..."
    )


def _processes_naming(text: str) -> list[str]:
    """The command lines of the running processes that contain ``text``."""
    found = []
    for entry in pathlib.Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                line = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if text in line:
                found.append(f"{entry.name}: {line}")
    return found


def test_a_releases_run_ended_by_its_runner_leaves_no_process(tmp_path):
    """SIGTERM (a runner's time limit) while the stacks precompile: no compile is left."""
    out = tmp_path / "rel"
    _plan(out)
    env = {**os.environ, "ICONBENCH_CACHE_DIR": str(tmp_path / "cache"),
           "PYTHONPATH": str(REPO / "src")}  # fmt: skip
    parent = subprocess.Popen([sys.executable, "-m", "iconbench", "releases", "run", "--out",
                               str(out), "--jobs", "1"], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, start_new_session=True)  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not [p for p in _processes_naming(str(out)) if "precompile" in p]:
            assert parent.poll() is None, parent.stderr.read().decode()
            assert time.monotonic() < deadline, "no precompile started in 60 s"
            time.sleep(0.1)
        parent.send_signal(signal.SIGTERM)
        parent.wait(timeout=30)
        time.sleep(0.5)  # the run ends its children before it exits: none may be left
        left = [p for p in _processes_naming(str(out)) if "precompile" in p]
        assert not left, f"left running after the run ended: {left}"
        assert parent.returncode == 128 + signal.SIGTERM, parent.stderr.read().decode()
    finally:
        for line in _processes_naming(str(out)):
            os.kill(int(line.split(":")[0]), signal.SIGKILL)
        if parent.poll() is None:
            os.killpg(parent.pid, signal.SIGKILL)


def test_a_plan_that_fails_leaves_no_plan(tmp_path, in_process):
    """A release the index lacks: one line, and no plan.json a later run would take."""
    (tmp_path / "wheels").mkdir()
    out = tmp_path / "rel"
    code, err, _, took = in_process(["releases", "plan", "--out", str(out), "--find-links",
                                     str(tmp_path / "wheels"), "--gt4py", "1.2.1,1.2.3",
                                     "--dace", "2.0.0a6,2.0.0a10"])  # fmt: skip
    _one_line(code, err, took)
    assert not (out / "plan.json").exists()
    assert not out.exists() or not any(out.rglob("*")), sorted(out.rglob("*"))


def test_force_sets_a_stale_run_aside_and_keeps_it(tmp_path):
    """``--force`` measures a stack whose run differs again, the old run kept beside it."""
    from iconbench.history import releases

    _runs_of_another_grid(tmp_path)
    made = releases.Plan.read(tmp_path / "rel")
    with pytest.raises(Exception, match="grid 'tiny', the plan 'small'"):
        releases.check_stored(made)
    runs = releases.check_stored(made, force=True)
    assert runs == {RUNS[0]: None, RUNS[1]: None}
    assert sorted(p.name for p in (tmp_path / "rel" / "runs").iterdir()) == sorted(
        f"{run}.stale-1" for run in RUNS
    )
    assert (tmp_path / "rel" / "runs" / f"{RUNS[0]}.stale-1" / "summary.json").is_file()


def test_a_matching_run_is_done(tmp_path):
    """A run that reads back whole and matches the plan is taken as it is."""
    from iconbench.history import releases

    _history_of_another_grid(tmp_path)  # the plan and its runs: both tiny
    made = releases.Plan.read(tmp_path / "rel")
    runs = releases.check_stored(made)
    assert {name: run["grid"] for name, run in runs.items()} == {RUNS[0]: "tiny", RUNS[1]: "tiny"}


def test_docs_list_every_option_type_once():
    """docs/cli.md's table of option types names each type of the vocabulary, once."""
    text = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    table = text.split("## Option types", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[1] for line in table.splitlines() if line.startswith("| `")]
    named = [name.strip(" `") for row in rows for name in row.split(",")]
    assert sorted(named) == sorted(t.name for t in types.VOCABULARY_TYPES)

"""The history store: concurrent writers lose nothing, retention keeps mains, export merges."""

import datetime
import json
import multiprocessing
import pathlib
import subprocess
import sys

import numpy as np
import pytest
from tests.asv_results import write_asv_results
from tests.history.test_changepoints_cli import MACHINE, commit_of, write_night

from iconbench.errors import IconbenchError
from iconbench.history import export, retention
from iconbench.history.store import HistoryStore
from iconbench.records import asv as asv_results

WRITERS, APPENDS = 6, 15


def _writer(root: str, number: int) -> None:
    store = HistoryStore.create(root)
    scratch = pathlib.Path(root).parent / f"src-{number}"
    scratch.mkdir()
    for i in range(APPENDS):
        summary = scratch / f"summary-{i}.json"
        # each writer's payload is distinct, plus a file shared by every writer (same blob)
        summary.write_text(json.dumps({"writer": number, "i": i, "pad": "x" * 5000}))
        shared = scratch / "shared.json"
        shared.write_text('{"suite": "the same in every run"}')
        store.append(
            {"summary.json": ("summary", summary), "gate/shared.json": ("gate", shared)},
            kind="pr" if i % 2 else "main",
            pr=number if i % 2 else None,
            component="icon4py",
            commit=f"{number:02d}{i:038d}",
        )


def test_concurrent_writers_lose_nothing(tmp_path):
    root = tmp_path / "history"
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_writer, args=(str(root), n)) for n in range(WRITERS)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
        assert worker.exitcode == 0
    store = HistoryStore.open(root)
    entries = store.entries()
    assert len(entries) == WRITERS * APPENDS
    assert {e.commit for e in entries} == {
        f"{n:02d}{i:038d}" for n in range(WRITERS) for i in range(APPENDS)
    }
    assert store.check() == []
    for entry in entries:
        (summary,) = [f for f in entry.files if f.role == "summary"]
        payload = json.loads(store.read(summary))
        assert entry.commit == f"{payload['writer']:02d}{payload['i']:038d}"
    # the shared file is stored once; no temporary file is left behind
    assert len(list((root / "objects").glob("*/*"))) == WRITERS * APPENDS + 1
    assert not list(root.rglob("*.tmp"))


def test_retention_prunes_old_pull_requests_only(tmp_path):
    store = HistoryStore.create(tmp_path / "h")
    source = tmp_path / "s.json"
    now = datetime.datetime(2026, 11, 23, tzinfo=datetime.UTC)
    for days, kind in [(200, "main"), (120, "pr"), (30, "pr"), (500, "manual")]:
        source.write_text(json.dumps({"days": days}))
        store.append(
            {"summary.json": ("summary", source)},
            kind=kind,
            pr=7 if kind == "pr" else None,
            component="gt4py",
            commit="c" * 40,
            created=now - datetime.timedelta(days=days),
        )
    assert [e.kind for e in retention.prune(store, now=now, dry_run=True)] == ["pr"]
    assert len(store.entries()) == 4
    (gone,) = retention.prune(store, now=now)
    assert gone.created_at == now - datetime.timedelta(days=120)
    assert sorted(e.kind for e in store.entries()) == ["main", "manual", "pr"]
    assert not store.blob(gone.files[0].sha256).exists()
    assert store.check() == []


def test_append_refuses_bad_input_and_writes_nothing(tmp_path):
    store = HistoryStore.create(tmp_path / "h")
    with pytest.raises(IconbenchError, match="needs its pull request number"):
        store.append({"a.json": ("summary", tmp_path)}, kind="pr", component="x", commit="c")
    with pytest.raises(IconbenchError, match="no such file"):
        store.append(
            {"a.json": ("summary", tmp_path / "nope")}, kind="main", component="x", commit="c"
        )
    with pytest.raises(IconbenchError, match="not a relative path"):
        store.append({"../a.json": ("summary", tmp_path)}, kind="main", component="x", commit="c")
    assert store.entries() == []
    with pytest.raises(IconbenchError, match="not a history store"):
        HistoryStore.open(tmp_path)


def _asv_dir(root: pathlib.Path, commit: str, values: list) -> pathlib.Path:
    """A minimal asv results dir with one parameterised benchmark (asv's own Results)."""
    return write_asv_results(root, values, commit=commit, machine="m")


def test_export_merges_shards_of_one_commit(tmp_path):
    store = HistoryStore.create(tmp_path / "h")
    commit = "a" * 40
    for shard, values in enumerate([[1.0, None], [None, 2.0]]):
        asv = _asv_dir(tmp_path / f"shard{shard}", commit, values)
        files = {p.relative_to(asv).as_posix(): ("asv", p) for p in asv.rglob("*.json")}
        store.append(files, kind="main", component="gt4py", commit=commit)
    done = export.export(store, tmp_path / "out")
    assert done.result_files == 1
    (merged,) = (tmp_path / "out" / "asv" / "m").glob("aaaaaaaa-*.json")
    row = json.loads(merged.read_text())["results"]["programs.Programs.time_device"]
    assert row[0] == [1.0, 2.0]


def test_cli_append_list_and_a_typo(tmp_path, capsys):
    from iconbench.cli import main

    source = tmp_path / "gate.json"
    source.write_text("{}")
    store = str(tmp_path / "h")
    assert (
        main(
            [
                "history",
                "append",
                "--store",
                store,
                "--kind",
                "main",
                "--component",
                "dace",
                "--commit",
                "d" * 40,
                "--gate",
                str(source),
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["history", "list", "--store", store, "--json"]) == 0
    assert [e["commit"] for e in json.loads(capsys.readouterr().out)] == ["d" * 40]
    assert main(["history", "list", "--store", str(tmp_path)]) == 2
    assert "not a history store" in capsys.readouterr().err


def test_two_runs_pushing_to_the_results_branch_at_once_both_land(tmp_path):
    """ci/history-push: a rejected push fetches, merges (append-only) and pushes again."""
    import os
    import subprocess

    repo = pathlib.Path(__file__).resolve().parents[2]
    remote = tmp_path / "results.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    env = dict(os.environ, ICONBENCH_PYTHON=sys.executable, ICONBENCH_PUSH_TRIES="8")
    pushes = []
    for number in range(2):
        source = tmp_path / f"summary-{number}.json"
        source.write_text(json.dumps({"run": number}))
        command = [
            "bash",
            str(repo / "ci" / "history-push"),
            str(remote),
            "results",
            "--",
            "--kind",
            "main",
            "--component",
            "gt4py",
            "--commit",
            f"{number}" * 40,
            "--summary",
            str(source),
        ]
        pushes.append(
            subprocess.Popen(
                command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            )
        )
    errors = []
    for push in pushes:
        _, err = push.communicate(timeout=120)
        assert push.returncode == 0, err
        errors.append(err)
    # both fetched before either pushed (each append takes a second or more): one was rejected
    assert any("push rejected" in err for err in errors)
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "-b", "results", str(remote), str(clone)], check=True)
    store = HistoryStore.open(clone)
    assert sorted(e.commit for e in store.entries()) == [f"{n}" * 40 for n in range(2)]
    assert store.check() == []


def test_the_site_is_rebuilt_from_the_history_alone(tmp_path, capsys):
    from iconbench.cli import main

    store = HistoryStore.create(tmp_path / "h")
    for number, values in enumerate([[1.0e-3, 2.0e-3], [1.1e-3, 2.2e-3]]):
        commit = f"{number + 1}" * 40
        asv = _asv_dir(tmp_path / f"run{number}", commit, values)
        files = {p.relative_to(asv).as_posix(): ("asv", p) for p in asv.rglob("*.json")}
        store.append(files, kind="main", component="gt4py", commit=commit)
    assert (
        main(
            ["history", "publish", "--store", str(tmp_path / "h"), "--out", str(tmp_path / "site")]
        )
        == 0
    )
    assert (tmp_path / "site" / "index.html").is_file()


def test_export_expands_an_abbreviated_commit_and_keeps_the_stored_bytes(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "one"], check=True)
    full = subprocess.run(
        [*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    store = HistoryStore.create(tmp_path / "h")
    asv = _asv_dir(tmp_path / "run", full[:7], [1.0, 2.0])
    files = {p.relative_to(asv).as_posix(): ("asv", p) for p in asv.rglob("*.json")}
    entry = store.append(files, kind="main", component="icon4py", commit=full)
    export.export(store, tmp_path / "out", repo=repo)
    (exported,) = (tmp_path / "out" / "asv" / "m").glob("*-*.json")
    assert json.loads(exported.read_text())["commit_hash"] == full
    stored = [store.read(ref) for ref in entry.files if ref.path.endswith(exported.name)]
    assert [json.loads(data)["commit_hash"] for data in stored] == [full[:7]]


def test_append_names_the_machine_of_its_results_and_list_picks_one_machine(tmp_path, capsys):
    """Nights of an H100 and an H200 host (both ``vm`` to asv) and of a CPU runner, appended
    without --machine; one appended with --machine, which wins."""
    from iconbench.cli import main

    store = str(tmp_path / "h")
    hosts = [("vm", "NVIDIA H100 80GB HBM3"), ("vm", "NVIDIA H200"), ("ci", "none"),
             ("vm", "NVIDIA H200"), ("vm", "NVIDIA H200")]  # fmt: skip
    for night, (host, gpu) in enumerate(hosts):
        asv = write_night(tmp_path / str(night), night, np.random.default_rng(night), step_from=9,
                          machine={**MACHINE, "machine": host, "gpu": gpu})  # fmt: skip
        named = ["--machine", "h200-pcie"] if night == 4 else []
        assert main(["history", "append", "--store", store, "--kind", "main", "--component",
                     "icon4py", "--label", "nightly", "--commit", commit_of(night), "--asv",
                     str(asv), *named]) == 0  # fmt: skip
    capsys.readouterr()
    assert main(["history", "machine", "--asv", str(tmp_path / "1")]) == 0
    assert capsys.readouterr().out == "h200\n"  # what append records (ci/nightly asks first)
    assert [e.machine for e in HistoryStore.open(store).entries()] == [
        "h100", "h200", "ci", "h200", "h200-pcie"
    ]  # fmt: skip
    listed = ["history", "list", "--store", store, "--kind", "main", "--label", "nightly"]
    assert main([*listed, "--machine", "h200", "--json"]) == 0
    entries = json.loads(capsys.readouterr().out)
    assert [e["commit"] for e in entries] == [commit_of(1), commit_of(3)]
    # the nightly's last night of one machine: its result file, not the newer ones of others
    assert main([*listed, "--machine", "h200", "--last", "--files", "asv"]) == 0
    files = capsys.readouterr().out.split()
    assert [f for f in files if f.startswith("vm/") and f != "vm/machine.json"] == [
        f"vm/{commit_of(3)[:8]}-e.json"
    ]
    assert main([*listed, "--machine", "gh200", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert main(["history", "cat", "--store", store, "--machine", "h100", "--path",
                 "vm/machine.json"]) == 0  # fmt: skip
    assert json.loads(capsys.readouterr().out)["gpu"] == "NVIDIA H100 80GB HBM3"
    exported = tmp_path / "exported"
    assert main(["history", "export", "--store", store, "--machine", "ci", "--out",
                 str(exported)]) == 0  # fmt: skip
    assert [p.name for p in asv_results.result_files(exported / "asv")] == [
        f"{commit_of(2)[:8]}-e.json"
    ]

"""The raw files of committed runs: archived in git history, fetched back byte for byte.

A throw-away repository goes through the whole road (commit a run, archive its raw files,
fetch them into the checkout and elsewhere, refuse to overwrite, a shallow clone told what
to do); then this checkout's own manifest: every listed blob is in its commit, and one of
them comes back as the file it was.
"""

from __future__ import annotations

import base64
import hashlib
import json
import pathlib
import subprocess

import pytest

from iconbench import results_archive
from iconbench.cli import main
from iconbench.errors import IconbenchError

REPO = pathlib.Path(__file__).resolve().parents[1]


@pytest.fixture
def measured(tmp_path, git):
    """A checkout with one committed run: notes kept, a ledger and a summary to archive."""
    root = tmp_path / "checkout"
    run = root / "results" / "h100"
    (run / "work").mkdir(parents=True)
    (run / "notes.md").write_text("one run\n")
    (run / "work" / "session.jsonl").write_bytes(b'{"case": "a", "s": 1.5}\n' * 400)
    (run / "summary.json").write_text('{"cases": []}\n')
    git(root.parent, "init", "-q", "-b", "main", str(root))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "results/h100")
    return root


def test_archive_then_fetch_restores_every_byte(measured, git, tmp_path):
    run = measured / "results" / "h100"
    ledger = (run / "work" / "session.jsonl").read_bytes()
    measured_at = git(measured, "rev-parse", "HEAD")
    archive = results_archive.Archive.read(measured)
    added = results_archive.archive_files(
        archive, ["results/h100/work", "results/h100/summary.json"]
    )
    ledger_path = "results/h100/work/session.jsonl"
    assert [f.path for f in added] == ["results/h100/summary.json", ledger_path]
    assert {f.commit for f in added} == {measured_at}
    assert not (run / "work").exists()
    assert (run / "notes.md").exists()
    git(measured, "commit", "-q", "-am", "results/h100: raw files archived")
    assert git(measured, "ls-files", "results") == "results/archive.json\nresults/h100/notes.md"

    manifest = json.loads((measured / results_archive.MANIFEST).read_text())
    entry = manifest["commits"][measured_at]["results/h100/work"]["session.jsonl"]
    digest = base64.urlsafe_b64encode(hashlib.sha256(ledger).digest()).rstrip(b"=").decode()
    assert entry == [9600, digest]

    archive = results_archive.Archive.read(measured)
    assert results_archive.check(archive) == []
    done = results_archive.fetch(archive, ["results/h100/work"])
    assert [f.path for f in done.written] == ["results/h100/work/session.jsonl"]
    assert (run / "work" / "session.jsonl").read_bytes() == ledger
    assert not (run / "summary.json").exists()  # only what was asked for
    again = results_archive.fetch(archive, [])
    assert [f.path for f in again.present] == ["results/h100/work/session.jsonl"]
    assert [f.path for f in again.written] == ["results/h100/summary.json"]
    assert git(measured, "status", "--porcelain") == ""  # the fetched files are this clone's

    # elsewhere: the whole result set, the tree's notes beside the archived files
    out = tmp_path / "elsewhere"
    whole = results_archive.fetch(archive, ["results/h100"], out=out)
    assert whole.copied == ("results/h100/notes.md",)
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == [
        "results/h100/notes.md",
        "results/h100/summary.json",
        "results/h100/work/session.jsonl",
    ]


def test_fetch_never_overwrites_a_differing_file(measured, capsys):
    archive = results_archive.Archive.read(measured)
    results_archive.archive_files(archive, ["results/h100/summary.json"])
    edited = measured / "results" / "h100" / "summary.json"
    edited.write_text('{"cases": ["mine"]}\n')
    code = main(["results", "fetch", "results/h100", "--repo", str(measured)])
    assert code == 2
    err = capsys.readouterr().err
    assert f"{edited}: differs from the archived file (sha256 " in err
    assert "move it away to fetch the archived one" in err
    assert edited.read_text() == '{"cases": ["mine"]}\n'


def test_a_changed_file_is_not_archived_and_an_unknown_path_is_named(measured, capsys):
    (measured / "results" / "h100" / "summary.json").write_text("{}\n")
    assert main(["results", "archive", "results/h100", "--repo", str(measured)]) == 2
    assert "results/h100/summary.json: differs from its last commit; commit it first" in (
        capsys.readouterr().err
    )
    assert not (measured / results_archive.MANIFEST).exists()
    results_archive.archive_files(results_archive.Archive.read(measured), ["results/h100/work"])
    assert main(["results", "fetch", "results/h10", "--repo", str(measured)]) == 2
    assert "results/h10: no archived file is or lies under it" in capsys.readouterr().err


def test_a_shallow_clone_is_told_to_deepen(measured, git, tmp_path, capsys):
    archive = results_archive.Archive.read(measured)
    results_archive.archive_files(archive, ["results/h100/work"])
    git(measured, "commit", "-q", "-am", "archived")
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{measured}", str(shallow))
    assert main(["results", "check", "--repo", str(shallow)]) == 1
    assert "results/h100/work/session.jsonl: " in capsys.readouterr().out
    assert main(["results", "fetch", "--repo", str(shallow)]) == 2
    err = capsys.readouterr().err
    assert "is not in this clone (a shallow clone?); run 'git fetch --unshallow'" in err
    git(shallow, "fetch", "-q", "--unshallow")
    assert main(["results", "fetch", "--repo", str(shallow)]) == 0
    assert "fetched 1 files (0.0 MB)" in capsys.readouterr().out


def test_this_checkouts_archive_is_in_its_history(tmp_path):
    """Every blob results/archive.json lists is in the commit it names, as listed."""
    archive = results_archive.Archive.read(REPO)
    assert len(archive.files) > 500
    assert results_archive.check(archive) == []
    listed = subprocess.run(["git", "-C", str(REPO), "ls-files", "results"], capture_output=True,
                            text=True, check=True)  # fmt: skip
    tracked = set(listed.stdout.split())
    assert not tracked & {f.path for f in archive.files}  # archived means out of the tree
    notes = "results/h100-ch1_medium-dace-2.0.0a6/notes.md"
    one = "results/h100-ch1_medium-dace-2.0.0a6/work/phases.jsonl"
    done = results_archive.fetch(archive, [one], out=tmp_path)
    (restored,) = done.written
    blob = (tmp_path / one).read_bytes()
    assert (restored.size, hashlib.sha256(blob).hexdigest()) == (len(blob), restored.sha256)
    shown = subprocess.run(["git", "-C", str(REPO), "show", f"{restored.commit}:{one}"],
                           capture_output=True, check=True).stdout  # fmt: skip
    assert blob == shown
    assert notes in tracked
    assert json.loads(blob.splitlines()[0])


def test_the_tracked_tree_stays_small():
    """The product's tree without its runs' raw files: under 10 MB (issue #50)."""
    listed = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z"], capture_output=True,
                            text=True, check=True).stdout.split("\0")  # fmt: skip
    size = sum((REPO / name).stat().st_size for name in listed if (REPO / name).is_file())
    assert size < 10_000_000, f"the tracked tree is {size / 1e6:.1f} MB"


def test_an_empty_archive_is_one_line(tmp_path, git, capsys):
    git(tmp_path, "init", "-q", str(tmp_path / "bare"))
    git(tmp_path / "bare", "commit", "-q", "--allow-empty", "-m", "empty")
    assert main(["results", "list", "--repo", str(tmp_path / "bare")]) == 2
    assert "lists no archived file (nothing to list)" in capsys.readouterr().err
    (tmp_path / "bare" / "results").mkdir()
    (tmp_path / "bare" / results_archive.MANIFEST).write_text('{"schema": "x"}')
    with pytest.raises(IconbenchError, match="not a results archive manifest"):
        results_archive.Archive.read(tmp_path / "bare")


def test_the_default_ledgers_of_select_and_check_come_from_history(tmp_path, monkeypatch):
    """`iconbench select` and `check` cost a change by the H100 run's ledgers, now archived."""
    from iconbench.cli.select import DEFAULT_LEDGERS, ledgers_dir

    monkeypatch.setenv("ICONBENCH_CACHE_DIR", str(tmp_path / "cache"))
    assert not (DEFAULT_LEDGERS / "session.jsonl").exists()  # the tree keeps no ledger
    work = ledgers_dir(DEFAULT_LEDGERS)
    assert work.is_relative_to(tmp_path / "cache")
    archived = {f.path: f for f in results_archive.Archive.read(REPO).files}
    ledger = archived["results/h100/work/session.jsonl"]
    assert hashlib.sha256((work / "session.jsonl").read_bytes()).hexdigest() == ledger.sha256
    assert ledgers_dir(DEFAULT_LEDGERS) == work  # once: the second call reads the cache
    assert ledgers_dir(tmp_path / "mine") == tmp_path / "mine"  # a given directory as it is


@pytest.mark.parametrize("version", [1, 2])
def test_an_older_manifest_is_still_read_and_written_as_version_3(tmp_path, version):
    """A branch from before version 3 keeps its manifest: it reads the same files, and the
    next archive writes them grouped by folder (version 1: the tree 0.4 MB smaller at 5 814
    files) with base64 digests (version 2: 0.14 MB smaller at 6 902)."""
    sha = hashlib.sha256(b"x").hexdigest()
    (tmp_path / "results").mkdir()
    commits = {"c0ffee": {
        "results/h100/work/session.jsonl": {"size": 1, "sha256": sha},
        "results/h100/summary.json": {"size": 1, "sha256": sha}}} if version == 1 else {
        "c0ffee": {"results/h100/work": {"session.jsonl": [1, sha]},
                   "results/h100": {"summary.json": [1, sha]}}}  # fmt: skip
    (tmp_path / results_archive.MANIFEST).write_text(
        json.dumps({"schema": results_archive.SCHEMA, "version": version, "commits": commits})
    )
    old = results_archive.Archive.read(tmp_path)
    assert [(f.path, f.size, f.commit) for f in old.files] == [
        ("results/h100/summary.json", 1, "c0ffee"),
        ("results/h100/work/session.jsonl", 1, "c0ffee"),
    ]
    old.write(old.files)
    written = json.loads((tmp_path / results_archive.MANIFEST).read_text())
    assert written["version"] == 3
    short = base64.urlsafe_b64encode(bytes.fromhex(sha)).rstrip(b"=").decode()
    assert written["commits"]["c0ffee"]["results/h100/work"] == {"session.jsonl": [1, short]}
    assert {f.sha256 for f in results_archive.Archive.read(tmp_path).files} == {sha}
    assert results_archive.Archive.read(tmp_path).files == old.files


def test_a_damaged_digest_is_one_line_that_names_the_manifest(tmp_path):
    """A character outside base64 in a version-3 digest is refused when the manifest is read,
    not read as another digest that a later fetch would blame on the file."""
    (tmp_path / "results").mkdir()
    manifest = tmp_path / results_archive.MANIFEST
    files = (results_archive.ArchivedFile("results/h100/a.json", 1,
                                          hashlib.sha256(b"x").hexdigest(), "c0ffee"),)  # fmt: skip
    results_archive.Archive(tmp_path, ()).write(files)
    assert results_archive.Archive.read(tmp_path).files == files
    text = manifest.read_text()
    digest = json.loads(text)["commits"]["c0ffee"]["results/h100"]["a.json"][1]
    manifest.write_text(text.replace(digest, digest[:20] + "!!!!" + digest[20:]))
    with pytest.raises(IconbenchError, match=r"not a results archive manifest.*git checkout"):
        results_archive.Archive.read(tmp_path)

"""``ci/gpu/backfill``, the backfill as one job of any length, on CPU: the same script a GPU
runner or a SLURM allocation runs, on the fake icon4py of tests/history/test_backfill.py
(embedded backend, tiny grid, one program)."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
import tarfile

from tests.history.test_backfill import PROGRAM, fake_icon4py, request  # noqa: F401

from iconbench.history import backfill

REPO = pathlib.Path(__file__).resolve().parents[2]


def _job(work: pathlib.Path, packs: pathlib.Path, repo: pathlib.Path, seconds: int = 600):
    env = dict(os.environ, ICONBENCH_BACKFILL_PACKS=str(packs), ICONBENCH_PYTHON=sys.executable,
               PYTHONPATH=os.pathsep.join(
        filter(None, [str(REPO / "src"), os.environ.get("PYTHONPATH")])))  # fmt: skip
    return subprocess.run(
        [str(REPO / "ci/gpu/backfill"), str(work), str(seconds), "--repo", str(repo),
         "--from", "start", "--to", "end", "--stacks", str(work.parent / "stacks"),
         "--backends", "embedded", "--grid", "tiny", "--programs", PROGRAM,
         "--samples", "5", "--max-s", "0.5", "--warmup-s", "0.05"],
        env=env, capture_output=True, text=True, check=False, timeout=900,
    )  # fmt: skip


def test_the_job_packs_what_it_finished_and_the_next_job_resumes_from_the_packs(
    fake_icon4py,  # noqa: F811
    tmp_path,
):
    repo, c = fake_icon4py
    packs = tmp_path / "packs"
    try:
        first = _job(tmp_path / "host-1", packs, repo)
        # the stencil commit measured, the two on a stack not here left: the backfill's status
        assert first.returncode == 1, first.stderr[-3000:]
        (pack,) = packs.glob("*.tar.xz")
        assert pack.name == f"{c['stencil']}.tar.xz"
        assert f"packed {c['stencil']}" in first.stdout
        with tarfile.open(pack) as packed:
            names = packed.getnames()
        assert f"{c['stencil']}/summary.json" in names
        assert f"{c['stencil']}/work/session.jsonl" in names
        before = pack.read_bytes()
        # another host (an empty WORK): unpacked, appended, not measured again, not re-packed
        second = _job(tmp_path / "host-2", packs, repo)
        assert second.returncode == 1, second.stderr[-3000:]
        assert "measure:" not in second.stderr
        assert "1 appended" in second.stderr
        assert (tmp_path / "host-2" / c["stencil"] / "summary.json").is_file()
        assert pack.read_bytes() == before
        assert "packed" not in second.stdout
    finally:
        for work in ("host-1", "host-2"):
            place = backfill.tree_place(request(repo, (tmp_path / work).resolve()))
            shutil.rmtree(place, ignore_errors=True)


def test_a_job_out_of_time_says_so_and_keeps_nothing_half_done(fake_icon4py, tmp_path):  # noqa: F811
    repo, _ = fake_icon4py
    packs = tmp_path / "packs"
    try:
        done = _job(tmp_path / "host", packs, repo, seconds=2)  # not enough to import gt4py
        assert done.returncode == 124, done.stderr[-3000:]
        assert not list(packs.iterdir())  # no commit finished, nothing packed
    finally:
        place = backfill.tree_place(request(repo, (tmp_path / "host").resolve()))
        shutil.rmtree(place, ignore_errors=True)


def test_a_broken_pack_is_one_line_and_stays_as_it_is(fake_icon4py, tmp_path):  # noqa: F811
    repo, _ = fake_icon4py
    packs = tmp_path / "packs"
    packs.mkdir()
    broken = packs / f"{'0' * 40}.tar.xz"
    broken.write_bytes(b"not xz")
    done = _job(tmp_path / "host", packs, repo)
    assert done.returncode == 2
    (line,) = [x for x in done.stderr.splitlines() if x.startswith("backfill: ")]
    assert str(broken) in line
    assert "restore it from git" in line
    assert broken.read_bytes() == b"not xz"
    assert not (tmp_path / "host" / ("0" * 40)).exists()

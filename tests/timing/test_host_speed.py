"""The host's Python speed sampled beside a check's precompile (``timing/host_speed``)."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import time

from iconbench.timing import host_speed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_sampler_whose_check_was_killed_ends_by_itself(tmp_path: pathlib.Path):
    """A check killed before it stops its sampler (a runner's timeout) leaves nothing running."""
    samples = tmp_path / "samples.txt"
    code = (
        "import subprocess, sys, time\n"
        f"p = subprocess.Popen([sys.executable, '-m', 'iconbench.timing.host_speed', '0.05', "
        f"{str(samples)!r}, str(__import__('os').getpid())])\n"
        "print(p.pid, flush=True)\n"
        "time.sleep(30)\n"
    )
    check = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    sampler = int(check.stdout.readline())
    deadline = time.monotonic() + 20
    while not (samples.exists() and samples.read_text().count("\n") >= 2):
        assert time.monotonic() < deadline, "the sampler wrote nothing"
        time.sleep(0.05)
    check.kill()
    check.wait()
    deadline = time.monotonic() + 10
    while _alive(sampler):
        assert time.monotonic() < deadline, "the sampler outlived its check"
        time.sleep(0.05)
    written = host_speed._read_samples(samples)
    assert len(written) >= 2
    assert all(0 < value < 10_000 for value in written)


def test_samples_beside_a_busy_block_are_kept_and_the_file_is_removed(tmp_path, monkeypatch):
    """The samples come back when the block ends, and the sampler's file does not stay."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    with host_speed.sampled(0.05) as samples:
        end = time.monotonic() + 1.5
        while time.monotonic() < end:
            sum(range(10_000))
        assert samples == []  # filled only at the end
    assert len(samples) >= 2
    summary = host_speed.summarize(samples)
    assert summary is not None
    assert summary["samples"] == len(samples)
    assert not list(tmp_path.glob("python-us-*"))


def test_a_host_that_cannot_start_the_sampler_runs_the_block_unsampled(tmp_path, monkeypatch):
    """No process to sample with (a limit on processes): the check goes on, with no figure."""
    import subprocess

    def refused(*args, **kwargs):
        raise OSError("Resource temporarily unavailable")

    monkeypatch.setattr(subprocess, "Popen", refused)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    ran = []
    with host_speed.sampled(0.05) as samples:
        ran.append(True)
    assert ran == [True]
    assert samples == []
    assert host_speed.summarize(samples) is None
    assert not list(tmp_path.glob("python-us-*"))

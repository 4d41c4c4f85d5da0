"""``iconbench compare`` on the committed H100 result sets (results/h100)."""

from tests.archived_results import restored

from iconbench.cli import main
from iconbench.records.summary import Summary

H100 = restored("results/h100")  # raw files from git history (tests/archived_results.py)


def test_fd920c0_against_412cde3(tmp_path, capsys):
    """summary.1 (fd920c0) vs summary.2 (412cde3), two separate runs: 412cde3 measured 19 noisy
    cases again, alone, and their host overhead grew; one process a side cannot say whether
    that is more than host overhead's run-to-run scatter, so it is not gated."""
    out = tmp_path / "s.json"
    rc = main(
        ["compare", str(H100 / "summary.1.json"), str(H100 / "summary.2.json"), "--out", str(out)]
    )
    summary = Summary.read(out)
    device = [
        b
        for b in summary.benchmarks
        if b.metric == "device_time" and b.gated and b.verdict != "failed"
    ]
    remeasured = [
        b for b in device if "same samples on both sides (not measured again)" not in b.notes
    ]
    # no device time changed: the remeasured cases moved by < 0.5 %
    assert {b.verdict for b in device} == {"unchanged"}
    assert 15 <= len(remeasured) <= 25
    assert all(abs(b.ratio - 1) < 0.006 for b in remeasured)
    host = [b for b in summary.benchmarks if b.metric == "host_overhead"]
    assert len(host) == 211
    assert not any(b.gated for b in host)
    assert {b.verdict for b in host} == {"inconclusive"}
    assert all("no run-to-run history" in b.notes[-1] for b in host)
    # the host overhead that grew is still shown with its ratio
    assert max(b.ratio for b in host) > 1.2
    assert rc == 0
    assert summary.verdict == "pass"
    # 73 dace_gpu variants fail to compile on both sides: reported, not a new failure
    assert summary.counts["failed"] == 73
    assert summary.base.commit.startswith("fd920c0")
    assert summary.head.commit.startswith("412cde3")
    assert "PASS" in capsys.readouterr().out


def test_the_history_gives_host_overhead_its_band(tmp_path):
    """The four other runs of results/h100 give the cases they measured a run-to-run band."""
    out = tmp_path / "s.json"
    rc = main(["compare", str(H100 / "summary.1.json"), str(H100 / "summary.2.json"),
               "--history", str(H100), "--out", str(out)])  # fmt: skip
    summary = Summary.read(out)
    host = [b for b in summary.benchmarks if b.metric == "host_overhead"]
    gated = [b for b in host if b.gated]
    assert 100 <= len(gated) < len(host)
    assert {b.verdict for b in gated} <= {"unchanged", "inconclusive"}
    assert rc == 0


def test_device_time_only_passes(tmp_path):
    rc = main(
        ["compare", f"{H100}@fd920c0", f"{H100}@412cde3", "--config", str(_device_only(tmp_path))]
    )
    assert rc == 0


def _device_only(tmp_path):
    path = tmp_path / "gate.toml"
    path.write_text("[gated]\nhost_overhead = false\n")
    return path


def test_directory_of_several_runs_is_refused(capsys):
    assert main(["compare", str(H100), f"{H100}@412cde3"]) == 2
    err = capsys.readouterr().err
    assert "6 commits" in err
    assert "--commit" in err

"""``iconbench compare`` on the committed H100 result sets (results/h100)."""

from tests.archived_results import restored

from iconbench.cli import main
from iconbench.gate.summary import Summary

H100 = restored("results/h100")  # raw files from git history (tests/archived_results.py)


def test_fd920c0_against_412cde3(tmp_path, capsys):
    """summary.1 (fd920c0) vs summary.2 (412cde3): 412cde3 measured 19 noisy cases again."""
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
    # the host overhead of some re-measured dace_gpu cases grew (measured alone, 412cde3)
    regressions = [b for b in summary.benchmarks if b.verdict == "regression"]
    assert regressions
    assert {b.metric for b in regressions} == {"host_overhead"}
    assert rc == 1
    assert summary.exit_code == 1
    # 73 dace_gpu variants fail to compile on both sides: reported, not a new failure
    assert summary.counts["failed"] == 73
    assert summary.base.commit.startswith("fd920c0")
    assert summary.head.commit.startswith("412cde3")
    assert "REGRESSION" in capsys.readouterr().out


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

"""``iconbench rebuild-check`` on the CPU path (clean builds in fresh processes)."""

import json
import pathlib

import pytest

from iconbench.cli import main
from iconbench.gate import rebuild


@pytest.mark.slow  # two fresh processes, each imports gt4py and makes the grid (~1-2 min)
def test_embedded_two_builds(tmp_path, capsys):
    out = tmp_path / "rebuild.json"
    args = ["compute_tangential_wind", "--backends", "embedded", "--builds", "2"]
    rc = main(["rebuild-check", *args, "--samples", "8", "--threshold", "1.0", "--out", str(out)])
    report = json.loads(out.read_text())[0]
    assert report["case"] == "compute_tangential_wind[default]"
    assert len(report["builds"]) == 2
    assert all(len(b["samples"]) == 8 and b["fingerprint"] is None for b in report["builds"])
    assert report["code_stable"] is True
    assert rc == (0 if report["timing_stable"] else 1)
    assert "generated code: none" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope_program", "--backends", "embedded"], "unknown program 'nope_program'"),
        (["compute_tangential_wind", "--backends", "gtfn_cpo"], "unknown backend 'gtfn_cpo'"),
        (["compute_tangential_wind", "--backends", "embedded", "--builds", "1"], "--builds"),
    ],
)
def test_bad_input_exits_2(capsys, args, message):
    try:
        status = main(["rebuild-check", *args])
    except SystemExit as stop:  # refused while the arguments are parsed
        status = stop.code
    assert status == 2
    assert message in capsys.readouterr().err


@pytest.mark.slow
def test_gtfn_cpu_generated_code_is_deterministic(capsys):
    rc = main(["rebuild-check", "compute_tangential_wind", "--backends", "gtfn_cpu",
               "--builds", "2", "--samples", "20", "--threshold", "0.5", "--json"])  # fmt: skip
    report = json.loads(capsys.readouterr().out)[0]
    fingerprints = {b["fingerprint"] for b in report["builds"]}
    assert len(fingerprints) == 1
    assert None not in fingerprints
    assert rc in (0, 1)
    assert report["code_stable"]


DATA = pathlib.Path(__file__).resolve().parent / "data"


def _recorded(stack: str) -> rebuild.RebuildReport:
    """A report of builds measured on a 2-core workstation: 4 clean builds, 5 samples each.

    ``iconbench rebuild-check 'apply_diffusion_to_w_and_compute_horizontal_gradients_for_
    turbulence[default]' --backends dace_cpu --builds 4 --samples 5 --out FILE`` with gt4py
    1.2.1 + dace 2.0.0a6, and with the gt4py 1.2.0 + dace 2.0.0a5 overlay first on the path.
    """
    data = json.loads((DATA / f"rebuild-dace_cpu-gt4py-{stack}.json").read_text())[0]
    builds = [
        rebuild.Build(b["fingerprint"], b["compile_s"], tuple(b["samples"])) for b in data["builds"]
    ]
    return rebuild.report(data["case"], data["backend"], data["grid"], builds, 0.05)


def test_builds_of_one_code_are_not_a_timing_difference():
    """gt4py 1.2.1: one code in 4 builds; the later processes ran 0.67-0.72x the first's."""
    report = _recorded("1.2.1")
    assert report.code_stable
    assert all(q <= 0.05 for _, q in report.ratios)  # the processes did differ
    assert report.timing_stable
    low, high = report.process_spread
    assert 0.6 < low <= high < 0.8
    text = report.render()
    assert "generated code: identical in every build" in text
    assert "timing: stable" in text
    assert "not the code's" in text


def test_builds_of_other_code_are_judged_on_their_timing():
    """gt4py 1.2.0: 4 builds, 4 codes (its DaCe translation is not reproducible)."""
    report = _recorded("1.2.0")
    assert not report.code_stable
    assert len({b.fingerprint for b in report.builds}) == 4
    assert report.process_spread is None
    assert not report.timing_stable
    assert "generated code: DIFFERS (4 fingerprints)" in report.render()

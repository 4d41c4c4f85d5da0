"""The continuous machinery in the current environment (``--existing``): no build, seconds.

The suite calls ``toycall.call()``, a module the test edits between the two runs, as a
developer edits an editable gt4py checkout between two runs.
"""

import json
import pathlib

import pytest

from iconbench import cli
from iconbench.errors import IconbenchError
from iconbench.stacks import continuous

SUITE = """
import os

from . import toycall


class Call:
    def time_call(self):
        toycall.call()

    def time_compile_fails(self):
        if os.environ.get("TOY_FAIL"):
            raise RuntimeError("compiling program 'toy' failed")
        toycall.call()
"""
FAST = "def call():\n    sum(range(1000))\n"
SLOW = "import time\n\n\ndef call():\n    time.sleep(0.003)\n    sum(range(1000))\n"
#: Few, short samples: the point is the machinery, the slowdown is 100x.
ASV_ARGS = ("-a", "repeat=(3,5,2.0)", "-a", "rounds=1", "-a", "warmup_time=0.01")


@pytest.fixture
def suite(tmp_path, monkeypatch):
    bench = tmp_path / "suite"
    bench.mkdir()
    (bench / "__init__.py").write_text("")
    (bench / "bench_toy.py").write_text(SUITE)
    (bench / "toycall.py").write_text(FAST)
    monkeypatch.delenv("TOY_FAIL", raising=False)
    return bench, bench / "toycall.py"


def test_existing_mode_reports_regression_and_failure(
    toy_repo, suite, tmp_path, monkeypatch, capsys
):
    bench, toycall = suite
    options = dict(
        repo=toy_repo,
        existing=True,
        benchmark_dir=bench,
        asv_root=tmp_path / "asv",
        asv_args=ASV_ARGS,
    )

    toycall.write_text(FAST)
    baseline = continuous.run(continuous.Options(base="main", head="main", **options), echo=False)
    assert {c.verdict for c in baseline.changes} == {"unchanged"}
    times = {c.benchmark.rsplit(".", 1)[1]: c.head for c in baseline.changes}
    assert set(times) == {"time_call", "time_compile_fails"}
    assert all(t is not None and 0 < t < 1e-3 for t in times.values())

    toycall.write_text(SLOW)
    monkeypatch.setenv("TOY_FAIL", "1")
    report_file = tmp_path / "report.json"
    status = cli.main(
        [
            "continuous",
            "main",
            "feature",
            "--existing",
            "--repo",
            str(toy_repo),
            "--benchmark-dir",
            str(bench),
            "--asv-dir",
            str(tmp_path / "asv"),
            "--out",
            str(report_file),
        ]
        + [f"--asv-arg={a}" for a in ASV_ARGS]
    )
    assert status == 1
    out = capsys.readouterr().out
    report = json.loads(report_file.read_text())
    by_name = {c["benchmark"].rsplit(".", 1)[1]: c for c in report["changes"]}
    assert by_name["time_call"]["verdict"] == "regressed"
    assert by_name["time_call"]["ratio"] > 5  # 3 ms sleep vs. a few µs
    failed = by_name["time_compile_fails"]
    assert (failed["verdict"], failed["head"]) == ("failed", None)
    assert failed["base"] > 0  # the base ran: a failure is never a fast time
    assert "failed" in out
    assert "2 of 2 benchmarks regressed or failed" in out

    # provenance of the measured environment is stored, append-only, per commit
    stored = sorted((tmp_path / "asv" / "provenance").glob("*/*.json"))
    assert len(stored) == 2
    (head_file,) = [p for p in stored if p.name.startswith(report["head_commit"][:8])]
    head = json.loads(head_file.read_text())
    assert head["components"]["gt4py"]["commit"] == report["head_commit"]
    assert set(head["components"]) == {"gt4py", "dace", "icon4py"}
    assert head["python"].startswith("3.12")
    assert "numpy" in head["packages"]


def test_existing_mode_needs_stored_base(toy_repo, suite, tmp_path):
    bench, _ = suite
    with pytest.raises(
        IconbenchError, match=r"^gt4py: no stored results of base main .* --existing' first"
    ):
        continuous.run(
            continuous.Options(
                base="main",
                head="feature",
                repo=toy_repo,
                existing=True,
                benchmark_dir=bench,
                asv_root=tmp_path / "asv",
            ),
            echo=False,
        )


def test_component_detection(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "something-else"\n')
    with pytest.raises(IconbenchError, match=r"'something-else' is not gt4py.* or --component"):
        continuous.detect_component(tmp_path)
    assert (
        continuous.detect_component(pathlib.Path(__file__).parents[2]) is None
    )  # iconbench itself

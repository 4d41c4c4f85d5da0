"""Importers read real-format samples and reject broken ones with file/line/key errors."""

from __future__ import annotations

import json

import pytest

from iconbench.baselines import importers
from iconbench.baselines.importers import bencher_json, timer_table
from iconbench.errors import IconbenchError

from .conftest import BENCHER, DATA


def test_icon_log_table_with_nesting_and_minutes(provenance):
    baseline = importers.import_file(DATA / "icon_run.log", provenance)
    names = [t.name for t in baseline.timers]
    assert names == [
        "total",
        "integrate_nh",
        "nh_solve",
        "vertically_implicit_solver_at_predictor_step",
        "vertically_implicit_solver_at_predictor_step_first",
        "nh_hdiff_run",
        "nh_hdiff_run_initial",
    ]
    total = baseline.timer("total")
    assert (total.t_min_s, total.t_avg_s, total.total_s) == (188.0, 188.0, 188.158)
    step = baseline.timer("integrate_nh")
    assert (step.calls, step.t_min_s, step.t_avg_s, step.t_max_s) == (6, 0.0412, 0.042, 0.0433)
    assert baseline.source.kind == "timer-table"
    assert len(baseline.source.sha256) == 64


def test_markdown_tables_one_at_a_time(provenance):
    text = (DATA / "report.md").read_text()
    first, second = timer_table.tables(text)
    assert [t.name for t in first] == ["nh_hdiff_run", "nh_hdiff_run_initial"]
    assert [t.name for t in second] == ["nh_hdiff_run", "nh_hdiff_run_initial"]
    assert first[0].t_avg_s == 0.00178
    assert second[1].t_avg_s == 187.0  # 03m07s
    baseline = importers.import_file(DATA / "report.md", provenance, table=2)
    assert baseline.timer("nh_hdiff_run").t_avg_s == 0.00222
    with pytest.raises(IconbenchError, match=r"has 2 timer table\(s\), no table 3"):
        importers.import_file(DATA / "report.md", provenance, table=3)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0.00176s", 0.00176),
        ("03m08s", 188.0),
        ("2h00m01s", 7201.0),
        ("182.069", 182.069),
        ("1.5e-05s", 1.5e-05),
    ],
)
def test_durations(text, expected):
    assert timer_table.parse_duration(text) == expected


def test_broken_row_names_file_and_line(tmp_path, provenance):
    lines = (DATA / "report.md").read_text().splitlines()
    lines[4] = lines[4].replace("0.00178s", "0.00l78s")
    path = tmp_path / "report.md"
    path.write_text("\n".join(lines))
    with pytest.raises(IconbenchError, match=rf"^{path}: line 5: timer 'nh_hdiff_run': .*0.00l78s"):
        importers.import_file(path, provenance)


def test_row_with_missing_cells_names_the_line(tmp_path, provenance):
    path = tmp_path / "t.md"
    path.write_text(
        "| name | # calls | t_min | t_avg | t_max | total |\n|---|---|---|---|---|---|\n"
        "| nh_hdiff_run | 6 | 0.00176s |\n"
    )
    with pytest.raises(IconbenchError, match=rf"^{path}: line 3: expected 'name \| # calls"):
        importers.import_file(path, provenance)


def test_inconsistent_row_is_rejected_by_validation(tmp_path, provenance):
    path = tmp_path / "t.log"
    path.write_text(
        "name # calls t_min t_avg t_max total\nnh_hdiff_run 6 0.003s 0.002s 0.001s 0.01\n"
    )
    with pytest.raises(IconbenchError, match=r"key 'timers\[0\]': needs t_min_s <= t_avg_s"):
        importers.import_file(path, provenance)


def test_no_table(tmp_path, provenance):
    path = tmp_path / "empty.log"
    path.write_text("model run finished\n")
    with pytest.raises(IconbenchError, match=rf"^{path}: no ICON timer table found"):
        importers.import_file(path, provenance)


def test_bencher_json_in_seconds(provenance):
    raw = json.loads(BENCHER.read_text())
    baseline = importers.import_file(BENCHER, provenance)
    assert baseline.source.kind == "bencher-json"
    vn = baseline.timer("apply_diffusion_to_vn")
    entry = raw["apply_diffusion_to_vn"]
    assert vn.calls == entry["num_calls"]["value"]
    assert vn.t_avg_s == pytest.approx(entry["latency"]["value"] / 1000)
    assert vn.t_min_s == pytest.approx(entry["latency"]["lower_value"] / 1000)
    assert vn.t_max_s == pytest.approx(entry["latency"]["upper_value"] / 1000)
    assert vn.total_s == pytest.approx(entry["latency_total"]["value"] / 1000)
    assert bencher_json.experiment_from_name(BENCHER) == ("mch_icon-ch1_medium_stencils", "OPENACC")


def test_bencher_round_trip_through_json(provenance):
    baseline = importers.import_file(BENCHER, provenance)
    from iconbench.baselines.format import from_dict

    assert from_dict(json.loads(baseline.to_json())) == baseline


@pytest.mark.parametrize(
    ("edit", "key"),
    [
        (lambda d: d["integrate_nh"].pop("num_calls"), "integrate_nh.num_calls"),
        (lambda d: d["nh_hdiff"]["latency"].update(value="1.2"), "nh_hdiff.latency.value"),
        (lambda d: d["nwp_radiation"]["num_calls"].update(value=1.5), "nwp_radiation.num_calls"),
        (
            lambda d: d["apply_diffusion_to_vn"].update(latency=None),
            "apply_diffusion_to_vn.latency",
        ),
    ],
)
def test_broken_bencher_json(tmp_path, provenance, edit, key):
    data = json.loads(BENCHER.read_text())
    edit(data)
    path = tmp_path / "bencher=x=ACC.json"
    path.write_text(json.dumps(data))
    with pytest.raises(IconbenchError, match=rf"^{path}: key '{key}"):
        importers.import_file(path, provenance)


def test_bencher_json_syntax_error_names_line(tmp_path, provenance):
    path = tmp_path / "bencher=x=ACC.json"
    path.write_text('{\n  "a": {\n    "latency": }\n}')
    with pytest.raises(IconbenchError, match=rf"^{path}: line 3: invalid JSON"):
        importers.import_file(path, provenance)

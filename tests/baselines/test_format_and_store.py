"""The baseline JSON: round trip, validation with file/key/what errors, append-only store."""

from __future__ import annotations

import json

import pytest

from iconbench.baselines import format as baseline_format
from iconbench.baselines import importers, store
from iconbench.errors import IconbenchError

from .conftest import DATA


@pytest.fixture
def baseline(provenance):
    return importers.import_file(DATA / "icon_run.log", provenance)


def test_round_trip_through_the_store(tmp_path, baseline):
    path = store.save(tmp_path, baseline)
    assert path == tmp_path / "mch-r04b09" / "balfrin_a100_2024-05-29.json"
    assert store.names(tmp_path) == ["mch-r04b09/balfrin_a100_2024-05-29"]
    loaded = store.load(tmp_path, baseline.name)
    assert loaded == baseline
    assert loaded.to_json() == path.read_text()
    # no temporary file is left behind
    assert [p.name for p in path.parent.iterdir()] == [path.name]


def test_store_never_overwrites(tmp_path, baseline):
    path = store.save(tmp_path, baseline)
    before = path.read_text()
    with pytest.raises(IconbenchError, match="never overwritten"):
        store.save(tmp_path, baseline)
    assert path.read_text() == before


def test_unknown_name_lists_stored(tmp_path, baseline):
    store.save(tmp_path, baseline)
    with pytest.raises(IconbenchError, match=r"not found .*stored: mch-r04b09/balfrin_a100"):
        store.load(tmp_path, "mch-r04b09/nope")


def _write(tmp_path, baseline, edit):
    data = baseline.as_dict()
    edit(data)
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data, indent=2))
    return path


@pytest.mark.parametrize(
    ("edit", "key", "what"),
    [
        (lambda d: d["timers"][1].pop("calls"), "timers[1].calls", "is missing"),
        (lambda d: d["timers"][0].update(t_avg_s="0.1s"), "timers[0].t_avg_s", "expected"),
        (lambda d: d["timers"][2].update(t_min_s=1.0), "timers[2]", "t_min_s <= t_avg_s"),
        (lambda d: d["timers"][0].update(calls=0), "timers[0].calls", "must be >= 1"),
        (lambda d: d["timers"][0].update(calls=True), "timers[0].calls", "boolean"),
        (lambda d: d["timers"][3].update(total_s=-1), "timers[3].total_s", ">= 0"),
        (lambda d: d.update(date="29.05.2024"), "date", "YYYY-MM-DD"),
        (lambda d: d.update(date="2024-02-30"), "date", "not a calendar date"),
        (lambda d: d.update(version=2), "version", "unsupported version 2"),
        (lambda d: d["machine"].pop("gpu"), "machine.gpu", "is missing"),
        (lambda d: d["experiment"].update(grid=""), "experiment.grid", "is empty"),
        (lambda d: d.update(timers=[]), "timers", "has no timers"),
        (lambda d: d["timers"].append(dict(d["timers"][0])), "timers[7].name", "duplicate"),
    ],
)
def test_broken_baselines_name_file_key_and_problem(tmp_path, baseline, edit, key, what):
    path = _write(tmp_path, baseline, edit)
    with pytest.raises(IconbenchError) as error:
        baseline_format.load(path)
    message = str(error.value)
    assert message.startswith(f"{path}: key '{key}': ")
    assert what in message
    assert "\n" not in message


def test_invalid_json_names_the_line(tmp_path, baseline):
    path = tmp_path / "broken.json"
    lines = baseline.to_json().splitlines()
    lines[5] = lines[5].rstrip(",")  # drop a comma: line 6 (or 7) is now wrong
    path.write_text("\n".join(lines))
    with pytest.raises(IconbenchError, match=rf"^{path}: line [67]: invalid JSON"):
        baseline_format.load(path)


def test_stored_seed_baseline_is_valid_and_has_provenance():
    root = store.default_root()
    name = "mch-r04b09/unknown_unknown_2024-05"
    assert name in store.names(root)
    seed = store.load(root, name)
    assert (seed.experiment.grid, seed.timesteps, seed.source.kind) == ("R04B09", 6, "timer-table")
    assert "seed 004" in seed.source.note
    hdiff = seed.timer("nh_hdiff_run")
    assert hdiff is not None
    assert hdiff.calls == seed.timesteps


def test_stored_seed_baseline_reimports_identically():
    seed_file = store.default_root().parent.parent / "shared" / "seeds"
    matches = sorted(seed_file.glob("004_*.txt"))
    if not matches:
        pytest.skip("shared seeds not available")
    stored = store.load(store.default_root(), "mch-r04b09/unknown_unknown_2024-05")
    again = importers.import_file(
        matches[0],
        importers.Provenance(
            experiment=stored.experiment.name,
            grid=stored.experiment.grid,
            gpu=stored.machine.gpu,
            machine=stored.machine.name,
            date=stored.date,
            timesteps=stored.timesteps,
            icon_commit=stored.icon.commit,
            icon_build=stored.icon.build,
            description=stored.experiment.description,
            note=stored.source.note,
        ),
        "timer-table",
    )
    assert again == stored

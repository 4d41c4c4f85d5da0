"""docs/nightly-gpu.md's figures are the committed four-GPU runs' (results/nightly-4xh200*).

Each row of the wall-time table is its run's ``phases.json`` and the whole command's time in
``nightly-gpus.log``; the cold precompiles' sums are their compile ledgers; the confirmations'
counts are their ``check.json`` and the nights' own log lines; the agreement is its compare's
summary and the runs' session ledgers. A figure changed in the doc without a run behind it,
or a run replaced without the doc, fails here.
"""

from __future__ import annotations

import json
import pathlib
import re
import statistics

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "nightly-gpu.md"
RESULTS = ROOT / "results"
RUN = RESULTS / "nightly-4xh200"
SECOND = RESULTS / "nightly-4xh200-2"

#: a wall-time row: "| last night's builds | devices | 20.2 s | ... | **319 s** |
#: `nightly-4xh200/night-3` |"
ROW = re.compile(
    r"^\| (empty build cache|last night's builds(?:, 5a18127)?) \| (shards|devices) \| "
    r"([0-9.]+) s \| (.+) \| \*\*([0-9]+) s\*\* \| `(nightly-4xh200(?:-2)?)/(night-\d)` \|$",
    re.M,
)
PHASES = ("stack", "precompile", "measure", "merge", "finish")


def _whole_seconds(record: pathlib.Path = RUN) -> dict[str, int]:
    """Each run's whole ``ci/gpu/nightly-host`` time, as its record's log has it."""
    log = (record / "nightly-gpus.log").read_text()
    return {name: int(s) for name, s in re.findall(r"\] (\S+): exit 0 after (\d+) s", log)}


def _prose() -> str:
    """The doc with every run of white space one space: a sentence reads as one line."""
    return " ".join(DOC.read_text().split())


def _phases(run: str, record: pathlib.Path = RUN) -> dict:
    return json.loads((record / run / "phases.json").read_text())


def test_each_night_row_is_its_phases_and_its_whole_command():
    rows = ROW.findall(DOC.read_text())
    assert [f"{row[-2]}/{row[-1]}" for row in rows] == [
        "nightly-4xh200/night-1", "nightly-4xh200-2/night-1", "nightly-4xh200/night-2",
        "nightly-4xh200/night-3", "nightly-4xh200-2/night-2"]  # fmt: skip
    wholes = {}
    for cache, road, setup, cells, shown_whole, record, run in rows:
        phases = _phases(run, RESULTS / record)
        whole = _whole_seconds(RESULTS / record)[run]
        assert (phases["gpus"], phases["road"], phases["until"]) == (4, road, "finish")
        assert (run == "night-1") == (cache == "empty build cache")
        shown = [float(cell.removesuffix(" s")) for cell in cells.split(" | ")]
        assert shown == [phases["phases_s"][p] for p in PHASES], run
        assert int(shown_whole) == whole
        assert float(setup) == phases["phases_s"].get("setup", round(whole - sum(shown), 1))
        wholes[record, run] = whole
    # the cold goal holds on both hosts; the warm one (300 s) at 5a18127, not at 5a7f4b0
    assert max(wholes["nightly-4xh200", "night-1"], wholes["nightly-4xh200-2", "night-1"]) < 900
    assert wholes["nightly-4xh200-2", "night-2"] < 5 * 60
    assert min(wholes["nightly-4xh200", "night-2"], wholes["nightly-4xh200", "night-3"]) > 5 * 60


def test_the_1_and_4_gpu_rows_are_the_second_hosts_runs_with_one_cache():
    one, four = _phases("gpus-1", SECOND), _phases("night-2", SECOND)
    assert (one["gpus"], one["road"], one["until"]) == (1, "devices", "merge")
    assert (four["gpus"], four["road"]) == (4, "devices")
    # every case built before either measured: night 1's builds, nothing compiled again
    assert max(one["phases_s"]["precompile"], four["phases_s"]["precompile"]) < 10
    t1, t4 = one["phases_s"]["measure"], four["phases_s"]["measure"]
    text = DOC.read_text()
    assert f"| 1 | {t1} s | 1.00 | | `nightly-4xh200-2/gpus-1` |" in text
    assert f"| 4 | {t4} s | {t4 / t1:.2f} | ≤ 0.35: yes | `nightly-4xh200-2/night-2` |" in text
    assert t4 / t1 <= 0.35
    assert (
        f"shards road measured the four-GPU phase in {_phases('gpus-4')['phases_s']['measure']} s"
        in _prose()
    )


def test_the_confirmations_builds_and_times_are_their_check_records():
    text = _prose()
    found = sorted(RUN.glob("night-*/merged/finish-*/confirm/check.json"))
    checks = [json.loads(p.read_text()) for p in found]
    assert len(checks) == 2
    compiled = [c["builds"]["head"]["compiled"] for c in checks]
    assert [c["builds"]["base"]["compiled"] for c in checks] == compiled
    assert f"{compiled[0]} and {compiled[1]} compiled a side" in text
    precompile = " and ".join(f"{c['phases']['precompile']} s" for c in checks)
    total = " and ".join(f"{c['total_s']} s" for c in checks)
    assert f"{precompile} of its {total}" in text
    # after the fix: the confirmation finds the night's builds
    (after,) = [json.loads(p.read_text())
                for p in SECOND.glob("night-2/merged/finish-*/confirm/check.json")]  # fmt: skip
    builds = after["builds"]
    assert builds["base"] == builds["head"]
    assert builds["head"]["compiled"] == 0
    assert (f"were {builds['head']['compiled']} compiled and {builds['head']['found']} found a "
            f"side, its precompile {after['phases']['precompile']} s of its "
            f"{after['total_s']} s") in text  # fmt: skip


@pytest.mark.parametrize(
    ("record", "run", "flagged"),
    [
        ("nightly-4xh200", "night-2", 4),
        ("nightly-4xh200", "night-3", 8),
        ("nightly-4xh200-2", "night-2", 5),
    ],
)
def test_a_warm_night_of_the_same_code_reports_nothing(record, run, flagged):
    """The archived night's own log: every flagged change measured again, none confirmed."""
    from tests.archived_results import restored

    log = (restored(f"results/{record}") / run / "nightly-host.log").read_text()
    line = f"0 changes reported, {flagged} not confirmed (run-to-run noise)"
    assert line in log
    assert f"0 changes reported, {flagged} not confirmed" in _prose()


def _ledger_rows(record: str) -> list[dict]:
    """The cold night's compile ledger (the shards road's precompile, the devices road's run)."""
    from tests.archived_results import restored

    night = restored(f"results/{record}") / "night-1"
    ledgers = [night / road / "work" / "compile.jsonl" for road in ("precompile", "merged")]
    ledger = next(p for p in ledgers if p.exists())
    return [json.loads(line) for line in ledger.read_text().splitlines()]


@pytest.mark.parametrize("record", ["nightly-4xh200", "nightly-4xh200-2"])
def test_the_cold_precompile_figures_are_its_compile_ledger(record):
    rows = _ledger_rows(record)
    seconds = sum(r["seconds"] for r in rows)
    span = max(r["at"] for r in rows) - min(r["at"] - r["seconds"] for r in rows)
    text = _prose()
    assert f"{len(rows)} builds in" in text
    assert not [r for r in rows if r["error"]]
    assert f"{seconds:,.0f} compile-seconds".replace(",", " ") in text
    assert f"over 64 cores is {seconds / 64:.0f} s" in text
    assert f"spends {span:.0f} s between" in text
    assert f"on average {seconds / span:.0f} builds at a time" in text


def test_the_second_host_compiled_the_same_builds_in_more_seconds():
    first, second = (sum(r["seconds"] for r in _ledger_rows(record))
                     for record in ("nightly-4xh200", "nightly-4xh200-2"))  # fmt: skip
    assert f"The same builds took {100 * (second / first - 1):.0f} % more" in _prose()


def _device_times(run: pathlib.Path) -> dict[tuple[str, str], tuple[str, float]]:
    """Each case's GPU and the median of its device-time samples in one run.

    The devices road records the GPU per case; a shard sees only its own GPU (as device 0),
    so on the shards road the GPU is the shard's: shard i ran on GPU i-1.
    """
    times = {}
    for line in (run / "merged" / "work" / "session.jsonl").read_text().splitlines():
        row = json.loads(line)
        median = statistics.median(row["measurement"]["device_s"])
        times[row["case"], row["backend"]] = (row.get("device"), median)
    for shard in sorted(run.glob("shard-*/summary.json")):
        gpu = str(int(shard.parent.name.removeprefix("shard-")) - 1)
        for case in json.loads(shard.read_text())["cases"]:
            times[case["case"], case["backend"]] = (gpu, times[case["case"], case["backend"]][1])
    return times


def test_a_case_on_another_gpu_measures_the_same_as_on_its_own():
    from tests.archived_results import restored

    first, second = restored("results/nightly-4xh200"), restored("results/nightly-4xh200-2")
    one, two, three = (_device_times(first / f"night-{n}") for n in (1, 2, 3))
    gpu, night1, night2 = (_device_times(second / r) for r in ("gpus-1", "night-1", "night-2"))
    text = DOC.read_text()
    for later, earlier, label in (
        (night2, gpu, "night 2 / 1 GPU"),
        (night2, night1, "night 2 / night 1"),
        (three, two, "night 3 / night 2 (`nightly-4xh200`)"),
        (two, one, "night 2 / night 1 (`nightly-4xh200`)"),
    ):
        for same in (False, True):
            ratios = [later[k][1] / earlier[k][1] for k in earlier
                      if (later[k][0] == earlier[k][0]) == same]  # fmt: skip
            if not ratios:
                continue
            low, *_, high = statistics.quantiles(ratios, n=20, method="inclusive")
            row = (f"| {label} | {'the same' if same else 'another'}: {len(ratios)} | "
                   f"{statistics.median(ratios):.3f} | {low:.3f} to {high:.3f} | "
                   f"{min(ratios):.3f} to {max(ratios):.3f} |")  # fmt: skip
            assert row in text
    assert sum(three[k][0] != two[k][0] for k in two) == 286
    assert {device for device, _ in gpu.values()} == {"0"}
    assert sorted(sum(d == str(i) for d, _ in night2.values()) for i in range(4)) == [96] * 4


def test_the_agreement_row_is_its_compare_and_the_flags_gpus_its_ledgers():
    from tests.archived_results import restored

    second = restored("results/nightly-4xh200-2")
    summary = json.loads((second / "agreement.json").read_text())
    counts = summary["counts"]
    device = [b for b in summary["benchmarks"] if b["metric"] == "device_time"]
    flagged = [b for b in device if b["verdict"] in ("regression", "improvement")]
    largest = max(b["ratio"] for b in device)
    row = (f"| night 2 against `gpus-1` | {len(device)} | {counts['regression']} | "
           f"{counts['improvement']} | {counts['unchanged']} | {largest:.3f} | "
           "`nightly-4xh200-2/agreement.txt` |")  # fmt: skip
    assert row in DOC.read_text()
    night2 = _device_times(second / "night-2")
    where = [night2[b["program"] + f"[{b['variant']}]", b["backend"]][0] for b in flagged]
    text = _prose()
    assert f"{where.count('0')} of the {len(flagged)} ran on GPU 0 in both runs" in text
    low, high = min(b["ratio"] for b in flagged), max(b["ratio"] for b in flagged)
    assert f"({low:.3f}x to {high:.3f}x)" in text
    shift = re.search(r"host_overhead: the runner was ([0-9.]+ % \[[0-9., -]+\]) slower",
                      (SECOND / "agreement.txt").read_text())  # fmt: skip
    assert shift
    assert f"run {shift[1]} slower than the one-GPU run in host overhead" in text


@pytest.mark.parametrize(("record", "variants"), [("nightly-4xh200", 35), ("nightly-4xh200-2", 37)])
def test_the_deferred_variants_are_the_nights_log(record, variants):
    """The variants that went back (their build folder busy in another process), the seconds
    each then took to load it and what it had translated before, from the night's log and
    compile ledger."""
    from tests.archived_results import restored

    night = restored(f"results/{record}") / "night-1"
    log = (night / "nightly-host.log").read_text()
    deferred = re.findall(r"precompile: (\S+) on (\w+): .* taken up again later", log)
    assert len(deferred) == variants
    rows = _ledger_rows(record)
    seconds = {(r["case"], r["backend"]): r["seconds"] for r in rows}
    loaded = sorted(seconds[pair] for pair in deferred)
    text = _prose()
    assert f"last attempt only: {len(deferred)} static variants" in text
    assert f"in {loaded[0]:.1f}-{loaded[-1]:.1f} s each" in text
    before = [float(s) for s in re.findall(r"taken up again later \(after ([0-9.]+) s\)", log)]
    if before:  # logged from 5a18127 on
        assert f"spent {sum(before):,.0f} s translating".replace(",", " ") in text
        assert f"`(after {max(before)} s)`" in text
        assert f"(after {min(before)} s)`" in text
        work = sum(r["seconds"] for r in rows) + sum(before)
        span = max(r["at"] for r in rows) - min(r["at"] - r["seconds"] for r in rows)
        assert f"the precompile's work is {work:,.0f} s".replace(",", " ") in text
        assert f"{work / 64:.0f} s over 64 cores, of the {span:.0f} s it spent" in text
        assert f"the cores were busy {100 * work / 64 / span:.0f} % of the span" in text


def test_where_the_measuring_phase_goes_is_each_cases_record():
    from tests.archived_results import restored

    second = restored("results/nightly-4xh200-2")
    text = DOC.read_text()
    shares = {}
    for run, label in (("gpus-1", "`gpus-1` (1 GPU)"), ("night-2", "night 2 (4 GPUs, summed)")):
        ledger = second / run / "merged" / "work" / "session.jsonl"
        rows = [json.loads(line) for line in ledger.read_text().splitlines()]
        whole, load = sum(r["duration_s"] for r in rows), sum(r["load_s"] for r in rows)
        inputs = sum(r["prepare_s"] for r in rows) - load
        warm = sum(r["measurement"]["warmup_s"] for r in rows)
        rest = whole - load - inputs - warm
        cells = " | ".join(f"{v:.1f} s" for v in (whole, load, inputs, warm, rest))
        assert f"| {label} | {cells} |" in text
        shares[run] = (whole, load, inputs)
    (_, one_load, one_inputs), (four, four_load, four_inputs) = shares.values()
    measure = _phases("night-2", SECOND)["phases_s"]["measure"]
    prose = _prose()
    assert f"loading takes {100 * (four_load / one_load - 1):.0f} % longer" in prose
    assert round(four_inputs / one_inputs) == 2  # "twice as long"
    assert f"{four:.1f} s of cases end in {measure} s, {four / 4 / measure:.2f} of a" in prose

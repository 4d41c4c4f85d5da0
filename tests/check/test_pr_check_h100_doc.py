"""Every row of results/pr-check-h100/README.md's results table is its committed check.json.

The document's figures are the product's claim about its PR check on a GPU host; they must
be traceable to the result files, so a row copied wrong (or a result file replaced) fails.
"""

from __future__ import annotations

import pathlib
import re

import pytest

from iconbench.records.check import CheckRecord

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOC = ROOT / "results" / "pr-check-h100" / "README.md"
#: The results tables in the document's order, each with the directory of its checks: one H100
#: host, then the two-GPU host ("The heavy check on a two-GPU host"), then one H200 host ("The
#: heavy check at a81e12e"). A row that names ``DIR/check`` has its check in ``results/DIR``
#: instead (another host of the same kind).
RESULTS = (ROOT / "results" / "pr-check-h100", ROOT / "results" / "pr-check-2xh200",
           ROOT / "results" / "pr-check-h200")  # fmt: skip


def _tables() -> list[list[list[str]]]:
    """The results tables' rows, as lists of cells, one list a table."""
    lines = DOC.read_text().splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("| check (result directory)")]
    tables = []
    for start in starts:
        rows = []
        for line in lines[start + 2 :]:
            if not line.startswith("|"):
                break
            rows.append([cell.strip() for cell in line.strip("|").split("|")])
        tables.append(rows)
    return tables


def _seconds(cell: str) -> float | None:
    """'73.3 s' or '**139.0 s**' -> 73.3; '–' -> None."""
    found = re.search(r"([0-9]+\.[0-9]) s", cell)
    return float(found.group(1)) if found else None


def _name(row: list[str]) -> str:
    """The result directory a row names: '... (`icon4py-comment-2026-11-26i`)' or, for a check
    of another host, '... (`pr-check-2xh100/icon4py-1405-main-2026-11-27`)'."""
    return re.search(r"\(`([^`]+)`", row[0]).group(1)


def _directory(results: pathlib.Path, row: list[str]) -> pathlib.Path:
    """The check directory of a row of the table whose checks are in ``results``."""
    name = _name(row)
    return ROOT / "results" / name if "/" in name else results / name


def _ids(rows: list[tuple[pathlib.Path, list[str]]]) -> list[str]:
    """A row's test id: its results directory and check, 'pr-check-h100/icon4py-...'."""
    return [f"{directory.parent.name}/{directory.name}" for directory, _ in rows]


TABLES = _tables()
ROWS = [
    (_directory(results, row), row)
    for results, table in zip(RESULTS, TABLES, strict=True)
    for row in table
]


def test_the_tables_have_the_checks_rows():
    assert len(TABLES) == len(RESULTS)
    assert len(TABLES[0]) >= 19
    assert len(TABLES[1]) >= 5
    assert len(TABLES[2]) == 36
    missing = [row[0] for directory, row in ROWS if not directory.is_dir()]
    assert not missing, missing
    two_h100 = [d for d, _ in ROWS if d.parent.name == "pr-check-2xh100"]
    assert [d.name for d in two_h100] == ["icon4py-1405-main-2026-11-27"]
    assert all(len(row) == 11 for _, row in ROWS), [row[0] for _, row in ROWS if len(row) != 11]


@pytest.mark.parametrize(("directory", "row"), ROWS, ids=_ids(ROWS))
def test_row_matches_its_check_json(directory, row):
    record = CheckRecord.read(directory)
    check, phases = record.facts, record.phases
    _, _, _, select, environments, precompile, measure, gate, why, whole, verdict = row
    assert _seconds(select) == phases["select"]
    assert _seconds(environments) == phases["environments"]
    assert _seconds(precompile) == phases["precompile"]
    assert _seconds(gate) == phases["gate"]
    assert _seconds(why) == phases.get("why")
    assert _seconds(whole) == record.total_s
    split = check["measure_split"]
    shown = re.match(r"([0-9.]+) s \(([0-9.]+) / ([0-9.]+) / ([0-9.]+)\)", measure)
    assert shown, measure
    assert [float(x) for x in shown.groups()] == [
        phases["measure"],
        split["startup"],
        split["measuring"],
        split["deciding"],
    ]
    assert verdict.lower().startswith(check["verdict"])
    counts = check["counts"]
    if check["verdict"] == "pass" or re.search(r"[0-9]+ unchanged, [0-9]+ inconclusive", verdict):
        said = f"{counts['unchanged']} unchanged, {counts['inconclusive']} inconclusive"
        assert said in verdict
    if check["verdict"] == "pass":
        assert counts["regression"] == counts["improvement"] == 0
    flagged = re.match(r"REGRESSION: ([0-9]+) \w+ device times", verdict)
    if flagged:
        assert int(flagged.group(1)) == counts["regression"]


#: A verdict's range of flagged device times and the backend with none flagged:
#: "... (+19.1 to +23.4 %), 0 dace_gpu".
FLAGGED_RANGE = re.compile(r"\(\+([0-9.]+) to \+([0-9.]+) %\), 0 (\w+_gpu)")
FLAGGED = [(directory, row) for directory, row in ROWS if FLAGGED_RANGE.search(row[-1])]


@pytest.mark.parametrize(("directory", "row"), FLAGGED, ids=_ids(FLAGGED))
def test_flagged_range_and_unflagged_backend_match_the_gate_summary(directory, row):
    """A regression row's range of flagged device times and its unflagged backend are what
    the check's gate summary (archived) says: the verdict a reviewer reads, not a copy."""
    from tests.archived_results import restored

    from iconbench.records.summary import Summary

    low, high, unflagged = FLAGGED_RANGE.search(row[-1]).groups()
    where = restored(str(directory.relative_to(ROOT)))
    summary = Summary.read(where / "gate-summary.json")
    flagged = [b for b in summary.benchmarks if b.gated and b.verdict == "regression"]
    assert flagged
    assert all(b.metric == "device_time" for b in flagged)
    assert not [b for b in flagged if b.backend == unflagged]
    ratios = sorted(b.ratio for b in flagged)
    assert [float(low), float(high)] == [
        round((ratios[0] - 1) * 100, 1),
        round((ratios[-1] - 1) * 100, 1),
    ]


def test_case_inputs_table_is_the_committed_h100_run():
    """The table of a case's inputs (now, bound again, drawn again) is the medians of
    results/case-inputs/h100-2026-11-27.json's later variants, in milliseconds."""
    import json
    import statistics

    run = json.loads((ROOT / "results" / "case-inputs" / "h100-2026-11-27.json").read_text())
    text = DOC.read_text()
    rows = re.findall(r"\| (gtfn_gpu|dace_gpu), `(\w+)` \| ([0-9.]+) ms \| ([0-9.]+) ms \| "
                      r"([0-9.]+) ms \|", text)  # fmt: skip
    assert len(rows) == 4
    for backend, program, *shown in rows:
        mine = [r for r in run["records"] if (r["backend"], r["program"]) == (backend, program)]
        later = [r for r in mine if r["variant"] > 0]
        assert len(later) == 3
        medians = [round(statistics.median(r[way] for r in later) * 1000, 1)
                   for way in ("now", "bound", "drawn")]  # fmt: skip
        assert [float(x) for x in shown] == medians, (backend, program)


def _a_a_counts(results: str, check: str, other: str, side: str, out: pathlib.Path) -> dict:
    """``iconbench compare`` of one side of two archived checks of the same code (separate
    runs): it must pass with nothing flagged; the counts of its verdicts."""
    from tests.archived_results import restored

    from iconbench.cli import main
    from iconbench.records.summary import Summary

    runs = restored(results)
    a, b = (runs / name / side for name in (check, other))
    assert main(["compare", str(a), str(b), "--out", str(out)]) == 0
    summary = Summary.read(out)
    assert summary.verdict == "pass"
    assert summary.counts["regression"] == summary.counts["improvement"] == 0
    return summary.counts


@pytest.mark.parametrize("side", ["base", "head"])
def test_two_gpu_checks_of_the_same_code_are_an_a_a(side, tmp_path):
    """The empty-cache check and the re-run on the two-GPU host, same code, separate runs:
    each side compared with itself passes with nothing flagged, as the document says."""
    empty, rerun = "icon4py-edge-empty-2026-11-27", "icon4py-edge-rerun-2026-11-27"
    counts = _a_a_counts("results/pr-check-2xh200", empty, rerun, side, tmp_path / "a.json")
    said = (
        rf"{side} {counts['unchanged']}\s+unchanged and\s+{counts['inconclusive']}\s+inconclusive"
    )
    (sentence,) = re.findall(r"passes on both sides with 0\s+regressions and 0 improvements:[^.]*",
                             DOC.read_text())  # fmt: skip
    assert re.search(said, sentence), sentence


#: The #1405 A/A tables: host, the two checks compared, each side's counts.
A_A_ROW = re.compile(
    r"\| (1 × H100|2 × H200|1 × H200|1 × H200 at f513c6d|1 × H200 at 875d336|"
    r"1 × H200 at 6eaa6d1) \| "
    r"(\w+) vs (\w+) \| "
    r"pass: ([0-9]+) unchanged, ([0-9]+) inconclusive \| "
    r"pass: ([0-9]+) unchanged, ([0-9]+) inconclusive \|"
)

#: The tables' hosts, the results directories of their checks and the checks' date (or the
#: commit their names end with).
A_A_RESULTS = {"1 × H100": ("results/pr-check-h100", "2026-11-27"),
               "2 × H200": ("results/pr-check-2xh200", "2026-11-27"),
               "1 × H200": ("results/pr-check-h200", "2026-11-28"),
               "1 × H200 at f513c6d": ("results/pr-check-h200", "f513c6d"),
               "1 × H200 at 875d336": ("results/pr-check-h200", "875d336"),
               "1 × H200 at 6eaa6d1": ("results/pr-check-h200", "6eaa6d1")}  # fmt: skip


def test_1405_checks_of_the_same_code_are_a_as(tmp_path):
    """Each side of a #1405 check against the same side of another check (same code, separate
    runs) passes with nothing flagged and the counts the document's table gives."""
    rows = A_A_ROW.findall(DOC.read_text())
    assert len(rows) == 14
    for host, first, second, *shown in rows:
        counts = []
        results, date = A_A_RESULTS[host]
        for side in ("base", "head"):
            mine = _a_a_counts(results, f"icon4py-1405-{first}-{date}",
                               f"icon4py-1405-{second}-{date}", side,
                               tmp_path / f"{host[0]}-{first}-{second}-{side}.json")  # fmt: skip
            counts += [str(mine["unchanged"]), str(mine["inconclusive"])]
        assert counts == shown, (host, first, second)


def _changed_builds(results: str) -> dict[str, str]:
    """The seconds of head's changed builds in a #1405 check with main's builds: head's builds
    whose library base does not have (as many as check.json says head compiled), 'first-last'
    per backend, rounded as the doc gives them."""
    import json

    from tests.archived_results import restored

    check = ROOT / results / "icon4py-1405-main-2026-11-27"
    where = restored(str(check.relative_to(ROOT)))
    ledgers = {side: [json.loads(line) for line in (where / side / "work/compile.jsonl").open()]
               for side in ("base", "head")}  # fmt: skip
    mains = {entry["library"] for entry in ledgers["base"]}
    changed = [entry for entry in ledgers["head"] if entry["library"] not in mains]
    assert len(changed) == CheckRecord.read(check).facts["builds"]["head"]["compiled"] == 8
    ranges = {}
    for backend in ("gtfn_gpu", "dace_gpu"):
        seconds = sorted(e["seconds"] for e in changed if e["backend"] == backend)
        assert len(seconds) == 4, (results, backend)
        ranges[backend] = f"{seconds[0]:.0f}-{seconds[-1]:.0f} s"
    return ranges


def test_main_builds_precompile_is_head_changed_builds_on_both_hosts():
    """With main's builds, head's 8 changed builds took as long each on 32 cores as on 16: the
    paragraph's ranges are the two hosts' compile ledgers (one H100; 2 x H100)."""
    one, two = _changed_builds("results/pr-check-h100"), _changed_builds("results/pr-check-2xh100")
    said = (f"gtfn_gpu {two['gtfn_gpu']} and dace_gpu {two['dace_gpu']} each on 32 cores, "
            f"{one['gtfn_gpu']} and {one['dace_gpu']} on 16")  # fmt: skip
    assert said in " ".join(DOC.read_text().split())


def test_the_collector_table_is_head_changed_builds_at_f513c6d_and_875d336():
    """The per-stage table of "Measured at 875d336": each row is head's build of that variant
    in the two checks with main's builds (their ``longest_builds``), and both checks built the
    same code (the builds' code-generation fingerprints in the archived compile ledgers)."""
    import itertools
    import json

    from tests.archived_results import restored

    text = DOC.read_text()
    start = text.index("| build (head) | backend | seconds at f513c6d | at 875d336 |")
    lines = text[start:].splitlines()[2:]
    rows = list(itertools.takewhile(lambda line: line.strip().startswith("|"), lines))
    assert len(rows) == 8
    checks = {tag: ROOT / "results" / "pr-check-h200" / f"icon4py-1405-main-{tag}"
              for tag in ("f513c6d", "875d336")}  # fmt: skip
    longest = {tag: {(b["case"].split("[")[1].rstrip("]"), b["backend"]): b
                     for b in CheckRecord.read(check).facts["longest_builds"]}
               for tag, check in checks.items()}  # fmt: skip
    stages = ("gt4py passes", "lowering", "dace passes", "code generation", "nvcc",
              "host compiler", "link", "other")  # fmt: skip
    for row in rows:
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        key = (cells[0].strip("`[]"), cells[1])
        before, after = longest["f513c6d"][key], longest["875d336"][key]
        assert [float(cells[2]), float(cells[3])] == [before["seconds"], after["seconds"]]
        for stage, cell in zip(stages, cells[4:], strict=True):
            shown = None if cell == "–" else [float(x) for x in cell.split(" → ")]
            known = [b["stages"].get(stage) for b in (before, after)]
            assert shown == (None if known == [None, None] else [round(k, 1) for k in known])
    prints = {}
    for tag, check in checks.items():
        ledger = restored(str(check.relative_to(ROOT))) / "head" / "work" / "compile.jsonl"
        records = [json.loads(line) for line in ledger.open()]
        prints[tag] = {(r["case"], r["backend"]): r["fingerprint"] for r in records
                       if r.get("stages")}  # fmt: skip
    assert len(prints["875d336"]) == 8
    assert prints["875d336"] == prints["f513c6d"]


#: The A/As of the checks measured while compiling against earlier checks of the same code.
CROSS_A_A_ROW = re.compile(
    r"\| `([\w-]+)` vs `([\w-]+)` \| "
    r"pass: ([0-9]+) unchanged, ([0-9]+) inconclusive \| "
    r"pass: ([0-9]+) unchanged, ([0-9]+) inconclusive \|"
)


def test_the_checks_measured_while_compiling_are_a_as_of_earlier_checks():
    """Each row is what the archived comparison of its two checks' sides says
    (``iconbench compare``, results/pr-check-h200/aa-2026-11-29), and each passed with
    nothing flagged."""
    from tests.archived_results import restored

    from iconbench.records.summary import Summary

    rows = CROSS_A_A_ROW.findall(DOC.read_text())
    assert len(rows) == 24
    found = restored("results/pr-check-h200/aa-2026-11-29")
    for first, second, *shown in rows:
        counts = []
        for side in ("base", "head"):
            summary = Summary.read(found / f"{first}-vs-{second}-{side}.json")
            assert summary.verdict == "pass"
            assert summary.counts["regression"] == summary.counts["improvement"] == 0
            assert summary.base.label == f"icon4py-1405-{first}/{side}"
            assert summary.head.label == f"icon4py-1405-{second}/{side}"
            counts += [str(summary.counts["unchanged"]), str(summary.counts["inconclusive"])]
        assert counts == shown, (first, second)

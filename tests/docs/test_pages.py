"""The docs pages: short, their links into the repository real, their figures their records'.

A page of docs/ quotes the one or two figures its reader needs and links to the record under
results/ that holds them; each such figure is read here from the record itself (a check's
``check.json``, a run's log or ledger, the report generated beside the record), so that a
page cannot drift from what was measured.
"""

import json
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
RESULTS = ROOT / "results"
BLOB = "https://github.com/C2SM/iconbench/blob/main/"
MAX_LINES = 300


def _pages() -> list[pathlib.Path]:
    """Every markdown page the docs build reads (docs/examples is not published)."""
    return sorted(p for p in DOCS.rglob("*.md") if "examples" not in p.relative_to(DOCS).parts)


def _page(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def _check(record: str) -> dict:
    return json.loads((RESULTS / record / "check.json").read_text())


def _text_blocks(page: str) -> list[list[str]]:
    """The lines of each ```text block of a page."""
    return [b.splitlines() for b in re.findall(r"```text\n(.*?)```", _page(page), re.S)]


def test_no_page_is_over_300_lines():
    long = {
        p.relative_to(DOCS).as_posix(): n
        for p in _pages()
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not long, f"pages over {MAX_LINES} lines: {long}"


def test_every_link_into_the_repository_names_a_file_that_exists():
    links = [
        (page.relative_to(DOCS).as_posix(), path)
        for page in _pages()
        for path in re.findall(re.escape(BLOB) + r"([^)#\s]+)", page.read_text(encoding="utf-8"))
    ]
    assert len(links) >= 20  # the how-tos, explanations and record pages link their records
    missing = [(page, path) for page, path in links if not (ROOT / path).exists()]
    assert not missing, missing


def test_no_measurement_diary_is_left_in_docs():
    """Each record's narrative lives beside it; docs/ holds no record files."""
    assert not (DOCS / "verification").exists()
    assert not list(DOCS.glob("*.jsonl"))
    for name in ("pr-check-h100.md", "results-h100.md", "nightly-gpu.md", "granules-h100.md"):
        assert len(_page(name).splitlines()) < 60, name


# --- the tutorial: its two runs, as their logs have them -------------------------------------


@pytest.mark.parametrize(
    ("block", "record"), [(0, "demo-cpu-2026-12-02"), (1, "demo-h200-2026-12-02")]
)
def test_the_tutorials_tables_are_what_the_demo_printed(block, record):
    log = (RESULTS / record / "demo.log").read_text().splitlines()
    table = _text_blocks("tutorial/first-run.md")[block]
    assert len(table) == 6
    assert all(line in log for line in table), record


@pytest.mark.parametrize(
    ("record", "whole", "compiles"),
    [("demo-cpu-2026-12-02", "3 min 14 s", "118 s"), ("demo-h200-2026-12-02", "1 min 1 s", "36 s")],
)
def test_the_tutorials_times_are_the_demos(record, whole, compiles):
    log = (RESULTS / record / "demo.log").read_text()
    minutes, seconds = re.search(r"^real\t(\d+)m(\d+)\.\d+s$", log, re.M).groups()
    compiled = re.search(r"precompile: \d+ compiled in (\d+)s", log).group(1)
    assert (whole, compiles) == (f"{minutes} min {seconds} s", f"{compiled} s")
    page = _page("tutorial/first-run.md")
    assert whole in page
    assert compiles in page


# --- the check: its phases and verdicts, as its check.json has them -------------------------

CHECK_TIME_ROWS = {
    "pr-check-h200/icon4py-1405-empty-a6be4e0-1653": "empty",
    "pr-check-h200/icon4py-1405-main-a6be4e0-1648": "main's builds",
    "pr-check-h100/icon4py-1405-rerun-2026-11-27": "both sides' builds",
    "pr-check-h100/icon4py-comment-2026-11-26j": "both sides' builds",
}


def _seconds(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f} s"


@pytest.mark.parametrize("record", CHECK_TIME_ROWS)
def test_each_check_time_row_is_its_check_json(record):
    check = _check(record)
    phases = check["phases"]
    row = next(
        line for line in _page("explanation/check-time.md").splitlines() if f"/{record}/" in line
    )
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1:] == [
        CHECK_TIME_ROWS[record],
        _seconds(check["total_s"]),
        _seconds(phases["precompile"]),
        _seconds(phases["measure"]),
        _seconds(phases.get("why")),
    ]
    named = re.search(r"(\d+) cases", cells[0])  # a row of the same change says "the same"
    if named is None:
        assert cells[0].startswith("the same, "), cells[0]
    else:
        assert int(named.group(1)) == check["cases"]


@pytest.mark.parametrize(
    ("record", "cache"),
    [
        ("pr-check-h200/icon4py-1405-empty-a6be4e0-1653", "empty"),
        ("pr-check-h200/icon4py-1405-main-a6be4e0-1648", "main's builds"),
    ],
)
def test_the_pr_check_pages_rows_are_their_check_json(record, cache):
    check = _check(record)
    row = f"| {cache} | {check['total_s']:.1f} s | {check['phases']['precompile']:.1f} s |"
    page = _page("pr-check-h100.md")
    assert row in page
    assert f"{check['counts']['regression']} regressions" in page
    assert f"({check['cases']} cases" in page


def test_the_inconclusive_example_is_the_checks_own_record():
    check = _check("pr-check-h100/icon4py-1405-2026-11-27")
    page = " ".join(_page("explanation/statistics.md").split())
    assert f"ended with {check['counts']['inconclusive']} inconclusive" in page
    assert f'"{check["stopped"]}"' in page


def test_the_comment_the_reviewer_reads_is_the_checks_comment():
    comment = (DOCS / "examples" / "comment-h100-icon4py-1405.md").read_text()
    check = _check("pr-check-h100/icon4py-1405-2026-11-27")
    verdict, row = _text_blocks("how-to/read-the-comment.md")[:2]
    assert verdict[0] in comment.splitlines()
    counts = check["counts"]
    assert (
        f"**{counts['regression']} regressions**, {counts['improvement']} improvements, "
        f"{counts['unchanged']} unchanged, {counts['inconclusive']} inconclusive" in verdict[0]
    )
    tail = row[0].removeprefix("| ... ")
    assert any(line.endswith(tail) for line in comment.splitlines())
    page = _page("how-to/read-the-comment.md")
    estimate = re.search(
        r"^\| gtfn_gpu \| ([0-9.]+ %) \| ([0-9.]+x) \| \*\*([0-9.]+x)\*\*", comment, re.M
    )
    share, base, head = estimate.groups()
    assert f"gtfn_gpu went from {base} to {head} over {share} of the step" in " ".join(page.split())
    q = re.search(r"\*\*(\+22\.8 %)\*\* \| 95 % CI [^|]*, q = (\S+) \|", comment)
    assert f"`q = {q.group(2)}` beside `{q.group(1)}`" in _page("explanation/statistics.md")


# --- the record pages ---------------------------------------------------------------------


def test_the_h100_results_page_quotes_the_generated_report():
    report = (RESULTS / "h100" / "README.md").read_text()
    page = " ".join(_page("results-h100.md").split())
    for backend, measured in (("gtfn_gpu", "192 / 192"), ("dace_gpu", "119 / 192")):
        assert re.search(rf"^\| {backend} \| {measured} \(", report, re.M)
        assert f"**{backend} {measured}**" in page
    failed = re.search(
        r"(\d+) cases never compiled with dace 2\.0\.0b1; \1 of them were compiled with dace "
        r"2\.0\.0a6 .*?\*\*\1 of \1 succeeded\*\*",
        " ".join(report.split()),
    )
    assert failed is not None
    assert failed.group(1) == "73"
    assert "**73 of 73 succeeded**" in report
    assert "whose 73 failures all compile with the pinned dace 2.0.0a6" in page


def test_the_granules_page_quotes_the_integrate_nh_rows():
    report = (RESULTS / "h100" / "granules" / "README.md").read_text()
    rows = re.findall(
        r"^\| `integrate_nh` \| ([0-9,.]+) \| .* \| 5 x nh_solve \+ nh_hdiff "
        r"\| ([0-9,.]+) \| ([0-9.]+) \|",
        report,
        re.M,
    )
    (dace_wall, openacc, dace_speedup), (gtfn_wall, openacc_again, gtfn_speedup) = rows
    assert openacc == openacc_again
    page = " ".join(_page("granules-h100.md").split())
    assert f"**{dace_wall} µs** a call on dace_gpu and **{gtfn_wall} µs** on gtfn_gpu" in page
    assert f"against {openacc} µs" in page
    assert f"speed-ups of {dace_speedup} and {gtfn_speedup}" in page


def test_the_cpu_aa_page_is_its_ten_checks():
    checks = [
        json.loads(line)
        for line in (RESULTS / "pr-check-cpu-aa" / "aa.jsonl").read_text().splitlines()
        if line.strip()
    ]
    regressions = sum(c["counts"]["regression"] for c in checks)
    improvements = sum(c["counts"]["improvement"] for c in checks)
    low, high = min(c["total_s"] for c in checks), max(c["total_s"] for c in checks)
    page = " ".join(_page("pr-check-cpu-aa.md").split())
    assert (
        f"**{regressions} regressions and {improvements} improvements in "
        f"{len(checks)} of {len(checks)} checks**, each {int(low)}-{round(high)} s" in page
    )


def test_the_nightly_page_quotes_the_nights_whole_times():
    log = (RESULTS / "nightly-4xh200" / "nightly-gpus.log").read_text()
    whole = dict(re.findall(r"\] (night-\d): exit 0 after (\d+) s", log))
    assert "night-3: ci/gpu/nightly-host --gpus 4 --road devices" in log
    page = " ".join(_page("nightly-gpu.md").split())
    assert f"**{whole['night-1']} s** from an empty build cache" in page
    assert f"**{whole['night-3']} s** with an earlier night's builds on the devices road" in page


def test_the_speedup_page_quotes_both_records():
    h100 = (RESULTS / "h100-mch_icon-ch1_medium" / "README.md").read_text()
    estimates = dict(
        re.findall(r"^backend (\w+)\n.*?^  integrate_nh estimate: ([0-9.]+x)", h100, re.M | re.S)
    )
    h200 = (RESULTS / "h200-mch_r19b08_lam" / "README.md").read_text()
    generated = dict(re.findall(r"^\| (\w+_gpu) \| \*\*([0-9.]+x)\*\* \[", h200, re.M))
    page = _page("speedup-mch_icon-ch1_medium.md")
    for backend in ("dace_gpu", "gtfn_gpu"):
        assert f"| {backend} | {estimates[backend]} | {generated[backend]} |" in page


def test_the_separate_runs_page_quotes_the_nightly_trust_record():
    """The record's tables are held to the runs' summaries by tests/gate/test_nightly_trust_doc."""
    record = (RESULTS / "nightly-trust-h100" / "README.md").read_text()
    nights = r"^\| (H[12]00[^|]*) \| (pass, 24 unchanged) \| \2 \| \2 \|"  # 1-2, 2-3, 1-3
    same_code = re.findall(nights, record, re.M)
    assert len(same_code) == 3
    confirmed = re.search(r"`slow-two`.*\| confirmed: ([0-9.]+x) \[", record).group(1)
    page = " ".join(_page("gate-separate-runs.md").split())
    assert "three GPU hosts (two H100, one H200)" in page
    assert "**0 regressions and 0 improvements in every pair**" in page
    assert f"confirmed by its interleaved A/B at **{confirmed}**" in page


def test_every_command_has_its_task_in_the_command_reference():
    """The reference's table of commands by task names each command of ``iconbench``."""
    from iconbench.cli import commands

    page = _page("reference/commands.md")
    table = page[page.index("## The commands by task") : page.index("## Every command")]
    named = {
        name
        for row in table.splitlines()
        if row.startswith("| ") and not row.startswith("| task")
        for name in re.findall(r"`([a-z-]+)[^`]*`", row.split("|")[2])
    }
    assert set(commands()) <= named, sorted(set(commands()) - named)


@pytest.mark.parametrize("page", ["how-to/is-my-branch-slower.md", "stacks.md"])
def test_the_continuous_tables_are_what_the_command_printed(page):
    """The lines a page shows of ``iconbench continuous`` are its record's, and so is its time."""
    log = (RESULTS / "continuous-cpu-2026-12-02" / "continuous.log").read_text()
    shown = [line for block in _text_blocks(page) for line in block if "continuous-" in line
             or "time per call" in line]  # fmt: skip
    assert shown
    assert all(line in log.splitlines() for line in shown), page
    assert "results-local/continuous" not in _page(page)
    took = re.search(r"^exit 1 after ([0-9.]+ s)$", log, re.M).group(1)
    rounds = re.search(r"check: 8 rounds in (\d+)s", log).group(1)
    if page == "stacks.md":
        assert f"{took} in all, {rounds} s of it" in " ".join(_page(page).split())


# --- the CI pages and the tests' page: their figures, as their records have them -----------


@pytest.mark.parametrize(
    ("record", "cache"),
    [("icon4py-comment-2026-11-26i", "from an empty build cache"),
     ("icon4py-comment-2026-11-26j", "with the\nbuilds of the check before it")],
)  # fmt: skip
def test_the_check_pages_wall_times_are_their_check_json(record, cache):
    check = _check(f"pr-check-h100/{record}")
    page = _page("ci-check.md")
    quoted = f"**{check['total_s']:.1f} s** {cache}"
    assert quoted in page
    after = page[page.index(quoted) :]
    assert after.index(f"/pr-check-h100/{record}/check.md") < 200  # its own record is linked
    assert check["counts"]["regression"] == 0  # "both passed"


def test_the_nightly_page_quotes_its_records():
    nights = {
        night: json.loads((RESULTS / "nightly-4xh200" / night / "phases.json").read_text())
        for night in ("night-1", "night-2", "night-3")
    }
    shards = sorted(n["phases_s"]["measure"] for n in nights.values() if n["road"] == "shards")
    (devices,) = [n["phases_s"]["measure"] for n in nights.values() if n["road"] == "devices"]
    page = " ".join(_page("ci-nightly.md").split())
    assert (
        f"measured the suite in **{devices:.1f} s** against **{shards[0]:.1f}-{shards[-1]:.1f} s** "
        "for a shard a GPU" in page
    )
    confirm = RESULTS / "nightly-confirm-cpu"
    step = re.search(r"^\[exit 1, ([0-9.]+) s\]$", (confirm / "finish.log").read_text(), re.M)
    ab = json.loads((confirm / "ab-check.json").read_text())["total_s"]
    assert f"took **{step.group(1)} s**, the A/B **{ab:.1f} s**" in page
    trust = (RESULTS / "nightly-trust-h100" / "README.md").read_text()
    run = "`results/nightly-trust-h100/2026-11-27b`"
    pairs = rf"^\| H100[^|]* \| (pass, 24 unchanged) \| \1 \| \1 \| {run} \|"
    assert re.search(pairs, trust, re.M)  # the page's run: nights 1-2, 2-3, 1-3
    assert "the three same-code pairs pass with 24 unchanged each" in page


def test_the_slurm_threads_figures_are_the_records():
    record = " ".join((RESULTS / "test-suite" / "README.md").read_text().split())
    medians = re.search(r"2 threads: median ([0-9.]+), [0-9.]+, [0-9.]+ and ([0-9.]+) ms", record)
    alone = re.search(r"`OMP_NUM_THREADS=1`: (\d+-\d+) us in all six measurements", record)
    page = " ".join(_page("ci-several-gpus.md").split())
    assert f"took **{medians.group(1)}-{medians.group(2)} ms** with two threads" in page
    assert f"**{alone.group(1)} us** with `OMP_NUM_THREADS=1`" in page


def test_the_testing_page_quotes_the_latest_fresh_clone():
    """The page quotes the last fresh clone its record lists: a newer row moves the page."""
    record = (RESULTS / "test-suite" / "README.md").read_text()
    rows = re.findall(
        r"^\| ([0-9a-f]{7})\b[^|]* \| ([0-9.]+ s) \| \*\*([0-9.]+ s)\*\* \| [0-9.]+ s \| "
        r"[0-9]+ \+ [0-9]+ s \| (\d+) passed",
        record,
        re.M,
    )
    commit, demo, test, passed = rows[-1]
    page = " ".join(_page("testing.md").split())
    assert (
        f"most recently at iconbench {commit}: the demo **{demo}**, `ci/test` **{test}** "
        f"({passed} passed)" in page
    )
    assert "ICONBENCH_CACHE_DIR=.cache-3.13" in page  # a 3.13 run keeps its own builds

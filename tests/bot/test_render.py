"""The comment's content from real summaries (H100 result sets of two commits).

``docs/examples/summary-h100-7212540-fd920c0.json`` is ``iconbench compare results/h100@7212540
results/h100@fd920c0 --experiment mch_icon-ch1_medium`` (docs/bot-examples.md).
"""

from __future__ import annotations

import dataclasses
import json
import pathlib

import pytest

from iconbench.bot import links, publish, render, status, target
from iconbench.errors import IconbenchError
from iconbench.records.summary import Summary

H100 = pathlib.Path(__file__).parents[2] / "docs/examples/summary-h100-7212540-fd920c0.json"
EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "docs" / "examples"


def test_h100_comment_content():
    gate = Summary.read(H100)
    assert len(gate.benchmarks) == 706  # device time, host overhead, compile time per case
    site = links.Site.parse("https://c2sm.github.io/iconbench")
    body = publish.body(gate, target.PullRequest.parse("C2SM/icon4py", 321), site)
    lines = body.splitlines()
    assert lines[0].startswith("<!-- iconbench-pr-summary v2 context=iconbench/ch1_medium run=")
    assert lines[1] == (
        "### iconbench · ch1_medium · ❌ **58 regressions**, 53 improvements, 105 unchanged, "
        "24 inconclusive results, 19 failed, 327 new"
    )
    assert len(body) <= render.LIMIT
    # the held-stream clock of fd920c0 moves launch time from the device to the host side:
    # host overhead regressions first, calculate_divdamp_fields 58.6 -> 9.3 µs the top improvement
    first = next(line for line in lines if line.startswith("| [`"))
    assert "| host overhead | 9.4 µs | 365.5 µs | **+3791.5 %** |" in first
    improvements = lines[lines.index("#### Improvements (53)") + 4]
    assert "calculate_divdamp_fields" in improvements
    assert "58.6 µs | 9.3 µs | **−84.1 %**" in improvements
    assert "<details><summary>All benchmarks (706; 225 unchanged not listed" in body
    assert body.count("<details>") == body.count("</details>")
    # the experiment's grid is not the one measured: no OpenACC section, not forced
    assert gate.openacc is None
    assert "#### Speed-up against OpenACC" not in body
    assert "**Code generation changed** (48)" in body
    assert "**New (no base)** (327)" in body
    assert "https://c2sm.github.io/iconbench/gates.html#7212540d71..fd920c0fb6" in body
    assert "https://pypi.org/project/gt4py/1.2.1/" in body


def test_openacc_section_of_like_for_like_results():
    """A summary written before the bandwidth-scaled figures were kept: the same rows."""
    gate = Summary.read(EXAMPLES / "summary-h100-mch_icon-ch1_medium.json")
    body = render.render(gate, target.PullRequest.parse("GridTools/gt4py", 1))
    section = body[body.index("#### Against OpenACC") : body.index("#### Notes")]
    assert "| gtfn_gpu | – | 1.41x | **1.41x** | +0.0 % |" in section  # integrate_nh estimate
    assert (
        "OpenACC ran on GH200, GT4Py on NVIDIA H100 80GB HBM3: speed-ups as measured; restated "
        "for the GH200 by memory bandwidth (GT4Py times × 0.74: GH200 4 TB/s (datasheet) /"
    ) in section  # same grid; GH200 vs H100, said once
    assert "Not like for like" not in section
    rows = [line for line in section.splitlines() if "| gtfn_gpu |" in line and " µs |" in line]
    assert len(rows) == render.LEVELS[0].openacc_rows  # the measured timers by share
    assert "… and 4 more timers with a smaller share." in section
    assert (
        "| `apply_divergence_damping_and_update_vn` | gtfn_gpu | 1.9 % | 247.0 µs | 119.6 µs | "
        "119.6 µs | 2.07x → **2.07x** |"
    ) in section


def test_without_an_experiment_on_the_grid_one_line_says_so():
    gate = Summary.read(EXAMPLES / "summary-cpu-embedded-tiny.json")
    assert gate.openacc is None
    assert "Against OpenACC" not in render.render(gate, target.PullRequest.parse("a/b", 1))
    note = "no ICON experiment ran on grid tiny: no OpenACC comparison (experiments: x on y)"
    body = render.render(
        dataclasses.replace(gate, openacc_note=note), target.PullRequest.parse("a/b", 1)
    )
    assert f"#### Against OpenACC\n\nN{note[1:]}.\n" in body


def test_stays_under_the_limit_by_folding_and_trimming():
    gate = Summary.read(H100)
    pr = target.PullRequest.parse("GridTools/gt4py", 1)
    site = links.Site.parse("https://c2sm.github.io/iconbench")
    full = render.render(gate, pr, site, limit=10**9)
    assert "unchanged not listed" not in full  # every benchmark listed when it fits
    assert len(full) > render.LIMIT
    fitted = render.render(gate, pr, site)
    assert len(fitted) <= render.LIMIT
    assert "225 unchanged not listed" in fitted
    tiny = render.render(gate, pr, site, limit=12_000)
    assert len(tiny) <= 12_000
    assert "does not fit in a comment" in tiny or "more not listed" in tiny
    assert "… and 43 more improvements" in tiny


def test_nothing_changed_is_said_plainly():
    data = json.loads(H100.read_text())
    data["benchmarks"] = [b for b in data["benchmarks"] if b["verdict"] == "unchanged"]
    data["counts"] = {"unchanged": len(data["benchmarks"])}
    data["verdict"], data["exit_code"] = "pass", 0
    gate = Summary.from_json(json.dumps(data))
    body = render.render(gate, target.PullRequest.parse("spcl/dace", 5))
    assert "✅ **Nothing changed**: no benchmark moved beyond its threshold (225 unchanged)" in body
    assert "#### Regressions" not in body
    assert "#### Improvements" not in body
    assert status.commit_status(gate, None).description == "no change: 225 benchmarks unchanged"


def test_regression_failure_and_error_states():
    gate = Summary.read(H100)
    worse = [
        dataclasses.replace(b, verdict="regression", ratio=1 / b.ratio)
        for b in gate.benchmarks
        if b.verdict == "improvement"
    ]
    regressed = dataclasses.replace(
        gate, verdict="regression", benchmarks=tuple(worse), counts={"regression": len(worse)}
    )
    s = status.commit_status(regressed, "https://x.org/r")
    assert s.state == "failure"
    assert s.description.startswith("53 regressions: calculate_divdamp_fields +527.2 %")
    assert len(s.description) <= status.MAX_DESCRIPTION
    failed = dataclasses.replace(gate, verdict="error", error="gtfn_gpu: CUDA out of memory " * 20)
    s = status.commit_status(failed, None, context="iconbench/h100")
    assert (s.state, s.context) == ("error", "iconbench/h100")
    assert len(s.description) <= status.MAX_DESCRIPTION
    assert s.description.endswith("…")
    assert render.verdict_line(failed).startswith("⚠️ **The benchmark run failed** (gtfn_gpu: CUDA")


def test_cross_repository_links():
    gate = Summary.read(H100)
    data = json.loads(H100.read_text())
    data["head"]["component"] = data["base"]["component"] = "gt4py"
    data["head"]["stack"]["dace"] = "a" * 40
    gt4py_side = Summary.from_json(json.dumps(data))
    on_icon4py = render.render(gt4py_side, target.PullRequest.parse("C2SM/icon4py", 9))
    assert f"(https://github.com/GridTools/gt4py/commit/{gate.head.commit})" in on_icon4py
    assert f"(https://github.com/spcl/dace/commit/{'a' * 40})" in on_icon4py
    on_ghe = render.render(
        gt4py_side,
        target.PullRequest.parse("GridTools/gt4py", 9, github_url="https://ghe.example.org"),
    )
    assert f"(https://ghe.example.org/GridTools/gt4py/commit/{gate.head.commit})" in on_ghe


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"schema": "iconbench-gate-summary", "version": 2}', "version 2 is not supported"),
        ("[1, 2]", "a JSON object expected"),
        ("{", "line 1: not JSON"),
        ('{"schema": "iconbench-gate-summary", "version": 1, "verdict": "maybe"}', "broken"),
    ],
)
def test_other_documents_are_refused_with_one_line(text, message):
    with pytest.raises(IconbenchError, match=message) as info:
        Summary.from_json(text, origin="s.json")
    assert "\n" not in str(info.value)
    assert str(info.value).startswith("s.json: ")


@pytest.mark.parametrize(
    ("component", "repo", "said"),
    [
        ("gt4py", "GridTools/gt4py", True),  # both commits are the pull request's
        ("gt4py", "C2SM/icon4py", False),  # a gt4py commit measured for an icon4py change
        ("icon4py", "GridTools/gt4py", False),
        ("iconbench", "GridTools/gt4py", False),  # iconbench's own suite for a gt4py change
    ],
)
def test_head_moved_is_said_only_of_the_pull_requests_own_commits(component, repo, said):
    data = json.loads(H100.read_text())
    data["head"]["component"] = component
    gate = Summary.from_json(json.dumps(data))
    head_now = "2db0abe231bc1d9c38138e7cea1b6198285cce02"
    body = render.render(gate, target.PullRequest.parse(repo, 9), head_now=head_now)
    sentence = "The pull request's head is now [`2db0abe`]"
    assert (sentence in body) is said
    if said:
        assert "these numbers are for `fd920c0`" in body
    # the measured head itself: nothing to say in any case
    same = render.render(gate, target.PullRequest.parse(repo, 9), head_now=gate.head.commit)
    assert sentence not in same


def test_a_check_with_kernels_explained_lists_gated_changes_and_the_block_size():
    """The H100 check of gtfn's GPU blocks 8x4 instead of 32x8 (2026-11-26): 9 gtfn_gpu
    device-time regressions, explained kernel by kernel."""
    gate = Summary.read(
        pathlib.Path(__file__).parent / "data" / "h100-gt4py-blocks-2026-11-26.json"
    )
    # a head that compiles what base found built moves compile time 100x: reported, not gated
    benches = [
        dataclasses.replace(b, verdict="regression", ratio=130.0)
        if b.metric == "compile_time" and b.backend == "gtfn_gpu"
        else b
        for b in gate.benchmarks
    ]
    gate = dataclasses.replace(gate, benchmarks=tuple(benches))
    body = publish.body(gate, target.PullRequest.parse("GridTools/gt4py", 7), None)
    assert "#### Regressions (9)" in body
    regressions = body[body.index("#### Regressions (9)") : body.index("#### Why it changed")]
    assert "compile time" not in regressions
    assert "**Changed, not gated (reported only)** (9)" in body
    # kernels paired by function name and launch order, the cause in the block column
    why = body[body.index("#### Why it changed") : body.index("#### Notes")]
    assert "| `kernel#1` | 1 | 32×8×1 → 8×4×1 | 27.4 µs | 64.4 µs | **+134.8 %** |" in why
    assert max(len(line) for line in why.splitlines()) < 400
    described = status.describe(gate)
    assert described.startswith("9 regressions: compute_advection_in_corrector_vertical_momentum")
    assert described.endswith("(gtfn_gpu device time)")


def test_a_renumbering_alone_is_said_as_identical_code():
    from iconbench.records.summary import CodeDiff, Why

    gate = Summary.example()
    code = CodeDiff("a1a1a1a1", "b2b2b2b2", (), "", 0, 0, renamed_lines=3)
    why = Why(gate.benchmarks[0].id, gate.benchmarks[0].program, "gtfn_gpu", code=code)
    body = render.render(dataclasses.replace(gate, why=(why,)), target.PullRequest.parse("a/b", 1))
    assert (
        "Generated code identical on both sides but for 3 lines of renumbered generated names: "
        "the change is not in the generated code."
    ) in body


def test_a_confirmed_summary_reports_only_what_its_ab_confirmed():
    """The H100 comparison held to an A/B that confirms one of its 111 flags (numbers given)."""
    from iconbench.gate import confirmation
    from iconbench.records.summary import ConfirmationRun

    gate = Summary.read(H100)
    flagged = confirmation.flagged(gate)
    assert len(flagged) == 58 + 53
    worst = max(flagged, key=lambda b: b.ratio or 0)
    ab = dataclasses.replace(gate, benchmarks=tuple(
        dataclasses.replace(b, ratio=1.9, ratio_ci=(1.8, 2.0))
        if b.id == worst.id
        else dataclasses.replace(b, verdict="unchanged", ratio=1.0, ratio_ci=(0.99, 1.01))
        for b in flagged
    ))  # fmt: skip
    run = ConfirmationRun("2026-11-27T01:00:00+00:00", "confirm", {"gt4py": "a" * 40},
                          {"gt4py": "b" * 40}, 8, "decided")  # fmt: skip
    held = confirmation.apply(gate, ab, {b.id: "4+4" for b in flagged}, run)
    assert (held.verdict, held.exit_code, held.counts["regression"]) == ("regression", 1, 1)
    assert held.counts["improvement"] == 0
    body = render.render(Summary.from_json(held.to_json()), target.PullRequest.parse("C2SM/x", 1))
    lines = body.splitlines()
    verdict = next(line for line in lines if line.startswith("### iconbench"))
    assert verdict.startswith("### iconbench · ch1_medium · ❌ **1 regression**, 0 improvements, ")
    assert verdict.endswith(", 110 not confirmed (run-to-run noise)")
    assert "#### Regressions (1)" in body
    assert "#### Improvements" not in body
    row = next(line for line in lines if line.startswith("| `") and "host overhead" in line)
    assert "A/B confirmed: 1.900x [1.800, 2.000], 4+4 processes" in row
    assert "**Not confirmed by an interleaved A/B (run-to-run noise)** (110)" in body
    # listed once: not again among the inconclusive
    notes = [line for line in lines if line.startswith("- **Inconclusive")]
    assert all("not confirmed" not in line for line in notes)


@pytest.mark.parametrize(
    ("site", "q_value", "check_time"),
    [
        (
            "https://c2sm.github.io/iconbench",
            "https://c2sm.github.io/iconbench/docs/explanation/statistics.html#what-does-q-mean",
            "https://c2sm.github.io/iconbench/docs/explanation/check-time.html"
            "#why-did-the-check-take-5-minutes",
        ),
        (
            None,
            "https://github.com/C2SM/iconbench/blob/main/docs/explanation/statistics.md"
            "#what-does-q-mean",
            "https://github.com/C2SM/iconbench/blob/main/docs/explanation/check-time.md"
            "#why-did-the-check-take-5-minutes",
        ),
    ],
)
def test_the_comment_links_the_pages_that_explain_it(site, q_value, check_time):
    """The docs published with the site (its docs/), else the pages in the repository."""
    gate = Summary.read(H100)
    body = publish.body(
        gate,
        target.PullRequest.parse("C2SM/icon4py", 321),
        links.Site.parse(site) if site else None,
    )
    footer = body.splitlines()[-1]
    assert f"[What does q mean?]({q_value})" in footer
    assert f"[Why did the check take 5 minutes?]({check_time})" in footer
    inconclusive = q_value.replace("what-does-q-mean", "why-is-this-inconclusive")
    assert f"[Why is this inconclusive?]({inconclusive})" in footer
    assert "q = " in body  # the comment shows q-values: the first link explains them


def test_the_full_report_link_lands_on_its_comparison_on_the_site(tmp_path):
    """The comment's "full report" is the comparison's entry on the published gates page,
    one anchor however many summaries of the same two commits were published."""
    import shutil
    import subprocess
    import sys

    gate = pathlib.Path(__file__).parents[2] / "results/nightly-confirm-cpu/ab-gate-summary.json"
    summaries = tmp_path / "gates"
    summaries.mkdir()
    for name in ("first.json", "again.json"):
        shutil.copy(gate, summaries / name)
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "iconbench", "publish", "--gate", str(summaries), "--no-asv",
         "--out", str(site)],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    summary = Summary.read(gate)
    root = "https://c2sm.github.io/iconbench"
    page, anchor = (
        links.Site.parse(root).report(summary.base.commit, summary.head.commit).split("#")
    )
    html = (site / page.removeprefix(f"{root}/")).read_text()
    assert html.count(f'id="{anchor}"') == 1
    assert html.count('<section class="card gate"') == 2

"""The comment's content from real summaries (H100 result sets of two commits)."""

from __future__ import annotations

import dataclasses
import json
import pathlib

import pytest

from iconbench.bot import links, publish, render, status, summary, target
from iconbench.errors import IconbenchError

H100 = pathlib.Path(__file__).parent / "data" / "h100-7212540-fd920c0.json"


def test_h100_comment_content():
    gate = summary.load(H100)
    assert len(gate.benchmarks) >= 400  # 211 cases x device time + compile time
    site = links.Site.parse("https://c2sm.github.io/iconbench")
    body = publish.body(gate, target.PullRequest.parse("C2SM/icon4py", 321), site)
    lines = body.splitlines()
    assert lines[0].startswith("<!-- iconbench-pr-summary v1 run=")
    assert lines[1].startswith("### iconbench · ch1_medium · ✅ **No regression**: 40 improvements")
    assert len(body) <= render.LIMIT
    # the clock fix of fd920c0: calculate_divdamp_fields 58.6 -> 9.3 µs is the largest change
    first = next(line for line in lines if line.startswith("| [`"))
    assert "calculate_divdamp_fields" in first
    assert "58.6 µs | 9.3 µs | **−84.1 %**" in first
    assert "<details><summary>All benchmarks (422" in body
    assert body.count("<details>") == body.count("</details>")
    assert "#### Speed-up against OpenACC" in body
    assert "Not like for like: grid differs" in body
    assert "**Code generation changed** (16)" in body
    assert "**New (no base)** (182)" in body
    assert "https://c2sm.github.io/iconbench/verdicts.html#7212540d71..fd920c0fb6" in body
    assert "https://pypi.org/project/gt4py/1.2.1/" in body


def test_stays_under_the_limit_by_folding_and_trimming():
    gate = summary.load(H100)
    pr = target.PullRequest.parse("GridTools/gt4py", 1)
    site = links.Site.parse("https://c2sm.github.io/iconbench")
    full = render.render(gate, pr, site, limit=10**9)
    assert "unchanged not listed" not in full  # every benchmark listed when it fits
    assert len(full) > render.LIMIT
    fitted = render.render(gate, pr, site)
    assert len(fitted) <= render.LIMIT
    assert "200 unchanged not listed" in fitted
    tiny = render.render(gate, pr, site, limit=12_000)
    assert len(tiny) <= 12_000
    assert "does not fit in a comment" in tiny or "more not listed" in tiny
    assert "… and 30 more improvements" in tiny


def test_nothing_changed_is_said_plainly():
    data = json.loads(H100.read_text())
    data["benchmarks"] = [b for b in data["benchmarks"] if b["verdict"] == "unchanged"]
    data["counts"] = {"unchanged": len(data["benchmarks"])}
    data["verdict"], data["exit_code"] = "pass", 0
    gate = summary.from_json(json.dumps(data))
    body = render.render(gate, target.PullRequest.parse("spcl/dace", 5))
    assert "✅ **Nothing changed**: no benchmark moved beyond its threshold (200 unchanged)" in body
    assert "#### Regressions" not in body
    assert "#### Improvements" not in body
    assert status.commit_status(gate, None).description == "no change: 200 benchmarks unchanged"


def test_regression_failure_and_error_states():
    gate = summary.load(H100)
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
    assert s.description.startswith("40 regressions: calculate_divdamp_fields +529.4 %")
    assert len(s.description) <= status.MAX_DESCRIPTION
    failed = dataclasses.replace(gate, verdict="error", error="gtfn_gpu: CUDA out of memory " * 20)
    s = status.commit_status(failed, None, context="iconbench/h100")
    assert (s.state, s.context) == ("error", "iconbench/h100")
    assert len(s.description) <= status.MAX_DESCRIPTION
    assert s.description.endswith("…")
    assert render.verdict_line(failed).startswith("⚠️ **The benchmark run failed** (gtfn_gpu: CUDA")


def test_cross_repository_links():
    gate = summary.load(H100)
    data = json.loads(H100.read_text())
    data["head"]["component"] = data["base"]["component"] = "gt4py"
    data["head"]["stack"]["dace"] = "a" * 40
    gt4py_side = summary.from_json(json.dumps(data))
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
        ('{"schema": "iconbench-gate-summary", "version": 2}', "version 2 is not an iconbench"),
        ("[1, 2]", "a JSON object expected"),
        ("{", "line 1: not JSON"),
        ('{"schema": "iconbench-gate-summary", "version": 1, "verdict": "maybe"}', "broken"),
    ],
)
def test_other_documents_are_refused_with_one_line(text, message):
    with pytest.raises(IconbenchError, match=message) as info:
        summary.from_json(text, origin="s.json")
    assert "\n" not in str(info.value)
    assert str(info.value).startswith("s.json: ")

"""The site of the committed records shows real data only, true to itself: every ratio within
its interval, the pinned stack's picture first, an obsolete stack's runs said to be so; a
summary that contradicts itself is refused in one line naming it."""

from __future__ import annotations

import html
import json
import re

from iconbench.site import pagedata
from site_pages.conftest import gate_summary, publish

#: ``1.104x [1.081, 1.128]`` (an A/B, a confirmation) and a gate table's ratio cell by its CI.
BRACKETED = re.compile(r"(\d+\.\d+)x? \[(\d+\.\d+), (\d+\.\d+)\]")
CELLS = re.compile(
    r'data-value="([-+.\deE]+)">[^<]*</td>\s*<td class="num">([\d.]+) – ([\d.]+)</td>'
)


def test_every_ratio_shown_lies_inside_its_interval(committed):
    shown = []
    for page in committed.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        found = [*BRACKETED.findall(html.unescape(re.sub(r"<[^>]+>", "", text))),
                 *CELLS.findall(text)]  # fmt: skip
        shown += [(page.name, float(r), float(lo), float(hi)) for r, lo, hi in found]
    assert {name for name, *_ in shown} == {"gates.html", "releases.html"}
    outside = [s for s in shown if not s[2] - 5e-4 <= s[1] <= s[3] + 5e-4]  # 3 decimals shown
    assert outside == []


def test_the_first_card_is_the_pinned_stacks_and_an_obsolete_stack_is_said(committed):
    page = (committed / "index.html").read_text(encoding="utf-8")
    cards = page.split('<section class="card target"')[1:]
    assert len(cards) == 2
    pinned = dict(pagedata.pinned_stack())
    assert pinned == {"gt4py": "1.2.1", "dace": "2.0.0a6", "icon4py": "0.4.1"}
    first, second = cards
    assert 'data-grid="mch_icon-ch1_medium"' in first
    assert "obsolete" not in first
    assert first.count("dace 2.0.0a6") == 2  # gtfn_gpu's and dace_gpu's run: 432aa3c
    # ch1_medium: dace_gpu from the 2.0.0a6 re-run, gtfn_gpu only ever ran on 2.0.0b1
    assert "obsolete stack: dace 2.0.0b1 (pinned: dace 2.0.0a6)" in second
    assert second.count("obsolete stack:") == 1


def test_a_summary_whose_ratio_lies_outside_its_interval_is_refused_naming_it(tmp_path):
    bad = gate_summary()
    bad["benchmarks"][0]["ratio_ci"] = [1.15, 1.2]  # its ratio: 1.1
    gates = tmp_path / "gates"
    gates.mkdir()
    (gates / "pr-17.json").write_text(json.dumps(bad))
    (gates / "pr-18.json").write_text(json.dumps(gate_summary()))
    _, outcome, stderr = publish("--gate", gates, "--out", tmp_path / "site", "--no-asv")
    assert outcome["problems"] == [
        f"skipped {gates / 'pr-17.json'}: apply_diffusion_to_vn[limited_area=True]|gtfn_gpu|"
        "device_time: ratio 1.100 lies outside its interval [1.150, 1.200]; a summary that "
        "contradicts itself is not published (compare the two runs again with this iconbench)"
    ]
    assert stderr.splitlines() == [f"iconbench publish: {outcome['problems'][0]}"]
    gates_page = (tmp_path / "site" / "gates.html").read_text(encoding="utf-8")
    assert "pr-18.json" in gates_page
    assert "pr-17.json" not in gates_page


def test_a_run_of_an_obsolete_stack_says_so_on_its_page(committed):
    pages = {p.name: p.read_text(encoding="utf-8") for p in (committed / "runs").glob("*.html")}
    said = {name for name, text in pages.items() if "obsolete stack</span>: dace 2.0.0b1" in text}
    # results/h100's six runs of dace 2.0.0b1; not the 2.0.0a6 re-run, nor the experiment's
    assert len(pages) == 9
    assert len(said) == 6
    assert all("-stack-cb7850622ccfe736-" in name for name in said)

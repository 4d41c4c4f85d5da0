"""A gate summary whose names a pull request chose runs no script on the site.

The site shows every gate verdict (``gates.html``): its sides' labels, commits and machine
come from the check's summary, which the head's code could have written. Each is escaped
where it lands (jinja2's autoescape; ``iconbench.bot.escape.html`` for what the site's code
builds as HTML itself).
"""

from __future__ import annotations

import json

from tests.site_pages.conftest import BASELINES, STATIC_ARGS, gate_summary, publish

SCRIPT = "<script>alert(1)</script>"
TAG = "<img src=x onerror=alert(2)>"


def test_a_crafted_gate_summary_is_text_on_the_site(tmp_path):
    summary = gate_summary()
    summary["head"]["label"] = f"pr-17{SCRIPT}"
    summary["head"]["machine"]["gpu"] = TAG
    summary["base"]["commit"] = "<b>x</b>" + "412cde30" * 4  # its first 8 characters shown
    summary["benchmarks"][0]["program"] = f"apply{SCRIPT}"
    gates = tmp_path / "gates"
    gates.mkdir()
    (gates / "pr-17.json").write_text(json.dumps(summary))
    out = tmp_path / "site"
    publish("--out", out, "--store", BASELINES, "--gate", gates, *STATIC_ARGS)
    pages = {p.name: p.read_text() for p in out.rglob("*.html")}
    assert "gates.html" in pages
    for name, html in pages.items():
        assert SCRIPT not in html, name
        assert TAG not in html, name
    assert "pr-17&lt;script&gt;alert(1)&lt;/script&gt;" in pages["gates.html"]
    assert "<code>&lt;b&gt;x&lt;/b&gt;</code>" in pages["gates.html"]
    assert "<b>x</b>" not in pages["gates.html"]

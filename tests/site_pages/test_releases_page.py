"""The site's "upstream releases" page, from the committed release histories, in Chromium."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from tests.archived_results import restored

from iconbench.buildcache import REPO_ROOT

#: A real gate summary (the nightly's A/B on the CPU): the site the histories are added to.
GATE = REPO_ROOT / "results" / "nightly-confirm-cpu" / "ab-gate-summary.json"
RECORDS = ("results/upstream-releases-h100", "results/upstream-releases-h200-dycore")
#: What the page shows of each history: its steps, breaks, confirmed changes and owners.
SCRIPT = """[...document.querySelectorAll('section.releases')].map(s => ({
  id: s.id,
  title: s.querySelector('h2').textContent,
  facts: s.querySelector('p.muted').textContent,
  rows: [...s.querySelectorAll('tbody tr')].map(tr => [...tr.cells].map(c => c.innerText.trim())),
  broken: s.querySelectorAll('tr.broken').length,
}))"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A published site (a gate summary), then both release histories added to it."""
    site = tmp_path_factory.mktemp("releases") / "site"
    refused = _table(site, RECORDS[0])  # no site there yet: one line, nothing written
    assert refused.returncode == 2
    assert refused.stderr.startswith(f"iconbench: error: --site {site}: no iconbench site there")
    assert not site.exists()
    assert refused.stdout == ""  # refused before the table was made
    _publish(site)
    for record in RECORDS:
        done = _table(site, record)
        assert done.returncode == 0, done.stderr
        assert done.stdout.endswith(f"published: {site / 'releases.html'}\n")
    return site


def _publish(site, *extra):
    done = subprocess.run([sys.executable, "-m", "iconbench", "publish", "--out", str(site),
                           "--gate", str(GATE), "--no-asv", *extra],
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr


def _table(site, record):
    return subprocess.run([sys.executable, "-m", "iconbench", "releases", "table", "--out",
                           str(restored(record)), "--site", str(site)],
                          capture_output=True, text=True, check=False)  # fmt: skip


def test_the_releases_page_shows_each_history(site, tmp_path, browser):
    loaded = browser.open((site / "releases.html").as_uri(), SCRIPT)
    assert loaded.problems == ()
    assert all(url.startswith("file://") for url in loaded.requests)
    shown = {s["id"]: s for s in loaded.value}
    assert set(shown) == {"upstream-releases-h100", "upstream-releases-h200-dycore"}
    h100 = shown["upstream-releases-h100"]
    facts = ("NVIDIA H100 80GB HBM3 · grid mch_icon-ch1_medium · backends gtfn_gpu, dace_gpu · "
             "12 cases a stack · iconbench 63238a0")  # fmt: skip
    assert h100["facts"].startswith(facts)
    stored = json.loads((site / "data" / "releases" / "upstream-releases-h100.json").read_text())
    assert [r[0] for r in h100["rows"]] == [r["step"] for r in stored["rows"]]
    first = h100["rows"][0]
    assert first[0] == "dace 2.0.0a6 → 2.0.0a7 (gt4py 1.2.1)"
    assert h100["title"] == ("dace 2.0.0a6 → 2.0.0a10 and gt4py 1.2.1 → 1.2.3 on NVIDIA H100 "
                             "80GB HBM3 · grid mch_icon-ch1_medium")  # fmt: skip
    # the gate's words, once: a step is "confirmed" only beside a confirmed change
    states = {r[0]: (r[3], r[4], r[5]) for r in h100["rows"]}
    assert states["dace 2.0.0a6 → 2.0.0a7 (gt4py 1.2.1)"][2] == "confirmed"
    assert states["dace 2.0.0a7 → 2.0.0a8 (gt4py 1.2.1)"] == (
        "1", "none", "not confirmed (run-to-run noise)")  # fmt: skip
    assert states["dace 2.0.0a9 → 2.0.0a10 (gt4py 1.2.1)"] == ("0", "none", "unchanged")
    assert first[4] == ("regression apply_diffusion_to_theta_and_exner[apply_zdiffusion_t=True] "
                        "dace_gpu device_time ×1.036 [1.031, 1.041] (below the 5 % threshold), "
                        "dace")  # fmt: skip
    assert h100["broken"] == 2  # the two steps onto gt4py 1.2.3
    broken = next(r for r in h100["rows"] if r[0] == "gt4py 1.2.1 → 1.2.3 (dace 2.0.0a10)")
    assert "GTFNBackendFactory" in broken[2]
    assert broken[1] == "6"
    browser.screenshot(tmp_path / "releases.png")


def test_publish_keeps_the_page_and_links_it(site):
    _publish(site, "--rebuild")
    page = (site / "releases.html").read_text()
    assert "dace 2.0.0a6 → 2.0.0a7 (gt4py 1.2.1)" in page
    assert 'href="releases.html"' in (site / "gates.html").read_text()

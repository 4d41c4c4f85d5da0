"""``ci/docs`` builds the documentation with warnings as errors, and the build is what it says.

The build is the check of the internal links: Sphinx runs nitpicky, MyST resolves every
``page.md#anchor`` against the headings, so a link to a page or an anchor that does not exist
fails it. The command reference is generated from the argparse parsers: every command of
``iconbench`` has its section, so a command added without documentation is still documented.
"""

import os
import pathlib
import re
import subprocess

import pytest

from iconbench.cli import commands

ROOT = pathlib.Path(__file__).resolve().parents[2]
#: a build from scratch (-E), warnings as errors, nitpicky: what ci/docs runs
SPHINX = (str(ROOT / ".venv" / "bin" / "python"), "-m", "sphinx", "-W", "-n", "-q", "-E")


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> pathlib.Path:
    out = tmp_path_factory.mktemp("docs") / "html"
    done = subprocess.run(
        [ROOT / "ci" / "docs"],
        check=False,
        env={**os.environ, "ICONBENCH_DOCS_OUT": str(out)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out


def test_every_command_is_in_the_generated_reference(built):
    page = (built / "reference" / "commands.html").read_text()
    ids = set(re.findall(r'<section id="([^"]+)"', page))
    missing = [name for name in commands() if f"iconbench-{name}" not in ids and name not in ids]
    assert not missing, (missing, sorted(ids)[:40])


def test_the_three_questions_have_their_anchors(built):
    """Each question's heading is its anchor: the comment and the site can link to it."""
    statistics = (built / "explanation" / "statistics.html").read_text()
    check_time = (built / "explanation" / "check-time.html").read_text()
    assert 'id="what-does-q-mean"' in statistics
    assert 'id="why-is-this-inconclusive"' in statistics
    assert 'id="why-did-the-check-take-5-minutes"' in check_time
    index = (built / "index.html").read_text()
    for target in (
        "explanation/statistics.html#what-does-q-mean",
        "explanation/statistics.html#why-is-this-inconclusive",
        "explanation/check-time.html#why-did-the-check-take-5-minutes",
    ):
        assert f'href="{target}"' in index, target


def test_a_link_to_a_missing_anchor_fails_the_build(tmp_path):
    """The build's link check is real: a page linking an anchor no heading has is refused."""
    source = tmp_path / "docs"
    subprocess.run(["cp", "-r", str(ROOT / "docs"), str(source)], check=True)
    page = source / "tutorial" / "first-run.md"
    page.write_text(page.read_text() + "\n[q](../explanation/statistics.md#what-q-means)\n")
    done = subprocess.run(
        [*SPHINX, str(source), str(tmp_path / "html")],
        check=False,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode != 0
    assert "what-q-means" in done.stderr


def test_the_site_and_the_comment_link_to_headings_of_the_built_docs(built, tmp_path):
    """The nightly builds the docs into the site's docs/: the gate verdicts page and the
    comment link to the heading that answers each question there."""
    from iconbench.bot import links, publish, target
    from iconbench.records.summary import Summary

    site = tmp_path / "site"
    gate = ROOT / "results" / "nightly-confirm-cpu" / "ab-gate-summary.json"
    subprocess.run(
        [*SPHINX[:2], "iconbench", "publish", "--gate", str(gate), "--no-asv", "--out", str(site)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    on_site = re.findall(r'href="(docs/[^"]+)"', (site / "gates.html").read_text())
    assert len(on_site) == 3, on_site
    root = "https://c2sm.github.io/iconbench"
    body = publish.body(
        Summary.read(ROOT / "docs" / "examples" / "summary-h100-7212540-fd920c0.json"),
        target.PullRequest.parse("C2SM/icon4py", 1405),
        links.Site.parse(root),
    )
    assert re.findall(re.escape(root) + r"/(docs/[^)\s]+)", body) == on_site
    for link in on_site:
        page, anchor = link.removeprefix("docs/").split("#")
        assert f'id="{anchor}"' in (built / page).read_text(), link

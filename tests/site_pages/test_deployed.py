# ruff: noqa: E501  (the browser-side JavaScript snippets read best on one line each)
"""The site as a deployment serves it: a static server running as another user than the builder.

The site of the H100 experiment result set (two runs, one of them recording an abbreviated
commit) is published by this process (root in CI) and served by ``python3 -m http.server``
started as user ``nobody`` on 127.0.0.1, the way GitHub Pages or any web server reads files
it does not own. Every page is opened in headless Chromium: no HTTP error, no console error,
no ``#anchor`` that names no element; and no file of the site names a local absolute path.
"""

import collections
import json
import os
import pathlib
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest
from tests.archived_results import restored

from site_pages.conftest import REPO, publish

EXPERIMENT_SET = restored("results/h100-mch_icon-ch1_medium")  # raw files from git history
SERVER_PYTHON = "/usr/bin/python3"
PAGE_SCRIPT = """(() => {
  const nav = performance.getEntriesByType('navigation')[0];
  return {
    status: nav ? nav.responseStatus : null,
    resources: performance.getEntriesByType('resource').filter(r => r.responseStatus >= 400).map(r => r.name + ' ' + r.responseStatus),
    ids: [...document.querySelectorAll('[id]')].map(e => e.id),
    links: [...document.querySelectorAll('a[href]')].map(a => a.href),
  };
})()"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _as_nobody() -> list[str] | None:
    """The command prefix that runs a program as ``nobody``, or None where it cannot."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None or not os.path.exists(SERVER_PYTHON):
        return None
    return ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]


@pytest.fixture(scope="module")
def deployed():
    """The experiment's site, built here, under a world-readable directory of /tmp."""
    base = pathlib.Path(tempfile.mkdtemp(prefix="iconbench-deploy-"))
    base.chmod(0o755)  # the test's own directory; everything under it is the builder's
    out = base / "site"
    _, outcome, _ = publish(
        EXPERIMENT_SET,
        "--experiment",
        "mch_icon-ch1_medium",
        "--gate",
        REPO / "results" / "nightly-confirm-cpu" / "ab-gate-summary.json",  # a real one
        "--out",
        out,
    )
    assert outcome["problems"] == []
    yield out
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def served_as_nobody(deployed):
    prefix = _as_nobody()
    if prefix is None:
        pytest.skip(
            "serving as another user needs root, setpriv and /usr/bin/python3 (CI runs as root)"
        )
    port = _free_port()
    server = subprocess.Popen(
        [
            *prefix,
            SERVER_PYTHON,
            "-m",
            "http.server",
            "--bind",
            "127.0.0.1",
            "--directory",
            str(deployed),
            str(port),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while True:
        try:
            urllib.request.urlopen(url + "/", timeout=2).close()
            break
        except (urllib.error.URLError, ConnectionError):
            if time.monotonic() > deadline or server.poll() is not None:
                server.kill()
                pytest.fail("the static server as nobody did not start")
            time.sleep(0.1)
    yield url
    server.terminate()
    server.wait(timeout=10)


def test_every_file_is_world_readable_and_every_directory_traversable(deployed):
    for path in [deployed, *deployed.rglob("*")]:
        mode = stat.S_IMODE(path.lstat().st_mode)
        wanted = 0o005 if path.is_dir() else 0o004
        assert mode & wanted == wanted, f"{path.relative_to(deployed)}: mode {oct(mode)}"


def test_no_file_names_a_local_absolute_path(deployed):
    local = {
        str(REPO),
        str(deployed.parent),
        str(pathlib.Path.home()),
        sys.prefix,
        tempfile.gettempdir() + "/",
    }
    found = [
        f"{path.relative_to(deployed)}: {needle}"
        for path in deployed.rglob("*")
        if path.is_file()
        for needle in local
        if needle.encode() in path.read_bytes()
    ]
    assert found == []


def test_served_by_another_user_every_page_loads_with_no_error_and_no_dead_anchor(
    deployed, served_as_nobody, browser
):
    pages = sorted(p.relative_to(deployed).as_posix() for p in deployed.rglob("*.html"))
    assert (
        "runs/h100-432aa3c76254-existing-py3-12-3-stack-621397793d91aafb-mch_icon-ch1_medium-mch_icon-ch1_medium.html"
        in pages
    )
    # every file answers 200 to the server running as nobody
    failed = []
    for path in sorted(p for p in deployed.rglob("*") if p.is_file()):
        address = f"{served_as_nobody}/{urllib.parse.quote(path.relative_to(deployed).as_posix())}"
        try:
            urllib.request.urlopen(address, timeout=10).close()
        except urllib.error.HTTPError as error:
            failed.append(f"{address}: {error.code}")
    assert failed == []

    ids: dict[str, set[str]] = {}
    links: dict[str, list[str]] = collections.defaultdict(list)
    for page in pages:
        url = f"{served_as_nobody}/{page}"
        loaded = browser.open(url, PAGE_SCRIPT)
        assert loaded.problems == (), f"{page}: {[str(p) for p in loaded.problems]}"
        assert loaded.value["status"] == 200, page
        assert loaded.value["resources"] == [], page
        ids[url] = set(loaded.value["ids"])
        if not page.startswith("asv/"):  # asv's pages route with #fragments, not anchors
            links[url] = loaded.value["links"]
    dead = []
    for page, targets in links.items():
        for target in targets:
            address, _, fragment = target.partition("#")
            if not address.startswith(served_as_nobody):
                continue
            if address.startswith(f"{served_as_nobody}/docs/"):
                continue  # ci/docs builds them there; their anchors: tests/docs/test_build.py
            if address not in ids:  # a page outside the html files (a directory, json): fetch
                try:
                    urllib.request.urlopen(address, timeout=10).close()
                except urllib.error.HTTPError as error:
                    dead.append(f"{page} -> {target}: {error.code}")
                continue
            if fragment and urllib.parse.unquote(fragment) not in ids[address]:
                dead.append(f"{page} -> {target}")
    assert dead == []
    checked = sum(len(t) for t in links.values())
    assert checked > 100


def test_asv_pages_list_every_committed_run_with_its_full_hash(deployed):
    committed = [
        json.loads(p.read_text())["commit_hash"]
        for p in (EXPERIMENT_SET / "asv" / "h100").glob("*-*.json")
    ]
    assert "432aa3c" in committed  # the abbreviated hash the runner recorded
    index = json.loads(next((deployed / "asv").glob("*/index.json")).read_text())
    listed = sorted(index["revision_to_hash"].values())
    assert listed == sorted(
        subprocess.run(
            ["git", "rev-parse", c], cwd=REPO, capture_output=True, text=True, check=True
        ).stdout.strip()
        for c in committed
    )
    assert all(len(h) == 40 for h in listed)


def test_estimate_breaks_where_its_coverage_changes(deployed, browser):
    loaded = browser.open(
        (deployed / "estimate.html").as_uri(),
        """(() => ({
          markers: [...document.querySelectorAll('svg.chart g.marker title')].map(t => t.textContent),
          lines: [...document.querySelectorAll('svg.chart polyline')].length,
          labels: [...document.querySelectorAll('svg.chart text.point-label')].map(t => t.textContent),
          rows: [...document.querySelectorAll('table.data tbody tr')].map(r => [...r.cells].map(c => c.textContent)),
        }))()""",
    )
    assert loaded.problems == ()
    got = loaded.value
    # gtfn_gpu: 13 cases at 0eb40b3, all 119 at 432aa3c: two quantities, no line between them
    gtfn = [row for row in got["rows"] if row[2] == "gtfn_gpu"]
    assert [row[0] for row in gtfn] == ["0eb40b32", "432aa3c7"]
    first, second = (row[4] for row in gtfn)
    assert first != second
    assert got["lines"] == 0
    assert got["markers"] == [f"gtfn_gpu: coverage {first} → {second}"]
    # every point says its coverage beside its value
    assert sorted(got["labels"]) == sorted(f"{row[3]} · covers {row[4]}" for row in got["rows"])


def test_every_solver_program_has_a_chart_of_its_measured_variants(deployed, browser):
    solvers = sorted(p for p in (deployed / "programs").glob("*solver*.html"))
    assert len(solvers) == 3
    for page in solvers:
        loaded = browser.open(
            page.as_uri(),
            "[...document.querySelectorAll('svg.chart[id^=\"device_s-\"]')].map(c => c.querySelectorAll('circle.point').length)",
        )
        assert loaded.problems == ()
        assert loaded.value, page.name
        assert all(points >= 1 for points in loaded.value), page.name

# ruff: noqa: E501  (the browser-side JavaScript snippets read best on one line each)
"""The whole published site, asv's pages included, loads nothing from the network.

Every html/css/js file is scanned for resources it would load from ``http://``, ``https://``
or ``//`` addresses (links for people, ``<a href>``, are fine), and asv's index page is
served on 127.0.0.1 and opened in headless Chromium that resolves no host name: it must draw
its grid with no console error and no failed request, every request to the site itself.
"""

import base64
import functools
import hashlib
import html.parser
import http.server
import json
import pathlib
import re
import shutil
import threading

import pytest

from iconbench.site import asv_offline
from site_pages.conftest import publish_site

ASV_WWW = pathlib.Path(__import__("asv").__file__).parent / "www"
REMOTE = re.compile(r"^\s*(https?:)?//", re.IGNORECASE)
#: XML namespaces name no resource: a script creating SVG elements quotes one.
NAMESPACES = {
    "http://www.w3.org/2000/svg",
    "http://www.w3.org/1999/xlink",
    "http://www.w3.org/1999/xhtml",
}
#: ``<link rel>`` kinds that load nothing.
NOT_LOADED = {"alternate", "author", "canonical", "help", "license", "next", "prev", "search"}
CSS_URL = re.compile(
    r"""url\(\s*(["']?)([^"')]+)\1\s*\)|@import\s+(["'])([^"']+)\3""", re.IGNORECASE
)
JS_STRING_URL = re.compile(r"""(["'`])((?:https?:)?//[^"'`\s]+)\1""", re.IGNORECASE)


def css_loads(text: str) -> list[str]:
    return [m.group(2) or m.group(4) for m in CSS_URL.finditer(text)]


def js_loads(text: str) -> list[str]:
    """Quoted absolute addresses in a script (comments such as license banners aside)."""
    return [m.group(2) for m in JS_STRING_URL.finditer(text) if m.group(2) not in NAMESPACES]


class Loads(html.parser.HTMLParser):
    """Every address an html page loads: src/href/data/srcset of loading tags, style url()."""

    def __init__(self):
        super().__init__()
        self.found: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag, attrs):
        attrs = {k: v or "" for k, v in attrs}
        if tag == "link" and set(attrs.get("rel", "").lower().split()) <= NOT_LOADED:
            pass
        elif tag != "a":
            for name in ("src", "href", "data", "poster", "xlink:href", "background"):
                if name in attrs:
                    self.found.append(attrs[name])
            for name in ("srcset", "imagesrcset"):
                self.found += [
                    part.split()[0] for part in attrs.get(name, "").split(",") if part.strip()
                ]
        self.found += css_loads(attrs.get("style", ""))
        self._in = tag if tag in ("script", "style") else None

    def handle_endtag(self, tag):
        self._in = None

    def handle_data(self, data):
        if self._in == "script":
            self.found += js_loads(data)
        elif self._in == "style":
            self.found += css_loads(data)


def remote_loads(path: pathlib.Path) -> list[str]:
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".html":
        parser = Loads()
        parser.feed(text)
        found = parser.found
    elif path.suffix == ".css":
        found = css_loads(text)
    else:
        found = js_loads(text)
    return [url for url in found if REMOTE.match(url)]


def sri(path: pathlib.Path, algorithm: str) -> str:
    return f"{algorithm}-{base64.b64encode(hashlib.new(algorithm, path.read_bytes()).digest()).decode()}"


@pytest.fixture(scope="module")
def small_site(tmp_path_factory, cpu_results):
    """iconbench's and asv's pages of the CPU runs, with a gate summary and a baseline."""
    return publish_site(tmp_path_factory, "offline", cpu_results)


@pytest.fixture(scope="module")
def served(small_site):
    """The small site on an ephemeral port of 127.0.0.1 (asv's pages fetch their JSON)."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Quiet, directory=str(small_site))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_the_scan_finds_what_asv_itself_loads_from_cdns():
    """The check can fail: asv 0.6.6's own index.html loads 10 files from three CDNs."""
    loads = remote_loads(ASV_WWW / "index.html")
    assert len(loads) == 10
    assert {re.match(r"https://([^/]+)/", url).group(1) for url in loads} == {
        "code.jquery.com",
        "cdnjs.cloudflare.com",
        "cdn.jsdelivr.net",
    }
    assert set(loads) == set(asv_offline.VENDORED)
    assert js_loads('x.src = "https://cdn.example.org/a.js"; /* http://docs.example.org */') == [
        "https://cdn.example.org/a.js"
    ]
    assert css_loads("a{background:url('//fonts.example.org/f.woff')}") == [
        "//fonts.example.org/f.woff"
    ]


def test_no_page_stylesheet_or_script_of_the_site_loads_from_the_network(small_site):
    files = [p for p in small_site.rglob("*") if p.suffix in (".html", ".css", ".js")]
    asv_files = [p for p in files if "asv" in p.relative_to(small_site).parts]
    assert len(files) > len(asv_files) >= 15  # asv's pages and vendored copies are there
    assert {"index.html", "jquery.min.js", "bootstrap.min.css"} <= {p.name for p in asv_files}
    found = {str(p.relative_to(small_site)): remote_loads(p) for p in files}
    assert {k: v for k, v in found.items() if v} == {}
    # bootstrap's glyphicons are shipped next to the css that names them
    css = next(p for p in asv_files if p.name == "bootstrap.min.css")
    fonts = {u.split("?")[0].split("#")[0] for u in css_loads(css.read_text())}
    assert len(fonts) == 4
    assert all((css.parent / font).resolve().is_file() for font in fonts)


def test_asv_pages_keep_the_integrity_of_the_cdn_files(small_site):
    """Each vendored file is the CDN's own (asv's hash), except stupidtable 1.0.1 (not on npm)."""
    page = next((small_site / "asv").glob("*/index.html"))
    stock = (ASV_WWW / "index.html").read_text()
    published = page.read_text()
    tag = re.compile(r"""(?:src|href)="([^"]+)" integrity="([^"]+)\"""")
    asv_hashes = dict(tag.findall(stock))
    ours = dict(tag.findall(published))
    assert len(ours) == len(asv_hashes) == 10
    differs = []
    for url, vendored in asv_offline.VENDORED.items():
        local = page.parent / asv_offline.VENDOR_DIR / vendored.path
        algorithm = ours[f"vendor/{vendored.path}"].split("-")[0]
        assert ours[f"vendor/{vendored.path}"] == sri(local, algorithm) == vendored.integrity
        if asv_hashes[url] != vendored.integrity:
            differs.append(vendored.path)
    assert differs == ["stupid-table-plugin-1.1.3/stupidtable.min.js"]
    readme = (asv_offline.VENDOR / "README.md").read_text()
    for vendored in asv_offline.VENDORED.values():
        local = asv_offline.VENDOR / vendored.path
        assert hashlib.sha256(local.read_bytes()).hexdigest() in readme, vendored.path


def test_asv_pages_of_an_older_publish_are_made_offline(small_site, tmp_path):
    """A sub-site asv wrote with CDN addresses (an older iconbench) is converted in place."""
    site = tmp_path / "asv-site"
    shutil.copytree(next((small_site / "asv").iterdir()), site)
    shutil.rmtree(site / asv_offline.VENDOR_DIR)
    shutil.copy(ASV_WWW / "index.html", site / "index.html")
    assert len(remote_loads(site / "index.html")) == 10
    assert asv_offline.make_offline(site) == []
    assert remote_loads(site / "index.html") == []
    again = (site / "index.html").read_text()
    assert asv_offline.make_offline(site) == []
    assert (site / "index.html").read_text() == again


def test_asv_index_draws_offline_in_chromium(small_site, served, browser, cpu_results):
    name = next((small_site / "asv").iterdir()).name
    measured = set()
    for path in cpu_results.glob("*/*.json"):
        if path.name != "machine.json":
            measured |= set(json.loads(path.read_text())["results"])
    loaded = browser.open(
        f"{served}/asv/{name}/index.html",
        """new Promise(resolve => { const t0 = Date.now(); const poll = () => {
             const drawn = document.querySelectorAll('.benchmark-container canvas').length;
             if (drawn > 0 || Date.now() - t0 > 15000) resolve({
               page: location.pathname, drawn,
               benchmarks: [...document.querySelectorAll('.benchmark-container')].length,
               flot: typeof jQuery.plot, sortable: typeof jQuery.fn.stupidtable, md5: typeof md5,
               navbar: getComputedStyle(document.querySelector('#nav')).position,
             }); else setTimeout(poll, 100); }; poll(); })""",
    )
    got = loaded.value
    problems = [str(p) for p in (*loaded.problems, *browser.problems())]
    assert problems == []
    assert got["page"].endswith(f"/asv/{name}/index.html")  # not asv's error.html
    assert (got["flot"], got["sortable"], got["md5"]) == ("function",) * 3
    assert got["navbar"] == "fixed"  # bootstrap's css applied
    # measured quantities only, each with its graph (a code fingerprint is no quantity)
    assert len(measured) == 8
    assert got["benchmarks"] == len(measured - {"programs.Programs.track_codegen_fingerprint"}) == 7
    assert got["drawn"] > 0
    requests = browser.requests()
    assert any("/vendor/jquery-3.3.1/jquery.min.js" in url for url in requests)
    assert [url for url in requests if not url.startswith(served + "/")] == []
    # the benchmark list sorts with the vendored stupidtable (asv marks the sorted header)
    browser.evaluate("location.hash = '#/summarylist'")
    got = browser.evaluate(
        """new Promise(resolve => { const t0 = Date.now(); const poll = () => {
             const th = document.querySelector('#summarylist-body table th[data-sort="float"]');
             if (!th) return Date.now() - t0 < 15000 ? setTimeout(poll, 100) : resolve(null);
             th.click();
             setTimeout(() => resolve({dir: ['asc', 'desc'].find(d => th.classList.contains(d)) || th.className, values: [...document.querySelectorAll('#summarylist-body tbody td.value')].map(td => parseFloat(td.dataset.sortValue)).filter(v => !isNaN(v))}), 300);
           }; poll(); })"""
    )
    assert got is not None
    assert got["dir"] in ("asc", "desc")
    assert len(got["values"]) >= 2
    assert got["values"] == sorted(got["values"], reverse=got["dir"] == "desc")
    assert browser.problems() == ()


def test_without_the_vendored_copies_the_browser_reaches_nothing(served, browser, small_site):
    """The control: asv's stock page (CDN addresses) fails to load here, as offline."""
    name = next((small_site / "asv").iterdir()).name
    shutil.copy(ASV_WWW / "index.html", small_site / "asv" / name / "stock.html")
    try:
        loaded = browser.open(
            f"{served}/asv/{name}/stock.html",
            "new Promise(r => setTimeout(() => r(location.pathname), 1000))",
        )
    finally:
        (small_site / "asv" / name / "stock.html").unlink()
    assert loaded.value.endswith("/error.html")
    failed = [p for p in loaded.problems if p.kind == "request.failed"]
    assert any("code.jquery.com" in p.url for p in failed)
    assert all("ERR_NAME_NOT_RESOLVED" in p.text for p in failed)


def test_asv_draws_no_graph_of_a_code_fingerprint(small_site, cpu_results):
    """A fingerprint is a hash: asv gets the measured quantities only (asv's index lists
    every benchmark it draws a graph of)."""
    listed = json.loads((cpu_results / "benchmarks.json").read_text())
    assert any(name.endswith("track_codegen_fingerprint") for name in listed)
    (index,) = small_site.glob("asv/*/index.json")
    drawn = json.loads(index.read_text())["benchmarks"]
    assert "programs.Programs.time_device" in drawn
    assert not [name for name in drawn if "fingerprint" in name]

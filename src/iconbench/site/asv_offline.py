"""asv's published pages made to load nothing from the network: vendored libraries, not CDNs.

asv 0.6.6's ``index.html`` loads jQuery, flot (and four plugins), stupidtable, blueimp-md5
and bootstrap from code.jquery.com, cdnjs and jsdelivr, so on a machine without network
(a cluster's login node, a laptop on a train) its pages stay blank. iconbench ships those
exact versions (``static/vendor/``, README there: source package, license, hashes) and,
after ``asv publish``, copies them into the asv sub-site and points the page at them. The
``integrity`` attributes stay: each is the hash of the file shipped, which is the CDN's own
file (asv's hash) for every library but stupidtable, whose 1.0.1 is not on npm.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import pathlib
import re

from iconbench.files.atomic import write_atomic

#: The vendored libraries, shipped with the package.
VENDOR = pathlib.Path(__file__).resolve().parent / "static" / "vendor"
#: Where a published asv sub-site gets its copy (relative to its ``index.html``).
VENDOR_DIR = "vendor"


@dataclasses.dataclass(frozen=True)
class Vendored:
    """One library file asv's pages load: the CDN address asv names and the shipped copy."""

    url: str
    path: str  # under static/vendor/
    integrity: str  # Subresource Integrity of the shipped file, as the page checks it


#: Keyed by the address in asv 0.6.6's ``www/index.html``.
VENDORED = {
    v.url: v
    for v in (
        Vendored(
            "https://code.jquery.com/jquery-3.3.1.min.js",
            "jquery-3.3.1/jquery.min.js",
            "sha256-FgpCb/KJQlLNfOu91ta32o/NMZxltwRo8QtmkMRdAu8=",
        ),
        Vendored(
            "https://cdnjs.cloudflare.com/ajax/libs/flot/0.8.3/jquery.flot.min.js",
            "flot-0.8.3/jquery.flot.min.js",
            "sha512-eO1AKNIv7KSFl5n81oHCKnYLMi8UV4wWD1TcLYKNTssoECDuiGhoRsQkdiZkl8VUjoms2SeJY7zTSw5noGSqbQ==",
        ),
        Vendored(
            "https://cdnjs.cloudflare.com/ajax/libs/flot/0.8.3/jquery.flot.time.min.js",
            "flot-0.8.3/jquery.flot.time.min.js",
            "sha512-lcRowrkiQvFli9HkuJ2Yr58iEwAtzhFNJ1Galsko4SJDhcZfUub8UxGlMQIsMvARiTqx2pm7g6COxJozihOixA==",
        ),
        Vendored(
            "https://cdnjs.cloudflare.com/ajax/libs/flot/0.8.3/jquery.flot.selection.min.js",
            "flot-0.8.3/jquery.flot.selection.min.js",
            "sha512-3EUG0t3qfbLaGN3FXO86i+57nvxHOXvIb/xMSKRrCuX/HXdn1bkbqwAeLd6U1PDmuEB2cnKhfM+SGLAVQbyjWQ==",
        ),
        Vendored(
            "https://cdnjs.cloudflare.com/ajax/libs/flot/0.8.3/jquery.flot.categories.min.js",
            "flot-0.8.3/jquery.flot.categories.min.js",
            "sha512-x4QGSZkQ57pNuICMFFevIhDer5NVB5eJCRmENlCdJukMs8xWFH8OHfzWQVSkl9VQ4+4upPPTkHSAewR6KNMjGA==",
        ),
        Vendored(
            "https://cdn.jsdelivr.net/npm/flot-orderbars@1.0.0/js/jquery.flot.orderBars.js",
            "flot-orderbars-1.0.0/jquery.flot.orderBars.js",
            "sha256-OXNbT0b5b/TgglckAfR8VaJ2ezZv0dHoIeRKjYMKEr8=",
        ),
        Vendored(
            # 1.0.1 is not on npm: the API-compatible 1.1.3 is shipped (README)
            "https://cdnjs.cloudflare.com/ajax/libs/stupidtable/1.0.1/stupidtable.min.js",
            "stupid-table-plugin-1.1.3/stupidtable.min.js",
            "sha512-T2dqwCYHuN8dbqIgYhwdGm+VtfUBecC06wUrciItlLJsteoe07db34cbmp/GZGIrC5/q1xy1V96BuvPiMXnedA==",
        ),
        Vendored(
            "https://cdnjs.cloudflare.com/ajax/libs/blueimp-md5/2.19.0/js/md5.min.js",
            "blueimp-md5-2.19.0/md5.min.js",
            "sha512-8pbzenDolL1l5OPSsoURCx9TEdMFTaeFipASVrMYKhuYtly+k3tcsQYliOEKTmuB1t7yuzAiVo+yd7SJz+ijFQ==",
        ),
        Vendored(
            "https://cdn.jsdelivr.net/npm/bootstrap@3.1.1/dist/js/bootstrap.min.js",
            "bootstrap-3.1.1/js/bootstrap.min.js",
            "sha256-iY0FoX8s/FEg3c26R6iFw3jAtGbzDwcA5QJ1fiS0A6E=",
        ),
        Vendored(
            "https://cdn.jsdelivr.net/npm/bootstrap@3.1.1/dist/css/bootstrap.min.css",
            "bootstrap-3.1.1/css/bootstrap.min.css",
            "sha256-6VA0SGkrc43SYPvX98q/LhHwm2APqX5us6Vuulsafps=",
        ),
    )
}

_TAG = re.compile(r"<(script|link)\b[^>]*>", re.IGNORECASE)
_REMOTE = re.compile(r"""\b(src|href)\s*=\s*(["'])((?:https?:)?//[^"']+)\2""", re.IGNORECASE)
_INTEGRITY = re.compile(r"""\bintegrity\s*=\s*(["'])[^"']*\1""", re.IGNORECASE)
_REL = re.compile(r"""\brel\s*=\s*(["'])([^"']*)\1""", re.IGNORECASE)
#: ``<link rel=...>`` kinds that only name a resource for people or feeds; nothing is loaded.
_NOT_LOADED = {"alternate", "author", "canonical", "help", "license", "next", "prev", "search"}


def integrity_of(path: pathlib.Path, algorithm: str = "sha512") -> str:
    """The Subresource Integrity value of a file, e.g. ``sha256-…=``.

    >>> integrity_of(VENDOR / "jquery-3.3.1" / "jquery.min.js", "sha256")
    'sha256-FgpCb/KJQlLNfOu91ta32o/NMZxltwRo8QtmkMRdAu8='
    """
    digest = hashlib.new(algorithm, path.read_bytes()).digest()
    return f"{algorithm}-{base64.b64encode(digest).decode()}"


def rewrite(html: str) -> tuple[str, list[str]]:
    """``html`` with every vendored CDN address made relative; and the remote ones left.

    >>> page, remote = rewrite('<script src="https://code.jquery.com/jquery-3.3.1.min.js"'
    ...                        ' integrity="sha256-x"></script>')
    >>> page.split('"')[1], page.split('"')[3]
    ('vendor/jquery-3.3.1/jquery.min.js', 'sha256-FgpCb/KJQlLNfOu91ta32o/NMZxltwRo8QtmkMRdAu8=')
    >>> remote
    []
    >>> rewrite('<link rel="stylesheet" href="https://example.org/x.css">')[1]
    ['https://example.org/x.css']
    """
    remote: list[str] = []

    def tag(match: re.Match[str]) -> str:
        text = match.group(0)
        rel = _REL.search(text)
        if (
            match.group(1).lower() == "link"
            and rel
            and set(rel.group(2).lower().split()) <= (_NOT_LOADED)
        ):
            return text
        found = _REMOTE.search(text)
        if found is None:
            return text
        vendored = VENDORED.get(found.group(3))
        if vendored is None:
            remote.append(found.group(3))
            return text
        quote = found.group(2)
        local = f"{found.group(1)}={quote}{VENDOR_DIR}/{vendored.path}{quote}"
        text = text[: found.start()] + local + text[found.end() :]
        return _INTEGRITY.sub(f'integrity="{vendored.integrity}"', text)

    return _TAG.sub(tag, html), remote


def make_offline(html_dir: pathlib.Path) -> list[str]:
    """Point the asv pages in ``html_dir`` at a copy of the vendored libraries.

    Idempotent (a published sub-site can be made offline again after an upgrade). Returns
    one line per address still loaded from the network (a newer asv naming a library
    iconbench does not ship); the pages then work only online, as asv made them.
    """
    for source in sorted(p for p in VENDOR.rglob("*") if p.is_file() and p.name != "README.md"):
        target = html_dir / VENDOR_DIR / source.relative_to(VENDOR)
        data = source.read_bytes()
        if not target.exists() or target.read_bytes() != data:
            write_atomic(target, data)
    lines = []
    for page in sorted(html_dir.glob("*.html")):
        html = page.read_text(encoding="utf-8")
        offline, remote = rewrite(html)
        if offline != html:
            write_atomic(page, offline)
        lines += [
            f"asv's {page.name} in {html_dir} still loads {url} from the network "
            "(iconbench ships no copy of it: a newer asv?)"
            for url in remote
        ]
    return lines

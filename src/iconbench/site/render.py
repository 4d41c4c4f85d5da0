"""Rendering pages with jinja2 (templates in ``reporting/site/``) and writing them atomically.

Numbers reach the templates in SI units; the filters here format them (µs/ms/s chosen per
value, percentages, speed-ups), so every page writes the same number the same way. Pages
link to the shipped ``static/`` files with relative paths: the site works from any file
host, a sub-directory of GitHub Pages, or straight from disk.
"""

from __future__ import annotations

import hashlib
import pathlib
from typing import Any

from iconbench.buildcache import REPO_ROOT
from iconbench.files.atomic import write_atomic
from iconbench.questions import QUESTIONS

TEMPLATES = REPO_ROOT / "reporting" / "site"
STATIC = pathlib.Path(__file__).resolve().parent / "static"


def seconds(value: float | None) -> str:
    """A time per call in the unit that suits it.

    >>> seconds(2.5e-4), seconds(0.0123), seconds(33.7), seconds(None)
    ('250.0 µs', '12.30 ms', '33.7 s', '–')
    """
    if value is None:
        return "–"
    if value < 1e-3:
        return f"{value * 1e6:,.1f} µs"
    if value < 1.0:
        return f"{value * 1e3:,.2f} ms"
    return f"{value:,.1f} s"


def percent(value: float | None) -> str:
    """``0.983`` -> ``98.3 %``."""
    return "–" if value is None else f"{100 * value:.1f} %"


def times(value: float | None) -> str:
    """A speed-up: ``1.234`` -> ``1.23x``."""
    return "–" if value is None else f"{value:.2f}x"


def attribute(value: Any) -> str:
    """The sort key of a table cell (``data-value``): the raw number, or empty."""
    return "" if value is None else repr(float(value))


def environment(directory: pathlib.Path = TEMPLATES) -> Any:
    """The jinja2 environment of the site's templates, with the formatting filters."""
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(directory)),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters.update(seconds=seconds, percent=percent, times=times, value=attribute)
    env.filters["slug"] = lambda text: text.lower().replace(" ", "-")
    # the docs pages that answer a reader's questions, published with the site (its docs/)
    env.globals["questions"] = QUESTIONS
    return env


def render_page(env: Any, template: str, out: pathlib.Path, page: str, **context: Any) -> None:
    """Render ``template`` to ``out/page``; ``root`` in the context is the relative way home."""
    depth = page.count("/")
    root = "../" * depth
    html = env.get_template(template).render(root=root, page=page, **context)
    write_atomic(out / page, html)


def copy_static(out: pathlib.Path) -> None:
    """Copy the shipped CSS and JavaScript into ``out/static`` (only files that changed).

    ``static/vendor/`` is not copied: those libraries are asv's pages' (``asv_offline``).
    An empty ``.nojekyll`` tells GitHub Pages to serve the files as they are (no Jekyll
    build, which would drop files whose names start with ``_``).
    """
    if not (out / ".nojekyll").exists():
        write_atomic(out / ".nojekyll", b"")
    for source in sorted(p for p in STATIC.iterdir() if p.is_file()):
        target = out / "static" / source.name
        data = source.read_bytes()
        if not target.exists() or target.read_bytes() != data:
            write_atomic(target, data)


def design_digest() -> str:
    """A hash of everything that shapes the pages: templates, assets and the site's code.

    When it changes (a new iconbench), the next publish renders every page again.
    """
    digest = hashlib.sha256()
    here = pathlib.Path(__file__).resolve().parent
    assets = [p for p in STATIC.rglob("*") if p.is_file()]
    files = [*TEMPLATES.glob("*.j2"), *assets, *here.glob("*.py")]
    for path in sorted(files):
        digest.update(str(path.relative_to(path.parents[1])).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]

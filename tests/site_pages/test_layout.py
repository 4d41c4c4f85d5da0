"""Every page kind of the site published from the committed records holds at a desktop's
1400 px and a phone's 390 px, in headless Chromium: nothing wider than the screen, no text
cut, no chart label over another label, a data point, a bar or a reference line, no console
error (the checks: ``layout.py``)."""

from __future__ import annotations

import pathlib

import pytest

from site_pages import layout

WIDTHS = (1400, 390)
#: Each page kind and the pages of it that are checked (globs under the site).
KINDS = {
    "overview": ("index.html",),
    "estimate": ("estimate.html",),
    "programs": ("programs/index.html",),
    "program": ("programs/*.html",),
    "run": ("runs/*.html",),
    "gates": ("gates.html",),
    "releases": ("releases.html",),
}


def pages(site: pathlib.Path, kind: str) -> list[pathlib.Path]:
    found = sorted(p for pattern in KINDS[kind] for p in site.glob(pattern)
                   if kind != "program" or p.name != "index.html")  # fmt: skip
    assert found, f"no {kind} page in {site}"
    return found


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("kind", KINDS)
def test_every_page_kind_holds_at_both_widths(committed, browser, kind, width):
    browser.resize(width, 900)
    try:
        faults = {}
        for page in pages(committed, kind):
            loaded = browser.open(page.as_uri(), layout.SCRIPT)
            found = [*map(str, loaded.problems), *loaded.value]
            if found:
                faults[page.relative_to(committed).as_posix()] = found
    finally:
        browser.resize(1400, 1700)
    shown = [f"{page}: {fault}" for page, found in faults.items() for fault in found[:6]]
    total = sum(map(len, faults.values()))
    assert not faults, (
        f"{kind} at {width} px: {total} faults on {len(faults)} of "
        f"{len(pages(committed, kind))} pages\n" + "\n".join(shown[:60])
    )

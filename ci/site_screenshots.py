#!/usr/bin/env python3
"""Rebuild docs/site/*.png: the overview and one program page, in headless Chromium.

The site is published from the committed H100 result sets and the CPU runs of the tests
(tests/site_pages/cpu_history.py), compared with the illustrative ch1_medium baseline of
tests/site_pages/data (made-up OpenACC times: the page names it) under the tests' pins.

    python ci/site_screenshots.py
"""

from __future__ import annotations

import pathlib
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]


def main() -> int:
    """Publish into a scratch directory and take the two screenshots."""
    from iconbench.site import headless
    from iconbench.site import publish as site
    from site_pages import conftest, cpu_history

    with tempfile.TemporaryDirectory() as scratch:
        out = pathlib.Path(scratch) / "site"
        inputs = site.resolve_inputs(
            [conftest.H100, cpu_history.cached()],
            baselines_dir=conftest.BASELINES,
            pins=conftest.PINS,
            asv=False,
        )
        site.publish(inputs, out)
        target = ROOT / "docs" / "site"
        target.mkdir(parents=True, exist_ok=True)
        with headless.Browser(width=1400, height=1750) as browser:
            for page, name in (
                ("index.html", "overview.png"),
                ("programs/apply_diffusion_to_vn.html", "program.png"),
            ):
                loaded = browser.open((out / page).as_uri())
                if loaded.problems:
                    print(f"{page}: {[str(p) for p in loaded.problems]}", file=sys.stderr)
                    return 1
                browser.screenshot(target / name, full_page=False)
                print(target / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Rebuild docs/site/*.png: the overview and one program page, in headless Chromium.

Real data only: the committed H100 result sets (results/h100 on ch1_medium, and
results/h100-mch_icon-ch1_medium on the experiment's grid) compared with the shipped OpenACC
baseline (baselines/mch-icon-ch1-medium, GH200) under experiment mch_icon-ch1_medium's static
arguments, and the gate summaries of docs/examples. The same as

    iconbench publish results/h100 results/h100-mch_icon-ch1_medium \
        --experiment mch_icon-ch1_medium --gate docs/examples --no-asv --out SITE

    python ci/site_screenshots.py
"""

from __future__ import annotations

import os
import pathlib
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src")]
EXPERIMENT = "mch_icon-ch1_medium"


def main() -> int:
    """Publish into a scratch directory and take the two screenshots."""
    from iconbench.baselines import experiments
    from iconbench.site import headless
    from iconbench.site import publish as site

    os.chdir(ROOT)  # the pages name their sources relative to the repository
    with tempfile.TemporaryDirectory() as scratch:
        out = pathlib.Path(scratch) / "site"
        inputs = site.resolve_inputs(
            [pathlib.Path("results/h100"), pathlib.Path(f"results/h100-{EXPERIMENT}")],
            sorted(pathlib.Path("docs/examples").glob("summary-h100-*.json")),
            baselines_dir=pathlib.Path("baselines"),
            pins=experiments.load(EXPERIMENT).pins,
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
                browser.screenshot(target / name, full_page=True)
                print(target / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Rebuild docs/site/screens/: every page kind of the site at 1400 px and at a phone's 390 px.

The browser is the installed Chromium driven by Playwright, as the site's tests drive it
(``tests/site_pages/browser.py``). Real data only: the site the layout test checks
(``tests/site_pages/committed_site.py``: the committed H100 result sets compared with the
shipped OpenACC baseline under experiment mch_icon-ch1_medium, two real gate summaries, the
H100 upstream release history), built from the records in git history. Each picture is the
page's first screen (1400 x 1000, 390 x 1600), saved as a 64-colour palette PNG::

    python perf/site_screenshots.py

With ``--backfill ICON4PY`` (a clone of icon4py, bare is fine: the history is put in commit
order by its dates) it also publishes the H100 backfill of icon4py v0.3.0..v0.4.1 from its
committed packs (results/backfill-h100: the 16 commits and the confirmations of their change
points) and takes the program page of a confirmed change point (docs/site/).
"""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]  # the site tests' browser
EXPERIMENT = "mch_icon-ch1_medium"
#: (page kind, page; RUN: the newest run on the experiment's grid): the site's page kinds.
PAGES = (
    ("overview", "index.html"),
    ("estimate", "estimate.html"),
    ("programs", "programs/index.html"),
    ("program", "programs/apply_diffusion_to_vn.html"),
    ("solver-program", "programs/vertically_implicit_solver_at_predictor_step.html"),
    ("run", "RUN"),
    ("gates", "gates.html"),
    ("releases", "releases.html"),
)
#: Viewports: a desktop's and a phone's.
WIDTHS = {1400: 1000, 390: 1600}
SCREENS = ROOT / "docs" / "site" / "screens"
#: The backfill's page: a change point confirmed by its A/B, two more commit-caused steps.
BACKFILL_SHOT = ("programs/compute_perturbed_quantities_and_interpolation.html",
                 "backfill-change-point.png")  # fmt: skip


def publish_backfill(repo: pathlib.Path, scratch: pathlib.Path) -> pathlib.Path:
    """The backfill's site from its packs, by the commands docs/history.md gives."""
    out, packs = scratch / "backfill", ROOT / "results" / "backfill-h100"
    (out / "confirm").mkdir(parents=True)
    for pack in sorted(packs.glob("*.tar.xz")):
        subprocess.run(["tar", "-xJf", str(pack), "-C", str(out)], check=True)
    for pack in sorted((packs / "confirm").glob("*.tar.xz")):
        subprocess.run(["tar", "-xJf", str(pack), "-C", str(out / "confirm")], check=True)
    iconbench = [sys.executable, "-m", "iconbench", "history"]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    common = ["--repo", str(repo), "--out", str(out)]
    subprocess.run([*iconbench, "backfill", *common, "--from", "v0.3.0", "--to", "v0.4.1",
                    "--backends", "gtfn_gpu,dace_gpu", "--experiment", EXPERIMENT],
                   check=True, env=env)  # fmt: skip
    subprocess.run([*iconbench, "confirm", *common], check=True, env=env)
    site = scratch / "backfill-site"
    subprocess.run([*iconbench, "publish", "--store", str(out / "history"), "--out", str(site),
                    "--repo", str(repo)], check=True, env=env)  # fmt: skip
    return site


def main(argv: list[str]) -> int:
    """Publish into a scratch directory and take the screenshots."""
    from iconbench.site import pagedata
    from iconbench.site.published import open_site
    from site_pages import committed_site
    from site_pages.browser import Browser

    os.chdir(ROOT)
    taken = []
    with tempfile.TemporaryDirectory() as scratch:
        out = committed_site.build(pathlib.Path(scratch))
        runs = open_site(out).load_runs()
        newest = max((r for r in runs if r.target.grid == EXPERIMENT), key=lambda r: r.date_ms)
        SCREENS.mkdir(parents=True, exist_ok=True)
        shots = [(kind, out / (pagedata.run_page(newest) if page == "RUN" else page))
                 for kind, page in PAGES]  # fmt: skip
        with Browser(width=1400, height=1000) as browser:
            for width, height in WIDTHS.items():
                browser.resize(width, height)
                for kind, page in shots:
                    loaded = browser.open(page.as_uri())
                    if loaded.problems:
                        print(f"{page}: {[str(p) for p in loaded.problems]}", file=sys.stderr)
                        return 1
                    taken.append(browser.screenshot(SCREENS / f"{kind}-{width}.png",
                                                    full_page=False))  # fmt: skip
        if argv[:1] == ["--backfill"] and len(argv) == 2:
            site = publish_backfill(pathlib.Path(argv[1]).resolve(), pathlib.Path(scratch))
            with Browser(width=1280, height=900) as browser:
                browser.open((site / BACKFILL_SHOT[0]).as_uri())
                taken.append(browser.screenshot(ROOT / "docs" / "site" / BACKFILL_SHOT[1]))
    recompress(taken)
    for path in taken:
        print(f"{path.relative_to(ROOT)}: {path.stat().st_size // 1024} KB")
    return 0


def recompress(paths: list[pathlib.Path]) -> None:
    """Chromium's PNGs as 64-colour palette images, then recompressed with zopflipng.

    A page's screenshot has a few thousand colours, nearly all of them the anti-aliased edges
    of text: in a palette of 64 (fast octree, no dithering; median cut turned the backends'
    orange and blue grey) text and charts read the same, each backend keeps its exact colour,
    and a picture takes a few tens of KB, which keeps the tree under
    tests/test_results_archive.py's 10 MB with room for the result records beside it.
    zopflipng (Debian's zopfli) is lossless: skipped without it.
    """
    import io

    from PIL import Image

    from iconbench.files.atomic import write_atomic

    for path in paths:
        with Image.open(path) as taken:
            palette = taken.convert("RGB").quantize(
                colors=64, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE
            )
        saved = io.BytesIO()
        palette.save(saved, format="PNG", optimize=True)
        write_atomic(path, saved.getvalue())  # a picture is whole, the old or the new
    if not shutil.which("zopflipng"):
        print("zopflipng not found (apt-get install zopfli): PNGs left as saved", file=sys.stderr)
        return
    for path in paths:
        subprocess.run(["zopflipng", "-y", str(path), str(path)], check=True, capture_output=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

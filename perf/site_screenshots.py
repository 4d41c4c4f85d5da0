#!/usr/bin/env python3
"""Rebuild docs/site/*.png: the site's main pages in headless Chromium, at 1280 px and a phone's.

The browser is the installed Chromium driven by Playwright, as the site's tests drive it
(``tests/site_pages/browser.py``).

Real data only: the committed H100 result sets (results/h100 and its dace 2.0.0a6 re-run on
ch1_medium, results/h100-mch_icon-ch1_medium on the experiment's grid) compared with the
shipped OpenACC baseline (baselines/mch-icon-ch1-medium, GH200) under experiment
mch_icon-ch1_medium's static arguments, and the gate summaries of docs/examples. The same as

    iconbench publish results/h100 results/h100-ch1_medium-dace-2.0.0a6 \
        results/h100-mch_icon-ch1_medium --experiment mch_icon-ch1_medium \
        --gate docs/examples --no-asv --out SITE

    python perf/site_screenshots.py

With ``--backfill ICON4PY`` (a clone of icon4py, bare is fine: the history is put in commit
order by its dates) it also publishes the H100 backfill of icon4py v0.3.0..v0.4.1 from its
committed packs (results/backfill-h100: the 16 commits and the confirmations of their change
points) and takes the program page of a confirmed change point.
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
RESULT_SETS = ("results/h100", "results/h100-ch1_medium-dace-2.0.0a6", f"results/h100-{EXPERIMENT}")
#: (page, screenshot, viewport width): full pages.
SHOTS = (
    ("index.html", "overview.png", 1280),
    ("estimate.html", "estimate.png", 1280),
    ("programs/vertically_implicit_solver_at_predictor_step.html", "solver-program.png", 1280),
    ("programs/apply_diffusion_to_vn.html", "program.png", 1280),
    ("RUN", "run.png", 1280),
    ("index.html", "overview-phone.png", 390),
)
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
    from iconbench import results_archive
    from iconbench.baselines import experiments
    from iconbench.site import pagedata
    from iconbench.site import publish as site
    from iconbench.site.published import open_site
    from site_pages.browser import Browser

    os.chdir(ROOT)
    # the result sets' raw files and the backfill's packs are in git history (results/archive.json)
    results_archive.fetch(
        results_archive.Archive.read(ROOT), [*RESULT_SETS, "results/backfill-h100"]
    )
    with tempfile.TemporaryDirectory() as scratch:
        out = pathlib.Path(scratch) / "site"
        inputs = site.resolve_inputs(
            [pathlib.Path(p) for p in RESULT_SETS],
            sorted(pathlib.Path("docs/examples").glob("summary-h100-*.json")),
            baselines_dir=pathlib.Path("baselines"),
            pins=experiments.load(EXPERIMENT).pins,
            asv=False,
        )
        site.publish(inputs, out)
        runs = open_site(out).load_runs()
        newest = max((r for r in runs if r.target.grid == EXPERIMENT), key=lambda r: r.date_ms)
        target = ROOT / "docs" / "site"
        target.mkdir(parents=True, exist_ok=True)
        shots = [(out / (pagedata.run_page(newest) if page == "RUN" else page), name, width)
                 for page, name, width in SHOTS]  # fmt: skip
        if argv[:1] == ["--backfill"] and len(argv) == 2:
            site = publish_backfill(pathlib.Path(argv[1]).resolve(), pathlib.Path(scratch))
            shots.append((site / BACKFILL_SHOT[0], BACKFILL_SHOT[1], 1280))
        for width in sorted({w for _, _, w in shots}):
            with Browser(width=width, height=900) as browser:
                for page, name, shot_width in shots:
                    if shot_width != width:
                        continue
                    loaded = browser.open(page.as_uri())
                    if loaded.problems:
                        print(f"{page}: {[str(p) for p in loaded.problems]}", file=sys.stderr)
                        return 1
                    browser.screenshot(target / name, full_page=True)
                    print(target / name)
    recompress([target / name for _, name, _ in shots])
    return 0


def recompress(paths: list[pathlib.Path]) -> None:
    """Chromium's PNGs as 256-colour palette images, then recompressed with zopflipng.

    A page's screenshot has a few thousand colours, nearly all of them the anti-aliased edges
    of text: in a palette of 256 (median cut, no dithering) 2.5 % of the run page's pixels move,
    by at most 18 of 255 in a channel, and the files take half the bytes (docs/site.md), which
    keeps the tree under tests/test_results_archive.py's 10 MB with room for the result
    records beside it. zopflipng (Debian's zopfli) is lossless: a few minutes, skipped
    without it.
    """
    import io

    from PIL import Image

    from iconbench.files.atomic import write_atomic

    for path in paths:
        with Image.open(path) as taken:
            palette = taken.convert("RGB").quantize(
                colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
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

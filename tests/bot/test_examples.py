"""Each committed example comment is what ``iconbench comment --dry-run`` renders from its
committed gate summary (docs/bot-examples.md has the commands).

The two H100 checks on the experiment's grid show the OpenACC section a reviewer reads:
icon4py #1405 (``cafee706`` -> ``9cbcaa0775``, the check of 2026-11-27,
results/pr-check-h100/icon4py-1405-2026-11-27: the four variants of
``compute_rho_theta_pgrad_and_update_vn`` +18.9 to +22.8 % on gtfn_gpu, each profiled, with
``compute_hydrostatic_correction_term``, which ICON's timer times with it; the same change's
check with main's builds at e36f4f5, results/pr-check-h100/icon4py-1405-main-2026-11-27, which
profiled one variant for the four) and gtfn's GPU blocks 8x4 instead of 32x8
(results/pr-check-h100/gt4py-blocks-2026-11-26a), with base and head speed-ups. The summaries
of checks are their archived gate summaries (``iconbench results fetch``).
"""

from __future__ import annotations

import pathlib

import pytest
from tests.archived_results import restored

from iconbench.bot import links, publish, target
from iconbench.explain.codediff import normalise
from iconbench.records.summary import Summary

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "docs" / "examples"
SITE = "https://c2sm.github.io/iconbench"
#: comment, its summary, the pull request, the site (as docs/bot-examples.md gives them)
RENDERED = [
    ("comment-h100-icon4py-1405.md",
     restored("results/pr-check-h100/icon4py-1405-2026-11-27") / "gate-summary.json",
     "C2SM/icon4py", 1405, SITE),
    ("comment-h100-icon4py-1405-main.md",
     restored("results/pr-check-h100/icon4py-1405-main-2026-11-27") / "gate-summary.json",
     "C2SM/icon4py", 1405, SITE),
    ("comment-h100-gt4py-blocks-openacc.md", "summary-h100-gt4py-blocks-openacc.json",
     "GridTools/gt4py", 7, SITE),
    ("comment-h100.md", "summary-h100-7212540-fd920c0.json", "GridTools/gt4py", 1234, SITE),
    ("comment-h100-openacc.md", "summary-h100-mch_icon-ch1_medium.json", "GridTools/gt4py", 1234,
     SITE),
    ("comment-cpu.md", "summary-cpu-embedded-tiny.json", "GridTools/gt4py", 1234, SITE),
    ("comment-cpu-74fe7c2-e380b2b.md", "summary-cpu-74fe7c2-e380b2b.json", "C2SM/iconbench", 1,
     SITE),
    ("comment-gt4py-blocks-h100.md",
     restored("results/pr-check-h100/gt4py-blocks-2026-11-26a") / "gate-summary.json",
     "GridTools/gt4py", 7, None),
]  # fmt: skip


def _rendered(summary: str, repo: str, pr: int, site: str | None) -> str:
    gate = Summary.read(EXAMPLES / summary)
    return publish.body(
        gate, target.PullRequest.parse(repo, pr), links.Site.parse(site) if site else None
    )


@pytest.mark.parametrize(("comment", "summary", "repo", "pr", "site"), RENDERED)
def test_each_example_is_its_summary_rendered(comment, summary, repo, pr, site):
    assert _rendered(summary, repo, pr, site) == (EXAMPLES / comment).read_text(encoding="utf-8")


def _section(body: str) -> str:
    return body[body.index("#### Against OpenACC") : body.index("#### Notes")]


def _why_with_one_kernel_table(body: str) -> str:
    """The comment's why section, which shows the flagged variants' same kernels once."""
    why = body[body.index("#### Why it changed") : body.index("#### Against OpenACC")]
    assert why.count("| kernel | launches |") == 1
    return why


def _check_summary(check: str) -> Summary:
    """The archived gate summary of a committed H100 check (results/pr-check-h100/CHECK)."""
    return Summary.read(restored(f"results/pr-check-h100/{check}") / "gate-summary.json")


def _screen(body: str) -> list[str]:
    """The lines a reviewer sees before the folded tables (a folded code diff left out)."""
    lines, folded = [], False
    for line in body[: body.index("<details><summary>Stacks")].splitlines():
        folded = folded or line.startswith("<details>")
        if not folded:
            lines.append(line)
        folded = folded and line != "</details>"
    return lines


def test_icon4py_1405_shows_openacc_base_and_head_and_one_kernel_table():
    body = (EXAMPLES / "comment-h100-icon4py-1405.md").read_text(encoding="utf-8")
    assert (
        "(https://github.com/C2SM/icon4py/commit/9cbcaa07756a75e689915e8e7a80d568e8930b4d)" in body
    )
    assert (
        "| `is_iau_active=True-limited_area=False` | gtfn_gpu | 559.9 µs | 688.3 µs | **+22.8 %** |"
    ) in body
    section = _section(body)
    # ICON's timer of the program times compute_hydrostatic_correction_term with it: measured
    timer = (
        "| `compute_rho_theta_pgrad_and_update_vn` + `compute_hydrostatic_correction_term` "
        "(`compute_rho_theta_pgrad_and_update_vn`) "
    )
    assert (
        timer + "| gtfn_gpu | 4.5 % | 589.0 µs | 532.9 µs | 652.1 µs | 1.11x → **0.90x** | "
        "1.48x → 1.22x |"
    ) in section
    assert (
        timer + "| dace_gpu | 4.5 % | 589.0 µs | 419.8 µs | 417.6 µs | 1.40x → **1.41x** | "
        "1.88x → 1.90x |"
    ) in section
    assert "No speed-up" not in section  # every timer of the measured programs has one
    # the integrate_nh estimate, base -> head
    assert "| gtfn_gpu | 6.5 % | 1.28x | **1.08x** | −15.4 % | 1.72x → 1.46x |" in section
    assert "| dace_gpu | 6.5 % | 1.55x | **1.56x** | +0.4 % | 2.08x → 2.10x |" in section
    # the GPUs, said: an H100 against the GH200 baseline
    assert "OpenACC ran on GH200, GT4Py on NVIDIA H100 80GB HBM3: speed-ups as measured" in section
    assert (
        "× 0.74: GH200 4 TB/s (datasheet) / NVIDIA H100 80GB HBM3 2.96 TB/s (measured copy peak)"
    ) in section
    # the four variants were profiled each (before shapes were their kernels): one table
    why = _why_with_one_kernel_table(body)
    assert "per call (+23.0 %), 7 → 10 kernels" in why
    assert (
        "The same kernels, flagged and profiled too (one table for all): "
        "`is_iau_active=False-limited_area=True` +22.6 % (kernel time 527.3 µs → 643.8 µs), "
        "`is_iau_active=True-limited_area=True` +19.9 % (kernel time 535.0 µs → 640.1 µs), "
        "`is_iau_active=False-limited_area=False` +18.9 % (kernel time 543.5 µs → 645.4 µs)."
    ) in why
    # the excerpt starts at a real change: the new functor, no renumbered line of the old ones
    excerpt = why[why.index("```diff") :].splitlines()
    changed = [ln for ln in excerpt if ln[:1] in "+-" and not ln.startswith(("+++", "---"))]
    assert changed[0].startswith("+                return [](auto const& pg_exdist,")
    removed = {normalise(ln[1:]) for ln in changed if ln.startswith("-")}
    assert normalise(changed[0][1:]) not in removed
    summary = _check_summary("icon4py-1405-2026-11-27")
    assert {w.code.renamed_lines for w in summary.why} == {8}  # renamed, not shown as changed
    screen = _screen(body)
    assert screen.index("#### Regressions (4)") < screen.index("#### Why it changed")
    assert screen.index("#### Why it changed") < screen.index("#### Against OpenACC")
    assert len(screen) < 60


def test_icon4py_1405_with_mains_builds_profiles_one_variant_for_the_same_kernels():
    """The check a runner with main's builds makes of #1405: the four flagged variants have
    one kernel sequence, so the why phase profiled one and names the others, and the
    OpenACC section moves gtfn_gpu below OpenACC while dace_gpu stays where it was."""
    summary = _check_summary("icon4py-1405-main-2026-11-27")
    assert len(summary.why) == 1
    body = (EXAMPLES / "comment-h100-icon4py-1405-main.md").read_text(encoding="utf-8")
    why = _why_with_one_kernel_table(body)
    assert "kernel time 556.1 µs → 685.7 µs per call (+23.3 %), 7 → 10 kernels" in why
    assert (
        "The same kernels, flagged too (not profiled again): "
        "`is_iau_active=False-limited_area=True` +22.4 %, "
        "`is_iau_active=True-limited_area=True` +20.0 %, "
        "`is_iau_active=False-limited_area=False` +19.2 %."
    ) in why
    section = _section(body)
    assert "| gtfn_gpu | 6.5 % | 1.28x | **1.09x** | −15.3 % | 1.72x → 1.46x |" in section
    assert "| dace_gpu | 6.5 % | 1.55x | **1.56x** | +0.4 % | 2.09x → 2.09x |" in section
    screen = _screen(body)
    assert screen.index("#### Regressions (4)") < screen.index("#### Why it changed")
    assert len(screen) < 60


def test_a_gt4py_check_shows_base_and_head_against_openacc():
    body = (EXAMPLES / "comment-h100-gt4py-blocks-openacc.md").read_text(encoding="utf-8")
    section = _section(body)
    assert (
        "the last column restates them for the GH200 by memory bandwidth (GT4Py times × 0.74"
        in section
    )
    assert (
        "| `compute_advection_in_corrector_vertical_momentum` "
        "(`compute_advection_in_vertical_momentum_equation`) | gtfn_gpu | 3.4 % | 435.5 µs | "
        "324.0 µs | 601.4 µs | 1.34x → **0.72x** | 1.81x → 0.97x |"
    ) in section
    assert "| gtfn_gpu | 9.3 % | 0.90x | **0.53x** | −41.2 % | 1.21x → 0.71x |" in section
    assert "| dace_gpu | 9.3 % | 1.36x | **1.36x** | −0.0 % | 1.82x → 1.82x |" in section
    # that check measured each program's first variant, mostly not ICON's: said, not hidden
    assert (
        "No speed-up for 9 timers of the measured programs (measured in other variants" in section
    )
    screen = _screen(body)
    assert screen.index("#### Regressions (9)") < screen.index("#### Against OpenACC")
    assert len(screen) < 50

"""Each committed example comment is what ``iconbench comment --dry-run`` renders from its
committed gate summary (docs/bot.md, "Examples", has the commands).

The two H100 checks on the experiment's grid show the OpenACC section a reviewer reads:
icon4py #1405 (``9cbcaa0775``, ``compute_rho_theta_pgrad_and_update_vn`` 1.223x on
gtfn_gpu; the A/B of the backfill's confirmation, results/backfill-h100/confirm), whose timer
also times a program that check did not measure, and gtfn's GPU blocks 8x4 instead of 32x8
(results/pr-check-h100/gt4py-blocks-2026-11-26a), with base and head speed-ups.
"""

from __future__ import annotations

import pathlib

import pytest
from tests.archived_results import restored

from iconbench.bot import links, publish, target
from iconbench.gate.summary import Summary

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "docs" / "examples"
SITE = "https://c2sm.github.io/iconbench"
#: comment, its summary, the pull request, the site (as docs/bot.md's commands give them)
RENDERED = [
    ("comment-h100-icon4py-1405.md", "summary-h100-icon4py-1405.json", "C2SM/icon4py", 1405, SITE),
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


def _screen(body: str) -> list[str]:
    """The lines a reviewer sees before the folded tables."""
    return body[: body.index("<details><summary>Stacks")].splitlines()


def test_icon4py_1405_says_which_program_its_timer_needs():
    body = (EXAMPLES / "comment-h100-icon4py-1405.md").read_text(encoding="utf-8")
    assert (
        "(https://github.com/C2SM/icon4py/commit/9cbcaa07756a75e689915e8e7a80d568e8930b4d)" in body
    )
    assert "| gtfn_gpu | 529.3 µs | 647.2 µs | **+22.3 %** |" in body
    section = _section(body)
    # the GPUs, said: an H100 against the GH200 baseline
    assert "OpenACC ran on GH200, GT4Py on NVIDIA H100 80GB HBM3: speed-ups as measured" in section
    assert "× 0.72: GH200 4 TB/s (datasheet) / NVIDIA H100 80GB HBM3 2.9 TB/s" in section
    # ICON times compute_hydrostatic_correction_term with it: that check measured it not
    assert (
        "No speed-up for 1 timer of the measured programs (not measured here): "
        "`compute_rho_theta_pgrad_and_update_vn` (needs `compute_hydrostatic_correction_term`)."
    ) in section
    assert len(_screen(body)) < 30


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

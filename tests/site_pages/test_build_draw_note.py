"""A program page names a DaCe code change on gt4py 1.2.0 as a possible build draw.

Real H100 result sets of two neighbouring commits of the icon4py backfill (gt4py 1.2.0 +
dace 2.0.0a5, results/backfill-h100), published as a nightly's runner sets are.
"""

from __future__ import annotations

import html
import pathlib
import re
import tarfile

from tests.archived_results import restored

from iconbench.cli import main

PACKS = restored("results/backfill-h100")  # the packs, from git history
COMMITS = ("f62c4e835fb3ab49b90893e85dd50ad9e1f7ef96", "4624345ed2141d85bc56ba7893d4531747b83283")
NOTE = (
    "the DaCe translation of gt4py 1.2.0 is not reproducible: "
    "a build of unchanged code can differ too"
)


def _unpack(directory: pathlib.Path) -> list[pathlib.Path]:
    for commit in COMMITS:
        with tarfile.open(PACKS / f"{commit}.tar.xz") as pack:
            pack.extractall(directory, filter="data")
    return [directory / commit for commit in COMMITS]


def _assert_the_note_on_dace_only(site: pathlib.Path) -> None:
    (page,) = (site / "programs").glob("compute_advection_in_horizontal_momentum*.html")
    changes = html.unescape(re.search(r"Code changes: (.*?)</p>", page.read_text()).group(1))
    by_backend = dict(
        re.findall(r"(dace_gpu|gtfn_gpu) at <code>4624345e</code> \((.*?)\)", changes)
    )
    assert set(by_backend) == {"dace_gpu", "gtfn_gpu"}
    assert NOTE in by_backend["dace_gpu"]
    assert "not reproducible" not in by_backend["gtfn_gpu"]


def test_code_changes_of_dace_say_they_may_be_a_draw(tmp_path, capsys):
    site = tmp_path / "site"
    sets = [str(path) for path in _unpack(tmp_path)]
    assert main(["publish", *sets, "--out", str(site), "--no-asv"]) == 0
    assert "0 problems" in capsys.readouterr().out
    _assert_the_note_on_dace_only(site)


def test_a_site_from_the_history_has_the_runs_stacks(tmp_path, capsys):
    """``history publish`` hands the stored runner summaries to the site (``--summaries``)."""
    store, site = tmp_path / "history", tmp_path / "site"
    for commit, path in zip(COMMITS, _unpack(tmp_path), strict=True):
        append = ["history", "append", "--store", str(store), "--kind", "main",
                  "--component", "icon4py", "--commit", commit, "--machine", "h100",
                  "--asv", str(path / "asv"), "--summary", str(path / "summary.json")]  # fmt: skip
        assert main(append) == 0
    assert main(["history", "publish", "--store", str(store), "--out", str(site)]) == 0
    capsys.readouterr()
    _assert_the_note_on_dace_only(site)
    run_pages = list((site / "runs").glob("h100-4624345ed214-*.html"))
    assert run_pages
    assert re.search(r"gt4py</th><td[^>]*>1\.2\.0 ", run_pages[0].read_text())

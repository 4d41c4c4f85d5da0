"""Sphinx configuration of iconbench's documentation (``ci/docs`` builds it with ``-W``).

The pages are MyST markdown. The command reference is generated from the argparse parsers
(``iconbench.cli.build_parser``) by sphinx-argparse, so that it cannot drift from the code.
Links to files of the repository outside docs/ (the records under results/, the code) point
at the repository on GitHub; internal links and anchors are checked by the build itself
(``nitpicky``, ``myst_heading_anchors``), never over the network.
"""

from __future__ import annotations

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "docs"))  # cli_reference: the parser of the command reference

project = "iconbench"
author = "C2SM"
copyright = "2026, C2SM"

extensions = ["myst_parser", "sphinxarg.ext"]
source_suffix = {".md": "markdown"}
root_doc = "index"
# docs/examples: comment and summary examples read by the tests, not pages; _build: the output.
exclude_patterns = ["_build", "examples"]

# Every heading up to level 3 gets an anchor, and [text](page.md#anchor) is checked against it.
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence", "deflist"]
nitpicky = True
# option names such as --out stay as typed (smart quotes would make "--" a dash)
smartquotes = False

html_theme = "sphinx_rtd_theme"
html_title = "iconbench"
html_show_sourcelink = False
html_copy_source = False  # the published site carries the pages, not their sources

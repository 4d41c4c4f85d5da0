"""The site a user publishes from the committed records: what the layout test and the
documentation's screenshots look at.

Real data only: the committed H100 result sets (``results/h100``, its dace 2.0.0a6 re-run,
``results/h100-mch_icon-ch1_medium`` on the experiment's grid) compared with the shipped
OpenACC baseline under experiment ``mch_icon-ch1_medium``, two real gate summaries (an
icon4py pull request's check and a nightly's confirmation), and the H100 upstream release
history. The result sets are published by their checkout paths, as the README does on a
fresh clone (``iconbench publish`` reads a committed set's raw files from git history); the
gate summaries and the release history are fetched (``iconbench results fetch``).
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]
EXPERIMENT = "mch_icon-ch1_medium"
RESULT_SETS = (
    "results/h100",
    "results/h100-ch1_medium-dace-2.0.0a6",
    f"results/h100-{EXPERIMENT}",
)
GATES = (
    "results/pr-check-h100/icon4py-1405-2026-11-27/gate-summary.json",
    "results/nightly-trust-h100/2026-11-27b/confirm/gate-summary.json",
)
RELEASES = "results/upstream-releases-h100"


def iconbench(*args: object) -> str:
    """``iconbench ARGS`` as a user runs it in the checkout; its output (a failure: stderr)."""
    done = subprocess.run(
        [sys.executable, "-m", "iconbench", *map(str, args)],
        capture_output=True, text=True, check=False, cwd=REPO,
    )  # fmt: skip
    assert done.returncode == 0, f"iconbench {' '.join(map(str, args))}: {done.stderr[-3000:]}"
    return done.stdout


def build(scratch: pathlib.Path) -> pathlib.Path:
    """Fetch the records into ``scratch`` and publish their site (no asv pages) there."""
    sets = scratch / "sets"
    iconbench("results", "fetch", RELEASES, *{str(pathlib.Path(g).parent) for g in GATES},
              "--out", sets)  # fmt: skip
    site = scratch / "site"
    gates = [arg for gate in GATES for arg in ("--gate", sets / gate)]
    outcome = iconbench("publish", *RESULT_SETS, "--experiment", EXPERIMENT, *gates, "--no-asv",
                        "--out", site, "--json")  # fmt: skip
    assert json.loads(outcome)["problems"] == []
    iconbench("releases", "table", "--out", sets / RELEASES, "--site", site)
    return site

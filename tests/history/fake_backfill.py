"""A fake icon4py whose ``compute_tangential_wind`` got slower at one commit, and its backfill.

The repository holds a copy of the installed dycore and a ``uv.lock`` pinning this
environment's gt4py and dace. Its main, oldest first::

    base (tag start) - c1 … c5 - docs - K - c7 … c11 - pin - c12 (tag end)

Every ``c`` commit and K touch the dycore's sources; ``c`` commits only a note file. K plants
a slowdown: ``compute_tangential_wind``'s field operator also sums, three times, the square
roots of its neighbours' products, times zero (the result stays the same, the program does
several times the work; one such sum, about twice the work, once came out 3.0x [1.005, 9.2]
in an A/B of 4 + 4 processes on a loaded two-core machine, not beyond doubt). ``docs``
touches nothing measured, so a backfill does not select it: K's first parent is outside the
backfill. ``pin`` pins a gt4py and dace this environment does not
have (a backfill without their overlay leaves it out) and c12 pins this environment's again:
c12's first parent runs on another stack.

The backfill's output (c1 … c5, K, c7 … c12) is written as ``iconbench history backfill``
leaves it (each commit's ``summary.json`` and ``asv/``, one entry per commit in
``OUT/history``, label ``backfill``), with device times given rather than measured:
``compute_tangential_wind[default]`` on gtfn_cpu 30 µs (±1 %), :data:`STEP` times that from
K on; ``add_analysis_increments_to_vn[default]`` flat. So its history has one change point,
at K.
"""

from __future__ import annotations

import json
import pathlib
import shutil

import numpy as np
from tests.history.test_backfill import OTHER, here, lock

from iconbench.buildcache import REPO_ROOT
from iconbench.history import backfill
from iconbench.history.store import HistoryStore, result_set_files
from iconbench.records import asv as results
from iconbench.stacks.identity import stack_key

STENCILS = "model/atmosphere/dycore/src/icon4py/model/atmosphere/dycore/stencils"
NOTE = "model/atmosphere/dycore/src/icon4py/model/atmosphere/dycore/notes.txt"
STEPPED = "compute_tangential_wind[default]"
FLAT = "add_analysis_increments_to_vn[default]"
BACKEND = "gtfn_cpu"
#: The step the backfill's history shows at K.
STEP = 2.0
MACHINE = {"machine": "ci", "arch": "x86_64", "cpu": "2 cores", "num_cpu": "2", "os": "Linux",
           "ram": "", "gpu": "none"}  # fmt: skip

#: Three sums more, each of other terms (a compiler cannot merge them into one), each times zero.
SLOW = "".join(
    "    vt_wp = vt_wp + 0.0 * neighbor_sum(\n"
    f"        sqrt(abs(rbf_vec_coeff_e * vn(E2C2E)) + {offset}.0), axis=dims.E2C2EDim\n"
    "    )\n"
    for offset in (1, 2, 3)
)


def plant_slowdown(stencil: pathlib.Path) -> None:
    """Several times the neighbour work in ``compute_tangential_wind``, the same result."""
    text = stencil.read_text()
    anchor = "    vt_wp = neighbor_sum(rbf_vec_coeff_e * vn(E2C2E), axis=dims.E2C2EDim)\n"
    assert text.count(anchor) == 1
    text = text.replace(anchor, anchor + SLOW)
    imports = "from gt4py.next import astype, neighbor_sum"
    assert imports in text
    text = text.replace(imports, "from gt4py.next import abs, astype, neighbor_sum, sqrt")
    stencil.write_text(text)


def make_repo(root: pathlib.Path, git) -> tuple[pathlib.Path, dict[str, str]]:
    """The repository (module doc) and its commits by name: c1 … c5, docs, K, c7 … c12, pin."""
    from icon4py.model.atmosphere import dycore

    repo = root / "icon4py"
    shutil.copytree(
        pathlib.Path(dycore.__file__).parent,
        repo / "model/atmosphere/dycore/src/icon4py/model/atmosphere/dycore",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    (repo / "uv.lock").write_text(lock(here()))
    (repo / "pyproject.toml").write_text('[project]\nname = "icon4py"\nversion = "0.4.1"\n')
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    git(repo, "tag", "start")
    commits = {}
    for number in range(1, 13):
        if number == 12:
            (repo / "uv.lock").write_text(lock(OTHER))
            git(repo, "commit", "-qam", "pin")
            commits["pin"] = git(repo, "rev-parse", "HEAD")
            (repo / "uv.lock").write_text(lock(here()))
        if number == 6:
            (repo / "README.md").write_text("icon4py\n")
            git(repo, "add", "-A")
            git(repo, "commit", "-qm", "docs")
            commits["docs"] = git(repo, "rev-parse", "HEAD")
            plant_slowdown(repo / STENCILS / "compute_tangential_wind.py")
            name = "K"
        else:
            (repo / NOTE).write_text(f"note {number}\n")
            git(repo, "add", "-A")
            name = f"c{number}"
        git(repo, "commit", "-qam", name)
        commits[name] = git(repo, "rev-parse", "HEAD")
    git(repo, "tag", "end")
    return repo, commits


def backfilled(commits: dict[str, str]) -> list[str]:
    """The commits of the backfill, oldest first (not ``docs``, not ``pin``)."""
    return [commits[n] for n in ("c1", "c2", "c3", "c4", "c5", "K", "c7", "c8", "c9", "c10",
                                 "c11", "c12")]  # fmt: skip


def write_backfill(out: pathlib.Path, commits: dict[str, str], *, seed: int = 3) -> pathlib.Path:
    """The backfill's output over ``commits`` (module doc); returns ``out``."""
    rng = np.random.default_rng(seed)
    stack = stack_key()
    benchmarks = results.program_benchmarks(
        REPO_ROOT / "benchmarks", cases=[FLAT, STEPPED], backends=[BACKEND], grids=["tiny"]
    )
    store = HistoryStore.create(out / "history")
    stepped = False
    for number, commit in enumerate(backfilled(commits)):
        stepped = stepped or commit == commits["K"]
        values: dict[str, dict] = {"time_device": {}, "time_host": {}}
        cases = []
        for case, level in ((STEPPED, 30e-6 * (STEP if stepped else 1.0)), (FLAT, 12e-6)):
            samples = [float(v) for v in level * np.exp(rng.normal(0, 0.01, 20))]
            host = [v + 20e-6 for v in samples]
            values["time_device"][case, BACKEND, "tiny"] = (float(np.median(samples)), samples)
            values["time_host"][case, BACKEND, "tiny"] = (float(np.median(host)), host)
            cases.append({"case": case, "backend": BACKEND, "error": None,
                          "device_median_s": float(np.median(samples))})  # fmt: skip
        directory = out / commit
        results.write_asv(directory / "asv", benchmarks, values, machine=MACHINE, commit=commit,
                          env_name=f"existing-py3.12-{stack}-tiny", python="3.12",
                          date_ms=1_795_000_000_000 + number * 3_600_000)  # fmt: skip
        summary = {"commit": commit, "grid": "tiny", "experiment": None, "programs": None,
                   "backends": [BACKEND], "stack": stack, "cases": cases}  # fmt: skip
        (directory / "summary.json").write_text(json.dumps(summary, indent=1))
        store.append(
            result_set_files(asv=[directory / "asv"], summary=[directory / "summary.json"]),
            kind="main", component=backfill.COMPONENT, commit=commit, machine="ci",
            label=backfill.LABEL, repository="C2SM/icon4py", ref="end",
        )  # fmt: skip
    return out

"""``ci/gpu/pr-check-benchmark`` and ``ci/gpu/pr-check-repos`` on the CPU.

The heavy check's main's-builds state is a cache that ``icon4py-edge-warm`` filled with main's
builds and translations alone, what a runner that keeps its cache between checks holds. It is
not made from the empty-cache check's cache: on a two-GPU host (2026-11-27) the head's
translations kept there made its dace_gpu builds of compute_rho_theta_pgrad_and_update_vn take
39-44 s instead of 161-202 s. The GPU figures come from running the benchmark on a GPU host
(results/pr-check-h100/README.md).
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest
from tests.ci.test_nightly_host import REPO

from iconbench.stacks.shared_builds import TRANSLATION_CACHES

BENCHMARK = REPO / "ci" / "gpu" / "pr-check-benchmark"
REPOS = REPO / "ci" / "gpu" / "pr-check-repos"
ENV = dict(
    os.environ,
    ICONBENCH_PYTHON=sys.executable,
    PATH=os.pathsep.join([str(pathlib.Path(sys.executable).parent), os.environ["PATH"]]),
    PYTHONPATH=os.pathsep.join(filter(None, [str(REPO / "src"), os.environ.get("PYTHONPATH")])),
    ICONBENCH_GRID="tiny",
    ICONBENCH_BACKENDS="gtfn_cpu",
    ICONBENCH_CHECK_ARGS="--one-variant --programs ^apply_divergence_damping_and_update_vn\\[",
)


def _run(script: pathlib.Path, *args: object, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(script), *map(str, args)], env={**ENV, **env},
                          capture_output=True, text=True, check=False)  # fmt: skip


def _translations(cache: pathlib.Path) -> dict[str, float]:
    """Every entry of gt4py's translation caches: its name and when it was written."""
    return {
        entry.name: entry.stat().st_mtime
        for name in TRANSLATION_CACHES
        for entry in cache.glob(f"gt4py/*/.gt4py_cache/{name}/*.pkl")
    }


@pytest.mark.slow  # a precompile and a check of one program's first variant: about 2 min on 2 cores
def test_mains_builds_are_mains_builds_and_translations_alone(tmp_path):
    repos, out = tmp_path / "repos", tmp_path / "out"
    made = _run(REPOS, repos)
    assert made.returncode == 0, made.stderr[-2000:]
    warm = _run(BENCHMARK, repos, out, "icon4py-edge-warm")
    assert warm.returncode == 0, warm.stdout[-3000:]
    mains = _translations(out / "cache-edge-main")
    assert mains  # main's apply_divergence_damping_and_update_vn, translated and built

    check = _run(BENCHMARK, repos, out, "icon4py-edge-main")
    assert check.returncode == 0, check.stdout[-3000:]
    builds = json.loads((out / "icon4py-edge-main" / "check.json").read_text())["builds"]
    assert builds["base"]["compiled"] == 0  # main's builds found
    assert builds["head"]["compiled"] == builds["head"]["pairs"] == 1  # head's translated and built
    after = _translations(out / "cache-edge-main")
    assert set(mains) < set(after)  # main's translations kept, head's added
    assert all(after[name] == written for name, written in mains.items())

    again = _run(BENCHMARK, repos, out, "icon4py-edge-main")
    assert again.stdout.startswith("[icon4py-edge-main] done already")

    # the same check in the copy of main's builds the warm step made, measured only after
    # its precompile: the two ways side by side
    # four compile processes to share: a side with nothing to compile gets one
    after = _run(BENCHMARK, repos, out, "icon4py-edge-mainafter",
                 ICONBENCH_CHECK_ARGS=f"{ENV['ICONBENCH_CHECK_ARGS']} --jobs 4")  # fmt: skip
    assert after.returncode == 0, after.stdout[-3000:]
    assert "--measure-while-compiling never (cache" in after.stdout
    record = json.loads((out / "icon4py-edge-mainafter" / "check.json").read_text())
    assert record["builds"]["base"]["compiled"] == 0
    assert record["builds"]["head"]["compiled"] == record["builds"]["head"]["pairs"] == 1
    # run at the warm step's path, the copy's compile index knew base's builds: no pool for
    # base, whose programs a copy elsewhere had loaded through gt4py beside head's compile
    assert record["compile_processes"] == {"base": 1, "head": 4}
    assert {p.name for p in out.glob("cache-edge-main*")} == {
        "cache-edge-main",
        "cache-edge-mainafter",
    }
    assert (out / "cache-edge-main" / "used").exists()  # each back in its place
    assert (out / "cache-edge-mainafter" / "used").exists()


@pytest.mark.parametrize("state", ["main", "mainafter"])
def test_mains_builds_need_the_warm_step(tmp_path, state):
    (tmp_path / "repos" / "icon4py").mkdir(parents=True)
    done = _run(BENCHMARK, tmp_path / "repos", tmp_path / "out", f"icon4py-edge-{state}")
    assert done.returncode == 2
    assert done.stderr == (f"pr-check-benchmark: icon4py-edge-{state} needs main's builds alone: "
                           "run icon4py-edge-warm first\n")  # fmt: skip


def test_the_upstream_change_needs_its_checkout(tmp_path):
    (tmp_path / "repos").mkdir()
    done = _run(BENCHMARK, tmp_path / "repos", tmp_path / "out", "icon4py-1405-empty")
    assert done.returncode == 2
    assert done.stderr == (f"pr-check-benchmark: icon4py-1405-empty needs {tmp_path}/repos/"
                           "icon4py-upstream: make REPOS with ICON4PY_UPSTREAM=UPSTREAM "
                           "ci/gpu/pr-check-repos REPOS\n")  # fmt: skip


def test_missing_checkouts_are_one_line(tmp_path):
    done = _run(BENCHMARK, tmp_path / "nowhere", tmp_path / "out", "icon4py-edge-empty")
    assert done.returncode == 2
    assert done.stderr == (f"pr-check-benchmark: no checkouts at {tmp_path}/nowhere: make them "
                           f"with ci/gpu/pr-check-repos {tmp_path}/nowhere\n")  # fmt: skip


def test_an_upstream_clone_without_the_change_is_one_line(tmp_path):
    upstream = tmp_path / "upstream"
    subprocess.run(["git", "init", "-q", "-b", "main", str(upstream)], check=True)
    subprocess.run(["git", "-C", str(upstream), "-c", "user.name=a", "-c", "user.email=a@b",
                    "commit", "-q", "--allow-empty", "-m", "x"], check=True)  # fmt: skip
    done = _run(REPOS, tmp_path / "repos", ICON4PY_UPSTREAM=str(upstream))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == (
        f"pr-check-repos: {upstream} lacks icon4py commit "
        "cafee706e6f8f103b54ad18a25b254f22395706e (main): fetch it there first"
    )

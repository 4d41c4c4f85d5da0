"""The site built once per session from real result sets, and one headless Chromium."""

import json
import pathlib
import shutil
import subprocess
import sys

import pytest
from tests.archived_results import restored

from site_pages import committed_site, cpu_history
from site_pages.browser import Browser, find_chromium

REPO = pathlib.Path(__file__).resolve().parents[2]
H100 = restored("results/h100")  # raw files from git history (tests/archived_results.py)
BASELINES = pathlib.Path(__file__).parent / "data" / "baselines"
#: The experiment's configuration the illustrative ch1_medium baseline is compared under.
PINS = {
    "limited_area": True,
    "is_iau_active": False,
    "rayleigh_type": 2,
    "divdamp_type": 3,
    "lprep_adv": True,
    "apply_2nd_order_divergence_damping": False,
    "apply_4th_order_divergence_damping": True,
    "apply_extra_diffusion_on_vn": False,
    "apply_zdiffusion_t": True,
}
STATIC_ARGS = [arg for k, v in PINS.items() for arg in ("--static", f"{k}={v}")]


def gate_summary(verdict="regression", version=1, head="0e8595e4a228f782f27b9713d8fb87a27da5f27f"):
    """A summary in the format of docs/gate-summary.md."""
    side = {
        "label": "main",
        "commit": "412cde30392e98d0195a41bb3f7c587a86560ecd",
        "component": "iconbench",
        "date": "2026-11-22T10:00:00+00:00",
        "stack": {"gt4py": "1.2.1", "dace": "2.0.0a6", "icon4py": "0.4.1", "key": "stack-x"},
        "machine": {"name": "h100", "gpu": "NVIDIA H100 80GB HBM3", "cpu": "16 cores"},
        "grid": {"name": "ch1_medium", "cells": 1, "edges": 1, "vertices": 1, "levels": 80},
        "source": "results/h100/asv/h100/412cde30.json",
    }
    bench = {
        "id": "apply_diffusion_to_vn[limited_area=True]|gtfn_gpu|device_time",
        "program": "apply_diffusion_to_vn",
        "variant": "limited_area=True",
        "backend": "gtfn_gpu",
        "metric": "device_time",
        "unit": "s",
        "gated": True,
        "threshold": 0.05,
        "base": {"median": 1.0e-4, "n": 50, "ci": [0.99e-4, 1.01e-4], "fingerprint": "aa"},
        "head": {"median": 1.1e-4, "n": 50, "ci": [1.09e-4, 1.11e-4], "fingerprint": "bb"},
        "ratio": 1.1,
        "ratio_ci": [1.08, 1.12],
        "p_value": 1e-9,
        "q_value": 4e-7,
        "verdict": verdict if verdict != "pass" else "unchanged",
        "notes": ["code generation differs"],
        "error": None,
    }
    return {
        "schema": "iconbench-gate-summary",
        "version": version,
        "created": "2026-11-23T20:00:00+00:00",
        "verdict": verdict,
        "exit_code": 1 if verdict == "regression" else 0,
        "base": side,
        "head": {**side, "label": "pr-17", "commit": head},
        "settings": {"fdr": 0.05, "confidence": 0.95, "thresholds": {"device_time": 0.05}},
        "counts": {
            "regression": 1 if verdict == "regression" else 0,
            "improvement": 0,
            "unchanged": 380,
            "inconclusive": 0,
            "failed": 0,
            "new": 0,
            "gone": 0,
        },
        "benchmarks": [bench],
        "openacc": None,
    }


def publish(*args, check=True):
    """``iconbench publish ARGS --json`` in a subprocess; returns (exit code, JSON or stderr)."""
    done = subprocess.run(
        [sys.executable, "-m", "iconbench", "publish", *map(str, args), "--json"],
        capture_output=True,
        text=True,
        check=False,
        cwd=REPO,
    )
    if check:
        assert done.returncode == 0, done.stderr[-3000:]
        return done.returncode, json.loads(done.stdout), done.stderr
    return done.returncode, done.stdout, done.stderr


@pytest.fixture(scope="session")
def cpu_results():
    """Real CPU runs of the last three commits (embedded, tiny; cached per machine)."""
    return cpu_history.cached()


def publish_site(tmp_path_factory, name, *results):
    """The site of ``results`` with asv's pages, the test baselines and pull request 17's gate."""
    out = tmp_path_factory.mktemp(name) / "site"
    gates = tmp_path_factory.mktemp(f"{name}-gates")
    (gates / "pr-17.json").write_text(json.dumps(gate_summary()))
    _, outcome, _ = publish(
        *results, "--out", out, "--store", BASELINES, "--gate", gates, *STATIC_ARGS
    )
    assert outcome["problems"] == []
    return out


@pytest.fixture(scope="session")
def site(tmp_path_factory, cpu_results):
    """The site of the committed H100 result sets plus the CPU runs, with asv's pages."""
    return publish_site(tmp_path_factory, "site", H100, cpu_results)


@pytest.fixture(scope="session")
def committed(tmp_path_factory) -> pathlib.Path:
    """The site a user publishes from the committed records (``committed_site``), built once."""
    return committed_site.build(tmp_path_factory.mktemp("committed"))


@pytest.fixture(scope="session")
def browser():
    """A headless Chromium; the browser tests skip (saying why) only when none can be had."""
    if find_chromium() is None:
        pytest.skip(
            "no chromium on PATH and it could not be installed (ci/test installs Debian's "
            "chromium with apt-get when it can); the site's browser tests need it"
        )
    with Browser(width=1400, height=1700) as opened:
        yield opened


def copy_result_set(source: pathlib.Path, target: pathlib.Path, files=None) -> pathlib.Path:
    """A copy of an asv results dir with only ``files`` (names) of its result files."""
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("*.json.tmp"))
    if files is not None:
        for path in target.glob("*/*.json"):
            if path.name != "machine.json" and path.name not in files:
                path.unlink()
    return target

"""ci/container/: the Dockerfile's steps are scripts of ci/, run here without Docker."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "ci" / "container" / "Dockerfile"


def _instructions(name: str) -> list[str]:
    text = DOCKERFILE.read_text().replace("\\\n", " ")
    return [line.split(None, 1)[1] for line in text.splitlines() if line.startswith(f"{name} ")]


def test_every_run_step_is_a_script_of_ci():
    runs = _instructions("RUN")
    assert len(runs) == 3
    scripts = [re.search(r"(?:ci/container/|/tmp/)(\w+\.sh)", run).group(1) for run in runs]
    assert scripts == ["base.sh", "env.sh", "iconbench.sh"]
    for script in scripts:
        path = ROOT / "ci" / "container" / script
        assert os.access(path, os.X_OK), path


def test_every_copied_file_exists_and_the_env_layer_copies_only_the_lock():
    copies = [c.split() for c in _instructions("COPY") if not c.startswith("--from")]
    for *sources, _target in copies:
        for source in sources:
            assert (ROOT / source).exists(), source
    # the env layer's inputs: what decides the stack (a code change reuses the layer)
    env = DOCKERFILE.read_text().split("AS env")[1].split("FROM")[0]
    copied = {s for c in re.findall(r"^COPY (.+) \S+$", env, re.M) for s in c.split()}
    assert copied == {"pyproject.toml", "uv.lock", "ci/ensure-env", "ci/container/env.sh"}


def test_build_arguments_are_the_architecture_and_cuda():
    args = {a.split("=")[0] for a in _instructions("ARG")}
    assert {"ARCH", "CUDA", "PYTHON", "BASE_IMAGE", "ENV_IMAGE"} <= args


@pytest.mark.parametrize(
    ("env", "line"),
    [
        ({"CUDA": "11.8.0", "PYTHON": "3.13"}, "env.sh: CUDA 11.8.0 is not 12.x or 13.x"),
        ({"PYTHON": "3.13"}, "CUDA: the toolkit version, e.g. 12.6.3"),
    ],
)
def test_the_env_step_refuses_what_it_cannot_build_in_one_line(env, line, tmp_path):
    done = subprocess.run(
        [str(ROOT / "ci" / "container" / "env.sh")],
        env={**{k: v for k, v in os.environ.items() if k not in ("CUDA",)}, **env,
             "ICONBENCH_VENV": str(tmp_path / "venv")},
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode != 0
    assert line in done.stderr
    assert done.stderr.count("\n") == 1
    assert not (tmp_path / "venv").exists()


@pytest.mark.slow  # compiles the stack's bytecode: about 1 min on 2 cores
def test_the_iconbench_step_compiles_the_bytecode_into_the_prefix(tmp_path):
    prefix = tmp_path / "pycache"
    env = {**os.environ, "PYTHONPYCACHEPREFIX": str(prefix), "ICONBENCH_VENV": str(ROOT / ".venv"),
           "ICONBENCH_CACHE_DIR": str(tmp_path / "cache")}  # fmt: skip
    done = subprocess.run([str(ROOT / "ci" / "container" / "iconbench.sh")], env=env,
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(list(prefix.rglob("gt4py/**/*.pyc"))) > 100
    assert "gt4py" in done.stdout

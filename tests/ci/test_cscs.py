"""ci/cscs/: the CSCS-CI pipeline's schema, and the values its jobs take from the pipeline."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CSCS = ROOT / "ci" / "cscs"


def test_the_pipeline_passes_gitlabs_schema(tmp_path):
    tool = shutil.which("check-jsonschema", path=f"{ROOT / '.venv' / 'bin'}:{os.environ['PATH']}")
    if tool is None:
        pytest.skip("check-jsonschema is not installed (ci/ensure-env test)")
    ok = subprocess.run([tool, "--builtin-schema", "vendor.gitlab-ci", str(CSCS / "pipeline.yml")],
                        capture_output=True, text=True, check=False)  # fmt: skip
    assert ok.returncode == 0, ok.stdout + ok.stderr
    bad = tmp_path / "pipeline.yml"
    bad.write_text((CSCS / "pipeline.yml").read_text().replace("timeout: 6h", "timeout: [6h]"))
    refused = subprocess.run([tool, "--builtin-schema", "vendor.gitlab-ci", str(bad)],
                             capture_output=True, text=True, check=False)  # fmt: skip
    assert refused.returncode == 1
    assert "pr_check_gh200.timeout" in refused.stdout


def test_only_the_publish_job_reads_the_token():
    """The jobs that run code under test never name it; the pipeline only says where it is set."""
    naming = sorted(
        p.name for p in CSCS.iterdir() if p.is_file() and "ICONBENCH_GITHUB_TOKEN" in p.read_text()
    )
    assert naming == ["askpass", "pipeline.yml", "publish"]
    lines = [line for line in (CSCS / "pipeline.yml").read_text().splitlines()
             if "ICONBENCH_GITHUB_TOKEN" in line]  # fmt: skip
    assert all(line.lstrip().startswith("#") for line in lines)
    assert "GIT_STRATEGY: none" in (CSCS / "pipeline.yml").read_text().split("\npublish:")[1]


def _pull_request(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    script = f'source {CSCS / "pull-request.sh"} && echo "$PR $COMPONENT $REPOSITORY"'
    return subprocess.run(["bash", "-c", script], env={"PATH": os.environ["PATH"], **env},
                          capture_output=True, text=True, check=False)  # fmt: skip


def test_the_pull_request_comes_from_the_pipelines_branch():
    done = _pull_request({"CI_COMMIT_BRANCH": "__CSCSCI__pr1405", "CI_PROJECT_NAME": "icon4py"})
    assert done.stdout.strip() == "1405 icon4py C2SM/icon4py"


@pytest.mark.parametrize(
    ("env", "line"),
    [
        ({"ICONBENCH_REPOSITORY": "C2SM/icon4py$(id)", "CI_PROJECT_NAME": "icon4py"},
         "pull-request: ICONBENCH_REPOSITORY 'C2SM/icon4py$(id)' is not OWNER/NAME"),
        ({"CI_PROJECT_NAME": "icon4py; true"},
         "pull-request: component 'icon4py; true' is not icon4py, gt4py, dace or iconbench; "
         "set ICONBENCH_COMPONENT"),
    ],
)  # fmt: skip
def test_a_repository_or_component_that_is_not_one_is_refused(env, line):
    done = _pull_request({"CI_COMMIT_BRANCH": "pr7", **env})
    assert done.returncode == 2
    assert done.stderr == line + "\n"
    assert done.stdout == ""


def test_the_build_cache_is_one_per_image_lock_and_week(tmp_path):
    base = tmp_path / "caches"
    old = base / "iconbench" / "cache" / "image-old"
    old.mkdir(parents=True)
    week_ago = time.time() - 8 * 86400
    os.utime(old, (week_ago, week_ago))
    script = f'source {CSCS / "build-cache.sh"} 2>/dev/null && echo "$ICONBENCH_CACHE_DIR"'

    def cache(image: str) -> str:
        env = {"PATH": os.environ["PATH"], "ICONBENCH_CACHE_BASE_DIR": str(base),
               "ICONBENCH_IMAGE": image, "ICONBENCH_ROOT": str(ROOT)}  # fmt: skip
        done = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True,
                              check=True)  # fmt: skip
        return done.stdout.strip()

    a, b = cache("registry/iconbench:aaa"), cache("registry/iconbench:bbb")
    week = time.strftime("%G-%V", time.gmtime())
    assert a != b
    assert a.endswith(f"-{week}")
    assert (
        f"-lock-{
            subprocess.run(
                ['sha256sum', str(ROOT / 'uv.lock')], capture_output=True, text=True, check=True
            ).stdout[:16]
        }-"
        in a
    )
    assert cache("registry/iconbench:aaa") == a
    assert pathlib.Path(a).is_dir()
    assert not old.exists()

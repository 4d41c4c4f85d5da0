"""Everything a benchmark result depends on, stored next to the asv results.

asv's result files know the commit of the repository under test and the environment name,
not the commits of the other components, the GPU, the CUDA driver or the backend options.
This adds them: :func:`collect` runs inside the environment that was measured (when asv
installs a commit, and for ``--existing`` in the current interpreter), :func:`store` keeps
one file per (machine, commit, environment, run) — append-only, never overwritten.
"""

from __future__ import annotations

import datetime
import json
import os
import pathlib
import sys
from typing import Any

from iconbench import provenance as base_provenance
from iconbench.stacks import identity
from iconbench.stacks.resolve import iconbench_commit

#: Subdirectory of an asv environment holding the provenance of each installed commit.
ENV_SUBDIR = "iconbench-provenance"


def collect(options: dict[str, Any] | None = None) -> dict[str, Any]:
    """The stack of the running interpreter: commits and versions, Python, numpy, cupy, GPU."""
    info = base_provenance.collect().as_dict()
    info["nvidia_driver"] = base_provenance.nvidia_driver_version() if info["gpu"] else None
    info["components"] = identity.environment_stack()
    info["iconbench_commit"] = iconbench_commit()
    info["gt4py_flags"] = base_provenance.environment_flags()
    info["options"] = options or {}
    info["env_name"] = os.environ.get("ASV_ENV_NAME")
    return info


def write_into_environment(commit: str) -> pathlib.Path:
    """Write :func:`collect` into this environment for ``commit`` (called after installing it)."""
    path = pathlib.Path(sys.prefix) / ENV_SUBDIR / f"{commit}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.write_text(json.dumps(collect(), indent=2, sort_keys=True))
    os.replace(tmp, path)
    return path


def from_environments(env_dir: pathlib.Path, commit: str, env_name: str) -> dict[str, Any] | None:
    """The provenance recorded when asv installed ``commit`` into the environment ``env_name``."""
    for path in sorted(env_dir.glob(f"*/{ENV_SUBDIR}/{commit}.json")):
        data = json.loads(path.read_text())
        if data.get("env_name") == env_name:
            return data
    return None


def store(
    root: pathlib.Path, machine: str, commit: str, env_name: str, data: dict[str, Any]
) -> pathlib.Path:
    """Keep ``data`` as a new file under ``root/machine``; existing files are never touched."""
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%S%fZ")
    directory = root / machine
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{commit[:8]}-{env_name}-{stamp}.json"
    tmp = directory / f".{path.name}.tmp{os.getpid()}"
    tmp.write_text(json.dumps({"commit": commit, **data}, indent=2, sort_keys=True))
    os.link(tmp, path)  # fails instead of overwriting: the history is append-only
    tmp.unlink()
    return path


def latest(root: pathlib.Path, machine: str, commit: str) -> dict[str, Any] | None:
    """The newest stored provenance of ``commit`` on ``machine``."""
    files = sorted((root / machine).glob(f"{commit[:8]}-*.json"))
    return json.loads(files[-1].read_text()) if files else None


if __name__ == "__main__":
    print(json.dumps(collect(), indent=2, sort_keys=True))

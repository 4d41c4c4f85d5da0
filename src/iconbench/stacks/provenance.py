"""Everything a benchmark result depends on, recorded in the asv environment that ran it.

asv's result files know the commit of the repository under test and the environment name,
not the commits of the other components, the GPU, the CUDA driver or the backend options.
:func:`collect` gathers them inside the environment, right after asv installs a commit into
it (:func:`write_into_environment`, ``<env>/iconbench-provenance/<commit>.json``). The
runner's result directories keep the same in their ``summary.json``.
"""

from __future__ import annotations

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


if __name__ == "__main__":
    print(json.dumps(collect(), indent=2, sort_keys=True))

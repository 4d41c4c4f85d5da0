"""Which stack the running interpreter has, and the build-cache key derived from it.

gt4py's persistent build cache must be reused for an unchanged stack and never for a
changed one. Versions alone do not say that: two commits of a gt4py branch both call
themselves ``1.2.1``. So an environment built for a commit carries a record
(``<prefix>/iconbench-stack.json``, written when asv installs the commit), and an editable
checkout is identified by its git commit plus a hash of its uncommitted changes.
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import platform
import sys
from typing import Any

from iconbench.files.atomic import write_atomic
from iconbench.imported import checkout_identity, editable_dir
from iconbench.stacks.spec import COMPONENTS

#: File in an environment's prefix that records the components installed from git commits.
RECORD_NAME = "iconbench-stack.json"


def record_path(prefix: str | os.PathLike[str] | None = None) -> pathlib.Path:
    """Where the stack record of the environment at ``prefix`` (default: this one) lives."""
    return pathlib.Path(prefix or sys.prefix) / RECORD_NAME


def write_record(
    prefix: str | os.PathLike[str], component: str, commit: str, repo: str
) -> pathlib.Path:
    """Record that ``component`` in the environment at ``prefix`` is ``commit`` of ``repo``.

    Written atomically (:func:`iconbench.files.atomic.write_atomic`): a benchmark that starts
    while asv reinstalls must see the old record or the new one, never half of one.
    """
    path = record_path(prefix)
    record = json.loads(path.read_text()) if path.exists() else {}
    record[component] = {"source": "git", "commit": commit, "repo": repo}
    return write_atomic(path, json.dumps(record, indent=2, sort_keys=True))


def environment_stack() -> dict[str, dict[str, str]]:
    """Each component of the running environment: its git commit if known, else its version."""
    record = _record()
    return {name: installed(name, record) for name in COMPONENTS}


def installed(name: str, record: dict[str, dict[str, str]] | None = None) -> dict[str, str]:
    """The component ``name`` of the running process, as :func:`environment_stack` has it.

    The code Python imports decides (:mod:`iconbench.imported`): sources or an overlay
    first on the path are that code, whatever this environment has installed. Only the
    environment's own install is described by its stack record (``record``: read when not
    given) or its editable checkout.
    """
    from iconbench.imported import imported

    first = COMPONENTS[name].distributions[0]
    found = imported(first)
    if found.source in ("overlay", "tree"):
        return found.identity()
    entry: dict[str, str] = {"version": found.version}
    record = _record() if record is None else record
    if name in record:
        return entry | record[name]
    checkout = editable_dir(first)
    return entry | ((checkout_identity(checkout) if checkout else None) or {"source": "release"})


def _record() -> dict[str, dict[str, str]]:
    return json.loads(record_path().read_text()) if record_path().exists() else {}


def stack_key(
    backend_options: dict[str, Any] | None = None, stack: dict[str, dict[str, str]] | None = None
) -> str:
    """A short hash of (components, Python, backend options, CUDA): the gt4py build-cache key.

    >>> s = {"gt4py": {"version": "1.2.1", "source": "release"}}
    >>> stack_key(stack=s) == stack_key(stack=s)
    True
    >>> stack_key(stack=s) != stack_key(stack={"gt4py": {"version": "1.2.1", "commit": "ab"}})
    True
    """
    stack = stack if stack is not None else environment_stack()
    payload = {
        # where the code lies is not what it is: the same release or tree elsewhere keeps its key
        "stack": {n: {k: v for k, v in e.items() if k != "path"} for n, e in stack.items()},
        "python": platform.python_version(),
        "implementation": sys.implementation.name,
        "backend_options": backend_options or {},
    }
    if os.environ.get("ICONBENCH_CUDA"):
        # a CUDA release brought by the wheelhouse, not the runner's (ci/gpu-env.sh): its
        # nvcc builds other code; the runner's own CUDA keeps the keys it always had
        payload["cuda"] = os.environ["ICONBENCH_CUDA"]
    digest = hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
    return f"stack-{digest[:16]}"

"""What a GitHub event asks the pull-request check to do.

Three events start a check (``.github/workflows/benchmark-pr.yml``):

- ``pull_request`` on iconbench itself: component ``iconbench``, base and head of the PR;
- ``issue_comment`` starting with ``/benchmark`` on a pull request (``/benchmark full`` runs
  everything): the PR's refs are looked up by the workflow (``gh pr view``);
- ``repository_dispatch`` of type ``benchmark-pr`` sent by gt4py, dace or icon4py (their own
  small workflow, docs/ci.md) with ``client_payload`` ``{"repository": "GridTools/gt4py",
  "pr": 1234, "base": "<sha>", "head": "<sha>", "full": false}``.

``python -m iconbench.selection.request EVENT_NAME EVENT_FILE`` prints ``key=value`` lines
for ``$GITHUB_OUTPUT``.
"""

from __future__ import annotations

import dataclasses
import json
import re
import sys
from collections.abc import Mapping
from typing import Any

from iconbench.errors import IconbenchError

#: The repositories whose pull requests are checked, and their component.
REPOSITORIES = {
    "GridTools/gt4py": "gt4py",
    "spcl/dace": "dace",
    "C2SM/icon4py": "icon4py",
}
_SHA_OR_REF = re.compile(r"^[A-Za-z0-9._/-]{1,200}$")


@dataclasses.dataclass(frozen=True)
class Request:
    """One check to run (``run`` false: the event asks for none, e.g. another comment)."""

    run: bool
    component: str = ""
    repository: str = ""
    pr: int = 0
    base: str = ""
    head: str = ""
    full: bool = False

    def outputs(self) -> str:
        """``key=value`` lines for ``$GITHUB_OUTPUT``.

        >>> print(Request(True, "gt4py", "GridTools/gt4py", 7, "a", "b").outputs())
        run=true
        component=gt4py
        repository=GridTools/gt4py
        pr=7
        base=a
        head=b
        full=false
        """
        values = dataclasses.asdict(self)
        return "\n".join(
            f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in values.items()
        )


def _ref(value: Any, what: str) -> str:
    text = str(value or "")
    if not _SHA_OR_REF.match(text):
        raise IconbenchError(f"{what} {text!r} is not a commit or branch name")
    return text


def from_event(name: str, event: Mapping[str, Any], repository: str) -> Request:
    """The request of one event of the workflow running in ``repository`` (owner/name).

    >>> from_event("issue_comment", {"issue": {"number": 5, "pull_request": {}},
    ...            "comment": {"body": "/benchmark full"}}, "C2SM/iconbench").full
    True
    >>> from_event("issue_comment", {"issue": {"number": 5}, "comment": {"body": "lgtm"}},
    ...            "C2SM/iconbench").run
    False
    >>> r = from_event("repository_dispatch", {"client_payload": {"repository": "spcl/dace",
    ...                "pr": 9, "base": "main", "head": "abc123"}}, "C2SM/iconbench")
    >>> r.component, r.pr, r.head
    ('dace', 9, 'abc123')
    """
    if name == "pull_request":
        pr = event["pull_request"]
        return Request(
            True,
            "iconbench",
            repository,
            int(pr["number"]),
            _ref(pr["base"]["sha"], "base"),
            _ref(pr["head"]["sha"], "head"),
        )
    if name == "issue_comment":
        body = (event.get("comment", {}).get("body") or "").strip()
        if "pull_request" not in event.get("issue", {}) or not body.startswith("/benchmark"):
            return Request(False)
        words = body.split()
        return Request(
            True,
            "iconbench",
            repository,
            int(event["issue"]["number"]),
            full=len(words) > 1 and words[1] == "full",
        )
    if name == "repository_dispatch":
        payload = event.get("client_payload") or {}
        origin = str(payload.get("repository", ""))
        if origin not in REPOSITORIES:
            raise IconbenchError(
                f"repository_dispatch from {origin!r}: not one of {', '.join(REPOSITORIES)}"
            )
        return Request(
            True,
            REPOSITORIES[origin],
            origin,
            int(payload.get("pr") or 0),
            _ref(payload.get("base"), "base"),
            _ref(payload.get("head"), "head"),
            bool(payload.get("full", False)),
        )
    raise IconbenchError(f"event {name!r} does not start a benchmark check")


if __name__ == "__main__":
    try:
        with open(sys.argv[2], encoding="utf-8") as handle:
            print(from_event(sys.argv[1], json.load(handle), sys.argv[3]).outputs())
    except (IconbenchError, OSError, ValueError, KeyError, IndexError) as error:
        print(f"request: {error!r}", file=sys.stderr)
        sys.exit(2)

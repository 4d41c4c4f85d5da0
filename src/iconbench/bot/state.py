"""The job's memory of the comments it wrote: ``--state FILE`` in the job's output folder.

GitHub lists a comment a few seconds after it was created. A run that comes right after
another (a re-run, the next step of the same job) may not see the comment yet and create a
second one. The state file keeps the id of each context's comment; the next run reads that
comment directly (which is not late) and edits it. It only ever adds candidates: a comment
it names that is gone, or that is not the bot's, is ignored.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "bot-state.json"
>>> CommentIds.read(path).get("iconbench/tiny") is None
True
>>> CommentIds.read(path).remember("iconbench/tiny", 2215001, "GridTools/gt4py#1234").write(path)
>>> CommentIds.read(path).get("iconbench/tiny", "GridTools/gt4py#1234")
2215001
>>> CommentIds.read(path).get("iconbench/tiny", "C2SM/icon4py#7") is None   # another PR's
True
"""

from __future__ import annotations

import dataclasses
import json
import os
from typing import Any

from iconbench.files.atomic import write_atomic
from iconbench.files.decode import load_json

SCHEMA = "iconbench-bot-state"


@dataclasses.dataclass(frozen=True)
class CommentIds:
    """Comment id per (pull request, context)."""

    ids: dict[str, dict[str, int]] = dataclasses.field(default_factory=dict)

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> CommentIds:
        """The file's ids; none when it does not exist yet."""
        if not os.path.exists(path):
            return cls()
        data: Any = load_json(path, hint="the bot's state file (--state); delete it to start over")
        ids = data.get("comments") if isinstance(data, dict) else None
        if not isinstance(ids, dict):
            return cls()
        return cls(
            {
                str(pr): {str(c): int(i) for c, i in found.items() if isinstance(i, int)}
                for pr, found in ids.items()
                if isinstance(found, dict)
            }
        )

    def get(self, context: str, pr: str = "") -> int | None:
        return self.ids.get(pr, {}).get(context)

    def remember(self, context: str, comment_id: int, pr: str = "") -> CommentIds:
        merged = {k: dict(v) for k, v in self.ids.items()}
        merged.setdefault(pr, {})[context] = comment_id
        return CommentIds(merged)

    def write(self, path: str | os.PathLike[str]) -> None:
        write_atomic(path, json.dumps({"schema": SCHEMA, "comments": self.ids}, indent=1) + "\n")

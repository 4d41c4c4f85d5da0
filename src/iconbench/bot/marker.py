r"""The hidden header of the bot's comment: which check it reports, from which run, what status.

Every comment the bot writes starts with two HTML comments GitHub does not show::

    <!-- iconbench-pr-summary v2 context=iconbench/ch1_medium run=2026-11-23T20:24:04+00:00 -->
    <!-- iconbench-status {"sha": "2db0abe2…", "state": "failure", "description": "…"} -->

* ``context`` is the commit status context of the check (``iconbench/<grid>``, or
  ``--context``): each context has its own comment, so a CPU and a GPU runner never replace
  each other's report.
* ``run`` is the gate summary's ``created`` time: within one context, a run that finishes late
  never replaces a newer report (:func:`newer`).
* the status record is the commit status that run set, so a run that finds a newer report can
  set that report's status again (see :mod:`iconbench.bot.upsert`).

The header is only trusted on comments the bot itself wrote (the caller filters by author):
anyone can type it into a comment of their own.

>>> head = Header("iconbench/tiny", "2026-11-23T20:00:00+00:00",
...               StatusRecord("f" * 40, "success", "no change: 3 benchmarks unchanged", None))
>>> text = head.render() + "\n### iconbench"
>>> parse(text) == head
True
>>> parse("> " + text) is None     # quoted by a person: not a header
True
>>> parse("<!-- iconbench-pr-summary v1 run=2026-11-20T10:00:00+00:00 -->").context is None
True
>>> newer("2026-11-24T08:00:00+00:00", "2026-11-23T20:00:00Z")
True
>>> newer("2026-11-23T21:00:00+01:00", "2026-11-23T20:00:00Z")    # the same instant
False
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import re
import urllib.parse

PREFIX = "<!-- iconbench-pr-summary"
VERSION = "v2"
_HEADER = re.compile(
    r"\A<!-- iconbench-pr-summary v2 context=(?P<context>\S+) run=(?P<run>\S+) -->"
    r"(?:\r?\n<!-- iconbench-status (?P<status>\{[^\n]*\}) -->)?"
)
#: The header of the first version (one comment per pull request, no context, no status).
_LEGACY = re.compile(r"\A<!-- iconbench-pr-summary v1 run=(?P<run>\S*) -->")
_EARLIEST = datetime.datetime.min.replace(tzinfo=datetime.UTC)


@dataclasses.dataclass(frozen=True)
class StatusRecord:
    """A commit status as one run set it (``target_url`` None: the comment itself)."""

    sha: str
    state: str
    description: str
    target_url: str | None

    def render(self) -> str:
        data = json.dumps(dataclasses.asdict(self), ensure_ascii=False)
        # inside an HTML comment: no "-->" and no line break may appear
        return data.replace("<", "\\u003c").replace(">", "\\u003e").replace("\n", "\\n")

    @classmethod
    def parse(cls, text: str) -> StatusRecord | None:
        try:
            data = json.loads(text)
            record = cls(
                sha=str(data["sha"]),
                state=str(data["state"]),
                description=str(data["description"]),
                target_url=None if data.get("target_url") is None else str(data["target_url"]),
            )
        except (ValueError, KeyError, TypeError):
            return None
        return record if re.fullmatch(r"[0-9a-f]{40}", record.sha) else None


@dataclasses.dataclass(frozen=True)
class Header:
    """What the first lines of a bot comment say (``context`` None: a v1 comment)."""

    context: str | None
    run: str
    status: StatusRecord | None = None

    def render(self) -> str:
        context = urllib.parse.quote(self.context or "", safe="/._-:+@")
        run = self.run.replace(" ", "T") or "unknown"
        line = f"{PREFIX} {VERSION} context={context} run={run} -->"
        if self.status is not None:
            line += f"\n<!-- iconbench-status {self.status.render()} -->"
        return line


def parse(body: str) -> Header | None:
    """The header at the very start of ``body``; None for any other comment."""
    found = _HEADER.match(body)
    if found:
        status = found.group("status")
        return Header(
            context=urllib.parse.unquote(found.group("context")),
            run=found.group("run"),
            status=StatusRecord.parse(status) if status else None,
        )
    legacy = _LEGACY.match(body)
    return Header(context=None, run=legacy.group("run")) if legacy else None


def instant(run: str) -> datetime.datetime:
    """A run stamp as a time (naive: UTC); an unreadable one sorts before every other."""
    try:
        moment = datetime.datetime.fromisoformat(run.replace("Z", "+00:00"))
    except ValueError:
        return _EARLIEST
    return moment if moment.tzinfo else moment.replace(tzinfo=datetime.UTC)


def newer(run: str, than: str) -> bool:
    """Whether the report of run ``run`` is strictly newer than that of ``than``."""
    return instant(run) > instant(than)

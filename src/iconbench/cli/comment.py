"""``iconbench comment --repo OWNER/NAME --pr N SUMMARY.json``: commit status and PR comment.

Exit status: 0 when the status and the comment are posted (or a newer run's report of the
context is already there), whatever the verdict (the gate's own exit status says regression);
2 on any failure, with one line on stderr that says first whether the status was set. Never 1,
which a pull request check reserves for the gate's regression.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import os
import re
import sys
from typing import TYPE_CHECKING

from iconbench.cli import option_types as types
from iconbench.cli.command import Command
from iconbench.errors import IconbenchError

if TYPE_CHECKING:
    from iconbench.bot.publish import Posted
    from iconbench.bot.target import PullRequest


class CommentCommand(Command):
    """Set the commit status from the gate summary and post it as the context's PR comment."""

    name = "comment"
    summary = (
        "set the commit status from the gate summary and post it on the pull request "
        "(one living comment per status context)"
    )
    examples = (
        "iconbench comment --repo GridTools/gt4py --pr 1234 summary.json "
        "--site-url https://c2sm.github.io/iconbench",
        "iconbench comment --repo C2SM/icon4py --pr 567 summary.json --dry-run",
        "GITHUB_TOKEN=... iconbench comment --repo spcl/dace --pr 89 summary.json "
        "--github-url https://github.example.org",
        "iconbench comment --repo C2SM/icon4py --pr 567 out/gate-summary.json "
        "--context iconbench/tiny-cpu --bot-login 'github-actions[bot]' --state out/bot-state.json",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "summary",
            type=types.JSON_FILE,
            help="the gate's summary JSON (iconbench compare --out)",
        )
        parser.add_argument(
            "--repo",
            type=types.REPOSITORY,
            required=True,
            help="repository of the pull request, OWNER/NAME",
        )
        parser.add_argument("--pr", required=True, type=types.COUNT, help="pull request number")
        parser.add_argument(
            "--site-url",
            type=types.URL,
            help="root URL of the published history site (links in the comment)",
        )
        parser.add_argument(
            "--github-url",
            type=types.URL,
            default=os.environ.get("GITHUB_SERVER_URL"),
            help="GitHub Enterprise web address, e.g. https://github.example.org "
            "(default: $GITHUB_SERVER_URL, else github.com)",
        )
        parser.add_argument(
            "--context",
            type=types.NAME,
            help="commit status context, also the comment's: each context has its own status "
            "and comment (default: iconbench/<grid of the summary>)",
        )
        parser.add_argument(
            "--no-status", action="store_true", help="update the comment only, no commit status"
        )
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="print the comment's markdown and the status; send nothing, need no token",
        )
        parser.add_argument(
            "--retries", type=types.COUNT, default=5, help="tries per GitHub call (rate limit, 5xx)"
        )
        parser.add_argument(
            "--backoff",
            type=types.SECONDS,
            default=1.0,
            help="first wait in seconds before a retry, doubled each time (at most 60 s)",
        )
        parser.add_argument(
            "--bot-login",
            type=types.NAME,
            default=os.environ.get("ICONBENCH_BOT_LOGIN"),
            help="the bot's GitHub login, whose comments it edits (default: $ICONBENCH_BOT_LOGIN, "
            "else the token's login from GET /user; a GitHub App's token: '<app-slug>[bot]', "
            "Actions' GITHUB_TOKEN: 'github-actions[bot]')",
        )
        parser.add_argument(
            "--settle",
            type=types.SECONDS,
            default=5.0,
            help="seconds to wait after writing the comment before checking it again, longer "
            "than GitHub takes to list a new comment (default 5)",
        )
        parser.add_argument(
            "--state",
            type=types.OUTPUT,
            help="a JSON file in the job's output folder that keeps the comment's id for the "
            "next run (found even before GitHub lists it)",
        )
        parser.add_argument(
            "--json", action="store_true", help="print what was done as JSON on stdout"
        )

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        """Exit 0 when posted; 2 with one line on stderr on any failure (never a traceback)."""
        from iconbench.bot.client import one_line

        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("iconbench: %(message)s"))
        handler.setLevel(logging.WARNING)
        bot_log = logging.getLogger("iconbench.bot")
        bot_log.addHandler(handler)
        try:
            return cls._run(args)
        except IconbenchError as error:
            message = str(error)
        except Exception as error:  # a bug: still one line and exit 2, never 1 (a regression)
            message = f"unexpected {type(error).__name__}: {one_line(error, 200)}"
        finally:
            bot_log.removeHandler(handler)
        print(_cap(f"iconbench: error: {message}"), file=sys.stderr)
        return 2

    @classmethod
    def _run(cls, args: argparse.Namespace) -> int:
        from iconbench.bot import links, publish, status, target, token
        from iconbench.bot.client import GitHubClient
        from iconbench.bot.retry import RetryPolicy
        from iconbench.bot.state import CommentIds
        from iconbench.records.summary import Summary

        github_url = args.github_url
        if github_url and github_url.rstrip("/") == target.GITHUB_COM:
            github_url = None
        pr = target.PullRequest.parse(args.repo, args.pr, github_url)
        site = links.Site.parse(args.site_url) if args.site_url else None
        if args.retries < 1:
            raise IconbenchError(f"--retries {args.retries}: at least 1 (one try, no retry)")
        if not 0 <= args.backoff <= 60:
            raise IconbenchError(f"--backoff {args.backoff}: seconds between 0 and 60")
        if not 0 <= args.settle <= 60:
            raise IconbenchError(f"--settle {args.settle}: seconds between 0 and 60")
        if args.bot_login and not _LOGIN.match(args.bot_login):
            raise IconbenchError(
                f"--bot-login {args.bot_login!r}: expected a GitHub login, e.g. "
                "'iconbench-bot', 'github-actions[bot]' or '<app-slug>[bot]'"
            )
        if args.context is not None and not _CONTEXT.match(args.context):
            raise IconbenchError(
                f"--context {args.context!r}: expected a status context of 1 to 100 printable "
                "characters, e.g. iconbench/ch1_medium-h100"
            )
        gate = Summary.read(args.summary)
        if args.dry_run:
            sys.stdout.write(publish.body(gate, pr, site, context=args.context))
            planned = status.commit_status(
                gate,
                target_url=site.report(gate.base.commit, gate.head.commit) if site else None,
                context=args.context,
            )
            print(
                f"\n(dry run: nothing sent to {pr!r}; status {planned.context}: {planned.state}, "
                f"{planned.description!r})",
                file=sys.stderr,
            )
            return 0
        secret = token.from_environment()
        policy = RetryPolicy(attempts=args.retries, base_s=args.backoff)
        memory = CommentIds()
        if args.state:
            try:
                memory = CommentIds.read(args.state)
            except IconbenchError as error:  # only a help to find the comment: go on without
                print(_cap(f"iconbench: warning: {error}; going on without it"), file=sys.stderr)
        context = args.context or status.commit_status(gate, None).context
        known = memory.get(context, repr(pr))
        with GitHubClient(pr, secret, policy=policy) as client:
            posted = publish.publish(
                gate,
                pr,
                client,
                site=site,
                context=context,
                login=args.bot_login,
                send_status=not args.no_status,
                known=() if known is None else (known,),
                settle_s=args.settle,
            )
        if args.state and posted.comment is not None:
            try:
                memory.remember(context, posted.comment.comment_id, repr(pr)).write(args.state)
            except OSError as error:
                print(
                    _cap(f"iconbench: warning: cannot write the state file {args.state}: {error}"),
                    file=sys.stderr,
                )
        _report(pr, posted, as_json=args.json, send_status=not args.no_status)
        if posted.problems:
            print(
                _cap(f"iconbench: error: {_problem_line(posted, not args.no_status)}"),
                file=sys.stderr,
            )
            return 2
        return 0


#: GitHub logins: letters, digits, hyphens; an app's account ends in [bot].
_LOGIN = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?$")
_CONTEXT = re.compile(r"^[^\s<>][^\n\r<>]{0,99}$")
#: The longest error line (GitHub's own message in it is cut shorter still).
LINE_LIMIT = 300


def _cap(line: str) -> str:
    """One line of at most :data:`LINE_LIMIT` characters."""
    line = " ".join(line.split())
    return line if len(line) <= LINE_LIMIT else line[: LINE_LIMIT - 1] + "…"


def _status_words(posted: Posted) -> str:
    where = f"on {posted.sha[:12]}" if posted.sha else "(no commit known)"
    if posted.status_sent:
        return f"status {posted.status.context} set {where}: {posted.status.state}"
    if posted.restored is not None:
        return f"status {posted.status.context}: a newer run's ({posted.restored.state}) kept"
    if posted.comment is not None and posted.comment.action == "newer":
        return f"status {posted.status.context} left to a newer run's report"
    return f"status {posted.status.context} NOT set"


def _problem_line(posted: Posted, send_status: bool) -> str:
    """The first problem, how many more, and whether the status got through."""
    line = posted.problems[0]
    if len(posted.problems) > 1:
        line += f" (and {len(posted.problems) - 1} more)"
    if send_status:
        line = f"{_status_words(posted)}; {line}"
    return line


def _report(pr: PullRequest, posted: Posted, *, as_json: bool, send_status: bool) -> None:
    """What was done, on stdout: lines, or JSON (``--json``)."""
    outcome = posted.comment
    if as_json:
        print(
            json.dumps(
                {
                    "pull_request": pr.url,
                    "comment": None
                    if outcome is None
                    else {
                        "id": outcome.comment_id,
                        "action": outcome.action,
                        "url": outcome.url,
                        "removed": list(outcome.removed),
                        "contended": outcome.contended,
                    },
                    "status": None
                    if not send_status
                    else {
                        "sha": posted.sha,
                        "sent": posted.status_sent,
                        "restored": None
                        if posted.restored is None
                        else dataclasses.asdict(posted.restored),
                        "state": posted.status.state,
                        "context": posted.status.context,
                        "description": posted.status.description,
                    },
                    "problems": list(posted.problems),
                },
                indent=1,
            )
        )
        return
    if outcome is not None:
        print(f"{pr!r}: comment {outcome.comment_id} {outcome.action} ({outcome.url})")
        if outcome.removed:
            print(f"{pr!r}: removed the bot's older comments {list(outcome.removed)}")
    if send_status and (posted.status_sent or posted.restored is not None):
        print(f"{pr!r}: {_status_words(posted)}, {posted.status.description}")

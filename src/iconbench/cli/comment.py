"""``iconbench comment --repo OWNER/NAME --pr N SUMMARY.json``: the PR comment and commit status."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from iconbench.cli.command import Command
from iconbench.errors import IconbenchError


class CommentCommand(Command):
    """Post (or update) the gate summary on a pull request and set the head's commit status."""

    name = "comment"
    summary = "post the gate summary on a pull request (one living comment) and a commit status"
    examples = (
        "iconbench comment --repo GridTools/gt4py --pr 1234 summary.json "
        "--site-url https://c2sm.github.io/iconbench",
        "iconbench comment --repo C2SM/icon4py --pr 567 summary.json --dry-run",
        "GITHUB_TOKEN=... iconbench comment --repo spcl/dace --pr 89 summary.json "
        "--github-url https://github.example.org",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "summary", type=Path, help="the gate's summary JSON (iconbench compare --out)"
        )
        parser.add_argument(
            "--repo", required=True, help="repository of the pull request, OWNER/NAME"
        )
        parser.add_argument("--pr", required=True, type=int, help="pull request number")
        parser.add_argument(
            "--site-url", help="root URL of the published history site (links in the comment)"
        )
        parser.add_argument(
            "--github-url",
            default=os.environ.get("GITHUB_SERVER_URL"),
            help="GitHub Enterprise web address, e.g. https://github.example.org "
            "(default: $GITHUB_SERVER_URL, else github.com)",
        )
        parser.add_argument(
            "--context", help="commit status context (default: iconbench/<grid of the summary>)"
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
            "--retries", type=int, default=5, help="tries per GitHub call (rate limit, 5xx)"
        )
        parser.add_argument(
            "--backoff",
            type=float,
            default=1.0,
            help="first wait in seconds before a retry, doubled each time (at most 60 s)",
        )
        parser.add_argument(
            "--json", action="store_true", help="print what was done as JSON on stdout"
        )

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        from iconbench.bot import links, publish, status, summary, target, token
        from iconbench.bot.client import GitHubClient
        from iconbench.bot.retry import RetryPolicy

        github_url = args.github_url
        if github_url and github_url.rstrip("/") == target.GITHUB_COM:
            github_url = None
        pr = target.PullRequest.parse(args.repo, args.pr, github_url)
        site = links.Site.parse(args.site_url) if args.site_url else None
        if args.retries < 1:
            raise IconbenchError(f"--retries {args.retries}: at least 1 (one try, no retry)")
        if not 0 <= args.backoff <= 60:
            raise IconbenchError(f"--backoff {args.backoff}: seconds between 0 and 60")
        gate = summary.load(args.summary)
        if args.dry_run:
            sys.stdout.write(publish.body(gate, pr, site))
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
        with GitHubClient(pr, secret, policy=policy) as client:
            if args.no_status:
                from iconbench.bot import marker

                outcome = marker.upsert(client, publish.body(gate, pr, site, client.head_sha()))
                posted = None
            else:
                posted = publish.publish(gate, pr, client, site=site, context=args.context)
                outcome = posted.comment
        if args.json:
            import json

            print(
                json.dumps(
                    {
                        "pull_request": pr.url,
                        "comment": {
                            "id": outcome.comment_id,
                            "action": outcome.action,
                            "url": outcome.url,
                            "removed": list(outcome.removed),
                        },
                        "status": None
                        if posted is None
                        else {
                            "sha": posted.sha,
                            "sent": posted.status_sent,
                            "state": posted.status.state,
                            "context": posted.status.context,
                            "description": posted.status.description,
                        },
                    },
                    indent=1,
                )
            )
        else:
            print(f"{pr!r}: comment {outcome.comment_id} {outcome.action} ({outcome.url})")
            if outcome.removed:
                print(f"{pr!r}: removed duplicate comments {list(outcome.removed)}")
            if posted is not None:
                sent = "set" if posted.status_sent else "left (a newer run's report is posted)"
                print(
                    f"{pr!r}: status {posted.status.context} {sent} on {posted.sha[:12]}: "
                    f"{posted.status.state}, {posted.status.description}"
                )
        return 0

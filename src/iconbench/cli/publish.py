"""``iconbench publish``: the static history site (iconbench's pages plus asv's own)."""

from __future__ import annotations

import argparse
import functools
import http.server
import pathlib
import sys
import time

from iconbench.baselines import mapping
from iconbench.cli import option_types as types
from iconbench.cli import options
from iconbench.cli.command import Command
from iconbench.errors import IconbenchError
from iconbench.files.directories import create_dir


class Publish(Command):
    """Add result sets to the static site in --out; re-render only the pages they change."""

    name = "publish"
    summary = "publish the static history site: overview vs OpenACC, estimate, programs, gate"
    examples = (
        "iconbench publish results/h100 results/h100-ch1_medium-dace-2.0.0a6 "
        "results/h100-mch_icon-ch1_medium --experiment mch_icon-ch1_medium --out site",
        "iconbench publish .asv/results --out site   # after 'asv run' here",
        "iconbench publish results/h100 --gate gate-summaries/ --static limited_area=True "
        "--out site",
        "iconbench publish results/h100 --out site --serve",
        "iconbench publish --out site --serve --port 8001   # look at a published site",
    )

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "results",
            nargs="*",
            type=types.PATH,
            help="asv results directories or GPU runner result sets (e.g. results/h100)",
        )
        parser.add_argument(
            "--out",
            metavar=options.METAVARS["out"],
            type=types.OUTPUT,
            required=True,
            help="site directory (created or updated)",
        )
        # the site's other inputs: files or directories, each option repeatable
        for flag, what in (
            ("--gate", "gate summary JSON file or directory of them"),
            (
                "--confirmations",
                "change point confirmation (iconbench history confirm) JSON file or directory "
                "of them ('iconbench history publish' passes the history's)",
            ),
            (
                "--summaries",
                "directory of GPU runner summaries (summary*.json) whose stacks the pages show "
                "for asv result files ('iconbench history publish' passes the history's)",
            ),
        ):
            kind = types.DIRECTORY if flag == "--summaries" else types.PATH
            parser.add_argument(
                flag, action="append", default=[], type=kind, help=f"{what} (repeatable)"
            )
        options.add_store(
            parser, help="baselines directory (default: $ICONBENCH_BASELINES or baselines/)"
        )
        parser.add_argument(
            "--baseline",
            type=types.TEXT,
            help="compare every run with this baseline (default: matched by grid)",
        )
        parser.add_argument(
            "--mapping",
            type=types.FILE,
            default=mapping.DEFAULT_FILE,
            help="timer->program mapping (default: baselines/mapping/icon_timers.toml)",
        )
        options.add_experiment(
            parser,
            help="ICON experiment (baselines/experiments/NAME.toml): its static arguments pin "
            "the variants compared with OpenACC (--static overrides one)",
        )
        parser.add_argument(
            "--static",
            type=types.TEXT,
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help="pin a static argument for the OpenACC comparison (the experiment's config)",
        )
        parser.add_argument("--no-asv", action="store_true", help="do not run asv publish")
        parser.add_argument(
            "--repo",
            type=types.GIT_REPOSITORY,
            default=None,
            help="git checkout asv orders commits by",
        )
        parser.add_argument(
            "--rebuild", action="store_true", help="render every page again (history is kept)"
        )
        parser.add_argument(
            "--serve", action="store_true", help="then serve the site on 127.0.0.1 until Ctrl-C"
        )
        parser.add_argument("--port", type=types.PORT, default=8000, help="port for --serve")
        parser.add_argument("--json", action="store_true", help="print the outcome as JSON")

    @classmethod
    def run(cls, args: argparse.Namespace) -> int:
        from iconbench.cli.speedup import _pins
        from iconbench.site import publish

        if not (args.results or args.gate or args.confirmations or args.serve):
            raise IconbenchError(
                "nothing to publish: name result sets (e.g. results/h100) or --gate files, "
                "or --serve an existing site"
            )
        if not 0 < args.port < 65536:
            raise IconbenchError(f"--port {args.port}: expected 1-65535")
        if args.results or args.gate or args.confirmations:
            options.writable_dir(args.out, "--out")
        if args.results or args.gate or args.confirmations:
            from iconbench.baselines import experiments

            pins = _pins(args.static)
            experiments.check_static_names(pins, what="--static ")
            if args.experiment:
                pins = experiments.load(args.experiment).pins | pins
            inputs = publish.resolve_inputs(
                args.results,
                args.gate,
                args.confirmations,
                summary_dirs=args.summaries,
                baselines_dir=args.store,
                mapping_file=args.mapping,
                pins=pins,
                baseline=args.baseline,
                asv=not args.no_asv,
                repo=args.repo,
            )
            create_dir(args.out, "--out")
            started = time.perf_counter()
            try:
                outcome = publish.publish(
                    inputs,
                    args.out,
                    report=lambda line: print(f"iconbench publish: {line}", file=sys.stderr),
                    rebuild=args.rebuild,
                )
            except OSError as error:
                raise _write_error(args.out, error) from None
            seconds = time.perf_counter() - started
            if args.json:
                import json

                print(
                    json.dumps(
                        {
                            "out": str(args.out),
                            "runs_added": outcome.runs_added,
                            "runs_total": outcome.runs_total,
                            "gates_added": outcome.gates_added,
                            "pages": list(outcome.pages),
                            "problems": list(outcome.problems),
                            "seconds": round(seconds, 3),
                        },
                        indent=1,
                    )
                )
            else:
                print(
                    f"published {args.out / 'index.html'}: {outcome.runs_added} new runs "
                    f"({outcome.runs_total} in the history), {outcome.gates_added} new gate "
                    f"summaries, {len(outcome.pages)} pages written, "
                    f"{len(outcome.problems)} problems, {seconds:.1f} s"
                )
        elif not (args.out / "index.html").exists():
            raise IconbenchError(f"--out {args.out}: no published site to serve (no index.html)")
        if args.serve:
            serve(args.out, args.port)
        return 0


def _write_error(out: pathlib.Path, error: OSError) -> Exception:
    """One line for a write into the site that failed (full disk, a read-only file)."""
    where = pathlib.Path(error.filename or "")
    if where.is_relative_to(out) or where.resolve().is_relative_to(out.resolve()):
        return IconbenchError(
            f"--out {out}: cannot write {where} ({error.strerror}); free space there or "
            "give a writable directory"
        )
    return error


def serve(root: pathlib.Path, port: int) -> None:
    """Serve ``root`` on 127.0.0.1 only (a local look; the site itself needs no server)."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    try:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    except OSError as error:
        raise IconbenchError(
            f"--port {port}: cannot listen on 127.0.0.1 ({error.strerror}); pick another --port"
        ) from None
    print(f"serving {root} at http://127.0.0.1:{port}/ (Ctrl-C stops)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()

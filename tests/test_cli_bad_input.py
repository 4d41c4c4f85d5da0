"""Bad input fails fast and clearly: one table, one row per command a user can get wrong.

Every row runs in-process through :func:`iconbench.cli.main` (no gt4py import: the names are
checked first) and must: exit with a status other than 0, print exactly one line on stderr
that names the thing, print no traceback, and change nothing on disk (the store, the
results, the build cache and its ledgers, the output directory, the repository's stores).

To add a row (``compare``, ``comment``, ``publish``, ...): append a :class:`Row` to
``ROWS``. ``argv`` may use the placeholders of :func:`_place` (``{tmp}``, ``{store}``,
``{results}``, ...); ``setup`` prepares files under the row's scratch tree; ``names`` are
the strings the error line must contain.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time
from collections.abc import Callable

import pytest
from tests.archived_results import restored

from iconbench import cli

REPO = pathlib.Path(__file__).resolve().parents[1]
H100 = restored("results/h100")  # raw files from git history (tests/archived_results.py)
H100_ASV = H100 / "asv"
H100_FILE = next(iter(sorted((H100_ASV / "h100").glob("0e8595e4-*.json"))), None)
BASELINE = "mch-r04b09/unknown_unknown_2024-05"
TIMER_LOG = REPO / "tests" / "baselines" / "data" / "icon_run.log"
#: A gate summary (iconbench compare's output) whose name looks like a runner's summary.
GATE_SUMMARY = REPO / "docs" / "examples" / "summary-h100-7212540-fd920c0.json"
#: ``iconbench confirm`` of that summary with every option it needs (the stacks: not stacks).
CONFIRM_WITH_STACKS = ("confirm", str(GATE_SUMMARY), "--base-stack", str(GATE_SUMMARY),
                       "--head-stack", str(GATE_SUMMARY), "--checkouts", "{tmp}",
                       "--out", "{tmp}/confirmed.json")  # fmt: skip
#: Repository directories no row may change.
REPO_STORES = ("baselines", "ci/asv/stacks", "results", "results-local")


@dataclasses.dataclass(frozen=True)
class Row:
    """One bad invocation and what its one error line must name."""

    id: str
    argv: tuple[str, ...]
    names: tuple[str, ...]
    setup: Callable[[pathlib.Path], None] | None = None
    #: Also expected on stdout (e.g. the good entries of a store with one bad file).
    stdout: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()


# --- setups: each writes under the row's scratch tree ``tmp`` ---------------------------


def _store(tmp: pathlib.Path) -> None:
    """A baseline store: the repository's baselines (one good baseline and the mapping)."""
    shutil.copytree(REPO / "baselines", tmp / "store")


def _store_with_bad_file(tmp: pathlib.Path) -> None:
    _store(tmp)
    (tmp / "store" / "mch-r04b09" / "broken_a100_2024-06.json").write_text('{"schema": 1, "ti')


def _store_with_binary_file(tmp: pathlib.Path) -> None:
    _store(tmp)
    (tmp / "store" / "mch-r04b09" / "binary_a100_2024-06.json").write_bytes(bytes(range(256)))


def _store_with_imported_log(tmp: pathlib.Path) -> None:
    _store(tmp)
    assert cli.main([*_IMPORT, "--date", "2024-05-29", "--store", str(tmp / "store")]) == 0, (
        "the first import must succeed"
    )


def _results(tmp: pathlib.Path, mutate: Callable[[bytes], bytes] = lambda b: b) -> None:
    """An asv results directory with one result file of the H100 run (``mutate``-d)."""
    _store(tmp)
    machine = tmp / "results" / "h100"
    machine.mkdir(parents=True)
    shutil.copy(H100_ASV / "benchmarks.json", tmp / "results" / "benchmarks.json")
    shutil.copy(H100_ASV / "h100" / "machine.json", machine / "machine.json")
    assert H100_FILE is not None
    (machine / H100_FILE.name).write_bytes(mutate(H100_FILE.read_bytes()))


def _results_truncated(tmp: pathlib.Path) -> None:
    _results(tmp, lambda data: data[: len(data) // 2])


def _results_negative_time(tmp: pathlib.Path) -> None:
    def negative(data: bytes) -> bytes:
        doc = json.loads(data)
        _name, row = next(
            (n, r) for n, r in doc["results"].items() if n.endswith("time_device") and r[-1]
        )
        column = doc["result_columns"].index("samples")
        samples = row[column]
        index = next(i for i, s in enumerate(samples) if s)
        samples[index] = [-1e-3, *samples[index][1:]]
        return json.dumps(doc).encode()

    _results(tmp, negative)


def _binary_file(tmp: pathlib.Path) -> None:
    _store(tmp)
    (tmp / "dump.json").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(range(200)))


def _not_a_checkout(tmp: pathlib.Path) -> None:
    (tmp / "plain").mkdir()


def _gt4py_checkout(tmp: pathlib.Path) -> None:
    """A git repository that says it is gt4py, one commit on ``main``."""
    repo = tmp / "gt4py"
    repo.mkdir()
    (repo / "pyproject.toml").write_text('[project]\nname = "gt4py"\n')
    identity = ["-c", "user.name=t", "-c", "user.email=t@t"]
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], [*identity, "commit", "-qm", "a"]):
        subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def _earlier_comparison(tmp: pathlib.Path) -> None:
    _gt4py_checkout(tmp)
    (tmp / "earlier").mkdir()
    (tmp / "earlier" / "gate-summary.json").write_text("{}")


def _empty_links(tmp: pathlib.Path) -> None:
    (tmp / "links").mkdir()


def _empty_ledgers(tmp: pathlib.Path) -> None:
    """A runner's ``work/`` that has measured nothing (and no baseline store: no shares)."""
    (tmp / "work").mkdir()
    (tmp / "work" / "session.jsonl").touch()


def _copy(source: pathlib.Path, target: pathlib.Path) -> None:
    target.parent.mkdir(parents=True)
    shutil.copy(source, target)


def _write(target: pathlib.Path, text: str) -> None:
    target.parent.mkdir(parents=True)
    target.write_text(text)


_IMPORT = (
    "baseline",
    "import",
    str(TIMER_LOG),
    "--kind",
    "timer-table",
    "--experiment",
    "MCH-R04B09",
    "--grid",
    "R04B09",
    "--gpu",
    "A100",
    "--machine",
    "balfrin",
    "--timesteps",
    "6",
)
_SPEEDUP = ("speedup", "{results}", "--baseline", BASELINE, "--store", "{store}")
_CONTINUOUS = ("continuous", "main", "HEAD", "--quick")
#: An option of the asv-driven continuous that is gone, and what its line names instead.
_REMOVED = (
    (("--bench", "Programs.time_host"), ("--bench", "--programs")),
    (("--asv-arg=-a",), ("--asv-arg", "--samples", "--min-blocks")),
    (("--factor", "1.2"), ("--factor", "iconbench compare", "--config")),
    (("--environment", "build"), ("--environment", "no environment is built")),
    (("--existing",), ("--existing", "no environment is built")),
    (("--asv-dir", "{tmp}/asv"), ("--asv-dir", "--out DIR", "DIR/base/asv")),
    (("--benchmark-dir", "{tmp}"), ("--benchmark-dir", "--programs")),
    (("--stack", "dace-fix"), ("--stack", "this Python's stack")),
)
_SUITE_TINY = ("--backends", "embedded", "--grid", "tiny", "--out", "{tmp}/out")

ROWS: list[Row] = [
    # run
    Row(
        "run-unknown-backend",
        (
            "run",
            "--backends",
            "nosuch",
            "--precompile-only",
            "--programs",
            "compute_tangential_wind",
        ),
        ("unknown backend 'nosuch'", "gtfn_cpu"),
    ),
    Row(
        "run-unknown-grid",
        ("run", "--backends", "gtfn_cpu", "--grid", "nosuch", "--precompile-only"),
        ("unknown grid preset 'nosuch'", "tiny_lam"),
    ),
    Row("run-bad-regex", ("run", "--programs", "["), ("bad regex '['",)),
    Row(
        "run-no-match",
        ("run", "--programs", "nosuch", "--precompile-only"),
        ("'nosuch'", "no program name is close"),
    ),
    Row(
        "run-typo",
        ("run", "--programs", "compute_tangentail_wind", "--backends", "embedded"),
        ("'compute_tangentail_wind'", "nearest program names: compute_tangential_wind"),
    ),
    Row(
        "run-garbage-backends-variable",
        ("run", "--precompile-only", "--programs", "compute_tangential_wind"),
        ("ICONBENCH_BACKENDS='garbage'", "unknown backend 'garbage'", "unset ICONBENCH_BACKENDS"),
        env=(("ICONBENCH_BACKENDS", "garbage"),),
    ),
    Row("run-jobs-negative", ("run", "--jobs", "-1"), ("--jobs", "'-1'")),
    Row("run-bad-shard", ("run", "--shard", "5/4"), ("bad shard '5/4'",)),
    # demo
    Row(
        "demo-unknown-backend",
        ("demo", "--backends", "nosuch", "--out", "{tmp}/out"),
        ("unknown backend 'nosuch'",),
    ),
    Row("demo-zero-samples", ("demo", "--samples", "0", "--out", "{tmp}/out"), ("--samples",)),
    Row(
        "demo-typo",
        ("demo", "--programs", "compute_tangentail_wind", "--out", "{tmp}/out"),
        ("'compute_tangentail_wind'", "nearest program names: compute_tangential_wind"),
    ),
    Row(
        "demo-out-in-proc",
        ("demo", "--backends", "embedded", "--out", "/proc/iconbench-demo"),
        ("--out /proc/iconbench-demo: /proc is not writable",),
    ),
    Row(
        "demo-garbage-stack-variable",
        ("demo", "--backends", "embedded", "--out", "{tmp}/out"),
        ("ICONBENCH_STACK='garbage'", "bad stack key", "unset ICONBENCH_STACK"),
        env=(("ICONBENCH_STACK", "garbage"),),
    ),
    Row(
        "demo-out-under-a-file",
        ("demo", "--out", "/etc/passwd/demo"),
        ("/etc/passwd is not a directory",),
    ),
    # continuous
    Row(
        "continuous-unknown-backend",
        (*_CONTINUOUS, "--repo", "{tmp}/gt4py", "--backend", "nosuch"),
        ("unknown backend 'nosuch'",),
        setup=_gt4py_checkout,
    ),
    *(
        Row(
            f"continuous-removed{argv[0].split('=')[0]}",
            (*_CONTINUOUS, *argv),
            names,
            setup=_gt4py_checkout,
        )
        for argv, names in _REMOVED
    ),
    Row(
        "continuous-missing-repo",
        (*_CONTINUOUS, "--repo", "/nonexistent"),
        ("--repo /nonexistent", "no such directory"),
    ),
    Row(
        "continuous-not-a-checkout",
        (*_CONTINUOUS, "--repo", "{tmp}/plain"),
        ("not a git repository",),
        setup=_not_a_checkout,
    ),
    Row(
        "continuous-iconbench-itself",
        (*_CONTINUOUS, "--repo", str(REPO)),
        ("is iconbench itself", "asv continuous main HEAD"),
    ),
    Row(
        "continuous-unknown-ref",
        ("continuous", "main", "no-such-branch-xyz", "--repo", "{tmp}/gt4py"),
        ("'no-such-branch-xyz' is no commit of",),
        setup=_gt4py_checkout,
    ),
    Row(
        "continuous-typo-in-programs-variable",
        (*_CONTINUOUS, "--repo", "{tmp}/gt4py"),
        ("ICONBENCH_PROGRAMS='compute_tangentail_wind'", "compute_tangential_wind"),
        env=(("ICONBENCH_PROGRAMS", "compute_tangentail_wind"),),
        setup=_gt4py_checkout,
    ),
    Row(
        "continuous-programs-match-nothing",
        (*_CONTINUOUS, "--repo", "{tmp}/gt4py", "--programs", "compute_tangentail_wind"),
        ("compute_tangential_wind",),
        setup=_gt4py_checkout,
    ),
    Row(
        "continuous-unknown-grid",
        (*_CONTINUOUS, "--repo", "{tmp}/gt4py", "--grid", "nosuch"),
        ("unknown grid preset 'nosuch'",),
        setup=_gt4py_checkout,
    ),
    Row(
        "continuous-grid-and-cells",
        (*_CONTINUOUS, "--repo", "{tmp}/gt4py", "--grid", "tiny", "--cells", "900"),
        ("give one of --grid PRESET, --cells N or --grid-file FILE",),
        setup=_gt4py_checkout,
    ),
    Row(
        "continuous-out-of-an-earlier-comparison",
        (*_CONTINUOUS, "--repo", "{tmp}/gt4py", "--out", "{tmp}/earlier"),
        ("--out", "not an empty directory", "give a new directory"),
        setup=_earlier_comparison,
    ),
    # programs
    Row("programs-bad-regex", ("programs", "--program", "["), ("bad regex '['",)),
    Row("programs-no-match", ("programs", "--programs", "nosuch"), ("'nosuch'", "192 cases")),
    Row("programs-old-spelling-no-match", ("programs", "--program", "nosuch"), ("'nosuch'",)),
    # grid, verify: the name is checked before gt4py is imported
    Row("grid-unknown-preset", ("grid", "--grid", "nosuch"), ("unknown grid preset 'nosuch'",)),
    Row("grid-missing-file", ("grid", "--grid-file", "/nonexistent.nc"), ("/nonexistent.nc",)),
    Row("grid-zero-levels", ("grid", "--grid", "tiny", "--levels", "0"), ("--levels",)),
    Row(
        "verify-unknown-grid",
        ("verify", "--backends", "gtfn_cpu", "--grid", "nosuch"),
        ("unknown grid preset 'nosuch'",),
    ),
    Row("verify-unknown-backend", ("verify", "--backend", "gtfn_tpu"), ("'gtfn_tpu'",)),
    Row("verify-no-backend", ("verify", "--grid", "tiny"), ("--backends",)),
    # speedup
    Row(
        "speedup-truncated-result",
        _SPEEDUP,
        (H100_FILE.name if H100_FILE else "?", "the file may be truncated"),
        setup=_results_truncated,
    ),
    Row(
        "speedup-negative-time",
        (*_SPEEDUP, "--grid", "ch1_medium"),
        ("samples must be finite times >= 0 s", "-0.001"),
        setup=_results_negative_time,
    ),
    Row(
        "speedup-binary-dump",
        ("speedup", "{tmp}/dump.json", "--baseline", BASELINE, "--store", "{store}"),
        ("dump.json", "binary"),
        setup=_binary_file,
    ),
    Row(
        "speedup-binary-mapping",
        (*_SPEEDUP, "--mapping", "{tmp}/dump.json", "--grid", "ch1_medium"),
        ("dump.json", "binary"),
        setup=lambda tmp: (_results(tmp), _binary_file_only(tmp)),
    ),
    Row(
        "speedup-unknown-static",
        (*_SPEEDUP, "--static", "foo=bar"),
        ("--static foo", "rayleigh_type"),
        setup=_results,
    ),
    Row(
        "speedup-unknown-grid",
        (*_SPEEDUP, "--grid", "nosuch"),
        ("grid 'nosuch'", "grids present: ch1_medium"),
        setup=_results,
    ),
    Row(
        "speedup-mixed-commits",
        ("speedup", str(H100_ASV), "--baseline", BASELINE, "--store", "{store}"),
        ("6 commits", "0e8595e4a228", "--commit SHA"),
        setup=_store,
    ),
    Row(
        "speedup-unknown-commit",
        ("speedup", str(H100_ASV), "--baseline", BASELINE, "--store", "{store}", "--commit", "ff"),
        ("--commit 'ff'",),
        setup=_store,
    ),
    Row(
        "speedup-missing-results",
        ("speedup", "/nonexistent", "--baseline", BASELINE),
        ("/nonexistent",),
    ),
    # baseline
    Row(
        "baseline-list-one-bad-file",
        ("baseline", "list", "--store", "{store}"),
        ("broken_a100_2024-06.json", "the file may be truncated"),
        setup=_store_with_bad_file,
        stdout=(BASELINE,),
    ),
    Row(
        "baseline-list-binary-file",
        ("baseline", "list", "--store", "{store}"),
        ("binary_a100_2024-06.json", "binary"),
        setup=_store_with_binary_file,
        stdout=(BASELINE,),
    ),
    Row(
        "baseline-show-binary-file",
        ("baseline", "show", "mch-r04b09/binary_a100_2024-06", "--store", "{store}"),
        ("binary_a100_2024-06.json", "binary"),
        setup=_store_with_binary_file,
    ),
    Row(
        "baseline-list-missing-store",
        ("baseline", "list", "--store", "/nonexistent"),
        ("/nonexistent", "no such directory"),
    ),
    Row(
        "baseline-import-store-under-a-file",
        (*_IMPORT, "--date", "2024-05", "--store", "/etc/passwd/x"),
        ("/etc/passwd is not a directory",),
    ),
    Row(
        "baseline-import-same-source-again",
        (*_IMPORT, "--date", "2024-06-01", "--store", "{store}"),
        ("already stored", "balfrin_a100_2024-05-29"),
        setup=_store_with_imported_log,
    ),
    Row(
        "baseline-import-missing-file",
        (
            "baseline",
            "import",
            "/nonexistent.log",
            "--experiment",
            "x",
            "--grid",
            "g",
            "--gpu",
            "a",
            "--machine",
            "m",
            "--date",
            "2024-05",
            "--timesteps",
            "6",
        ),
        ("/nonexistent.log",),
    ),
    # stack
    Row(
        "stack-resolve-missing-release",
        ("stack", "resolve", "gt4py==99.99.99"),
        ("release 99.99.99 does not exist",),
        setup=_empty_links,
        env=(("UV_NO_INDEX", "1"), ("UV_FIND_LINKS", "{tmp}/links"), ("UV_OFFLINE", "")),
    ),
    Row("stack-show-unknown", ("stack", "show", "nosuch"), ("no stored stack 'nosuch'",)),
    Row("stack-unknown-component", ("stack", "resolve", "gt5py==1.0"), ("'gt5py'",)),
    # compare (the gate)
    Row(
        "compare-mixed-commits",
        ("compare", str(H100), "{tmp}/nosuch"),
        ("6 commits", "results/h100@COMMIT"),
    ),
    Row(
        "compare-unknown-commit",
        ("compare", f"{H100}@nosuch", f"{H100}@0e8595e4"),
        ("no result set of commit nosuch", "0e8595e4"),
    ),
    Row(
        "compare-unknown-experiment",
        (
            "compare",
            f"{H100}@0e8595e4",
            f"{H100}@fd920c0f",
            "--experiment",
            "nosuch",
            "--out",
            "{tmp}/out/summary.json",
        ),
        ("unknown experiment 'nosuch'", "mch_icon-ch1_medium"),
    ),
    # comment (the PR bot)
    Row(
        "comment-bad-repo",
        ("comment", "--repo", "nosuch", "--pr", "1", "{tmp}/s.json", "--dry-run"),
        ("argument --repo", "'nosuch'", "OWNER/NAME"),
    ),
    Row(
        "comment-bad-pr",
        ("comment", "--repo", "a/b", "--pr", "0", "{tmp}/s.json", "--dry-run"),
        ("argument --pr", "'0'"),
    ),
    Row(
        "comment-not-a-summary",
        ("comment", "--repo", "a/b", "--pr", "3", str(REPO / "README.md"), "--dry-run"),
        ("README.md", "invalid JSON"),
    ),
    # publish (the site)
    Row(
        "publish-missing-results",
        ("publish", "{tmp}/nosuch", "--out", "{tmp}/site"),
        ("nosuch", "no such file or directory"),
    ),
    Row(
        "publish-out-in-proc",
        ("publish", str(H100), "--out", "/proc/iconbench-site"),
        ("--out /proc/iconbench-site: /proc is not writable",),
    ),
    Row(
        "publish-missing-summaries",
        (
            "publish",
            str(H100),
            "--out",
            "{tmp}/site",
            "--summaries",
            "{tmp}/nosummaries",
        ),
        ("--summaries", "nosummaries: no such directory"),
    ),
    Row(
        "publish-unknown-experiment",
        ("publish", str(H100), "--out", "{tmp}/site", "--experiment", "x"),
        ("unknown experiment 'x'",),
    ),
    # granules, suite (the runner), merge, history, rebuild-check
    Row(
        "granules-unknown-case",
        ("granules", "measure", "--cases", "difusion", "--out", "{tmp}/out"),
        ("no granule case matches 'difusion'", "diffusion.run"),
    ),
    Row(
        "granules-out-in-proc",
        ("granules", "measure", "--backends", "gtfn_cpu", "--out", "/proc/iconbench-granules"),
        ("--out /proc/iconbench-granules: /proc is not writable",),
    ),
    Row(
        "granules-no-out",
        ("granules", "measure", "--backends", "gtfn_cpu", "--grid", "tiny"),
        ("--out",),
    ),
    Row(
        "suite-unknown-backend",
        ("suite", "plan", "--backends", "nosuch", "--out", "{tmp}/out"),
        ("unknown backend 'nosuch'", "gtfn_gpu"),
    ),
    Row(
        "suite-load-ahead-not-a-count",
        ("suite", "measure", "--load-ahead", "0", "--out", "{tmp}/out"),
        ("--load-ahead", "expected an integer >= 1, got '0'"),
    ),
    Row(
        "suite-unknown-grid",
        ("suite", "plan", "--grid", "nosuch", "--out", "{tmp}/out"),
        ("unknown grid preset 'nosuch'", "icon_benchmark_regional"),
    ),
    *(
        Row(
            f"suite-{step}-typo",
            ("suite", step, *_SUITE_TINY, "--programs", "compute_tangentail_wind"),
            ("--programs 'compute_tangentail_wind'", "compute_tangential_wind"),
        )
        for step in ("plan", "precompile", "verify", "measure", "crosscheck", "asv", "all")
    ),
    Row(
        "suite-experiment-runs-none",
        (
            *("suite", "plan", "--experiment", "mch_icon-ch1_medium", "--out", "{tmp}/out"),
            *("--programs", r"apply_diffusion_to_vn\[limited_area=False\]"),
        ),
        ("experiment 'mch_icon-ch1_medium' runs none of the 1 cases",),
    ),
    Row(
        "suite-garbage-stack-variable",
        ("suite", "plan", "--backends", "embedded", "--out", "{tmp}/out"),
        ("ICONBENCH_STACK='garbage'", "stack-NAME", "unset ICONBENCH_STACK"),
        env=(("ICONBENCH_STACK", "garbage"),),
    ),
    Row(
        "suite-garbage-grid-variable",
        ("suite", "plan", "--backends", "embedded", "--out", "{tmp}/out"),
        ("ICONBENCH_GRID='garbage'", "unknown grid preset 'garbage'", "unset ICONBENCH_GRID"),
        env=(("ICONBENCH_GRID", "garbage"),),
    ),
    Row(
        "suite-bad-stack",
        ("suite", "plan", "--backends", "embedded", "--out", "{tmp}/out", "--stack", "../x"),
        ("--stack", "bad stack key '../x'"),
    ),
    Row(
        "suite-devices-repeated",
        ("suite", "measure", *_SUITE_TINY, "--devices", "0,0"),
        ("argument --devices", "--devices '0,0': give device ids separated by commas, each once"),
    ),
    Row(
        "check-devices-empty",
        (
            "check",
            "--component",
            "icon4py",
            "--repo",
            str(REPO),
            "--base",
            "main",
            "--devices",
            "0,",
        ),
        ("argument --devices", "--devices '0,'"),
    ),
    Row(
        "suite-out-in-proc",
        ("suite", "plan", "--backends", "embedded", "--out", "/proc/iconbench-out"),
        ("--out /proc/iconbench-out: /proc is not writable",),
    ),
    # select (the pull request's selection)
    Row(
        "select-not-a-repository",
        ("select", "--component", "icon4py", "--repo", "{tmp}/plain", "--base", "main"),
        ("icon4py", "plain is not a git repository"),
        setup=_not_a_checkout,
    ),
    Row(
        "select-unknown-base",
        ("select", "--component", "icon4py", "--repo", str(REPO), "--base", "no-such-ref-xyz"),
        ("unknown ref 'no-such-ref-xyz'",),
    ),
    Row(
        "select-missing-repo",
        ("select", "--component", "icon4py", "--repo", "{tmp}/nosuch", "--base", "main"),
        ("nosuch: no such directory",),
    ),
    Row(
        "select-selects-no-case",
        ("select", "--component", "gt4py", "--ledgers", "{tmp}/work"),
        ("representative selection names no program", "--ledgers"),
        setup=_empty_ledgers,
    ),
    Row(
        "merge-not-a-shard",
        ("merge", "{tmp}/nosuch", "--out", "{tmp}/merged"),
        ("nosuch", "no such file or directory"),
    ),
    Row(
        "changepoints-repo-not-git",
        ("changepoints", "{tmp}/plain", "--repo", "{tmp}/plain"),
        ("--repo", "plain: not a git repository"),
        setup=_not_a_checkout,
    ),
    Row(
        "history-publish-repo-not-git",
        (
            "history",
            "publish",
            "--store",
            "{tmp}/plain",
            "--out",
            "{tmp}/site",
            "--repo",
            "{tmp}/plain",
        ),
        ("--repo", "plain: not a git repository"),
        setup=_not_a_checkout,
    ),
    Row(
        "history-missing-store",
        ("history", "list", "--store", "{tmp}/nosuch"),
        ("--store", "not a history store"),
    ),
    Row(
        "history-backfill-unknown-ref",
        (
            "history",
            "backfill",
            "--repo",
            str(REPO),
            "--from",
            "v0.0.0-nosuch",
            "--to",
            "HEAD",
            "--out",
            "{tmp}/backfill",
        ),
        ("'v0.0.0-nosuch' is no commit of", "fetch it"),
    ),
    Row(
        "history-backfill-programs-of-no-case",
        (
            "history",
            "backfill",
            "--repo",
            str(REPO),
            "--from",
            "HEAD",
            "--to",
            "HEAD",
            "--out",
            "{tmp}/backfill",
            "--programs",
            "compute_tangentail_wind",
        ),
        ("--programs 'compute_tangentail_wind' matches none", "compute_tangential_wind"),
    ),
    # rebuild-check
    Row(
        "rebuild-check-unknown-program",
        ("rebuild-check", "nosuch_program", "--backends", "embedded"),
        ("unknown program 'nosuch_program'",),
    ),
    Row(
        "rebuild-check-unknown-grid",
        ("rebuild-check", "compute_tangential_wind", "--backends", "embedded", "--grid", "g"),
        ("unknown grid preset 'g'",),
    ),
    # compare
    Row(
        "compare-gate-summary-as-a-side",
        ("compare", str(GATE_SUMMARY), f"{H100}@0e8595e4"),
        ("summary-h100-7212540-fd920c0.json: this is a gate summary", "not a result set"),
    ),
    Row(
        "compare-directory-of-gate-summaries",
        ("compare", f"{H100}@0e8595e4", "{tmp}/gates"),
        ("gate-summary.json: this is a gate summary", "not a result set"),
        setup=lambda tmp: _copy(GATE_SUMMARY, tmp / "gates" / "gate-summary.json"),
    ),
    Row(
        "compare-out-in-proc",
        (
            "compare",
            f"{H100}@0e8595e4",
            f"{H100}@fd920c0f",
            "--out",
            "/proc/iconbench/summary.json",
        ),
        ("--out /proc/iconbench/summary.json: /proc is not writable",),
    ),
    Row(
        "compare-out-under-a-file",
        ("compare", "{results}", "{results}", "--out", "/etc/passwd/summary.json"),
        ("/etc/passwd is not a directory",),
    ),
    # confirm
    Row(
        "confirm-without-out",
        ("confirm", str(GATE_SUMMARY)),
        ("confirm: give --out",),
    ),
    Row(
        "confirm-flagged-without-stacks",
        ("confirm", str(GATE_SUMMARY), "--out", "{tmp}/confirmed.json"),
        (
            "summary-h100-7212540-fd920c0.json: 111 flagged benchmarks to measure again",
            "give --base-stack, --head-stack, --checkouts",
        ),
    ),
    Row(
        "confirm-stack-not-a-stack",
        CONFIRM_WITH_STACKS,
        ("summary-h100-7212540-fd920c0.json: no 'commits' table",),
    ),
    Row(
        "confirm-on-their-gpus-without-a-ledger",
        (
            *CONFIRM_WITH_STACKS,
            "--on-their-gpus",
            "{tmp}",
            "{tmp}",
        ),
        ("no work/session.jsonl", "give the directories of the two runs that were compared"),
    ),
    Row(
        "confirm-out-exists",
        ("confirm", str(GATE_SUMMARY), "--out", str(GATE_SUMMARY)),
        ("exists; summaries are kept",),
    ),
    # results (the archived raw files of committed runs)
    Row(
        "results-fetch-unknown-path",
        ("results", "fetch", "results/h100/nosuch", "--repo", str(REPO)),
        ("results/h100/nosuch: no archived file is or lies under it", "iconbench results list"),
    ),
    Row(
        "results-fetch-over-a-differing-file",
        (
            "results",
            "fetch",
            "results/h100/work/phases.jsonl",
            "--repo",
            str(REPO),
            "--out",
            "{tmp}",
        ),
        ("results/h100/work/phases.jsonl: differs from the archived file", "move it away"),
        setup=lambda tmp: _write(tmp / "results" / "h100" / "work" / "phases.jsonl", "{}\n"),
    ),
    Row(
        "results-archive-nothing",
        ("results", "archive", "--repo", str(REPO)),
        ("results archive: name the files or directories to archive",),
    ),
    Row(
        "results-list-out",
        ("results", "list", "--repo", str(REPO), "--out", "{tmp}/x"),
        ("results list does not use --out", "results fetch"),
    ),
    Row(
        "results-not-a-repository",
        ("results", "list", "--repo", "{tmp}"),
        ("not a git repository",),
    ),
]


def _binary_file_only(tmp: pathlib.Path) -> None:
    (tmp / "dump.json").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(range(200)))


def _place(text: str, tmp: pathlib.Path) -> str:
    return text.format(tmp=tmp, store=tmp / "store", results=tmp / "results")


def _snapshot(*roots: pathlib.Path) -> dict[str, tuple[int, int, int]]:
    """Every file and directory under ``roots``: mode, size and modification time (ns).

    A write, an append, a new or removed file or a changed mode all show; hashing the
    repository's results (megabytes) for every row would cost more than the row. Walked with
    ``os.scandir``: the stores hold some 20 000 files, which ``Path.rglob`` took 0.24 s of CPU
    to stat against 0.11 s.
    """
    seen = {}
    folders = []
    for root in map(os.fspath, roots):
        if os.path.lexists(root):
            stat = os.lstat(root)
            seen[root] = (stat.st_mode, stat.st_size, stat.st_mtime_ns)
            folders.append(root)
    while folders:
        with os.scandir(folders.pop()) as entries:
            for entry in entries:
                stat = entry.stat(follow_symlinks=False)
                seen[entry.path] = (stat.st_mode, stat.st_size, stat.st_mtime_ns)
                if entry.is_dir(follow_symlinks=False):
                    folders.append(entry.path)
    return seen


#: The stores every row watches, as they are before the first row: a row that changes them
#: fails, so the next row's "before" is this one (one walk of them a row, not two).
STORES = (H100, *(REPO / d for d in REPO_STORES))


@pytest.fixture(scope="module")
def stores_before() -> dict[str, tuple[int, int, int]]:
    return _snapshot(*STORES)


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_bad_input_is_one_line_exit_2_and_writes_nothing(
    row, tmp_path, monkeypatch, capsys, stores_before
):
    cache = tmp_path / "cache"
    monkeypatch.setenv("ICONBENCH_CACHE_DIR", str(cache))
    monkeypatch.setenv("ICONBENCH_BASELINES", str(tmp_path / "store"))
    for name, value in row.env:
        monkeypatch.setenv(name, _place(value, tmp_path)) if value else monkeypatch.delenv(
            name, raising=False
        )
    if row.setup:
        row.setup(tmp_path)
    capsys.readouterr()
    before = _snapshot(tmp_path) | stores_before
    gt4py_loaded = "gt4py" in sys.modules
    start = time.perf_counter()
    try:
        status = cli.main([_place(a, tmp_path) for a in row.argv])
    except SystemExit as exit_:
        status = exit_.code
    elapsed = time.perf_counter() - start
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert status not in (0, None), f"exit {status}; stderr: {err}"
    assert status == 2, f"bad input exits 2, got {status}"
    assert "Traceback" not in err + out
    errors = [line for line in lines if not line.startswith("iconbench: note:")]
    assert len(errors) == 1, f"expected one error line, got {lines}"
    assert errors[0].startswith("iconbench: error: ")
    for name in row.names:
        assert name in errors[0], f"{name!r} not named in: {errors[0]}"
    for name in row.stdout:
        assert name in out
    assert _snapshot(tmp_path, *STORES) == before, "bad input changed files on disk"
    if not gt4py_loaded:
        assert "gt4py" not in sys.modules, "gt4py was imported before the input was checked"
    # Generous for a loaded CI runner; what matters is that no work (gt4py import, compile,
    # environment build) started, asserted above.
    assert elapsed < 30, f"{elapsed:.1f} s to reject bad input"


def test_good_entries_of_a_store_with_a_bad_file_are_listed(tmp_path, capsys):
    """The baseline-list row's other half: only the bad file is missing from the listing."""
    _store_with_bad_file(tmp_path)
    assert cli.main(["baseline", "list", "--store", str(tmp_path / "store")]) == 2
    out, err = capsys.readouterr()
    assert BASELINE in out.split()
    assert "broken_a100_2024-06.json" in err
    assert BASELINE not in err


def test_an_imported_baseline_is_readable_by_everyone_and_refused_twice(tmp_path, capsys):
    _store_with_imported_log(tmp_path)
    stored = sorted((tmp_path / "store" / "mch-r04b09").glob("balfrin_*.json"))
    assert [p.name for p in stored] == ["balfrin_a100_2024-05-29.json"]
    assert stored[0].stat().st_mode & 0o777 == 0o644


def test_a_typo_in_programs_stops_the_suite_in_seconds(tmp_path):
    """The issue's command: a mistyped regex once measured nothing for 16 s and exited 0.

    A real process (the console entry, with its restart under PYTHONOPTIMIZE), not a call.
    """
    out = tmp_path / "out"
    argv = ["suite", "all", "--backends", "embedded", "--grid", "tiny",
            "--programs", "compute_tangentail_wind", "--out", str(out)]  # fmt: skip
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "iconbench", *argv], capture_output=True, text=True, check=False
    )
    elapsed = time.perf_counter() - start
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        "iconbench: error: argument --programs: --programs 'compute_tangentail_wind' matches "
        "none of the 192 cases; nearest program names: compute_tangential_wind; 'iconbench "
        "programs' lists them; see 'iconbench suite --help'"
    ]
    assert not out.exists(), "a refused selection wrote its output directory"
    assert elapsed < 10, f"{elapsed:.1f} s to refuse a typo"


def test_a_docs_only_change_selects_nothing_and_says_so(capsys):
    """select's legitimate empty selection stays exit 0 (the check has nothing to measure)."""
    changed = ["model/atmosphere/dycore/docs/index.md", "README.md"]
    assert cli.main(["select", "--component", "icon4py", "--changed", *changed]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == [
        "none: no icon4py source module changed (tests, docs, CI); nothing to measure"
    ]
    assert cli.main(["select", "--component", "icon4py", "--changed", *changed, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["scope"] == "none"


def test_the_suite_refuses_a_selection_of_no_case_without_a_case_index(monkeypatch):
    """An icon4py checkout has no case index: the catalog's case ids are checked instead."""
    from iconbench import suite
    from iconbench.errors import IconbenchError
    from iconbench.programs import caseindex

    discovered = tuple(caseindex.case_ids() or ())
    assert len(discovered) == 192
    monkeypatch.setattr(suite, "all_case_ids", lambda: discovered)
    monkeypatch.setenv("ICONBENCH_PROGRAMS", "apply_difusion_to_vn")
    with pytest.raises(IconbenchError) as refused:
        suite.case_ids()
    assert str(refused.value) == (
        "ICONBENCH_PROGRAMS 'apply_difusion_to_vn' matches none of the 192 cases; nearest "
        "program names: apply_diffusion_to_vn, apply_diffusion_to_theta_and_exner; "
        "'iconbench programs' lists them"
    )
    assert suite.case_ids("^apply_diffusion_to_vn$") == [
        "apply_diffusion_to_vn[limited_area=False]",
        "apply_diffusion_to_vn[limited_area=True]",
    ]

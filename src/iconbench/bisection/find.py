"""``asv find`` between a good and a bad commit, read back into a :class:`Record`.

asv measures the benchmark at the middle of the range and descends into the half with the
larger change (``asv/commands/find.py``), about ``log2(commits)`` runs in all, each saved to
the results directory. It prints the commit at the top of the greatest step; this module
resolves it, reads the saved values of that commit and of its parent and returns them with
the ratio, so that a reader can see the step, not only a name.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import pathlib
import re
import subprocess
import sys
from typing import Any

from iconbench.errors import IconbenchError
from iconbench.records.summary import BisectStep
from iconbench.stacks import asvconf

_FOUND = re.compile(r"Greatest (regression|improvement) found: ([0-9a-f]{6,40})")


@dataclasses.dataclass(frozen=True)
class Record:
    """The first bad commit of one benchmark in one repository (the ``bisect`` entry)."""

    component: str
    repository: str
    benchmark: str
    good: str
    bad: str
    first_bad: str
    parent: str
    subject: str
    url: str
    ratio: float | None
    before: float | None
    after: float | None
    commits: int
    method: str = "asv find"
    #: an interleaved bisection's A/Bs (:mod:`iconbench.bisection.interleaved`), in order
    steps: tuple[BisectStep, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def git(repo: pathlib.Path, *args: str) -> str:
    """``git -C repo ARGS``'s output; one line naming the command when it fails."""
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                          check=False, timeout=120)  # fmt: skip
    if done.returncode != 0:
        raise IconbenchError(
            f"{repo}: git {' '.join(args)} failed ({done.stderr.strip()[-200:]}); fetch the "
            "commits of the range first"
        )
    return done.stdout.strip()


def first_parents(repo: pathlib.Path, good: str, bad: str) -> tuple[str, str, list[str]]:
    """``good``, ``bad`` and the first-parent commits of ``good..bad`` (``bad`` last).

    The commits oldest first; one line when there are none.
    """
    good_sha = git(repo, "rev-parse", "--verify", f"{good}^{{commit}}")
    bad_sha = git(repo, "rev-parse", "--verify", f"{bad}^{{commit}}")
    commits = git(repo, "rev-list", "--first-parent", "--reverse", f"{good_sha}..{bad_sha}")
    if not commits:
        raise IconbenchError(f"no commits between {good} and {bad} in {repo}: nothing to bisect")
    return good_sha, bad_sha, commits.split()


def checkout_config(
    component: str | None,
    repo: pathlib.Path,
    asv_root: pathlib.Path,
    benchmark_dir: pathlib.Path | None = None,
) -> pathlib.Path:
    """An asv config that bisects ``repo`` in this Python's stack (``iconbench-checkout``)."""
    return asvconf.write_for_checkout(
        component, repo, asv_root, benchmark_dir, environment="checkout"
    )


def _expand(key: str, params: list[list[str]]) -> list[str]:
    if not params:
        return [key]
    return [f"{key}({', '.join(combo)})" for combo in itertools.product(*params)]


def load_results(results_dir: pathlib.Path, machine: str, commit: str) -> dict[str, float | None]:
    """Benchmark name (with its parameters) -> value of every saved result of ``commit``."""
    from asv import results as asv_results

    found: dict[str, float | None] = {}
    for path in sorted((results_dir / machine).glob(f"{commit[:8]}-*.json")):
        result = asv_results.Results.load(str(path), machine_name=machine)
        for key in result.get_all_result_keys():
            values = result._results[key] or [None]
            names = _expand(key, result.get_result_params(key))
            found.update(zip(names, values, strict=False))
    return found


def machine_name(asv_command: list[str], config: pathlib.Path) -> str:
    """The asv machine name, creating ``~/.asv-machine.json`` with defaults on first use."""
    from asv.machine import MachineCollection

    path = pathlib.Path(MachineCollection.get_machine_file_path())
    if not path.exists():
        subprocess.run(
            [*asv_command, "machine", "--yes", "--config", str(config)],
            check=True,
            capture_output=True,
        )
    data = json.loads(path.read_text())
    names = [k for k in data if k != "version"]
    if not names:
        raise IconbenchError(f"{path} names no machine; run 'asv machine --yes'")
    return names[0]


def _values(results_dir: pathlib.Path, machine: str, commit: str, bench: str) -> list[float]:
    pattern = re.compile(bench)
    return [
        value
        for name, value in load_results(results_dir, machine, commit).items()
        if pattern.search(name) and isinstance(value, float) and not math.isnan(value)
    ]


def find(
    *,
    repo: pathlib.Path,
    good: str,
    bad: str,
    bench: str,
    config: pathlib.Path,
    component: str,
    repository: str = "",
    env: dict[str, str] | None = None,
    echo: bool = False,
) -> Record:
    """Bisect ``good..bad`` of ``repo`` on the one asv benchmark ``bench`` (a regex)."""
    good_sha, bad_sha, commits = first_parents(repo, good, bad)
    conf = json.loads(config.read_text())
    results_dir = (config.parent / conf["results_dir"]).resolve()
    asv = [sys.executable, "-m", "asv"]
    machine = machine_name(asv, config)
    # asv's range a..b excludes a: include good so the search compares against it (a root
    # commit has no parent: then the range is all of bad's history, which starts at good)
    parent_of_good = ["git", "-C", str(repo), "rev-parse", "-q", "--verify", f"{good_sha}^"]
    has_parent = subprocess.run(parent_of_good, capture_output=True, check=False).returncode == 0
    span = f"{good_sha}^..{bad_sha}" if has_parent else bad_sha
    command = [*asv, "find", "--config", str(config), "--machine", machine, span, bench]
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    output = done.stdout + done.stderr
    if echo:
        print(output, flush=True)
    found = _FOUND.search(output)
    if done.returncode != 0 or not found:
        tail = " | ".join(output.strip().splitlines()[-3:])
        raise IconbenchError(f"asv find {good}..{bad} on {bench!r} found nothing: {tail}")
    first_bad = git(repo, "rev-parse", found.group(2))
    parent = git(repo, "rev-parse", f"{first_bad}^") if first_bad != good_sha else first_bad
    before = _values(results_dir, machine, parent, bench)
    after = _values(results_dir, machine, first_bad, bench)
    ratio = max((a / b for a, b in zip(after, before, strict=False) if b), default=None)
    url = conf.get("show_commit_url", "#")
    return Record(
        component=component,
        repository=repository,
        benchmark=bench,
        good=good_sha,
        bad=bad_sha,
        first_bad=first_bad,
        parent=parent,
        subject=git(repo, "log", "-1", "--format=%s", first_bad),
        url="" if url == "#" else f"{url}{first_bad}",
        ratio=ratio,
        before=min(before) if before else None,
        after=max(after) if after else None,
        commits=len(commits),
    )

"""``asv continuous`` for one repository under test, read back into a verdict per benchmark.

asv builds one environment per commit (the other components pinned), runs the suite and
prints its comparison; this module drives it with a config generated for the checkout,
then reads the result files itself so that a failed benchmark is reported as ``failed``
(never as missing, never as a fast time) and the provenance of both runs is kept.

The suite takes its selection from the variables of :data:`SUITE_VARIABLES` (asv has no
other way to pass options to a suite): they are set for asv's process only, from the command
line. In each environment the suite's ``setup_cache`` compiles the selection in parallel with
the runner's precompile driver before asv times anything (:mod:`benchmarks.programs`); the
granule suite is defined only when ``ICONBENCH_GRANULES=1`` is set.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import os
import pathlib
import subprocess
import sys
import tomllib
from typing import Any

from iconbench.errors import IconbenchError
from iconbench.stacks import asvconf, provenance, resolve, stored
from iconbench.stacks.spec import COMPONENTS
from iconbench.stacks.uvtool import uv_executable

#: The environment variables by which the suite (:mod:`iconbench.suite`) takes options.
SUITE_VARIABLES = {
    "backend": "ICONBENCH_BACKENDS",
    "grid": "ICONBENCH_GRID",
    "programs": "ICONBENCH_PROGRAMS",
    "shard": "ICONBENCH_SHARD",
}

#: Verdicts that make ``iconbench continuous`` exit non-zero.
BAD_VERDICTS = frozenset({"regressed", "failed"})


def detect_component(repo: pathlib.Path, ref: str | None = None) -> str | None:
    """Which component a checkout is, from ``pyproject.toml`` at ``ref`` (default: the tree).

    Reading it at the base ref means a branch that breaks its own ``pyproject.toml`` is
    still recognised (and then reported as a failed build).
    """
    name = None
    for source in (ref, None) if ref else (None,):
        try:
            if source is None:
                text = (repo / "pyproject.toml").read_text()
            else:
                text = subprocess.run(
                    ["git", "show", f"{source}:pyproject.toml"],
                    cwd=repo, capture_output=True, text=True, check=True, timeout=60,
                ).stdout  # fmt: skip
            name = tomllib.loads(text)["project"]["name"]
            break
        except (OSError, KeyError, tomllib.TOMLDecodeError, subprocess.SubprocessError):
            continue
    if name in COMPONENTS:
        return name
    if name == "iconbench":
        return None
    if name is None:
        raise IconbenchError(
            f"--repo {repo}: not a checkout of gt4py, dace, icon4py or iconbench (no "
            "pyproject.toml with a project name); pass --repo with such a checkout"
        )
    raise IconbenchError(
        f"--repo {repo}: project {name!r} is not gt4py, dace, icon4py or iconbench; pass "
        f"--repo with such a checkout, or --component {'|'.join(COMPONENTS)} if it is one"
    )


@dataclasses.dataclass(frozen=True)
class Change:
    """One benchmark (with its parameters) on the base and the head commit."""

    benchmark: str
    base: float | None
    head: float | None
    verdict: str  # regressed, improved, unchanged, failed, fixed, skipped

    @property
    def ratio(self) -> float | None:
        """Head / base (> 1 is slower), when both ran."""
        if self.base is None or self.head is None or not self.base:
            return None
        return self.head / self.base


@dataclasses.dataclass(frozen=True)
class Report:
    """The comparison of two commits, as iconbench prints and stores it."""

    component: str
    base_commit: str
    head_commit: str
    changes: tuple[Change, ...]

    @property
    def bad(self) -> tuple[Change, ...]:
        return tuple(c for c in self.changes if c.verdict in BAD_VERDICTS)

    def table(self) -> str:
        """A fixed-width table: benchmark, base, head, ratio, verdict."""

        def fmt(value: float | None) -> str:
            return (
                "failed"
                if value is None
                else ("n/a" if math.isnan(value) else f"{value * 1e3:.3f} ms")
            )

        width = max([9, *(len(c.benchmark) for c in self.changes)])
        rows = [f"{'benchmark':<{width}} {'base':>12} {'head':>12} {'ratio':>7}  verdict"]
        for c in self.changes:
            ratio = "" if c.ratio is None else f"{c.ratio:.2f}"
            numbers = f"{fmt(c.base):>12} {fmt(c.head):>12} {ratio:>7}"
            rows.append(f"{c.benchmark:<{width}} {numbers}  {c.verdict}")
        head = f"{self.component}: {self.base_commit[:12]} (base) -> {self.head_commit[:12]} (head)"
        summary = (
            f"{len(self.bad)} of {len(self.changes)} benchmarks regressed or failed"
            if self.bad
            else f"no regression in {len(self.changes)} benchmarks"
        )
        return "\n".join([head, *rows, summary])

    def as_dict(self) -> dict[str, Any]:
        return {
            "component": self.component,
            "base_commit": self.base_commit,
            "head_commit": self.head_commit,
            "changes": [dataclasses.asdict(c) | {"ratio": c.ratio} for c in self.changes],
        }


def _expand(key: str, params: list[list[str]]) -> list[str]:
    if not params:
        return [key]
    return [f"{key}({', '.join(combo)})" for combo in itertools.product(*params)]


def _load(
    results_dir: pathlib.Path, machine: str, commit: str
) -> dict[str, tuple[float | None, Any]]:
    """Benchmark name -> (value, (stats, samples)) of every environment's result for ``commit``."""
    from asv import results as asv_results

    found: dict[str, tuple[float | None, Any]] = {}
    for path in sorted((results_dir / machine).glob(f"{commit[:8]}-*.json")):
        result = asv_results.Results.load(str(path), machine_name=machine)
        for key in result.get_all_result_keys():
            params = result.get_result_params(key)
            values = result._results[key] or [None]
            stats = result._stats.get(key) or [None] * len(values)
            samples = result._samples.get(key) or [None] * len(values)
            for name, value, st, sa in zip(
                _expand(key, params), values, stats, samples, strict=False
            ):
                found[name] = (value, (st, sa))
    return found


def compare(
    results_dir: pathlib.Path, machine: str, base: str, head: str, *, factor: float, component: str
) -> Report:
    """Compare the stored results of two commits with asv's rule (factor + statistics)."""
    from asv.commands.compare import _is_result_better

    old, new = _load(results_dir, machine, base), _load(results_dir, machine, head)
    if not new:
        raise IconbenchError(
            f"{component}: no results for head {head[:12]} in {results_dir / machine}; "
            "see asv's output above"
        )
    changes = []
    for name in sorted(set(old) | set(new)):
        a, a_ss = old.get(name, (None, None))
        b, b_ss = new.get(name, (None, None))
        if b is None:
            verdict = "failed"
        elif isinstance(b, float) and math.isnan(b):
            verdict = "skipped"
        elif a is None or (isinstance(a, float) and math.isnan(a)):
            verdict = "fixed" if name in old else "new"
        elif _is_result_better(b, a, b_ss, a_ss, factor):
            verdict = "improved"
        elif _is_result_better(a, b, a_ss, b_ss, factor):
            verdict = "regressed"
        else:
            verdict = "unchanged"
        changes.append(Change(name, a, b, verdict))
    return Report(component, base, head, tuple(changes))


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


@dataclasses.dataclass(frozen=True)
class Options:
    """What ``iconbench continuous`` was asked to do."""

    base: str
    head: str
    repo: pathlib.Path
    component: str | None = None  # None: detect from the checkout
    bench: str | None = None
    backend: str | None = None
    grid: str | None = None
    programs: str | None = None
    stack: str | None = None  # a stored stack for the other components (default: the lock)
    existing: bool = False
    quick: bool = False
    factor: float = 1.1
    asv_args: tuple[str, ...] = ()
    asv_root: pathlib.Path = asvconf.ASV_ROOT
    benchmark_dir: pathlib.Path | None = None  # None: this checkout's benchmarks/
    environment: str = "build"  # build: per-commit environments; checkout: sources on the path


def run(options: Options, echo: bool = True) -> Report:
    """Resolve both refs, run asv, compare, store provenance; returns the report."""
    component = options.component or detect_component(options.repo, options.base)
    label = component or "iconbench"
    base = resolve.commit_of(label, str(options.repo), options.base)
    head = resolve.commit_of(label, str(options.repo), options.head)
    pins = stored.pins(options.stack) if options.stack else None
    config = asvconf.write_for_checkout(
        component,
        options.repo,
        options.asv_root,
        options.benchmark_dir,
        pins,
        environment=options.environment,
    )
    asv = [sys.executable, "-m", "asv"]
    machine = machine_name(asv, config)
    common = ["--config", str(config), "--machine", machine, "--show-stderr"]
    if options.bench:
        common += ["--bench", options.bench]
    if options.quick:
        common.append("--quick")
    common += list(options.asv_args)
    env = dict(os.environ, ICONBENCH_UV=uv_executable())
    chosen = {SUITE_VARIABLES["backend"]: options.backend, SUITE_VARIABLES["grid"]: options.grid}
    chosen[SUITE_VARIABLES["programs"]] = options.programs
    env.update({name: value for name, value in chosen.items() if value})
    # what the suite will see (exported values count too): part of every result's provenance
    run_options = {key: env.get(name, "suite default") for key, name in SUITE_VARIABLES.items()}
    if options.existing:
        commands = [
            [
                *asv,
                "run",
                *common,
                "--environment",
                f"existing:{sys.executable}",
                "--set-commit-hash",
                head,
            ]
        ]
        base_results = (options.asv_root / "results" / machine).glob(f"{base[:8]}-existing*.json")
        if base != head and not list(base_results):
            raise IconbenchError(
                f"{label}: no stored results of base {options.base} ({base[:12]}) for the "
                f"current environment; check out {options.base}, install it and run "
                f"'iconbench continuous {options.base} {options.base} --existing' first"
            )
    else:
        commands = [[*asv, "continuous", *common, "--factor", str(options.factor), base, head]]
    for command in commands:
        if echo:
            print("+", " ".join(command[2:]), flush=True)
        subprocess.run(
            command,
            env=env,
            check=False,
            stdout=None if echo else subprocess.DEVNULL,
            stderr=None if echo else subprocess.DEVNULL,
        )
    results_dir = options.asv_root / "results"
    report = compare(results_dir, machine, base, head, factor=options.factor, component=label)
    _store_provenance(options, machine, report, run_options)
    return report


def _store_provenance(
    options: Options, machine: str, report: Report, run_options: dict[str, Any]
) -> None:
    from asv import results as asv_results

    root = options.asv_root / "provenance"
    for commit in dict.fromkeys((report.base_commit, report.head_commit)):
        for path in sorted((options.asv_root / "results" / machine).glob(f"{commit[:8]}-*.json")):
            env_name = asv_results.Results.load(str(path), machine_name=machine).env_name
            if options.existing:
                data = provenance.collect() if commit == report.head_commit else None
            else:
                data = provenance.from_environments(options.asv_root / "env", commit, env_name)
            if data is None:
                continue
            data["options"] = run_options
            data["component_under_test"] = report.component
            if report.component == "iconbench":
                data["iconbench_commit"] = commit
            else:
                data["components"][report.component]["commit"] = commit
            provenance.store(root, machine, commit, env_name, data)

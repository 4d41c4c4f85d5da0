r"""The gate's configuration: thresholds per metric, per-benchmark overrides (``gate.toml``).

```toml
fdr = 0.05          # false discovery rate over all gated benchmarks of one comparison
confidence = 0.95   # level of the ratio's confidence interval
max_machine_shift = 0.05  # larger common shift of unchanged code: run not comparable

[thresholds]        # relative change that must be caught, per metric
device_time = 0.05
host_overhead = 0.10
compile_time = 0.25 # reported with its ratio, never gated (see `gated`)

[gated]
compile_time = false

[history_only]      # between two separate runs (one process a side), judged only against the
host_overhead = true  # benchmark's run-to-run noise band from --history (docs/gate.md):
device_time = "cpu"   # true (every device), false, "cpu", "gpu" or a list of them

[[override]]        # first match wins; `match` is a regex searched in case|backend|metric
match = 'apply_rayleigh_damping_mechanism.*\\|gtfn_gpu\\|device_time'
threshold = 0.15
reason = "bimodal event timer on a 40 us kernel"

[[override]]
match = '\\|host_overhead$'
gated = false
```

>>> c = GateConfig.default()
>>> c.rule("a[default]|gtfn_gpu|device_time"), c.rule("a[default]|gtfn_gpu|compile_time")
((0.05, True, ''), (0.25, False, ''))
>>> c.needs_history("device_time", "gtfn_cpu"), c.needs_history("device_time", "dace_gpu")
(True, False)
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
import re
import tomllib
from typing import Any

from iconbench.errors import IconbenchError
from iconbench.records.summary import Settings

DEFAULT_THRESHOLDS = {"device_time": 0.05, "host_overhead": 0.10, "compile_time": 0.25}
DEFAULT_GATED = {"device_time": True, "host_overhead": True, "compile_time": False}
#: Per metric, the devices whose processes of unchanged code move it beyond its threshold:
#: host overhead everywhere (10-25 % between fresh processes on an H100, 0.4-3.5x between
#: separate runs), device time on a CPU (three separate runs of the same code on a 2-core
#: workstation: 0.0006-1.26x, results/cpu-separate-runs-2026-11-28; on a GPU ±1 % between
#: nights). Between two separate runs such a
#: metric is gated only against the benchmark's own run-to-run band from the history, never
#: against one process's samples; a machine shift of theirs is reported and corrected for,
#: and never makes a run not comparable.
DEFAULT_HISTORY_ONLY: dict[str, frozenset[str]] = {
    "device_time": frozenset({"cpu"}),
    "host_overhead": frozenset({"cpu", "gpu"}),
    "compile_time": frozenset(),
}
DEVICES = ("cpu", "gpu")
#: The environment variable naming a project's ``gate.toml`` for every road.
CONFIG_VARIABLE = "ICONBENCH_GATE_CONFIG"


@dataclasses.dataclass(frozen=True)
class Override:
    """A per-benchmark rule: ``match`` (regex on ``case|backend|metric``), new threshold/gating."""

    match: str
    threshold: float | None = None
    gated: bool | None = None
    reason: str = ""


@dataclasses.dataclass(frozen=True)
class GateConfig:
    """Everything that decides a verdict besides the samples."""

    fdr: float = 0.05
    confidence: float = 0.95
    thresholds: dict[str, float] = dataclasses.field(default_factory=lambda: DEFAULT_THRESHOLDS)
    gated: dict[str, bool] = dataclasses.field(default_factory=lambda: DEFAULT_GATED)
    overrides: tuple[Override, ...] = ()
    #: The largest common shift of the benchmarks whose code did not change that the gate
    #: corrects for (:mod:`iconbench.gate.shift`); beyond it the run is not comparable.
    max_machine_shift: float = 0.05
    #: Per metric, the devices on which it is judged between separate runs only against the
    #: history's noise band (:meth:`needs_history`).
    history_only: dict[str, frozenset[str]] = dataclasses.field(
        default_factory=lambda: DEFAULT_HISTORY_ONLY
    )

    @classmethod
    def default(cls) -> GateConfig:
        """The project's ``gate.toml`` (``$ICONBENCH_GATE_CONFIG``), else the defaults.

        The defaults: device time 5 %, host overhead 10 %, compile time reported. Every road
        reads the file (the check, ``continuous``, ``compare``, ``confirm``, ``bisect``, the
        nightly), so one configuration gives one verdict everywhere.
        """
        path = os.environ.get(CONFIG_VARIABLE, "").strip()
        if not path:
            return cls()
        if not pathlib.Path(path).is_file():
            raise IconbenchError(
                f"${CONFIG_VARIABLE}={path}: no such file; name the project's gate.toml "
                f"or unset {CONFIG_VARIABLE} for the defaults"
            )
        return cls.load(path)

    @classmethod
    def load(cls, path: str | pathlib.Path) -> GateConfig:
        """Read a ``gate.toml``; a bad key or value raises one line naming it."""
        path = pathlib.Path(path)
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except OSError as error:
            raise IconbenchError(f"{path}: cannot read the gate configuration ({error})") from None
        except tomllib.TOMLDecodeError as error:
            raise IconbenchError(f"{path}: not valid TOML ({error})") from None
        return cls.from_dict(data, origin=str(path))

    @classmethod
    def from_dict(cls, data: dict[str, Any], origin: str = "gate configuration") -> GateConfig:
        """Validate and build (unknown keys are errors: a typo must not silently do nothing).

        >>> GateConfig.from_dict({"thresholds": {"device_tme": 0.1}})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        iconbench.errors.IconbenchError: gate configuration: unknown metric 'device_tme' ...
        """
        known = {"fdr", "confidence", "thresholds", "gated", "override", "max_machine_shift",
                 "history_only"}  # fmt: skip
        if unknown := sorted(set(data) - known):
            raise IconbenchError(f"{origin}: unknown key(s) {unknown}; known: {sorted(known)}")
        thresholds = dict(DEFAULT_THRESHOLDS)
        gated = dict(DEFAULT_GATED)
        history_only = dict(DEFAULT_HISTORY_ONLY)
        for table, target, kind in (("thresholds", thresholds, float), ("gated", gated, bool),
                                    ("history_only", history_only, frozenset)):  # fmt: skip
            for metric, value in data.get(table, {}).items():
                if metric not in DEFAULT_THRESHOLDS:
                    raise IconbenchError(
                        f"{origin}: unknown metric {metric!r} in [{table}]; known: "
                        + ", ".join(sorted(DEFAULT_THRESHOLDS))
                    )
                target[metric] = _checked(origin, f"{table}.{metric}", value, kind)
        overrides = []
        for number, item in enumerate(data.get("override", []), 1):
            where = f"override #{number}"
            if not isinstance(item, dict) or "match" not in item:
                raise IconbenchError(f"{origin}: {where} needs a 'match' regex")
            if extra := sorted(set(item) - {"match", "threshold", "gated", "reason"}):
                raise IconbenchError(f"{origin}: {where}: unknown key(s) {extra}")
            try:
                re.compile(item["match"])
            except re.error as error:
                raise IconbenchError(f"{origin}: {where}: bad regex ({error})") from None
            overrides.append(
                Override(
                    match=item["match"],
                    threshold=_checked(origin, where, item["threshold"], float)
                    if "threshold" in item
                    else None,
                    gated=_checked(origin, where, item["gated"], bool) if "gated" in item else None,
                    reason=str(item.get("reason", "")),
                )
            )
        fdr = _checked(origin, "fdr", data.get("fdr", 0.05), float)
        confidence = _checked(origin, "confidence", data.get("confidence", 0.95), float)
        if not (0 < fdr < 1 and 0 < confidence < 1):
            raise IconbenchError(f"{origin}: fdr and confidence must lie between 0 and 1")
        shift = _checked(origin, "max_machine_shift", data.get("max_machine_shift", 0.05), float)
        return cls(fdr, confidence, thresholds, gated, tuple(overrides), shift, history_only)

    def settings(self) -> Settings:
        """What a summary records of this configuration: FDR, confidence, gated thresholds."""
        gated = {m: t for m, t in self.thresholds.items() if self.gated.get(m)}
        return Settings(self.fdr, self.confidence, gated)

    def needs_history(self, metric: str, backend: str) -> bool:
        """Whether ``metric`` on ``backend``'s device needs a history between separate runs.

        There its processes of unchanged code scatter beyond its threshold, so it is judged
        only against the history's band.
        """
        from iconbench.programs.backends import on_gpu

        return ("gpu" if on_gpu(backend) else "cpu") in self.history_only.get(metric, ())

    def rule(self, benchmark_id: str) -> tuple[float, bool, str]:
        """(threshold, gated, reason of an override) for ``case|backend|metric``."""
        metric = benchmark_id.rsplit("|", 1)[-1]
        threshold = self.thresholds.get(metric, 0.05)
        gated = self.gated.get(metric, False)
        for override in self.overrides:
            if re.search(override.match, benchmark_id):
                if override.threshold is not None:
                    threshold = override.threshold
                if override.gated is not None:
                    gated = override.gated
                return threshold, gated, override.reason or f"override {override.match!r}"
        return threshold, gated, ""


def _checked(origin: str, where: str, value: Any, kind: type) -> Any:
    if kind is frozenset:  # history_only: true | false | "cpu" | "gpu" | a list of them
        if isinstance(value, bool):
            return frozenset(DEVICES) if value else frozenset()
        named = [value] if isinstance(value, str) else value
        if isinstance(named, list) and named and all(v in DEVICES for v in named):
            return frozenset(named)
        raise IconbenchError(
            f'{origin}: {where} must be true, false, "cpu", "gpu" or a list of them, got {value!r}'
        )
    if kind is float and isinstance(value, int | float) and not isinstance(value, bool):
        if value <= 0:
            raise IconbenchError(f"{origin}: {where} must be > 0, got {value}")
        return float(value)
    if kind is bool and isinstance(value, bool):
        return value
    raise IconbenchError(f"{origin}: {where} must be a {kind.__name__}, got {value!r}")

"""The versioned OpenACC baseline format: one JSON file per experiment x machine x date.

A baseline is what ICON's own timers measured for the production Fortran+OpenACC build:
per timer its number of calls and the per-call minimum, average and maximum time, plus the
total. Every time is stored in **seconds** (ICON prints ``0.00176s`` or ``03m08s``; bencher
JSON stores milliseconds): importers convert, so nothing downstream guesses units.

The file is validated on load; a broken file raises :class:`IconbenchError` naming the file,
the JSON key (``timers[3].t_avg_s``) and what is wrong, so that a hand-edited baseline can be
fixed without reading code.

>>> t = Timer(name="nh_hdiff_run", calls=6, t_min_s=0.00176, t_avg_s=0.00178, t_max_s=0.00183,
...           total_s=0.011)
>>> round(t.time_s, 5)  # calls x t_avg: the time the estimate weighs this timer with
0.01068
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import re
from pathlib import Path
from typing import Any

from iconbench.files import decode
from iconbench.files.fields import Fields

#: Written into every file; bump when a field changes meaning, and teach :func:`from_dict`
#: to read the old version.
SCHEMA = "iconbench.baseline"
SCHEMA_VERSION = 1

#: Relative slack when checking ``t_min <= t_avg <= t_max``: ICON prints 3 significant
#: digits, so a rounded average may exceed a rounded maximum by one unit in the last place.
ROUNDING_SLACK = 0.01

_DATE = re.compile(r"^\d{4}-\d{2}(-\d{2})?$")


@dataclasses.dataclass(frozen=True)
class Timer:
    """One row of ICON's timer report, times in seconds per call (``total_s`` for all calls)."""

    name: str
    calls: int
    t_min_s: float
    t_avg_s: float
    t_max_s: float
    total_s: float

    @property
    def time_s(self) -> float:
        """``calls x t_avg``: the timer's share of the run, unaffected by ``total`` rounding."""
        return self.calls * self.t_avg_s


@dataclasses.dataclass(frozen=True)
class Experiment:
    """What ICON ran: the experiment (``MCH-R04B09``) and its grid (``R04B09``)."""

    name: str
    grid: str
    description: str = ""


@dataclasses.dataclass(frozen=True)
class Machine:
    """Where it ran: the cluster/machine (``balfrin``) and the GPU (``A100``)."""

    name: str
    gpu: str


@dataclasses.dataclass(frozen=True)
class IconBuild:
    """Which ICON: the commit (``None`` when the source does not say) and the build flavour."""

    commit: str | None
    build: str


@dataclasses.dataclass(frozen=True)
class Source:
    """Where the numbers came from: importer kind, original file name, its sha256, a note."""

    kind: str
    file: str
    sha256: str
    note: str = ""


@dataclasses.dataclass(frozen=True)
class Baseline:
    """One OpenACC measurement: provenance plus the timers (in file order)."""

    experiment: Experiment
    machine: Machine
    icon: IconBuild
    date: str
    timesteps: int
    source: Source
    timers: tuple[Timer, ...]

    @property
    def name(self) -> str:
        """The store name ``<experiment>/<machine>_<gpu>_<date>``, lower-case slugs."""
        return (
            f"{slug(self.experiment.name)}/"
            f"{slug(self.machine.name)}_{slug(self.machine.gpu)}_{self.date}"
        )

    def timer(self, name: str) -> Timer | None:
        """The timer called ``name``, or ``None``."""
        return next((t for t in self.timers if t.name == name), None)

    def as_dict(self) -> dict[str, Any]:
        """The JSON document (schema and version first)."""
        fields = dataclasses.asdict(self)
        fields["timers"] = list(fields["timers"])
        return {"schema": SCHEMA, "version": SCHEMA_VERSION, **fields}

    def to_json(self) -> str:
        """Pretty JSON, one key per line, so diffs of stored baselines stay readable."""
        return json.dumps(self.as_dict(), indent=2) + "\n"


def slug(text: str) -> str:
    """Lower-case, file-name-safe form of ``text``.

    >>> slug("MCH ICON-CH1 medium")
    'mch-icon-ch1-medium'
    """
    return re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-") or "unknown"


#: What to do about a broken baseline file (ends every error line about one).
HINT = "fix the baseline file (see docs/baselines.md for the format)"


def _Reader(origin: str, data: Any, key: str = "") -> Fields:  # noqa: N802 (was a class)
    """Typed access to a baseline object: errors read ``file: key 'a.b': problem; HINT``."""
    return Fields(origin, data, key, hint=HINT)


def _timer(reader: Fields) -> Timer:
    calls = reader.get("calls", int)
    if calls < 1:
        reader.fail(f"must be >= 1, got {calls}", f"{reader.key}.calls")
    t_min, t_avg, t_max = (
        reader.seconds("t_min_s"),
        reader.seconds("t_avg_s"),
        reader.seconds("t_max_s"),
    )
    if not (t_min <= t_avg * (1 + ROUNDING_SLACK) and t_avg <= t_max * (1 + ROUNDING_SLACK)):
        reader.fail(f"needs t_min_s <= t_avg_s <= t_max_s, got {t_min} / {t_avg} / {t_max}")
    return Timer(
        name=reader.text("name"),
        calls=calls,
        t_min_s=t_min,
        t_avg_s=t_avg,
        t_max_s=t_max,
        total_s=reader.seconds("total_s"),
    )


def from_dict(data: Any, origin: str = "<baseline>") -> Baseline:
    """Validate a parsed JSON document and build the :class:`Baseline`.

    ``origin`` (usually the file path) starts every error message.
    """
    top = _Reader(origin, data)
    if top.get("schema", str) != SCHEMA:
        top.fail(f"expected {SCHEMA!r}, got {data['schema']!r}", "schema")
    version = top.get("version", int)
    if version != SCHEMA_VERSION:
        top.fail(
            f"unsupported version {version} (this iconbench reads {SCHEMA_VERSION}); "
            "upgrade iconbench",
            "version",
        )
    date = top.text("date")
    if not _DATE.match(date):
        top.fail(f"expected YYYY-MM-DD or YYYY-MM, got {date!r}", "date")
    if len(date) == 10:
        try:
            datetime.date.fromisoformat(date)
        except ValueError as error:
            top.fail(f"not a calendar date: {error}", "date")
    timesteps = top.get("timesteps", int)
    if timesteps < 1:
        top.fail(f"must be >= 1, got {timesteps}", "timesteps")
    exp, mach, icon, src = (top.child(k) for k in ("experiment", "machine", "icon", "source"))
    raw_timers = top.get("timers", list)
    if not raw_timers:
        top.fail("has no timers", "timers")
    timers = tuple(
        _timer(_Reader(origin, item, f"timers[{i}]")) for i, item in enumerate(raw_timers)
    )
    seen: set[str] = set()
    for i, t in enumerate(timers):
        if t.name in seen:
            top.fail(f"duplicate timer {t.name!r}", f"timers[{i}].name")
        seen.add(t.name)
    return Baseline(
        experiment=Experiment(
            name=exp.text("name"),
            grid=exp.text("grid"),
            description=exp.get("description", str, optional=True) or "",
        ),
        machine=Machine(name=mach.text("name"), gpu=mach.text("gpu")),
        icon=IconBuild(commit=icon.text("commit", optional=True), build=icon.text("build")),
        date=date,
        timesteps=timesteps,
        source=Source(
            kind=src.text("kind"),
            file=src.text("file"),
            sha256=src.text("sha256"),
            note=src.get("note", str, optional=True) or "",
        ),
        timers=timers,
    )


def load(path: Path) -> Baseline:
    """Read and validate one baseline file.

    A missing, binary or truncated file, a wrong schema, wrong types or negative times are
    one line naming the file and the key or line.
    """
    return from_dict(decode.load_json(path, hint=HINT), str(path))

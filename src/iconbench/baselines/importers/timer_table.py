"""Import ICON's timer report as printed at the end of a run log (``mo_timer``'s table).

Two layouts are read, because users paste both:

* the log itself, columns separated by blanks, nested timers prefixed by ``L``::

       name                  # calls   t_min     t_avg     t_max     total min (s)  ...
       L nh_hdiff_run              6   0.00176s  0.00178s  0.00183s        0.011  ...

* the same table as Markdown (``| name | # calls | t_min | ... |``), as in planning documents.

Times look like ``0.00176s``, ``03m08s`` or ``1h02m03s``; totals are plain seconds. Of the
``total ...`` columns the first one is kept (for one rank, min/max/avg over ranks coincide).
Lines that are not table rows (the rest of the log) are skipped, so the whole log can be fed;
a file with several tables (a log of several runs, a document) is imported one table at a time.
"""

from __future__ import annotations

import re

from iconbench.baselines.format import Timer
from iconbench.errors import IconbenchError

_DURATION = re.compile(
    r"^(?:(?P<h>\d+)h)?(?:(?P<m>\d+)m)?(?:(?P<s>\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)s?)?$"
)
_HEADER = re.compile(r"\bname\b.*#\s*calls.*\bt_min\b.*\bt_avg\b.*\bt_max\b", re.IGNORECASE)


def parse_duration(text: str) -> float:
    """Seconds in one of ICON's time cells.

    >>> parse_duration("0.00176s"), parse_duration("03m08s"), parse_duration("1h00m01s")
    (0.00176, 188.0, 3601.0)
    >>> parse_duration("182.069")
    182.069
    """
    match = _DURATION.match(text.strip())
    if not text.strip() or match is None or not any(match.groupdict().values()):
        raise ValueError(f"not an ICON time: {text!r}")
    hours, minutes, seconds = (match[k] for k in ("h", "m", "s"))
    return int(hours or 0) * 3600 + int(minutes or 0) * 60 + float(seconds or 0)


def _cells(line: str) -> list[str] | None:
    """The cells of a Markdown or blank-separated row (name first), or None for no row."""
    stripped = line.strip()
    if stripped.startswith("|"):
        cells = [c.strip() for c in stripped.strip("|").split("|")]
        if all(re.fullmatch(r":?-+:?", c) for c in cells if c):
            return None  # |---|---| separator
        cells[0] = re.sub(r"^L\s+", "", cells[0])
        return cells
    tokens = stripped.split()
    if tokens and tokens[0] == "L":
        tokens = tokens[1:]
    return tokens or None


def tables(text: str, origin: str = "<timer table>") -> list[list[Timer]]:
    """Every timer table of ``text``: rows after a header, up to the first non-row line.

    Raises :class:`IconbenchError` with ``origin: line N`` when a row has the table's shape
    but a cell cannot be read, and when no table is found at all.
    """
    found: list[list[Timer]] = []
    rows: list[Timer] | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if _HEADER.search(line):
            rows = []
            found.append(rows)
            continue
        if rows is None or set(line.strip()) <= set("-=| "):
            if rows and not line.strip():
                rows = None  # a blank line after rows ends the table
            continue
        cells = _cells(line)
        # A row: name, an integer call count, then three times.
        if cells is None or len(cells) < 5 or not cells[1].isdigit():
            if line.lstrip().startswith("|"):
                raise IconbenchError(
                    f"{origin}: line {number}: expected 'name | # calls | t_min | t_avg | "
                    f"t_max | total', got {line.strip()!r}; fix or remove the line"
                )
            if rows:
                rows = None  # the log goes on after the table
            continue
        try:
            t_min, t_avg, t_max = (parse_duration(c) for c in cells[2:5])
            calls = int(cells[1])
            total = parse_duration(cells[5]) if len(cells) > 5 else calls * t_avg
        except ValueError as error:
            raise IconbenchError(
                f"{origin}: line {number}: timer {cells[0]!r}: {error}; "
                "times must look like 0.00176s, 03m08s or 182.069"
            ) from None
        rows.append(
            Timer(
                name=cells[0],
                calls=calls,
                t_min_s=t_min,
                t_avg_s=t_avg,
                t_max_s=t_max,
                total_s=total,
            )
        )
    found = [table for table in found if table]
    if not found:
        raise IconbenchError(
            f"{origin}: no ICON timer table found (need a header 'name  # calls  t_min  t_avg "
            "t_max  total' followed by rows); pass the run log or the pasted table"
        )
    return found


def parse(text: str, origin: str = "<timer table>", table: int = 1) -> list[Timer]:
    r"""The timers of table number ``table`` (1-based) of ``text``.

    >>> log = "name  # calls  t_min  t_avg  t_max  total min (s)\n L nh_hdiff_run 6 0.00176s "\
    ...       "0.00178s 0.00183s 0.011\n"
    >>> parse(log)[0].t_avg_s
    0.00178
    """
    found = tables(text, origin)
    if not 1 <= table <= len(found):
        raise IconbenchError(
            f"{origin}: has {len(found)} timer table(s), no table {table}; pass --table 1.."
            f"{len(found)}"
        )
    return found[table - 1]

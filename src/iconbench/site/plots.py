"""SVG plots made at publish time: no plotting library, no script, nothing to download.

Two kinds are enough for the site's questions: a line chart over commits (one line per
backend, horizontal reference lines such as the OpenACC time or the 1.5x goal, vertical
markers where the generated code changed) and a grouped horizontal bar chart (speed-up per
ICON timer and backend, with the parity and goal lines). Every point carries a ``<title>``
(commit and value), so hovering shows the number; axes carry units.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Sequence

from iconbench.bot.escape import html as escape

#: Colour per backend, stable across pages (colour-blind safe palette, Okabe-Ito).
COLOURS = {
    "gtfn_gpu": "#0072B2",
    "dace_gpu": "#D55E00",
    "gtfn_cpu": "#56B4E9",
    "dace_cpu": "#E69F00",
    "embedded": "#009E73",
}
OTHER_COLOURS = ("#CC79A7", "#F0E442", "#000000", "#999999")
FONT = "font-family='system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif'"


def colour(name: str, index: int = 0) -> str:
    """The colour of a backend (others cycle through a fixed list)."""
    return COLOURS.get(name, OTHER_COLOURS[index % len(OTHER_COLOURS)])


@dataclasses.dataclass(frozen=True)
class Scale:
    """A unit for an axis: values are multiplied by ``factor`` and labelled with ``unit``."""

    factor: float
    unit: str


def time_scale(values: Sequence[float | None]) -> Scale:
    """Seconds shown in the unit that keeps the largest value readable.

    >>> time_scale([2e-4, 5e-4]).unit, time_scale([0.02]).unit, time_scale([31.0]).unit
    ('µs', 'ms', 's')
    """
    top = max((v for v in values if v is not None), default=0.0)
    if top < 1e-3:
        return Scale(1e6, "µs")
    if top < 1.0:
        return Scale(1e3, "ms")
    return Scale(1.0, "s")


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values covering ``[low, high]``.

    >>> nice_ticks(0, 87)
    [0, 20, 40, 60, 80, 100]
    >>> nice_ticks(0, 1.7)
    [0.0, 0.5, 1.0, 1.5, 2.0]
    """
    if high <= low:
        high = low + 1.0
    raw = (high - low) / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    start = math.floor(low / step) * step
    ticks = []
    value = start
    while value < high + step * 0.999:
        ticks.append(round(value, 12))
        value += step
    return ticks


def _number(value: float) -> str:
    """Tick labels without float noise.

    >>> _number(0.30000000000000004), _number(1500.0), _number(2.5)
    ('0.3', '1,500', '2.5')
    """
    if value == int(value):
        return f"{int(value):,}"
    return f"{value:.6g}"


@dataclasses.dataclass(frozen=True)
class Line:
    """One series: a value (or a gap) per commit.

    Points are joined only within a run of values; ``breaks`` holds indices whose point
    must not be joined to the previous one (a change of coverage, stack or clock: not
    comparable, so no slope); ``labels`` a text per point written beside it.
    """

    name: str
    values: tuple[float | None, ...]
    colour: str
    breaks: frozenset[int] = frozenset()
    labels: tuple[str | None, ...] = ()


@dataclasses.dataclass(frozen=True)
class Reference:
    """A horizontal line across the plot (OpenACC time, goal, parity)."""

    label: str
    value: float
    colour: str
    dashed: bool = True


@dataclasses.dataclass(frozen=True)
class Marker:
    """A vertical marker at one commit (e.g. the generated code changed)."""

    index: int
    label: str
    colour: str = "#6a3d9a"
    legend: str = "code changed"


#: Width of a character of a marker's 10 px label (a sans-serif's average, a little over).
MARKER_CHAR_PX = 5.8
#: Longest marker label drawn; the whole label is the marker's tooltip.
MARKER_LABEL_CHARS = 34


def marker_rows(
    markers: Sequence[Marker], positions: Sequence[float], right_edge: float
) -> list[tuple[int, str, str]]:
    """Each marker's label row, text and anchor: no two labels overlap, none leaves the plot.

    A label runs right of its line, or left of it where it would pass the plot's right edge;
    it takes the first row whose labels end before it starts (many markers on a long history:
    one row each would cover the data). Long labels are cut (the tooltip holds them whole).

    >>> ms = [Marker(0, "dace_gpu code a → b"), Marker(1, "gtfn_gpu code c → d")]
    >>> marker_rows(ms, [100.0, 120.0], 600.0)
    [(0, 'dace_gpu code a → b', 'start'), (1, 'gtfn_gpu code c → d', 'start')]
    >>> marker_rows(ms, [100.0, 300.0], 600.0)
    [(0, 'dace_gpu code a → b', 'start'), (0, 'gtfn_gpu code c → d', 'start')]
    >>> marker_rows([Marker(5, "x" * 50)], [590.0], 600.0)
    [(0, 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…', 'end')]
    >>> stack = Marker(5, "stack stack-394d3f12b2278a18 → stack-47d2083f338088be")
    >>> marker_rows([stack], [0.0], 600.0)
    [(0, 'stack stack-394d3f → stack-47d208', 'start')]
    """
    ends: list[float] = []  # per row: where its last label ends
    placed = []
    for marker, position in zip(markers, positions, strict=True):
        shown = re.sub(r"\b(stack-[0-9a-f]{6})[0-9a-f]+", r"\1", marker.label)
        if len(shown) > MARKER_LABEL_CHARS:
            shown = shown[: MARKER_LABEL_CHARS - 1] + "…"
        width = MARKER_CHAR_PX * len(shown) + 6
        anchor = "start" if position + width <= right_edge else "end"
        start = position if anchor == "start" else position - width
        end = start + width
        row = next((r for r, last in enumerate(ends) if last <= start), len(ends))
        if row == len(ends):
            ends.append(end)
        ends[row] = end
        placed.append((row, shown, anchor))
    return placed


def line_chart(
    lines: Sequence[Line],
    commits: Sequence[str],
    *,
    title: str,
    y_label: str,
    scale: Scale | None = None,
    references: Sequence[Reference] = (),
    markers: Sequence[Marker] = (),
    width: int = 760,
    height: int = 280,
    chart_id: str = "",
) -> str:
    """A line chart over commits (x: history order, labelled with short commits)."""
    scale = scale or Scale(1.0, "")
    left, right, top, bottom = 70, 16, 46, 58
    plot_w, plot_h = width - left - right, height - top - bottom
    values = [v * scale.factor for line in lines for v in line.values if v is not None]
    values += [r.value * scale.factor for r in references]
    ticks = nice_ticks(0.0, max(values, default=1.0) * 1.05)
    y_max = ticks[-1]
    n = max(len(commits), 1)

    def x(index: int) -> float:
        return left + (plot_w * (index + 0.5) / n)

    def y(value: float) -> float:
        return top + plot_h - plot_h * value / y_max

    unit = f" [{scale.unit}]" if scale.unit else ""
    parts = [
        *_chart_head(width, height, title, chart_id, title_x=left),
        f"<rect x='{left}' y='{top}' width='{plot_w}' height='{plot_h}' fill='#fff' "
        "stroke='#ccc'/>",
    ]
    for tick in ticks:
        parts.append(
            f"<line x1='{left}' x2='{left + plot_w}' y1='{y(tick):.1f}' y2='{y(tick):.1f}' "
            "stroke='#eee'/>"
            f"<text x='{left - 6}' y='{y(tick) + 4:.1f}' text-anchor='end' fill='#444'>"
            f"{_number(tick)}</text>"
        )
    parts.append(
        f"<text transform='translate(14,{top + plot_h / 2:.0f}) rotate(-90)' "
        f"text-anchor='middle' fill='#222'>{escape(y_label + unit)}</text>"
    )
    step = max(1, math.ceil(n / 16))
    for index, commit in enumerate(commits):
        if index % step and index != n - 1:
            continue
        parts.append(
            f"<text x='{x(index):.1f}' y='{top + plot_h + 14}' text-anchor='end' fill='#444' "
            f"font-family='ui-monospace,monospace' font-size='10' "
            f"transform='rotate(-35 {x(index):.1f} {top + plot_h + 14})'>{escape(commit)}</text>"
        )
    labels = []  # drawn over the data: a label the lines cross cannot be read
    # rows from the plot's top, or from its bottom where more of the data lies in the top third
    shares = [v * scale.factor / y_max for line in lines for v in line.values if v is not None]
    from_bottom = sum(v > 2 / 3 for v in shares) > sum(v < 1 / 3 for v in shares)
    positions = [x(m.index) - plot_w / n / 2 for m in markers]  # a marker's line: before its commit
    rows = marker_rows(markers, positions, left + plot_w)
    for marker, mx, (row, shown, anchor) in zip(markers, positions, rows, strict=True):
        tx = mx + 3 if anchor == "start" else mx - 3
        parts.append(
            f"<g class='marker'><line x1='{mx:.1f}' x2='{mx:.1f}' y1='{top}' "
            f"y2='{top + plot_h}' stroke='{marker.colour}' stroke-dasharray='2,3'/>"
            f"<title>{escape(marker.label)}</title></g>"
        )
        labels.append(
            f"<text class='marker-label' x='{tx:.1f}' "
            f"y='{top + plot_h - 4 - 12 * row if from_bottom else top + 11 + 12 * row}' "
            f"fill='{marker.colour}' font-size='10' text-anchor='{anchor}' stroke='#fff' "
            f"stroke-width='3' paint-order='stroke'>{escape(shown)}"
            f"<title>{escape(marker.label)}</title></text>"
        )
    for ref in references:
        ry = y(ref.value * scale.factor)
        dash = " stroke-dasharray='6,4'" if ref.dashed else ""
        parts.append(
            f"<g class='reference'><line x1='{left}' x2='{left + plot_w}' y1='{ry:.1f}' "
            f"y2='{ry:.1f}' stroke='{ref.colour}' stroke-width='1.5'{dash}/>"
            f"<title>{escape(ref.label)}: {_number(ref.value * scale.factor)}{escape(unit)}"
            "</title></g>"
        )
    for line in lines:
        points = [
            (x(i), y(v * scale.factor), v) for i, v in enumerate(line.values) if v is not None
        ]
        segments: list[list[tuple[float, float]]] = [[]]
        for i, v in enumerate(line.values):
            if v is None:
                segments.append([])
            else:
                if i in line.breaks:
                    segments.append([])
                segments[-1].append((x(i), y(v * scale.factor)))
        for segment in segments:
            if len(segment) > 1:
                path = " ".join(f"{px:.1f},{py:.1f}" for px, py in segment)
                parts.append(
                    f"<polyline points='{path}' fill='none' stroke='{line.colour}' "
                    "stroke-width='2'/>"
                )
        for (px, py, v), i in zip(
            points, [i for i, v in enumerate(line.values) if v is not None], strict=True
        ):
            label = line.labels[i] if i < len(line.labels) else None
            parts.append(
                f"<circle class='point' cx='{px:.1f}' cy='{py:.1f}' r='3.5' "
                f"fill='{line.colour}'><title>{escape(line.name)} @ {escape(commits[i])}: "
                f"{_number(round(v * scale.factor, 4))}{escape(unit)}"
                f"{escape(' · ' + label) if label else ''}</title></circle>"
            )
            if label:
                parts.append(
                    f"<text class='point-label' x='{px + 6:.1f}' y='{py - 6:.1f}' "
                    f"font-size='10' fill='{line.colour}'>{escape(label)}</text>"
                )
    parts += labels
    parts.append(
        _legend(
            [(line.name, line.colour, False) for line in lines]
            + [(r.label, r.colour, r.dashed) for r in references]
            + list({(m.legend, m.colour, True): None for m in markers}),
            left,
            30,
        )
    )
    parts.append("</svg>")
    return "".join(parts)


def _chart_head(width: int, height: int, title: str, chart_id: str, *, title_x: float) -> list[str]:
    """The opening ``<svg>`` of a chart, its ``<title>`` (tooltips, screen readers), its heading."""
    return [
        f"<svg xmlns='http://www.w3.org/2000/svg' class='chart' role='img' width='{width}' "
        f"height='{height}' viewBox='0 0 {width} {height}' {FONT} font-size='12'"
        + (f" id='{escape(chart_id)}'" if chart_id else "")
        + ">",
        f"<title>{escape(title)}</title>",
        f"<text x='{title_x}' y='16' font-size='14' font-weight='600'>{escape(title)}</text>",
    ]


def _legend(items: Sequence[tuple[str, str, bool]], x0: float, y0: float) -> str:
    parts, x = ["<g class='legend'>"], x0
    for label, fill, dashed in items:
        dash = " stroke-dasharray='4,3'" if dashed else ""
        parts.append(
            f"<line x1='{x:.0f}' x2='{x + 18:.0f}' y1='{y0 - 4}' y2='{y0 - 4}' stroke='{fill}' "
            f"stroke-width='2.5'{dash}/><text x='{x + 22:.0f}' y='{y0}' fill='#222'>"
            f"{escape(label)}</text>"
        )
        x += 34 + 6.6 * len(label)
    parts.append("</g>")
    return "".join(parts)


@dataclasses.dataclass(frozen=True)
class BarRow:
    """One row of a bar chart: a label and one value per group (None: no bar)."""

    label: str
    values: tuple[float | None, ...]
    note: str = ""


def bar_chart(
    rows: Sequence[BarRow],
    groups: Sequence[str],
    *,
    title: str,
    x_label: str,
    references: Sequence[Reference] = (),
    width: int | None = None,
    label_width: int | None = None,
    chart_id: str = "",
    unit: str = "x",
) -> str:
    """Grouped horizontal bars, one row per label, one bar per group (backend).

    ``unit`` follows each value in the hover text (``x`` for speed-ups, `` ms`` for times).
    The label column is as wide as the longest label (ICON timer and program names are
    long, and a cut name cannot be told from its neighbour); the plot gets 580 px beside it.
    """
    if label_width is None:
        label_width = max(160, math.ceil(6.9 * max((len(r.label) for r in rows), default=0)) + 16)
    if width is None:
        width = label_width + 580
    bar_h, gap = 9, 8
    row_h = bar_h * max(len(groups), 1) + gap
    top, bottom, right = 50, 40, 20
    plot_w = width - label_width - right
    height = top + bottom + row_h * max(len(rows), 1)
    values = [v for r in rows for v in r.values if v is not None] + [r.value for r in references]
    ticks = nice_ticks(0.0, max(values, default=1.0) * 1.05)
    x_max = ticks[-1]

    def x(value: float) -> float:
        return label_width + plot_w * min(value, x_max) / x_max

    parts = _chart_head(width, height, title, chart_id, title_x=8)
    plot_bottom = top + row_h * len(rows)
    for tick in ticks:
        parts.append(
            f"<line x1='{x(tick):.1f}' x2='{x(tick):.1f}' y1='{top - 4}' y2='{plot_bottom}' "
            f"stroke='#eee'/><text x='{x(tick):.1f}' y='{plot_bottom + 14}' "
            f"text-anchor='middle' fill='#444'>{_number(tick)}</text>"
        )
    parts.append(
        f"<text x='{label_width + plot_w / 2:.0f}' y='{plot_bottom + 32}' text-anchor='middle' "
        f"fill='#222'>{escape(x_label)}</text>"
    )
    for r_index, row in enumerate(rows):
        y0 = top + r_index * row_h
        label = row.label if len(row.label) <= 96 else row.label[:94] + "…"
        parts.append(
            f"<text x='{label_width - 8}' y='{y0 + row_h / 2 + 1:.1f}' text-anchor='end' "
            f"fill='#222'>{escape(label)}<title>{escape(row.label)}</title></text>"
        )
        for g_index, (group, value) in enumerate(zip(groups, row.values, strict=True)):
            by = y0 + g_index * bar_h
            if value is None:
                parts.append(
                    f"<text x='{label_width + 4}' y='{by + bar_h - 1}' font-size='9' "
                    f"fill='#999'>{escape(group)}: –</text>"
                )
                continue
            parts.append(
                f"<rect class='bar' x='{label_width}' y='{by}' width='{x(value) - label_width:.1f}'"
                f" height='{bar_h - 1}' fill='{colour(group, g_index)}'><title>"
                f"{escape(row.label)} · {escape(group)}: {value:.2f}{escape(unit)}"
                f"{escape(row.note)}</title></rect>"
            )
            if value > x_max:
                parts.append(
                    f"<text x='{x(x_max) - 2:.1f}' y='{by + bar_h - 1}' text-anchor='end' "
                    f"font-size='9' fill='#fff'>{value:.1f}{escape(unit)} ▸</text>"
                )
    for ref in references:
        dash = " stroke-dasharray='6,4'" if ref.dashed else ""
        parts.append(
            f"<g class='reference'><line x1='{x(ref.value):.1f}' x2='{x(ref.value):.1f}' "
            f"y1='{top - 6}' y2='{plot_bottom}' stroke='{ref.colour}' stroke-width='1.5'{dash}/>"
            f"<title>{escape(ref.label)}</title></g>"
        )
    parts.append(
        _legend(
            [(g, colour(g, i), False) for i, g in enumerate(groups)]
            + [(r.label, r.colour, r.dashed) for r in references],
            label_width,
            36,
        )
    )
    parts.append("</svg>")
    return "".join(parts)

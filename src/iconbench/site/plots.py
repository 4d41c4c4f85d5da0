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


@dataclasses.dataclass(frozen=True)
class Box:
    """A rectangle in a chart's coordinates: what a label may not cover."""

    left: float
    top: float
    right: float
    bottom: float

    def hits(self, other: Box) -> bool:
        """Whether the two overlap (touching is not overlapping)."""
        return min(self.right, other.right) > max(self.left, other.left) and min(
            self.bottom, other.bottom
        ) > max(self.top, other.top)


#: Width of a character of a 10 px label, of 12 px text and of the 14 px bold title.
LABEL_CHAR_PX, TEXT_CHAR_PX, TITLE_CHAR_PX = 5.8, 7.0, 9.0
#: The width a chart is drawn at for a phone (a 390 px screen less the page's margins).
PHONE_WIDTH = 360


def text_box(x: float, baseline: float, text: str, *, anchor: str = "start") -> Box:
    """Where a 10 px label's glyphs lie (a little over), its baseline at ``baseline``."""
    width = LABEL_CHAR_PX * len(text)
    left = x if anchor == "start" else x - width
    return Box(left - 1, baseline - 9, left + width + 1, baseline + 3)


def place_point_label(
    px: float, py: float, text: str, taken: Sequence[Box], plot: Box
) -> tuple[float, float, str] | None:
    """Where a point's label goes: beside the point, clear of every box in ``taken``.

    Tries above-right, below-right, above-left and below-left of the point, then further
    above and below; the first place inside the plot that covers nothing wins (None: none,
    the point's tooltip still says it).

    >>> plot = Box(0, 0, 300, 200)
    >>> place_point_label(100, 100, "1.41x", [], plot)
    (106, 94, 'start')
    >>> goal = Box(0, 92, 300, 94)  # a reference line just above the point
    >>> place_point_label(100, 100, "1.41x", [goal], plot)
    (106, 114, 'start')
    """
    for dx, dy in ((6, -6), (6, 14), (-6, -6), (-6, 14), (6, -18), (6, 26), (-6, -18), (-6, 26)):
        anchor = "start" if dx > 0 else "end"
        box = text_box(px + dx, py + dy, text, anchor=anchor)
        inside = plot.left <= box.left and box.right <= plot.right
        inside = inside and plot.top <= box.top and box.bottom <= plot.bottom
        if inside and not any(box.hits(other) for other in taken):
            return px + dx, py + dy, anchor
    return None


def title_lines(title: str, width: float) -> list[str]:
    """The chart's title in lines, cut at its `` · `` separators to fit ``width``.

    >>> title_lines("Speed-up over OpenACC · NVIDIA H100 80GB HBM3 · mch_icon-ch1_medium", 360)
    ['Speed-up over OpenACC', 'NVIDIA H100 80GB HBM3', 'mch_icon-ch1_medium']
    >>> title_lines("Bandwidth · over 100 %: cache reuse, reads served from L2", 200)
    ['Bandwidth', 'over 100 %: cache', 'reuse, reads served', 'from L2']
    """
    lines: list[str] = []
    for part in title.split(" · "):
        joined = f"{lines[-1]} · {part}" if lines else part
        if lines and TITLE_CHAR_PX * len(joined) <= width:
            lines[-1] = joined
            continue
        lines.append("")
        for word in part.split(" "):  # a part too long for a line of its own: at its spaces
            longer = f"{lines[-1]} {word}" if lines[-1] else word
            if lines[-1] and TITLE_CHAR_PX * len(longer) > width:
                lines.append(word)
            else:
                lines[-1] = longer
    return lines


#: One legend entry as drawn: x, its whole label, the label shown, colour, dashed.
Entry = tuple[float, str, str, str, bool]


def legend_rows(
    items: Sequence[tuple[str, str, bool]], x0: float, right: float
) -> list[list[Entry]]:
    """The legend's entries in rows that end before ``right``.

    An entry too long for a row of its own is cut (its whole text is its tooltip).
    """
    rows: list[list[Entry]] = [[]]
    x = x0
    room = max(right - x0 - 24, 40)
    for label, fill, dashed in items:
        shown = label
        if TEXT_CHAR_PX * len(shown) > room:
            shown = label[: int(room / TEXT_CHAR_PX) - 1] + "…"
        width = 24 + TEXT_CHAR_PX * len(shown)
        if rows[-1] and x + width > right:
            rows.append([])
            x = x0
        rows[-1].append((x, label, shown, fill, dashed))
        x += width + 12
    return rows


def _legend_svg(rows: Sequence[Sequence[Entry]], y0: float) -> str:
    parts = ["<g class='legend'>"]
    for n, row in enumerate(rows):
        y = y0 + 16 * n
        for x, label, shown, fill, dashed in row:
            dash = " stroke-dasharray='4,3'" if dashed else ""
            tip = f"<title>{escape(label)}</title>" if shown != label else ""
            parts.append(
                f"<line x1='{x:.0f}' x2='{x + 18:.0f}' y1='{y - 4}' y2='{y - 4}' "
                f"stroke='{fill}' stroke-width='2.5'{dash}/><text x='{x + 22:.0f}' y='{y}' "
                f"fill='#222'>{escape(shown)}{tip}</text>"
            )
    parts.append("</g>")
    return "".join(parts)


def _head(
    width: int, title: str, chart_id: str, *, title_x: float, phone: bool
) -> tuple[list[str], float]:
    """The opening of a chart's SVG (its height is ``@H@`` until known), where its title ends.

    A phone's drawing is ``svg.chart-phone`` (the stylesheet shows it instead of the
    desktop's ``svg.chart`` on a narrow screen), its id prefixed with ``phone-``.
    """
    lines = title_lines(title, width - title_x - 8)
    klass = "chart-phone" if phone else "chart"
    head = [
        f"<svg xmlns='http://www.w3.org/2000/svg' class='{klass}' role='img' width='{width}' "
        f"height='@H@' viewBox='0 0 {width} @H@' {FONT} font-size='12'"
        + (f" id='{escape(('phone-' if phone else '') + chart_id)}'" if chart_id else "")
        + ">",
        f"<title>{escape(title)}</title>",
    ]
    for n, line in enumerate(lines):
        head.append(
            f"<text x='{title_x}' y='{16 + 17 * n}' font-size='14' font-weight='600'>"
            f"{escape(line)}</text>"
        )
    return head, 16 + 17 * (len(lines) - 1)


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
    phone: bool = False,
) -> str:
    """A line chart over commits (x: history order, labelled with short commits).

    Above the plot: the title (in lines at its `` · `` where the width asks), the legend (in
    rows), then a band with the markers' labels (in rows, none over another), so no label
    lies over the data; a point's label goes where it covers no point, line or label.
    ``phone`` draws it for a phone's screen (``PHONE_WIDTH``).
    """
    scale = scale or Scale(1.0, "")
    if phone:
        width = PHONE_WIDTH
    left, right, bottom = (52 if phone else 70), 16, 58
    plot_w, plot_h = width - left - right, height - 46 - bottom
    head, title_end = _head(width, title, chart_id, title_x=8 if phone else left, phone=phone)
    legend = legend_rows(
        [(line.name, line.colour, False) for line in lines]
        + [(r.label, r.colour, r.dashed) for r in references]
        + list({(m.legend, m.colour, True): None for m in markers}),
        8 if phone else left,
        width - right,
    )
    legend_y = title_end + 16
    n = max(len(commits), 1)

    def x(index: int) -> float:
        return left + (plot_w * (index + 0.5) / n)

    positions = [x(m.index) - plot_w / n / 2 for m in markers]  # a marker's line: before its commit
    rows = marker_rows(markers, positions, left + plot_w)
    band_top = legend_y + 16 * (len(legend) - 1) + 8
    top = band_top + 12 * (max((r for r, _, _ in rows), default=-1) + 1) + 6
    height = top + plot_h + bottom
    values = [v * scale.factor for line in lines for v in line.values if v is not None]
    values += [r.value * scale.factor for r in references]
    ticks = nice_ticks(0.0, max(values, default=1.0) * 1.05)
    y_max = ticks[-1]

    def y(value: float) -> float:
        return top + plot_h - plot_h * value / y_max

    unit = f" [{scale.unit}]" if scale.unit else ""
    parts = [
        *head,
        f"<rect x='{left}' y='{top}' width='{plot_w}' height='{plot_h}' fill='#fff' "
        "stroke='#ccc'/>",
    ]
    for tick in ticks:
        parts.append(
            f"<line x1='{left}' x2='{left + plot_w}' y1='{y(tick):.1f}' y2='{y(tick):.1f}' "
            "stroke='#eee'/>"
            f"<text class='tick' x='{left - 6}' y='{y(tick) + 4:.1f}' text-anchor='end' "
            f"fill='#444'>{_number(tick)}</text>"
        )
    parts.append(
        f"<text transform='translate(14,{top + plot_h / 2:.0f}) rotate(-90)' "
        f"text-anchor='middle' fill='#222'>{escape(y_label + unit)}</text>"
    )
    step = max(1, math.ceil(n / (8 if phone else 16)))
    for index, commit in enumerate(commits):
        if index % step and index != n - 1:
            continue
        parts.append(
            f"<text x='{x(index):.1f}' y='{top + plot_h + 14}' text-anchor='end' fill='#444' "
            f"font-family='ui-monospace,monospace' font-size='10' "
            f"transform='rotate(-35 {x(index):.1f} {top + plot_h + 14})'>{escape(commit)}</text>"
        )
    labels = []  # drawn last, over the lines: a label a line crosses cannot be read
    for marker, mx, (row, shown, anchor) in zip(markers, positions, rows, strict=True):
        tx = mx + 3 if anchor == "start" else mx - 3
        ty = band_top + 9 + 12 * row
        parts.append(
            f"<g class='marker'><line x1='{mx:.1f}' x2='{mx:.1f}' y1='{ty - 8}' "
            f"y2='{top + plot_h}' stroke='{marker.colour}' stroke-dasharray='2,3'/>"
            f"<title>{escape(marker.label)}</title></g>"
        )
        labels.append(
            f"<text class='marker-label' x='{tx:.1f}' y='{ty}' fill='{marker.colour}' "
            f"font-size='10' text-anchor='{anchor}'>{escape(shown)}"
            f"<title>{escape(marker.label)}</title></text>"
        )
    taken: list[Box] = []
    for ref in references:
        ry = y(ref.value * scale.factor)
        taken.append(Box(left, ry - 1.5, left + plot_w, ry + 1.5))
        dash = " stroke-dasharray='6,4'" if ref.dashed else ""
        parts.append(
            f"<g class='reference'><line x1='{left}' x2='{left + plot_w}' y1='{ry:.1f}' "
            f"y2='{ry:.1f}' stroke='{ref.colour}' stroke-width='1.5'{dash}/>"
            f"<title>{escape(ref.label)}: {_number(ref.value * scale.factor)}{escape(unit)}"
            "</title></g>"
        )
    placed = [
        (line, [(i, x(i), y(v * scale.factor), v) for i, v in enumerate(line.values)
                if v is not None])
        for line in lines
    ]  # fmt: skip
    taken += [
        Box(px - 4.5, py - 4.5, px + 4.5, py + 4.5) for _, ps in placed for _, px, py, _ in ps
    ]
    plot_box = Box(left, top, left + plot_w, top + plot_h)
    for line, points in placed:
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
        for i, px, py, v in points:
            label = line.labels[i] if i < len(line.labels) else None
            parts.append(
                f"<circle class='point' cx='{px:.1f}' cy='{py:.1f}' r='3.5' "
                f"fill='{line.colour}'><title>{escape(line.name)} @ {escape(commits[i])}: "
                f"{_number(round(v * scale.factor, 4))}{escape(unit)}"
                f"{escape(' · ' + label) if label else ''}</title></circle>"
            )
            spot = place_point_label(px, py, label, taken, plot_box) if label else None
            if label and spot:
                tx, ty, anchor = spot
                taken.append(text_box(tx, ty, label, anchor=anchor))
                labels.append(
                    f"<text class='point-label' x='{tx:.1f}' y='{ty:.1f}' font-size='10' "
                    f"text-anchor='{anchor}' fill='{line.colour}' stroke='#fff' "
                    f"stroke-width='3' paint-order='stroke'>{escape(label)}</text>"
                )
    parts += labels
    parts.append(_legend_svg(legend, legend_y))
    parts.append("</svg>")
    return "".join(parts).replace("@H@", f"{height:.0f}")


@dataclasses.dataclass(frozen=True)
class BarRow:
    """One row of a bar chart: a label and one value per group (None: no bar)."""

    label: str
    values: tuple[float | None, ...]
    note: str = ""


def wrap_name(text: str, chars: int) -> list[str]:
    """A name in lines of at most ``chars`` characters, cut after ``_`` or `` ``.

    >>> wrap_name("compute_horizontal_advection_of_rho_and_theta (12.3%)", 24)
    ['compute_horizontal_', 'advection_of_rho_and_', 'theta (12.3%)']
    >>> wrap_name("vertically_implicit_solver_at_predictor_step (4.4%)", 44)
    ['vertically_implicit_solver_at_predictor_', 'step (4.4%)']
    """
    pieces = re.findall(r"[^_ ]*[_ ]?", text)
    lines = [""]
    for piece in filter(None, pieces):
        if lines[-1] and len(lines[-1]) + len(piece) > chars:
            lines.append("")
        lines[-1] += piece
    out = []
    for line in lines:  # a piece longer than a line is cut where it must
        out += [line[i : i + chars] for i in range(0, len(line), chars)] or [""]
    return [line.rstrip() for line in out]


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
    phone: bool = False,
) -> str:
    """Grouped horizontal bars, one row per label, one bar per group (backend).

    Each bar's value is written in a column right of the plot, where no bar or reference
    line reaches (``unit`` follows it: ``x`` for speed-ups, `` ms`` for times). On a desktop
    the label column is as wide as the longest label (ICON timer and program names are long,
    and a cut name cannot be told from its neighbour) with 580 px of plot beside it; on a
    phone (``phone``) each row's label is above its bars, wrapped at its underscores.
    """
    values = [v for r in rows for v in r.values if v is not None] + [r.value for r in references]
    shown = [f"{v:.2f}{unit}" for v in values] or ["–"]
    value_w = math.ceil(TEXT_CHAR_PX * max(map(len, shown))) + 10
    bar_h, gap = 12, 8
    if phone:
        width, label_width = PHONE_WIDTH, 8
        wrapped = [wrap_name(r.label, int((width - 16) / TEXT_CHAR_PX)) for r in rows]
    else:
        if label_width is None:
            label_width = max(160, math.ceil(TEXT_CHAR_PX * max((len(r.label) for r in rows),
                                                                default=0)) + 16)  # fmt: skip
        width = width or label_width + 580 + value_w
        wrapped = [[r.label if len(r.label) <= 96 else r.label[:94] + "…"] for r in rows]
    right = 8
    plot_w = width - label_width - right - value_w
    head, title_end = _head(width, title, chart_id, title_x=8, phone=phone)
    legend = legend_rows(
        [(g, colour(g, i), False) for i, g in enumerate(groups)]
        + [(r.label, r.colour, r.dashed) for r in references],
        8 if phone else label_width,
        width - right,
    )
    legend_y = title_end + 20
    top = legend_y + 16 * (len(legend) - 1) + 16
    heights = [
        (14 * len(lines) if phone else 0) + bar_h * max(len(groups), 1) + gap for lines in wrapped
    ]
    plot_bottom = top + sum(heights)
    height = plot_bottom + 40
    ticks = nice_ticks(0.0, max(values, default=1.0) * 1.05)
    x_max = ticks[-1]

    def x(value: float) -> float:
        return label_width + plot_w * min(value, x_max) / x_max

    parts = head
    for tick in ticks:
        parts.append(
            f"<line x1='{x(tick):.1f}' x2='{x(tick):.1f}' y1='{top - 4}' y2='{plot_bottom}' "
            f"stroke='#eee'/><text class='tick' x='{x(tick):.1f}' y='{plot_bottom + 14}' "
            f"text-anchor='middle' fill='#444'>{_number(tick)}</text>"
        )
    axis = x_label.split(" (", maxsplit=1)[0] if phone else x_label  # a phone: its words
    parts.append(
        f"<text x='{label_width + plot_w / 2:.0f}' y='{plot_bottom + 32}' "
        f"text-anchor='middle' fill='#222'>{escape(axis)}"
        + (f"<title>{escape(x_label)}</title>" if axis != x_label else "")
        + "</text>"
    )
    y0, spans = top, []
    for row, lines, row_h in zip(rows, wrapped, heights, strict=True):
        for n, line in enumerate(lines):
            lx, ly = (8, y0 + 11 + 14 * n) if phone else (label_width - 8, y0 + row_h / 2 + 1)
            parts.append(
                f"<text x='{lx}' y='{ly:.1f}' text-anchor='{'start' if phone else 'end'}' "
                f"fill='#222'>{escape(line)}<title>{escape(row.label)}</title></text>"
            )
        bars_top = y0 + (14 * len(lines) + 2 if phone else 0)
        for g_index, (group, value) in enumerate(zip(groups, row.values, strict=True)):
            by = bars_top + g_index * bar_h
            said = "–" if value is None else f"{value:.2f}{unit}"
            parts.append(
                f"<text class='value' x='{width - right}' y='{by + bar_h - 2}' text-anchor='end' "
                f"font-size='11' fill='{'#999' if value is None else '#222'}'>{escape(said)}"
                f"<title>{escape(row.label)} · {escape(group)}: {escape(said)}</title></text>"
            )
            if value is None:
                continue
            parts.append(
                f"<rect class='bar' x='{label_width}' y='{by}' width='{x(value) - label_width:.1f}'"
                f" height='{bar_h - 2}' fill='{colour(group, g_index)}'><title>"
                f"{escape(row.label)} · {escape(group)}: {value:.2f}{escape(unit)}"
                f"{escape(row.note)}</title></rect>"
            )
        spans.append((bars_top - 2, bars_top + bar_h * len(groups)))
        y0 += row_h
    if not phone:  # on a phone a line stops at each row's name, above its bars
        spans = [(top - 4, plot_bottom)]
    for ref in references:
        dash = " stroke-dasharray='6,4'" if ref.dashed else ""
        parts.append("<g class='reference'>")
        for y1, y2 in spans:
            parts.append(
                f"<line x1='{x(ref.value):.1f}' x2='{x(ref.value):.1f}' y1='{y1:.1f}' "
                f"y2='{y2:.1f}' stroke='{ref.colour}' stroke-width='1.5'{dash}/>"
            )
        parts.append(f"<title>{escape(ref.label)}</title></g>")
    parts.append(_legend_svg(legend, legend_y))
    parts.append("</svg>")
    return "".join(parts).replace("@H@", f"{height:.0f}")

"""Line plots of a metrics history as inline SVG, drawn on the server (no script, no CDN).

:func:`line_plot` draws the series a :class:`~seaway.console.views.PlotSpec` names from a
:meth:`~seaway.metrics_history.MetricsHistory.snapshot`: time on x (the history's window, or
less while it fills up), values on y from 0, one ``<path>`` per series (a missing point
breaks the line; ``data-points`` and ``data-peak`` give its number of points and its highest
value), the legend beside it as HTML. Colours are CSS classes (``s0``...``s5``),
so the page's Content-Security-Policy needs no inline style.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from seaway.console.markup import Markup, join, tag
from seaway.console.numbers import compact
from seaway.console.views import PlotSpec

__all__ = ["MAX_LINES", "Line", "line_plot", "lines_of"]

MAX_LINES: Final = 6
WIDTH: Final = 640
HEIGHT: Final = 200
_LEFT, _RIGHT, _TOP, _BOTTOM = 52, 10, 10, 22


@dataclass(frozen=True, slots=True)
class Line:
    """One series to draw: its legend and values (None: no point), aligned with the times."""

    legend: str
    values: tuple[float | None, ...]

    @property
    def peak(self) -> float:
        return max((v for v in self.values if v is not None), default=-math.inf)


def lines_of(spec: PlotSpec, snapshot: Mapping[str, Any], limit: int = MAX_LINES) -> list[Line]:
    """The lines *spec* draws from *snapshot*: label-less totals first, then the highest
    peaks, at most *limit*."""
    totals: list[Line] = []
    labelled: list[Line] = []
    for series in snapshot.get("series", ()):
        prefix = spec.names.get(series["name"])
        if prefix is None:
            continue
        labels: Mapping[str, str] = series.get("labels") or {}
        if labels and not spec.per_label:
            continue
        words = [prefix] if prefix else []
        words.append("->".join(labels.values()) if labels else ("" if prefix else "all"))
        line = Line(" ".join(w for w in words if w), tuple(series["values"]))
        (labelled if labels else totals).append(line)
    labelled.sort(key=lambda line: (-line.peak, line.legend))
    return (totals + labelled)[:limit]


def _nice_ceiling(value: float) -> float:
    """The smallest of 1, 2, 2.5, 5 x 10^n at least *value* (1 for 0)."""
    if value <= 0:
        return 1.0
    power: float = 10 ** math.floor(math.log10(value))  # an int from 1 up, else a float
    for step in (1, 2, 2.5, 5, 10):
        if value <= step * power:
            return step * power
    return 10 * power  # pragma: no cover


def _path(xs: Sequence[float], ys: Sequence[float | None]) -> tuple[str, int]:
    """SVG path data through the points (a None breaks it; a point alone is a dot) and how
    many points it has."""
    parts: list[str] = []
    count = 0
    run = 0
    for x, y in zip(xs, ys, strict=True):
        if y is None:
            if run == 1:
                parts.append("h0.5")
            run = 0
            continue
        parts.append(f"{'L' if run else 'M'}{x:.1f},{y:.1f}")
        run += 1
        count += 1
    if run == 1:
        parts.append("h0.5")
    return "".join(parts), count


def line_plot(
    spec: PlotSpec, snapshot: Mapping[str, Any], *, width: int = WIDTH, height: int = HEIGHT
) -> Markup:
    """A ``<figure>``: *spec*'s title, its SVG plot and legend (or "no data yet")."""
    times: list[float] = list(snapshot.get("times", ()))
    lines = lines_of(spec, snapshot)
    drawn = [line for line in lines if line.peak > -math.inf]
    caption = tag("figcaption", spec.title, tag("span", spec.unit, class_="unit"))
    if not times or not drawn:
        empty = tag(
            "svg",
            tag("text", "no data yet", x=width // 2, y=height // 2, class_="empty"),
            viewBox=f"0 0 {width} {height}",
            class_="plot",
            role="img",
            aria_label=spec.title,
        )
        return tag("figure", caption, empty, class_="plot")
    window = float(snapshot.get("window_s") or 3600.0)
    t1 = times[-1]
    t0 = max(times[0], t1 - window)
    if t1 <= t0:
        t0 = t1 - float(snapshot.get("interval_s") or 1.0)
    top = _nice_ceiling(max(line.peak for line in drawn))
    plot_w, plot_h = width - _LEFT - _RIGHT, height - _TOP - _BOTTOM
    xs = [_LEFT + (t - t0) / (t1 - t0) * plot_w for t in times]

    def y_of(value: float) -> float:
        return _TOP + plot_h - max(0.0, value) / top * plot_h

    grid = []
    for i in range(5):
        value = top * i / 4
        y = y_of(value)
        grid.append(
            tag("line", x1=_LEFT, x2=width - _RIGHT, y1=f"{y:.1f}", y2=f"{y:.1f}", class_="grid")
        )
        grid.append(tag("text", compact(value), x=_LEFT - 4, y=f"{y + 4:.1f}", class_="ylabel"))
    for i in range(4):
        t = t0 + (t1 - t0) * i / 3
        x = _LEFT + plot_w * i / 3
        anchor = "start" if i == 0 else "end" if i == 3 else "middle"
        label = time.strftime("%H:%M:%S", time.localtime(t))
        grid.append(
            tag("text", label, x=f"{x:.1f}", y=height - 6, class_="xlabel", text_anchor=anchor)
        )
    paths = []
    legend = []
    for index, line in enumerate(lines):
        if line.peak == -math.inf:
            continue
        ys = [None if v is None else y_of(v) for v in line.values[-len(times) :]]
        data, points = _path(xs[-len(ys) :], ys)
        paths.append(
            tag(
                "path",
                tag("title", line.legend),
                d=data,
                class_=f"line s{index}",
                data_points=points,
                data_peak=f"{line.peak:g}",
            )
        )
        last = next((v for v in reversed(line.values) if v is not None), None)
        legend.append(
            tag(
                "li",
                tag("span", class_=f"swatch s{index}"),
                line.legend,
                " ",
                tag("b", compact(last)),
            )
        )
    svg = tag(
        "svg",
        tag("title", spec.title),
        join(grid),
        join(paths),
        viewBox=f"0 0 {width} {height}",
        class_="plot",
        role="img",
        aria_label=spec.title,
    )
    return tag("figure", caption, svg, tag("ul", join(legend), class_="legend"), class_="plot")

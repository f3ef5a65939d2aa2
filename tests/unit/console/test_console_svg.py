"""The console's server-side SVG plots: one path per series through its points, gaps where
a point is missing, totals first, the busiest series kept, "no data yet" when empty."""

from __future__ import annotations

import re
from typing import Any

from seaway.console.svg import MAX_LINES, line_plot, lines_of
from seaway.console.views import PlotSpec

SPEC = PlotSpec("Records in per second", {"messages_in_per_s": ""}, "records/s")


def _snapshot(series: list[dict[str, Any]], times: list[float] | None = None) -> dict[str, Any]:
    return {
        "interval_s": 5.0,
        "window_s": 3600.0,
        "times": times or [1000.0 + 5 * i for i in range(4)],
        "series": series,
    }


def _paths(svg: str) -> list[tuple[str, int]]:
    return [(d, int(n)) for d, n in re.findall(r'<path d="([^"]*)"[^>]*data-points="(\d+)"', svg)]


def test_a_path_per_series_through_its_points() -> None:
    orders = {"topic": "orders"}
    svg = line_plot(SPEC, _snapshot([
        {"name": "messages_in_per_s", "labels": {}, "values": [None, 10.0, 20.0, 40.0]},
        {"name": "messages_in_per_s", "labels": orders, "values": [1.0, 2.0, 3.0, 4.0]},
        {"name": "bytes_in_per_s", "labels": {}, "values": [9e9, 9e9, 9e9, 9e9]},  # not plotted
    ]))  # fmt: skip
    paths = _paths(svg)
    assert [n for _, n in paths] == [3, 4]
    total = paths[0][0]
    assert total.startswith("M") and total.count("L") == 2  # no point at the first time
    # y grows downwards: the total's last point (40, the top of the scale 50) is highest
    ys = [float(y) for y in re.findall(r",([\d.]+)", total)]
    assert ys == sorted(ys, reverse=True)
    assert 'class="legend"' in svg and ">all <b>40</b>" in svg and ">orders <b>4</b>" in svg
    assert ">50</text>" in svg  # the y scale's top: a round number above the peak


def test_a_missing_point_breaks_the_line_and_a_lone_point_is_a_dot() -> None:
    svg = line_plot(SPEC, _snapshot([
        {"name": "messages_in_per_s", "labels": {}, "values": [1.0, 2.0, None, 3.0]},
    ]))  # fmt: skip
    ((path, points),) = _paths(svg)
    assert points == 3
    assert path.count("M") == 2 and path.endswith("h0.5")


def test_no_data_yet() -> None:
    assert "no data yet" in line_plot(SPEC, _snapshot([], times=[]))
    empty = _snapshot([{"name": "messages_in_per_s", "labels": {}, "values": [None] * 4}])
    svg = line_plot(SPEC, empty)
    assert "no data yet" in svg and "<path" not in svg


def test_totals_first_then_the_busiest_series() -> None:
    series = [
        {"name": "messages_in_per_s", "labels": {"topic": f"t{i}"}, "values": [float(i)] * 4}
        for i in range(10)
    ]
    series.append({"name": "messages_in_per_s", "labels": {}, "values": [0.5] * 4})
    lines = lines_of(SPEC, _snapshot(series))
    assert len(lines) == MAX_LINES
    assert [line.legend for line in lines] == ["all", "t9", "t8", "t7", "t6", "t5"]
    totals_only = PlotSpec("Bytes", {"messages_in_per_s": "in"}, per_label=False)
    assert [line.legend for line in lines_of(totals_only, _snapshot(series))] == ["in"]


def test_labels_and_titles_are_escaped() -> None:
    spec = PlotSpec("<b>lag</b>", {"lag": ""}, "<i>records</i>")
    svg = line_plot(spec, _snapshot([{"name": "lag", "labels": {"group": "<g>"},
                                       "values": [1.0, 2.0, 3.0, 4.0]}]))  # fmt: skip
    assert "<b>lag" not in svg and "<i>" not in svg and "<g>" not in svg
    assert "&lt;g&gt;" in svg and "&lt;b&gt;lag&lt;/b&gt;" in svg and "&lt;i&gt;" in svg

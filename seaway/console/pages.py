"""The console's pages as HTML: a shared layout and one body per page, all server-rendered.

Every page renders without JavaScript (a ``<noscript>`` refresh keeps it live); buttons are
plain forms that POST to ``actions`` and are redirected back. ``console.js`` only replaces
``<main>`` with a fresh copy every few seconds and sends the forms with ``fetch``.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from seaway.console.markup import Markup, join, tag
from seaway.console.numbers import duration_ms, size
from seaway.console.svg import line_plot
from seaway.console.views import (
    ConnectorView,
    Console,
    FlowView,
    GroupLagView,
    TaskView,
    TopicView,
)

__all__ = [
    "PAGES",
    "Page",
    "connectors_body",
    "flows_body",
    "groups_body",
    "layout",
    "overview_body",
    "topics_body",
]

_OPEN_PARTITIONS: Final = 12  # topics with more partitions show them folded


@dataclass(frozen=True, slots=True)
class Page:
    """A page: its path under the console, its title in the navigation, its provider."""

    path: str
    title: str
    provider: str  # the Console field it needs ("" for none)


PAGES: Final = (
    Page("/", "Overview", ""),
    Page("/connectors", "Connectors", "connectors"),
    Page("/flows", "Mirror flows", "flows"),
    Page("/topics", "Topics", "topics"),
    Page("/groups", "Consumer groups", "groups"),
)


def pages_of(console: Console) -> list[Page]:
    """The pages *console* has a provider for."""
    return [p for p in PAGES if not p.provider or getattr(console, p.provider) is not None]


def layout(console: Console, base: str, page: Page, body: Markup) -> Markup:
    """The whole document around *body*."""
    nav = [
        tag("a", p.title, href=f"{base}{p.path}", aria_current="page" if p == page else None)
        for p in pages_of(console)
    ]
    head = tag(
        "head",
        tag("meta", charset="utf-8"),
        tag("meta", name="viewport", content="width=device-width, initial-scale=1"),
        tag("title", f"{page.title} · {console.heading} · Seaway console"),
        tag("link", rel="icon", href="data:,"),  # no favicon request
        tag("link", rel="stylesheet", href=f"{base}/static/console.css"),
        tag("script", src=f"{base}/static/console.js", defer=True),
        tag("noscript", tag("meta", http_equiv="refresh", content=str(console.refresh_s * 3))),
    )
    header = tag(
        "header",
        tag("a", "Seaway console", href=f"{base}/", class_="brand"),
        tag("span", console.heading, class_="server"),
        tag("nav", join(nav)),
    )
    stamp = time.strftime("%H:%M:%S")
    main = tag("main", body, id="content", data_refresh=console.refresh_s, data_updated=stamp)
    footer = tag(
        "footer",
        "Updated ",
        tag("time", stamp, id="updated"),
        f" · refreshed every {console.refresh_s} s",
    )
    document = tag("html", head, tag("body", header, main, footer), lang="en")
    return Markup("<!DOCTYPE html>\n" + document)


def error_box(message: str) -> Markup:
    return tag("p", message, class_="error", role="alert")


def _state(state: str) -> Markup:
    return tag("span", state, class_=f"state {state.lower()}")


def _table(head: Sequence[str], rows: Iterable[Markup], **attributes: Any) -> Markup:
    return tag(
        "table",
        tag("thead", tag("tr", join(tag("th", h) for h in head))),
        tag("tbody", join(rows)),
        **attributes,
    )


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _num(value: object) -> Markup:
    return tag("td", value, class_="num")


# --- overview ------------------------------------------------------------------------------


def overview_body(console: Console, counts: Mapping[str, object], snapshot: Any) -> Markup:
    """Headline figures and every plot of the history."""
    cards = [
        tag("div", tag("span", label, class_="label"), tag("b", value), class_="card")
        for label, value in counts.items()
    ]
    if snapshot is None:
        plots = error_box("This server keeps no metrics history.") if console.plots else ""
    else:
        plots = join(line_plot(spec, snapshot) for spec in console.plots)
    return join(
        [
            tag("h1", console.heading),
            tag("section", join(cards), class_="cards"),
            tag("section", plots, class_="plots", aria_label="plots of the last hour"),
        ]
    )


# --- connectors ----------------------------------------------------------------------------


def _form(base: str, action: str, connector: str, label: str, task: int | None = None) -> Markup:
    return tag(
        "form",
        tag("input", type="hidden", name="connector", value=connector),
        tag("input", type="hidden", name="action", value=action),
        tag("input", type="hidden", name="task", value=task) if task is not None else "",
        tag("button", label, type="submit", class_=f"action {action}"),
        method="post",
        action=f"{base}/actions",
        class_="action",
        data_connector=connector,
        data_action=action,
    )


def _trace(trace: str | None) -> Markup:
    if not trace:
        return Markup("")
    first = trace.strip().splitlines()[0] if trace.strip() else "trace"
    return tag("details", tag("summary", first[:160]), tag("pre", trace), class_="trace")


def _task_row(base: str, connector: str, task: TaskView) -> Markup:
    restart = _form(base, "restart-task", connector, "Restart task", task.id)
    return tag(
        "tr",
        tag("td", f"task {task.id}", class_="task"),
        tag("td", _state(task.state)),
        tag("td", task.worker_id),
        tag("td", _trace(task.trace), restart if task.state == "FAILED" else ""),
        class_="task",
        data_task=task.id,
    )


def connectors_body(base: str, connectors: Sequence[ConnectorView]) -> Markup:
    """Every connector with its state, its tasks, traces of failures, and the actions."""
    rows = []
    for c in connectors:
        buttons = [
            _form(base, "resume", c.name, "Resume")
            if c.state in ("PAUSED", "STOPPED")
            else _form(base, "pause", c.name, "Pause"),
            _form(base, "restart", c.name, "Restart"),
        ]
        rows.append(
            tag(
                "tr",
                tag("th", c.name, scope="row"),
                tag("td", c.type),
                tag("td", _state(c.state)),
                tag("td", c.worker_id),
                tag("td", _trace(c.trace), tag("div", join(buttons), class_="actions")),
                class_="connector",
                data_connector=c.name,
                data_state=c.state,
            )
        )
        rows.extend(_task_row(base, c.name, t) for t in c.tasks)
    if not connectors:
        return join([tag("h1", "Connectors"), tag("p", "No connectors.", class_="none")])
    table = _table(("Connector / task", "Type", "State", "Worker", ""), rows, class_="connectors")
    return join([tag("h1", "Connectors"), table])


# --- topics --------------------------------------------------------------------------------


def _cluster_title(cluster: str, what: str) -> Markup:
    return tag("h2", f"{what} of cluster {cluster}") if cluster else Markup("")


def _by_cluster(items: Sequence[Any]) -> list[tuple[str, list[Any]]]:
    clusters: dict[str, list[Any]] = {}
    for item in items:
        clusters.setdefault(item.cluster, []).append(item)
    return list(clusters.items())


def _topic(topic: TopicView) -> Markup:
    rows = [
        tag(
            "tr",
            _num(p.partition),
            _num("—" if p.start_offset is None else p.start_offset),
            _num(p.end_offset),
            _num(size(p.size_bytes)),
        )
        for p in topic.partitions
    ]
    partitions = _table(
        ("Partition", "Start offset", "End offset", "Size"), rows, class_="partitions"
    )
    summary = tag(
        "summary",
        tag("b", topic.name, class_="topic"),
        f" · {_plural(len(topic.partitions), 'partition')} · end offsets {topic.end_offsets}"
        f" · {size(topic.size_bytes)}",
        tag("span", "internal", class_="tag") if topic.internal else "",
    )
    opened = len(topic.partitions) <= _OPEN_PARTITIONS and not topic.internal
    return tag("details", summary, partitions, open=opened, class_="topic", data_topic=topic.name)


def topics_body(topics: Sequence[TopicView]) -> Markup:
    """Each topic with its partitions' start and end offsets and sizes."""
    parts: list[Markup] = [tag("h1", "Topics")]
    if not topics:
        parts.append(tag("p", "No topics.", class_="none"))
    for cluster, items in _by_cluster(topics):
        parts.append(_cluster_title(cluster, "Topics"))
        parts.extend(_topic(t) for t in sorted(items, key=lambda t: (t.internal, t.name)))
    return join(parts)


# --- consumer groups -----------------------------------------------------------------------


def _group(group: GroupLagView) -> Markup:
    rows = [
        tag(
            "tr",
            tag("td", p.topic),
            _num(p.partition),
            _num(p.committed),
            _num("—" if p.end_offset is None else p.end_offset),
            _num("—" if p.lag is None else p.lag),
            class_="lagging" if p.lag else None,
        )
        for p in group.partitions
    ]
    table = (
        _table(("Topic", "Partition", "Committed", "End offset", "Lag"), rows, class_="lag")
        if rows
        else tag("p", "No committed offsets.", class_="none")
    )
    summary = tag(
        "summary",
        tag("b", group.group, class_="group"),
        " ",
        _state(group.state),
        f" · {_plural(group.members, 'member')} · lag ",
        tag("b", group.lag, class_="total-lag"),
    )
    return tag("details", summary, table, open=True, class_="group", data_group=group.group)


def groups_body(groups: Sequence[GroupLagView]) -> Markup:
    """Each group with its committed offsets and its lag per partition."""
    parts: list[Markup] = [tag("h1", "Consumer groups")]
    if not groups:
        parts.append(tag("p", "No consumer groups.", class_="none"))
    for cluster, items in _by_cluster(groups):
        parts.append(_cluster_title(cluster, "Consumer groups"))
        parts.extend(_group(g) for g in sorted(items, key=lambda g: g.group))
    return join(parts)


# --- mirror flows --------------------------------------------------------------------------


def flows_body(flows: Sequence[FlowView]) -> Markup:
    """Each replication flow: its state, records copied, lag, latencies, checkpoint age."""
    rows = [
        tag(
            "tr",
            tag("th", f"{f.source} -> {f.target}", scope="row"),
            tag("td", _state(f.state), _trace(f.error)),
            _num(f.topics),
            _num(f.records),
            _num("—" if f.lag is None else int(f.lag)),
            _num(duration_ms(f.replication_latency_ms)),
            _num(duration_ms(f.checkpoint_latency_ms)),
            _num(duration_ms(None if f.checkpoint_age_s is None else f.checkpoint_age_s * 1000)),
            class_="flow",
            data_flow=f"{f.source}->{f.target}",
        )
        for f in flows
    ]
    head = (
        "Flow",
        "State",
        "Topics",
        "Records copied",
        "Lag (records)",
        "Replication latency (max)",
        "Checkpoint latency",
        "Checkpoint age",
    )
    body = _table(head, rows, class_="flows") if rows else tag("p", "No flows.", class_="none")
    return join([tag("h1", "Mirror flows"), body])

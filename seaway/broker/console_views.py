"""The broker's web console (``/ui`` on the admin port): its topics from the partition logs,
its consumer groups' lag from the group coordinator's committed offsets, and plots of the
admin server's metrics history.

Everything is read on the broker's event loop (:meth:`BrokerMetrics.read`), as a scrape is.
The history also keeps each group's lag (:data:`LAG_TRACK`, from :func:`lag_source`), named
as kafka_exporter names it (``kafka_consumergroup_lag{consumergroup,topic,partition}``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Final

from prometheus_client.core import GaugeMetricFamily, Metric

from seaway.console import Console, GroupLagView, PartitionLag, PartitionView, PlotSpec, TopicView
from seaway.metrics_history import MetricsHistory, Track

if TYPE_CHECKING:
    from seaway.broker.metrics import BrokerMetrics
    from seaway.broker.state import BrokerState

__all__ = ["LAG_TRACK", "PLOTS", "broker_console", "groups", "lag_source", "summary", "topics"]

LAG_SAMPLE: Final = "kafka_consumergroup_lag"
LAG_TRACK: Final = Track("lag", LAG_SAMPLE, by=("consumergroup",))
"""Each group's total lag, kept in the admin server's history for the console."""

PLOTS: Final = (
    PlotSpec("Records in per second", {"messages_in_per_s": ""}, "records/s"),
    PlotSpec(
        "Bytes per second",
        {"bytes_in_per_s": "in", "bytes_out_per_s": "out"},
        "bytes/s",
        per_label=False,
    ),
    PlotSpec("Consumer group lag", {"lag": ""}, "records"),
    PlotSpec("Log size", {"log_size_bytes": ""}, "bytes"),
)


def topics(node: BrokerState) -> list[TopicView]:
    """Every topic's partitions: log start and end offsets, bytes (on the event loop)."""
    return [
        TopicView(
            topic.name,
            tuple(
                PartitionView(i, log.high_watermark, log.log_start_offset, log.size)
                for i, log in enumerate(topic.partitions)
            ),
            internal=topic.is_internal,
        )
        for topic in sorted(node.topics.topics.values(), key=lambda t: t.name)
    ]


def groups(node: BrokerState) -> list[GroupLagView]:
    """Every group, its members and its lag per committed partition (on the event loop)."""
    views = []
    for group in sorted(node.groups.list(), key=lambda g: g.group_id):
        lags = []
        for (topic, partition), committed in sorted(
            node.groups.fetch_offsets(group.group_id).items()
        ):
            known = node.topics.get(topic)
            end = (
                known.partitions[partition].high_watermark
                if known is not None and partition < len(known.partitions)
                else None
            )
            lags.append(PartitionLag(topic, partition, committed.offset, end))
        views.append(
            GroupLagView(group.group_id, group.state.value, len(group.members), tuple(lags))
        )
    return views


def lag_source(metrics: BrokerMetrics) -> Iterator[Metric]:
    """The groups' lag per partition as a gauge family (a metrics history source)."""
    family = GaugeMetricFamily(
        LAG_SAMPLE,
        "Records a group has not committed yet.",
        labels=["consumergroup", "topic", "partition"],
    )
    for group in metrics.read(groups):
        for p in group.partitions:
            if p.lag is not None:
                family.add_metric([group.group, p.topic, str(p.partition)], p.lag)
    yield family


def summary(node: BrokerState) -> dict[str, object]:
    """The overview's figures (on the event loop)."""
    every = node.topics.topics.values()
    return {
        "Topics": len(every),
        "Partitions": sum(len(t.partitions) for t in every),
        "Consumer groups": len(node.groups.list()),
    }


def broker_console(metrics: BrokerMetrics, history: MetricsHistory) -> Console:
    """The console of the broker whose *metrics* these are, plotting *history*."""
    title = metrics.read(lambda node: f"Seaway broker {node.node_id} · cluster {node.cluster_id}")
    return Console(
        title,
        topics=lambda: metrics.read(topics),
        groups=lambda: metrics.read(groups),
        history=history.snapshot,
        plots=PLOTS,
        summary=lambda: metrics.read(summary),
    )

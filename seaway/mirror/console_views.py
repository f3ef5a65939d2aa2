"""The mirror driver's web console (``/ui`` on its metrics port): each flow's state, records
copied, replication lag and latency, checkpoint latency and age from MM2's metrics; the
topics and consumer groups of every cluster of the flows, read with their admin clients;
plots of the metrics server's history.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Final

from seaway.console import Console, FlowView, GroupLagView, PlotSpec, TopicView
from seaway.console.kafka_views import ClusterViews
from seaway.mirror.config import librdkafka_config
from seaway.mirror.metrics import (
    CHECKPOINT_TYPE,
    REPLICATION_LAG,
    SOURCE_TYPE,
    Mbean,
    now_ms,
)

if TYPE_CHECKING:
    from seaway.mirror.driver import MirrorMaker

__all__ = ["PLOTS", "flow_views", "mirror_console"]

PLOTS: Final = (
    PlotSpec("Records copied per second", {"records_per_s": ""}, "records/s"),
    PlotSpec("Bytes copied per second", {"bytes_per_s": ""}, "bytes/s"),
    PlotSpec("Replication lag", {"replication_lag": ""}, "records"),
    PlotSpec("Replication latency (max)", {"replication_latency_ms_max": ""}, "ms"),
)


def _finite(values: Iterable[float]) -> list[float]:
    return [v for v in values if not math.isnan(v) and not math.isinf(v)]


def flow_views(maker: MirrorMaker) -> list[FlowView]:
    """Every flow of *maker* with what its metrics measured of it."""
    by_flow: dict[tuple[str, str], list[Mbean]] = {}
    for bean in maker.metrics.mbeans():
        tags = dict(bean.tags)
        by_flow.setdefault((tags.get("source", ""), tags.get("target", "")), []).append(bean)
    now = now_ms()
    views = []
    for pair in maker.pairs:
        beans = by_flow.get((pair.source, pair.target), [])
        copied = [b for b in beans if b.kind == SOURCE_TYPE]
        checkpoints = [b for b in beans if b.kind == CHECKPOINT_TYPE]
        lags = [b.attributes[REPLICATION_LAG] for b in copied if REPLICATION_LAG in b.attributes]
        latencies = _finite(
            b.attributes.get("replication-latency-ms-max", math.nan) for b in copied
        )
        checkpoint_latencies = _finite(
            b.attributes.get("checkpoint-latency-ms", math.nan) for b in checkpoints
        )
        flow = maker.flows.get(pair)
        failure = flow.failure() if flow is not None else None
        state = "UNASSIGNED" if flow is None else "FAILED" if failure else "RUNNING"
        emitter = maker.checkpoints.get(pair)
        emitted = emitter.emitted_ms if emitter is not None else None
        views.append(
            FlowView(
                pair.source,
                pair.target,
                state,
                topics=len({dict(b.tags).get("topic") for b in copied}),
                records=int(sum(b.attributes.get("record-count", 0.0) for b in copied)),
                lag=sum(lags) if lags else None,
                replication_latency_ms=max(latencies) if latencies else None,
                checkpoint_latency_ms=max(checkpoint_latencies) if checkpoint_latencies else None,
                checkpoint_age_s=None if emitted is None else max(0, now - emitted) / 1000,
                error=failure,
            )
        )
    return views


def mirror_console(maker: MirrorMaker) -> Console:
    """The console of the driver *maker*; the history is its metrics server's, once started."""
    aliases = sorted({a for pair in maker.pairs for a in (pair.source, pair.target)})
    clusters = [
        ClusterViews(librdkafka_config(maker.config.cluster_props(alias)), cluster=alias)
        for alias in aliases
    ]

    def topics() -> list[TopicView]:
        return [t for c in clusters for t in c.topics()]

    def groups() -> list[GroupLagView]:
        return [g for c in clusters for g in c.groups()]

    def history() -> dict[str, object]:
        server = maker.metrics_server
        if server is None:
            raise RuntimeError("the metrics server has not started")
        return server.history.snapshot()

    flows = ", ".join(str(p) for p in maker.pairs)
    return Console(
        f"MirrorMaker 2 · {flows}" if flows else "MirrorMaker 2",
        flows=lambda: flow_views(maker),
        topics=topics,
        groups=groups,
        history=history,
        plots=PLOTS,
    )

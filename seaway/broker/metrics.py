"""The broker's metrics for Prometheus, named as the JMX exporter names Kafka's mbeans.

Names follow the Prometheus JMX exporter's common Kafka rules (Strimzi's
``kafka-metrics.yaml``, ``lowercaseOutputName: true``; ``-`` and ``.`` become ``_``), so
Kafka's dashboards and alerts work unchanged. Kafka's mbean (attribute) -> the samples here:

``kafka.server:type=BrokerTopicMetrics,name=<N>PerSec[,topic=T]`` (Count)
    ``kafka_server_brokertopicmetrics_<n>_total{topic}``, the series without ``topic`` for
    all topics; <N>: ``MessagesIn``, ``BytesIn`` (each appended batch's records and bytes),
    ``BytesOut`` (the records bytes of Fetch responses), ``TotalProduceRequests``,
    ``FailedProduceRequests``, ``TotalFetchRequests``, ``FailedFetchRequests`` (per partition
    of Produce/Fetch responses, by Kafka's ``ReplicaManager`` rule: partitions refused before
    the log is touched are not counted, expected errors count as not failed)
``kafka.network:type=RequestMetrics,name=RequestsPerSec,request=R,version=V`` (Count)
    ``kafka_network_requestmetrics_requests_total{request,version}``; R is Kafka's API name
    (``Produce``, ``Metadata``...), a Fetch counting as ``Fetch`` and ``FetchConsumer``
    (``FetchFollower`` with a replica id), as Kafka's ``RequestChannel`` counts it
``kafka.network:type=RequestMetrics,name=TotalTimeMs,request=R`` (Yammer histogram)
    a summary ``kafka_network_requestmetrics_totaltimems{request,quantile}`` (quantiles
    0.50 ... 0.999 of the last 1028 requests, in ms, from decoding the request to its
    encoded response) with ``_count`` and ``_sum``
``kafka.server:type=ReplicaManager,name=<N>`` (Value)
    ``kafka_server_replicamanager_<n>``: ``partitioncount``, ``leadercount`` (one node leads
    every partition), ``underreplicatedpartitions``, ``underminisrpartitioncount``,
    ``offlinereplicacount`` (always 0)
``kafka.controller:type=KafkaController,name=<N>`` (Value)
    ``kafka_controller_kafkacontroller_<n>``: ``activecontrollercount`` (1),
    ``offlinepartitionscount`` (0), ``globaltopiccount``, ``globalpartitioncount``
``kafka.log:type=Log,name=<N>,topic=T,partition=P`` (Value)
    ``kafka_log_log_<n>{topic,partition}``: ``size``, ``logendoffset``, ``logstartoffset``,
    ``numlogsegments``
``kafka.server:type=socket-server-metrics,listener=L,networkProcessor=0`` (connection-count)
    ``kafka_server_socket_server_metrics_connection_count{listener,networkProcessor}``
``kafka.coordinator.group:type=GroupMetadataManager,name=<N>`` (Value)
    ``kafka_coordinator_group_groupmetadatamanager_<n>``: ``numgroups``,
    ``numgroups<state>`` (Strimzi's rules stop at a dotted domain; this is their scheme)

Cost: counters move per request (server.py's dispatch), per appended batch (two integer
additions on the partition's log) and per partition of a Produce/Fetch response; never per
record. Everything else (log sizes and offsets, groups) is read at scrape time, on the
broker's event loop, so a scrape from another thread sees a consistent state.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, Final, TypeVar

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric

from seaway.metrics_history import Track
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode

if TYPE_CHECKING:
    from seaway.broker.state import BrokerState
    from seaway.protocol.framing import RequestFrame

__all__ = ["CONTENT_TYPE", "HISTORY_TRACKS", "BrokerMetrics"]

T = TypeVar("T")

CONTENT_TYPE: Final = "text/plain; version=0.0.4; charset=utf-8"
RESERVOIR: Final = 1028  # Yammer's default histogram reservoir
_QUANTILES: Final = (("0.50", 0.5), ("0.75", 0.75), ("0.95", 0.95), ("0.98", 0.98),
                     ("0.99", 0.99), ("0.999", 0.999))  # fmt: skip
_SCRAPE_TIMEOUT_S: Final = 10.0
_TOPIC: Final = "kafka_server_brokertopicmetrics_"

# Partitions Kafka refuses before ReplicaManager appends or reads: counted nowhere.
_NOT_REACHED: Final = frozenset(int(c) for c in (
    ErrorCode.topic_authorization_failed, ErrorCode.transactional_id_authorization_failed,
    ErrorCode.unknown_topic_or_partition, ErrorCode.unknown_topic_id,
    ErrorCode.invalid_required_acks,
))  # fmt: skip
# Errors Kafka expects (not a "failed" request): appendToLocalLog's and readFromLocalLog's.
_PRODUCE_EXPECTED: Final = frozenset(int(c) for c in (
    ErrorCode.none, ErrorCode.not_leader_or_follower, ErrorCode.message_too_large,
    ErrorCode.record_list_too_large, ErrorCode.corrupt_message, ErrorCode.kafka_storage_error,
))  # fmt: skip
_FETCH_EXPECTED: Final = frozenset(int(c) for c in (
    ErrorCode.none, ErrorCode.not_leader_or_follower, ErrorCode.unknown_leader_epoch,
    ErrorCode.fenced_leader_epoch, ErrorCode.replica_not_available,
    ErrorCode.kafka_storage_error, ErrorCode.offset_out_of_range, ErrorCode.inconsistent_topic_id,
))  # fmt: skip

HISTORY_TRACKS: Final = (
    Track("messages_in_per_s", _TOPIC + "messagesin_total", "rate", by=("topic",)),
    Track("bytes_in_per_s", _TOPIC + "bytesin_total", "rate", by=("topic",)),
    Track("bytes_out_per_s", _TOPIC + "bytesout_total", "rate", by=("topic",)),
    Track("requests_per_s", "kafka_network_requestmetrics_requests_total", "rate",
          by=("request",)),
    Track("connections", "kafka_server_socket_server_metrics_connection_count"),
    Track("log_size_bytes", "kafka_log_log_size", by=("topic",)),
)  # fmt: skip
"""What the admin server's history keeps: per second rates all topics (no label) and per
topic, requests per second per API, open connections, log bytes per topic."""


class _Requests:
    """One request name's counts per version and its latest latencies (ms)."""

    __slots__ = ("count", "recent", "total_ms", "versions")

    def __init__(self) -> None:
        self.versions: dict[int, int] = {}
        self.count = 0
        self.total_ms = 0.0
        self.recent: deque[float] = deque(maxlen=RESERVOIR)

    def add(self, version: int, ms: float) -> None:
        self.versions[version] = self.versions.get(version, 0) + 1
        self.count += 1
        self.total_ms += ms
        self.recent.append(ms)


@dataclasses.dataclass(slots=True)
class _TopicCounts:
    """What Produce and Fetch responses counted for a topic (or all topics)."""

    bytes_out: int = 0
    produce_total: int = 0
    produce_failed: int = 0
    fetch_total: int = 0
    fetch_failed: int = 0


@dataclasses.dataclass
class _State:
    """A consistent copy of what a scrape shows, taken on the event loop."""

    # topic -> per partition (size, log end, log start, segments, appended records, bytes)
    logs: dict[str, list[tuple[int, int, int, int, int, int]]]
    retired_records: int
    retired_bytes: int
    counts: dict[str, _TopicCounts]
    all_counts: _TopicCounts
    requests: dict[str, tuple[dict[int, int], int, float, list[float]]]
    connections: dict[str, int]
    group_states: list[str]


class BrokerMetrics:
    """One broker's metrics: counters moved on its event loop, a ``prometheus_client``
    collector (:attr:`registry`) read from any thread."""

    def __init__(
        self, node: BrokerState, listeners: Iterable[str], loop: asyncio.AbstractEventLoop
    ) -> None:
        self._node = node
        self._loop = loop
        self._connections = dict.fromkeys(listeners, 0)
        self._requests: dict[str, _Requests] = {}
        self._names: dict[int, str] = {}
        self._counts: dict[str, _TopicCounts] = {}
        self._all = _TopicCounts()
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(self)

    # --- on the event loop --------------------------------------------------------------------

    def connected(self, listener: str, delta: int) -> None:
        """A connection on *listener* opened (+1) or closed (-1)."""
        self._connections[listener] = self._connections.get(listener, 0) + delta

    def request_done(self, frame: RequestFrame, response: Any, elapsed_s: float) -> None:
        """A request was handled in *elapsed_s* seconds; *response* None when none is sent."""
        name = self._names.get(frame.api_key)
        if name is None:
            name = self._names[frame.api_key] = type(frame.body).__name__.removesuffix("Request")
        ms = elapsed_s * 1000
        version = frame.api_version
        self._request(name).add(version, ms)
        if frame.api_key == ApiKey.FETCH:
            follower = getattr(frame.body, "replica_id", -1) >= 0
            self._request("FetchFollower" if follower else "FetchConsumer").add(version, ms)
            if response is not None:
                self._count_fetch(response)
        elif frame.api_key == ApiKey.PRODUCE and response is not None:
            self._count_produce(response)

    def _request(self, name: str) -> _Requests:
        stats = self._requests.get(name)
        if stats is None:
            stats = self._requests[name] = _Requests()
        return stats

    def _topic(self, name: str) -> _TopicCounts:
        counts = self._counts.get(name)
        if counts is None:
            counts = self._counts[name] = _TopicCounts()
        return counts

    def _count_produce(self, response: Any) -> None:
        every = self._all
        for topic in response.responses:
            counts = None
            for p in topic.partition_responses:
                code = int(p.error_code)
                if code in _NOT_REACHED:
                    continue
                counts = counts or self._topic(topic.name)
                failed = code not in _PRODUCE_EXPECTED
                counts.produce_total += 1
                counts.produce_failed += failed
                every.produce_total += 1
                every.produce_failed += failed

    def _count_fetch(self, response: Any) -> None:
        every = self._all
        for topic in response.responses:
            name = getattr(topic, "topic", None)
            if name is None:  # Fetch v13+: topic ids
                known = self._node.topics.by_id(topic.topic_id)
                name = known.name if known is not None else ""
            counts = None
            for p in topic.partitions:
                code = int(p.error_code)
                if code in _NOT_REACHED or not name:
                    continue
                counts = counts or self._topic(name)
                size = len(p.records) if p.records else 0
                failed = code not in _FETCH_EXPECTED
                counts.fetch_total += 1
                counts.fetch_failed += failed
                counts.bytes_out += size
                every.fetch_total += 1
                every.fetch_failed += failed
                every.bytes_out += size

    def _read_state(self) -> _State:
        topics = self._node.topics
        for name in [n for n in self._counts if topics.get(n) is None]:
            del self._counts[name]  # deleted topics: their share stays in all topics
        logs = {
            t.name: [
                (p.size, p.log_end_offset, p.log_start_offset, len(p.segments),
                 p.appended.records, p.appended.bytes)
                for p in t.partitions
            ]
            for t in topics.topics.values()
        }  # fmt: skip
        return _State(
            logs=logs,
            retired_records=topics.retired.records,
            retired_bytes=topics.retired.bytes,
            counts={n: dataclasses.replace(c) for n, c in self._counts.items()},
            all_counts=dataclasses.replace(self._all),
            requests={
                n: (dict(r.versions), r.count, r.total_ms, list(r.recent))
                for n, r in self._requests.items()
            },
            connections=dict(self._connections),
            group_states=[g.state.value for g in self._node.groups.list()],
        )

    # --- any thread ---------------------------------------------------------------------------

    def state(self) -> _State:
        """The scrape's state, read on the broker's event loop."""
        return self.read(lambda _node: self._read_state())

    def read(self, reader: Callable[[BrokerState], T]) -> T:
        """*reader*(the node) run on the broker's event loop (directly when called on it, or
        when it no longer runs), so that another thread sees a consistent state."""
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop or not self._loop.is_running():
            return reader(self._node)
        result: concurrent.futures.Future[T] = concurrent.futures.Future()

        def read() -> None:
            try:
                result.set_result(reader(self._node))
            except BaseException as error:  # handed to the reading thread
                result.set_exception(error)

        self._loop.call_soon_threadsafe(read)
        return result.result(_SCRAPE_TIMEOUT_S)

    def exposition(self) -> bytes:
        """Every metric in Prometheus' text format."""
        return generate_latest(self.registry)

    def collect(self) -> Iterator[Metric]:
        state = self.state()
        yield from _topic_metrics(state)
        yield from _request_metrics(state)
        yield from _node_metrics(state)
        yield from _log_metrics(state)


def _counter(name: str, doc: str) -> Metric:
    return Metric(name, doc, "counter")


def _topic_metrics(state: _State) -> Iterator[Metric]:
    appended = {
        topic: (sum(p[4] for p in parts), sum(p[5] for p in parts))
        for topic, parts in state.logs.items()
    }
    records = state.retired_records + sum(r for r, _ in appended.values())
    size = state.retired_bytes + sum(b for _, b in appended.values())
    every = state.all_counts
    zero = _TopicCounts()
    series: tuple[tuple[str, str, int, Callable[[str], int]], ...] = (
        ("messagesin", "Records appended (MessagesInPerSec).", records,
         lambda t: appended[t][0]),
        ("bytesin", "Bytes of record batches appended (BytesInPerSec).", size,
         lambda t: appended[t][1]),
        ("bytesout", "Record bytes sent in Fetch responses (BytesOutPerSec).", every.bytes_out,
         lambda t: state.counts.get(t, zero).bytes_out),
        ("totalproducerequests", "Partitions of Produce requests (TotalProduceRequestsPerSec).",
         every.produce_total, lambda t: state.counts.get(t, zero).produce_total),
        ("failedproducerequests", "Partitions of Produce requests that failed unexpectedly "
         "(FailedProduceRequestsPerSec).", every.produce_failed,
         lambda t: state.counts.get(t, zero).produce_failed),
        ("totalfetchrequests", "Partitions of Fetch requests (TotalFetchRequestsPerSec).",
         every.fetch_total, lambda t: state.counts.get(t, zero).fetch_total),
        ("failedfetchrequests", "Partitions of Fetch requests that failed unexpectedly "
         "(FailedFetchRequestsPerSec).", every.fetch_failed,
         lambda t: state.counts.get(t, zero).fetch_failed),
    )  # fmt: skip
    for name, doc, total, per_topic in series:
        family = _counter(_TOPIC + name, doc)
        family.add_sample(f"{_TOPIC}{name}_total", {}, total)
        for topic in sorted(state.logs):
            family.add_sample(f"{_TOPIC}{name}_total", {"topic": topic}, per_topic(topic))
        yield family


def _request_metrics(state: _State) -> Iterator[Metric]:
    rate = _counter("kafka_network_requestmetrics_requests", "Requests handled (RequestsPerSec).")
    name = "kafka_network_requestmetrics_totaltimems"
    latency = Metric(name, "Milliseconds from a request to its response (TotalTimeMs).", "summary")
    for request, (versions, count, total_ms, recent) in sorted(state.requests.items()):
        for version, n in sorted(versions.items()):
            labels = {"request": request, "version": str(version)}
            rate.add_sample("kafka_network_requestmetrics_requests_total", labels, n)
        recent.sort()
        for label, q in _QUANTILES:
            latency.add_sample(name, {"request": request, "quantile": label}, _quantile(recent, q))
        latency.add_sample(name + "_count", {"request": request}, count)
        latency.add_sample(name + "_sum", {"request": request}, total_ms)
    yield rate
    yield latency


def _quantile(ordered: list[float], q: float) -> float:
    """Yammer's ``Snapshot.getValue``: linear between the two closest ranks."""
    if not ordered:
        return 0.0
    position = q * (len(ordered) + 1)
    if position < 1:
        return ordered[0]
    if position >= len(ordered):
        return ordered[-1]
    index = int(position)
    lower, upper = ordered[index - 1], ordered[index]
    return lower + (position - index) * (upper - lower)


def _gauge(name: str, doc: str, value: float) -> Metric:
    return GaugeMetricFamily(name, doc, value=value)


def _node_metrics(state: _State) -> Iterator[Metric]:
    partitions = sum(len(parts) for parts in state.logs.values())
    rm = "kafka_server_replicamanager_"
    yield _gauge(rm + "partitioncount", "Partitions on this broker.", partitions)
    yield _gauge(rm + "leadercount", "Partitions this broker leads (all of them).", partitions)
    yield _gauge(rm + "underreplicatedpartitions", "Under-replicated partitions (one node).", 0)
    yield _gauge(rm + "underminisrpartitioncount", "Partitions under min.insync.replicas.", 0)
    yield _gauge(rm + "offlinereplicacount", "Offline replicas.", 0)
    kc = "kafka_controller_kafkacontroller_"
    yield _gauge(kc + "activecontrollercount", "1: this node is the active controller.", 1)
    yield _gauge(kc + "offlinepartitionscount", "Partitions without a leader.", 0)
    yield _gauge(kc + "globaltopiccount", "Topics in the cluster.", len(state.logs))
    yield _gauge(kc + "globalpartitioncount", "Partitions in the cluster.", partitions)
    connections = GaugeMetricFamily(
        "kafka_server_socket_server_metrics_connection_count",
        "Open connections (socket-server-metrics connection-count).",
        labels=["listener", "networkProcessor"],
    )
    for listener, count in sorted(state.connections.items()):
        connections.add_metric([listener, "0"], count)
    yield connections
    gm = "kafka_coordinator_group_groupmetadatamanager_"
    yield _gauge(gm + "numgroups", "Consumer groups (NumGroups).", len(state.group_states))
    for kafka_state in ("PreparingRebalance", "CompletingRebalance", "Stable", "Dead", "Empty"):
        count = sum(1 for s in state.group_states if s == kafka_state)
        yield _gauge(f"{gm}numgroups{kafka_state.lower()}",
                     f"Groups in state {kafka_state} (NumGroups{kafka_state}).", count)  # fmt: skip


def _log_metrics(state: _State) -> Iterator[Metric]:
    attributes = (
        ("size", "Bytes of the partition's log (Size).", 0),
        ("logendoffset", "The partition's log end offset (LogEndOffset).", 1),
        ("logstartoffset", "The partition's log start offset (LogStartOffset).", 2),
        ("numlogsegments", "Segments of the partition's log (NumLogSegments).", 3),
    )
    for name, doc, index in attributes:
        family = GaugeMetricFamily(f"kafka_log_log_{name}", doc, labels=["topic", "partition"])
        for topic, parts in sorted(state.logs.items()):
            for partition, values in enumerate(parts):
                family.add_metric([topic, str(partition)], values[index])
        yield family

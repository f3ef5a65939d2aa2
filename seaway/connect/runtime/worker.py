"""The worker's engine room: one SparkSession, one streaming query per running connector.

A source connector runs as ``seaway-connect-source`` (its tasks produce their records to
Kafka themselves, exactly-once when the worker enables ``exactly.once.source.support``) →
``noop``; a sink connector as ``seaway-connect-sink-read`` (the Kafka source's planning, one
Spark partition per task, whose ``read`` puts the records into the task and commits the
group) → ``noop``. Records never cross into Spark's JVM, and no query has a Python sink.

Every run gets a fresh checkpoint directory: where a connector resumes is decided by
Connect's offsets (the offset store, the sink's consumer group), never by a leftover
checkpoint, so altering offsets or moving a connector to another worker just works. A
:class:`~seaway.connect.api.flow.FlowConnector` (MirrorMaker 2's connectors) runs its own
flow instead, watched through a :class:`FlowQuery`.
"""

from __future__ import annotations

import json
import logging
import re
import shutil
import tempfile
import threading
from collections.abc import Iterator, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

from seaway.connect.api.flow import FlowConnector, FlowContext, FlowHandle
from seaway.connect.runtime.queries.sink import READER_NAME as SINK_READER_NAME
from seaway.connect.runtime.queries.sink import SinkQuerySpec
from seaway.connect.runtime.queries.source import (
    SOURCE_NAME,
    SourceQuerySpec,
    sequence_group,
)
from seaway.connect.runtime.queries.task_metrics import TaskMetrics
from seaway.connect.runtime.worker_config import WorkerConfig
from seaway.java.regex import compile_java_regex
from seaway.kafka import clients, pool
from seaway.kafka.admin import create_topics
from seaway.kafka.java_config import to_librdkafka
from seaway.kafka.timeouts import REQUEST_TIMEOUT_S
from seaway.spark.session import activate

log = logging.getLogger(__name__)

OBSERVATION: Final = "seaway_connect"
_EARLIEST: Final = -2


@dataclass
class ConnectorQuery:
    """A running connector's Spark query and its temporary checkpoint."""

    connector: str
    query: Any
    checkpoint: Path
    kind: str  # "source" or "sink"
    topics: set[str] = field(default_factory=set)
    seen_batch: int = -1

    @property
    def active(self) -> bool:
        return bool(self.query.isActive)

    def failure(self) -> str | None:
        """The error that stopped the query, or None while it runs / after a clean stop."""
        if self.query.isActive:
            return None
        error = self.query.exception()
        return None if error is None else str(error)

    def end_offset(self) -> dict[str, Any] | None:
        """The source offset the last completed batch ended at (source connectors)."""
        progress = self.query.lastProgress
        if not progress:
            return None
        sources = progress["sources"] if isinstance(progress, dict) else progress.sources
        if not sources:
            return None
        first = sources[0]
        end = first["endOffset"] if isinstance(first, dict) else first.endOffset
        if end is None:
            return None
        return end if isinstance(end, dict) else json.loads(end)

    def observed_topics(self) -> set[str]:
        """Topics seen in any batch so far (written by sources, read by sinks)."""
        for _, row in _observations(self.query.recentProgress):
            self.topics.update(_field(row, "topics") or ())
        return set(self.topics)

    def task_metrics(self) -> list[TaskMetrics]:
        """What the tasks counted in the batches completed since the last call."""
        out = []
        for batch, row in _observations(self.query.recentProgress):
            if batch <= self.seen_batch:
                continue
            self.seen_batch = batch
            out += [TaskMetrics.from_json(text) for text in _field(row, "metrics") or ()]
        return out

    def stop(self) -> None:
        from seaway.spark.session import stop_query

        try:
            stop_query(self.query)
        finally:
            shutil.rmtree(self.checkpoint, ignore_errors=True)


@dataclass
class FlowQuery:
    """A flow connector's running flow, shaped like :class:`ConnectorQuery` for the herder
    (no Connect offsets to flush, no observed topics)."""

    connector: str
    handle: FlowHandle
    kind: str = "flow"
    topics: set[str] = field(default_factory=set)

    @property
    def active(self) -> bool:
        return bool(self.handle.active)

    def failure(self) -> str | None:
        return self.handle.failure()

    def end_offset(self) -> dict[str, Any] | None:
        return None

    def observed_topics(self) -> set[str]:
        return set(self.topics)

    def task_metrics(self) -> list[TaskMetrics]:
        return []

    def stop(self) -> None:
        self.handle.stop()


def _observed() -> list[Any]:
    """What a connector query observes per batch: the topics its summary rows name, and
    the tasks' metrics."""
    from pyspark.sql import functions as F

    return [
        F.collect_set("topic").alias("topics"),
        F.collect_list("metrics").alias("metrics"),
    ]


def _field(row: Any, name: str) -> Any:
    return row.get(name) if isinstance(row, dict) else getattr(row, name, None)


def _observations(progresses: Any) -> Iterator[tuple[int, Any]]:
    """``(batch id, observed row)`` of each progress report that has one."""
    for progress in progresses or []:
        metrics = _field(progress, "observedMetrics")
        row = (metrics or {}).get(OBSERVATION)
        if row is not None:
            yield int(_field(progress, "batchId") or 0), row


class Worker:
    """Starts and stops connector queries on the worker's SparkSession."""

    def __init__(self, config: WorkerConfig) -> None:
        self.config = config
        self._session: Future[Any] | None = None  # set by start(): the session, or why not
        self.warm_up: threading.Thread | None = None  # the Python workers' head start
        self._lock = threading.Lock()
        base = config.get("spark.checkpoint.dir")
        self._checkpoints = Path(base) if base else Path(tempfile.mkdtemp(prefix="seaway-connect-"))
        self._own_checkpoints = not base

    def start(self) -> None:
        """Start creating the SparkSession, in the background: its JVM starts (~4 s) while
        the herder opens its stores and joins its group. :attr:`spark` waits for it."""
        self._session = Future()
        threading.Thread(
            target=self._create_session, args=(self._session,), name="connect-spark-start",
            daemon=True,
        ).start()  # fmt: skip

    def _create_session(self, session: Future[Any]) -> None:
        """Create the SparkSession and register the connector data sources."""
        from seaway.connect.runtime.queries.sink import ConnectSinkReadSource
        from seaway.connect.runtime.queries.source import ConnectSourceDataSource
        from seaway.spark import spark_session
        from seaway.spark.warmup import warm_up_in_background

        try:
            spark = spark_session(
                self.config.get("spark.master"),
                app_name=self.config.get("spark.app.name"),
                config=self.config.spark_config(),
                records_in_jvm=False,
            )
            spark.dataSource.register(ConnectSourceDataSource)
            spark.dataSource.register(ConnectSinkReadSource)
            # Every connector query ends in noop: only the Python readers to warm up.
            self.warm_up = warm_up_in_background(spark, write=False)
            self._checkpoints.mkdir(parents=True, exist_ok=True)
            session.set_result(spark)
        except BaseException as error:  # raised where the session is waited for
            session.set_exception(error)

    @property
    def spark(self) -> Any:
        """The worker's SparkSession, once created (this waits for it; it raises what kept
        it from starting)."""
        if self._session is None:
            raise RuntimeError("the worker's Spark session is not started")
        return self._session.result()

    def stop(self) -> None:
        session, self._session = self._session, None
        # exception() waits for a session still starting: a JVM being launched cannot be
        # interrupted.
        if session is not None and session.exception() is None:
            spark = session.result()
            for query in spark.streams.active:
                try:
                    query.stop()
                except Exception:
                    log.warning("Stopping query %s failed", query.name, exc_info=True)
            spark.stop()
        if self._own_checkpoints:
            shutil.rmtree(self._checkpoints, ignore_errors=True)

    # --- clients ----------------------------------------------------------------------------

    def client_config(self, connector_config: Mapping[str, str], kind: str) -> dict[str, str]:
        """librdkafka settings for a connector's ``producer``/``consumer``/``admin`` clients:
        the worker's ``<kind>.*`` then the connector's ``<kind>.override.*``."""
        out = {"bootstrap.servers": self.config.bootstrap_servers}
        out.update(self.config.with_prefix(f"{kind}."))
        prefix = f"{kind}.override."
        out.update(
            {k[len(prefix) :]: v for k, v in connector_config.items() if k.startswith(prefix)}
        )
        return to_librdkafka(out)  # Java-style security settings in librdkafka's names

    def _checkpoint(self, connector: str) -> Path:
        safe = re.sub(r"[^A-Za-z0-9._-]", "_", connector)
        return Path(tempfile.mkdtemp(prefix=f"{safe}-", dir=self._checkpoints))

    def _trigger(self) -> str:
        return f"{int(self.config.get('spark.trigger.interval.ms'))} milliseconds"

    # --- queries ----------------------------------------------------------------------------

    def run_source(
        self, spec: SourceQuerySpec, connector_config: Mapping[str, str], transactional: bool
    ) -> ConnectorQuery:
        """Start a source connector: its tasks' records into Kafka (with *transactional*,
        from the ``start_sequences`` of :meth:`committed_sequences`)."""
        activate(self.spark)
        spec = replace(spec, kafka=self._source_kafka(spec.connector, connector_config,
                                                      transactional))  # fmt: skip
        # The tasks produce their records themselves; Spark sees one row per task and topic.
        frame = (
            self.spark.readStream.format(SOURCE_NAME).option("spec", spec.to_json()).load()
        ).observe(OBSERVATION, *_observed())
        checkpoint = self._checkpoint(spec.connector)
        writer = (
            frame.writeStream.format("noop")
            .option("checkpointLocation", str(checkpoint))
            .queryName(f"connect-source-{spec.connector}")
            .trigger(processingTime=self._trigger())
        )
        with self._lock:
            query = writer.start()
        return ConnectorQuery(spec.connector, query, checkpoint, "source")

    def _source_kafka(
        self, connector: str, connector_config: Mapping[str, str], transactional: bool
    ) -> dict[str, str]:
        """The Spark Kafka sink's options a source connector's tasks write with."""
        producer = self.client_config(connector_config, "producer")
        kafka = {
            "kafka.bootstrap.servers": producer.pop("bootstrap.servers"),
            "includeHeaders": "true",
        }
        settings = {"acks": "all", "partitioner": "murmur2_random", **producer}
        kafka.update({f"kafka.{key}": str(value) for key, value in settings.items()})
        if transactional:
            group = self.config.get("group.id")
            kafka.update(
                exactlyOnce="true",
                transactionalIdPrefix=f"{group}-{connector}",
                transactionalIdPerQuery="false",
            )
        return kafka

    def committed_sequences(
        self,
        connector: str,
        tasks: list[int],
        connector_config: Mapping[str, str],
        offsets_topic: str,
    ) -> dict[str, int]:
        """Each exactly-once task's committed sequence: its batches go on from there, and a
        run of it that another run overtook can no longer commit (``SequenceFence``). Read
        it *before* the source offsets: offsets newer than the sequence only fence the run,
        older ones would repeat records."""
        from seaway.spark.kafka.options import parse_sink_options
        from seaway.spark.kafka.transactional import committed_sequence

        options = parse_sink_options(self._source_kafka(connector, connector_config, True))
        prefix = options.transactional_id_prefix
        return {
            str(task): committed_sequence(options, sequence_group(prefix, task), offsets_topic)
            for task in tasks
        }

    def fence_producers(
        self, transactional_ids: list[str], connector_config: Mapping[str, str]
    ) -> None:
        """Fence every producer of *transactional_ids* (Kafka's ``Admin.fenceProducers``):
        initializing a transactional producer with the same id bumps its epoch, so a zombie
        task still holding the old epoch can no longer commit. The producers are not pooled:
        each exists only to bump the epoch."""
        settings = self.client_config(connector_config, "producer")
        for transactional_id in transactional_ids:
            producer = clients.producer(settings, {"transactional.id": transactional_id})
            try:
                pool.init_transactions(producer, REQUEST_TIMEOUT_S)
            finally:
                producer.flush(0)
            log.info("Fenced producers with transactional id %s", transactional_id)

    def run_sink(self, spec: SinkQuerySpec, connector_config: Mapping[str, str]) -> ConnectorQuery:
        """Start a sink connector: its topics, from the group's offsets, into ``put()``."""

        activate(self.spark)
        consumer = self.client_config(connector_config, "consumer")
        consumer.pop("group.id", None)
        servers = consumer.pop("bootstrap.servers")
        topics = [t.strip() for t in connector_config.get("topics", "").split(",") if t.strip()]
        regex = connector_config.get("topics.regex", "").strip()
        # The tasks read their ranges and put them themselves; Spark sees their offsets.
        reader = (
            self.spark.readStream.format(SINK_READER_NAME)
            .option("spec", spec.to_json())
            .option("kafka.bootstrap.servers", servers)
            .option("includeHeaders", "true")
            .option("failOnDataLoss", "false")
            .option("startingOffsets", self._sink_start(spec, topics, regex))
        )
        reader = (
            reader.option("subscribe", ",".join(topics))
            if topics
            else reader.option("subscribePattern", regex)
        )
        for key, value in consumer.items():
            if key not in ("auto.offset.reset", "enable.auto.commit", "isolation.level"):
                reader = reader.option(f"kafka.{key}", value)
        if "isolation.level" in consumer:
            reader = reader.option("kafka.isolation.level", consumer["isolation.level"])
        frame = reader.load().observe(OBSERVATION, *_observed())
        checkpoint = self._checkpoint(spec.connector)
        writer = (
            frame.writeStream.format("noop")
            .option("checkpointLocation", str(checkpoint))
            .queryName(f"connect-sink-{spec.connector}")
            .trigger(processingTime=self._trigger())
        )
        with self._lock:
            query = writer.start()
        return ConnectorQuery(spec.connector, query, checkpoint, "sink")

    def run_flow(
        self, connector: str, flow: FlowConnector, task_configs: list[dict[str, str]]
    ) -> FlowQuery:
        """Start a flow connector's own flow for all its tasks."""
        activate(self.spark)
        context = FlowContext(
            connector_name=connector,
            spark=self.spark,
            trigger_interval_ms=int(self.config.get("spark.trigger.interval.ms")),
            exactly_once_source=self.config.exactly_once_source,
            worker_settings=dict(self.config.originals),
        )
        with self._lock:
            handle = flow.start_flow(context, task_configs)
        return FlowQuery(connector, handle)

    def _sink_start(self, spec: SinkQuerySpec, topics: list[str], regex: str) -> str:
        """``startingOffsets`` JSON: the group's committed offsets, else earliest."""
        from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition

        admin = clients.admin(spec.client_config)
        metadata = admin.list_topics(timeout=REQUEST_TIMEOUT_S)
        missing = [t for t in topics if t not in metadata.topics]
        if missing:
            _create_topics(admin, missing)
            metadata = admin.list_topics(timeout=REQUEST_TIMEOUT_S)
        if topics:
            chosen = [t for t in topics if t in metadata.topics]
        else:
            pattern = compile_java_regex(regex)
            chosen = [t for t in metadata.topics if pattern.fullmatch(t)]
        partitions = [(t, p) for t in sorted(chosen) for p in sorted(metadata.topics[t].partitions)]
        if not partitions:
            return "earliest"
        request = ConsumerGroupTopicPartitions(
            spec.group_id, [TopicPartition(t, p) for t, p in partitions]
        )
        result = admin.list_consumer_group_offsets([request])[spec.group_id].result(
            REQUEST_TIMEOUT_S
        )
        committed = {(tp.topic, tp.partition): tp.offset for tp in result.topic_partitions}
        start: dict[str, dict[str, int]] = {}
        for t, p in partitions:
            offset = committed.get((t, p), -1001)
            start.setdefault(t, {})[str(p)] = offset if offset >= 0 else _EARLIEST
        return json.dumps(start)


def _create_topics(admin: Any, topics: list[str]) -> None:
    """Create a sink's missing topics with the broker's defaults, as a Java consumer's
    subscription would have them auto-created; one that appeared meanwhile is fine."""
    from confluent_kafka.admin import NewTopic

    for topic in create_topics(admin, [NewTopic(t, -1, -1) for t in topics], REQUEST_TIMEOUT_S):
        log.info("Created topic %s for a sink connector", topic)


__all__ = ["ConnectorQuery", "FlowQuery", "Worker"]

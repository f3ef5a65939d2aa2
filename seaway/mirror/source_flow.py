"""One MirrorSource replication flow A -> B as a Spark streaming query.

The driver does what MirrorSourceConnector does on start: it picks the source topics to
replicate (the topic filter, heartbeats topics, never internal topics, never a cycle —
a topic whose upstream chain already passed through the target), creates each remote topic
on the target with the source's partition count and its replicable configs, adds missing
partitions, and creates the offset-syncs topic. Then one query copies them:
``seaway-mirror-copy`` (:mod:`seaway.mirror.copy.source`) plans offset ranges on cluster A
as Seaway's Kafka source does, starting from MM2's stored offsets (``offset + 1``; earliest
for partitions never copied), and each task copies its ranges to B itself, stores MM2's
offsets of what it copied, and hands Spark one summary row per range, which the query
observes for MM2's metrics and ends in Spark's ``noop`` sink: no commit step per
micro-batch (a Python sink's commit costs a Python process the driver starts each time).

Topics that appear later are picked up by :meth:`MirrorSourceFlow.refresh` (the driver
calls it every ``refresh.topics.interval.seconds``): when the set changes the query is
restarted from the stored offsets.
"""

from __future__ import annotations

import json
import logging
import shutil
import tempfile
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from seaway.kafka import clients
from seaway.kafka.admin import ensure_topic
from seaway.kafka.timeouts import REQUEST_TIMEOUT_S
from seaway.mirror.copy.ledger import request_stop
from seaway.mirror.copy.source import SOURCE_NAME as COPY_SOURCE_NAME
from seaway.mirror.copy.spec import SUMMARY_FIELDS, MirrorCopySpec, RangeSummary
from seaway.mirror.early_copy import EarlyCopy
from seaway.mirror.filters import ConfigPropertyFilter, TopicFilter
from seaway.mirror.metrics import OBSERVATION, MirrorMetrics, record_ranges
from seaway.mirror.policy import ReplicationPolicy
from seaway.mirror.topic_sync import (
    AclSync,
    creation_configs,
    describe_topic_configs,
    sync_topic_configs,
)
from seaway.spark.session import activate, cores

log = logging.getLogger(__name__)

TRIGGER_INTERVAL_MS: Final = "seaway.flow.trigger.interval.ms"
TRIGGER_INTERVAL_DEFAULT_MS: Final = 500
"""How often a flow's query looks for new records (Spark's processingTime trigger): a record
waits up to this long, plus a micro-batch, before it is copied; 0: as soon as the last
micro-batch ends."""
FOLLOW_MS: Final = "seaway.flow.follow.ms"
"""At least once: how long a flow's tasks keep copying their partitions as records arrive,
from their start (0: only the planned ranges). Spark's cycle (plan, launch, hand-over) is
then paid once per this long, not for every few records; a following task holds a core."""
FOLLOW_DEFAULT_MS: Final = 10_000
BRIDGE_MS: Final = 5_000
"""Following: how long a bridge copies over a hand-over between follow periods at most
(:mod:`seaway.mirror.copy.bridge`); a hand-over takes 0.2-1 s, longer on a loaded machine."""
_START_RETRY_S: Final = 5.0  # a start that failed (a cluster away) is tried again after this
_EARLIEST: Final = -2


@dataclass
class FlowSettings:
    """The settings of one A -> B flow (MirrorSourceConfig's, already parsed)."""

    source_alias: str
    target_alias: str
    source_client: dict[str, str]  # librdkafka settings incl. bootstrap.servers
    target_client: dict[str, str]
    policy: ReplicationPolicy
    topic_filter: TopicFilter
    config_filter: ConfigPropertyFilter
    replication_factor: int = 2
    offset_lag_max: int = 100
    emit_offset_syncs: bool = True
    offset_syncs_location: str = "source"
    heartbeats_replication: bool = True
    internal_replication_factor: int = 3
    trigger_ms: int = TRIGGER_INTERVAL_DEFAULT_MS
    follow_ms: int = 0  # at least once: tasks keep copying this long (the driver: FOLLOW_MS)
    flows: int = 1  # flows sharing the session's cores (following tasks hold theirs)
    exactly_once: bool = False
    spark_options: dict[str, str] = field(default_factory=dict)
    metrics: MirrorMetrics | None = None  # the registry of MM2's metrics (None: not computed)
    canary_topic: str | None = None  # replicated whatever the topic filter says

    @property
    def following(self) -> bool:
        """Whether the flow's tasks follow their partitions (at least once only)."""
        return self.follow_ms > 0 and not self.exactly_once

    @property
    def offsets_topic(self) -> str:
        return f"mm2-offsets.{self.source_alias}.internal"

    @property
    def offset_syncs_topic(self) -> str:
        other = self.target_alias if self.offset_syncs_location == "source" else self.source_alias
        return self.policy.offset_syncs_topic(other)

    @property
    def offset_syncs_client(self) -> dict[str, str]:
        return self.source_client if self.offset_syncs_location == "source" else self.target_client


class MirrorSourceFlow:
    """Selects, creates and copies the topics of one replication flow."""

    def __init__(self, spark: Any, settings: FlowSettings) -> None:
        self.spark = spark
        self.settings = settings
        self.query: Any = None
        self._recorded: tuple[str, int] = ("", -1)  # (run id, batch id) last recorded
        self.topics: dict[str, int] = {}  # source topic -> partitions
        self._checkpoint: Path | None = None
        self._acls: AclSync | None = None
        self._start_failed: tuple[float, str] | None = None  # (when, why) of a failed start
        self._spec: MirrorCopySpec | None = None  # what the running query's tasks were told
        self._early: EarlyCopy | None = None  # copying while Spark starts

    @property
    def name(self) -> str:
        return f"{self.settings.source_alias}->{self.settings.target_alias}"

    # --- topics -----------------------------------------------------------------------------

    def is_cycle(self, topic: str) -> bool:
        """Whether *topic* already came through the target (MM2's ``isCycle``)."""
        policy, target = self.settings.policy, self.settings.target_alias
        source = policy.topic_source(topic)
        if source is None:
            return False
        if source == target:
            return True
        upstream = policy.upstream_topic(topic)
        return upstream is not None and upstream != topic and self.is_cycle(upstream)

    def should_replicate(self, topic: str) -> bool:
        s = self.settings
        wanted = (
            s.topic_filter.should_replicate_topic(topic)
            or (s.heartbeats_replication and s.policy.is_heartbeats_topic(topic))
            or topic == s.canary_topic
        )
        return wanted and not s.policy.is_internal_topic(topic) and not self.is_cycle(topic)

    def source_topics(self) -> dict[str, int]:
        metadata = clients.admin(self.settings.source_client).list_topics(timeout=REQUEST_TIMEOUT_S)
        return {
            name: len(t.partitions)
            for name, t in sorted(metadata.topics.items())
            if t.error is None and self.should_replicate(name)
        }

    def remote_topic(self, topic: str) -> str:
        return self.settings.policy.format_remote_topic(self.settings.source_alias, topic)

    def create_remote_topics(self, topics: Mapping[str, int]) -> None:
        """Create missing remote topics (partitions and configs of the source) and add
        partitions where the source has more."""
        from confluent_kafka.admin import NewPartitions, NewTopic

        target = clients.admin(self.settings.target_client)
        existing = target.list_topics(timeout=REQUEST_TIMEOUT_S).topics
        configs = self._source_configs([t for t in topics if self.remote_topic(t) not in existing])
        new = [
            NewTopic(
                self.remote_topic(t), n, self.settings.replication_factor, config=configs.get(t, {})
            )
            for t, n in topics.items()
            if self.remote_topic(t) not in existing
        ]
        grow = [
            NewPartitions(self.remote_topic(t), n)
            for t, n in topics.items()
            if self.remote_topic(t) in existing
            and len(existing[self.remote_topic(t)].partitions) < n
        ]
        futures = [*target.create_topics(new).values()] if new else []
        if grow:
            futures += target.create_partitions(grow).values()
        for future in futures:
            try:
                future.result(REQUEST_TIMEOUT_S)
            except Exception as error:
                if "TOPIC_ALREADY_EXISTS" not in str(error) and "INVALID_PARTITIONS" not in str(
                    error
                ):
                    raise
        for topic in new:
            log.info("Created remote topic %s (%d partitions)", topic.topic, topic.num_partitions)

    def _source_configs(self, topics: list[str]) -> dict[str, dict[str, str]]:
        """Replicable configs of the source topics for their new remote topics."""
        entries = describe_topic_configs(self.settings.source_client, topics)
        return {t: creation_configs(e, self.settings.config_filter) for t, e in entries.items()}

    def sync_topic_configs(self) -> int:
        """Bring the remote topics' configs to their sources' (``sync.topic.configs``)."""
        s = self.settings
        remote = {t: self.remote_topic(t) for t in self.topics}
        return sync_topic_configs(s.source_client, s.target_client, remote, s.config_filter)

    def sync_topic_acls(self) -> int:
        """Copy the replicated topics' ACLs to the target (``sync.topic.acls``)."""
        if self._acls is None:
            s = self.settings
            self._acls = AclSync(
                s.source_client, s.target_client, self.should_replicate, self.remote_topic
            )
        return self._acls.sync()

    def create_internal_topics(self) -> None:
        s = self.settings
        compact = {"cleanup.policy": "compact"}
        ensure_topic(s.target_client, s.offsets_topic, 25, s.internal_replication_factor, compact)
        if s.emit_offset_syncs:
            ensure_topic(
                s.offset_syncs_client, s.offset_syncs_topic, 1, s.internal_replication_factor,
                compact,
            )  # fmt: skip

    # --- offsets ----------------------------------------------------------------------------

    def stored_offsets(self) -> dict[tuple[str, int], int]:
        """Last copied offset per source partition, from ``mm2-offsets.<source>.internal``."""
        from seaway.mirror.lag import stored_offsets

        s = self.settings
        return stored_offsets(s.target_client, s.source_alias, topic=s.offsets_topic)

    def resume_offsets(self, topics: Mapping[str, int]) -> dict[tuple[str, int], int]:
        """The next offset to copy of each partition of *topics* with an MM2 stored offset."""
        stored = self.stored_offsets()
        partitions = ((t, p) for t, n in topics.items() for p in range(n))
        return {tp: stored[tp] + 1 for tp in partitions if tp in stored}

    def _starting_offsets(self, topics: Mapping[str, int]) -> str:
        resume = self.resume_offsets(topics)
        start = {
            t: {str(p): resume.get((t, p), _EARLIEST) for p in range(n)} for t, n in topics.items()
        }
        return json.dumps(start)

    # --- the query --------------------------------------------------------------------------

    def start(self) -> None:
        """Create what is missing and start copying. If that fails, :meth:`failure` says so
        (after a short pause), so the driver's health check tries again."""
        self._start_failed = None
        try:
            self._start()
        except Exception as error:
            self._start_failed = (time.monotonic(), f"{type(error).__name__}: {error}")
            raise

    def start_early(self) -> None:
        """Copy from where the flow stands while Spark starts (:mod:`~seaway.mirror.
        early_copy`), until :meth:`start` ends it or hands it over. Not exactly once."""
        if not self.settings.exactly_once and self._early is None:
            self._early = EarlyCopy(self, self._early_copied)
            self._early.start()

    def copy_spec(self, topics: Mapping[str, int], run_id: str, tasks: int = 0) -> MirrorCopySpec:
        """What the copy tasks of *topics* are told (:class:`MirrorCopySpec`)."""
        s = self.settings
        return MirrorCopySpec(
            source_alias=s.source_alias,
            remote_topics={t: self.remote_topic(t) for t in topics},
            target_producer=dict(s.target_client),
            offsets_topic=s.offsets_topic,
            offset_lag_max=s.offset_lag_max,
            offset_syncs_topic=s.offset_syncs_topic if s.emit_offset_syncs else None,
            offset_syncs_producer=dict(s.offset_syncs_client),
            exactly_once=s.exactly_once,
            target_alias=s.target_alias,
            metrics=s.metrics is not None,
            tasks=tasks,
            follow_ms=s.follow_ms if s.following else 0,
            run_id=run_id,
            bridge_ms=min(BRIDGE_MS, s.follow_ms) if s.following else 0,
        )

    def source_options(self, topics: Mapping[str, int]) -> dict[str, str]:
        """The copy source's Kafka options for *topics* (its Spark options aside)."""
        s = self.settings
        options = {
            "kafka.bootstrap.servers": s.source_client["bootstrap.servers"],
            "subscribe": ",".join(topics),
            "failOnDataLoss": "false",
        }
        if s.exactly_once:  # aborted source transactions are never copied
            options["kafka.isolation.level"] = "read_committed"
        for key, value in s.source_client.items():
            if key != "bootstrap.servers":
                options[f"kafka.{key}"] = value
        return options

    def _end_early(self) -> None:
        """End the early copy if it still runs (not handed over)."""
        early, self._early = self._early, None
        if early is not None:
            early.end()

    def _early_copied(self, summaries: list[RangeSummary]) -> None:
        """Record MM2's metrics of what the early copy copied."""
        registry = self.settings.metrics
        if summaries and registry is not None:
            names = [name for name, _ in SUMMARY_FIELDS]
            rows = [json.dumps(dict(zip(names, s.row(), strict=True))) for s in summaries]
            s = self.settings
            record_ranges(registry, s.source_alias, s.target_alias, rows, self.remote_topic)

    def _start(self) -> None:
        self.create_internal_topics()
        self.topics = self.source_topics()
        if not self.topics:
            log.info("Flow %s: no topic to replicate yet", self.name)
            self._end_early()
            return
        self.create_remote_topics(self.topics)
        s = self.settings
        spec = self.copy_spec(self.topics, uuid.uuid4().hex, self._task_slots())
        # The early copy goes on until the first tasks take over, or ends before the query
        # starts from the offsets it stored (until here, a failed start leaves it running
        # for the next start or stop() to deal with).
        early, self._early = self._early, None
        if early is not None and not (spec.bridge_ms and early.hand_over(spec)):
            early.end()
        self._spec = spec
        self._checkpoint = Path(tempfile.mkdtemp(prefix="seaway-mirror-"))
        activate(self.spark)  # restarts come from the driver's job threads
        reader = (
            self.spark.readStream.format(COPY_SOURCE_NAME)
            .options(**self.source_options(self.topics))
            .option("spec", spec.to_json())
            .option("startingOffsets", self._starting_offsets(self.topics))
        )
        for key, value in s.spark_options.items():
            reader = reader.option(key, value)
        summaries = reader.load()
        if s.metrics is not None:  # MM2's metrics reach the driver in Spark's progress
            summaries = summaries.observe(OBSERVATION, _observed_ranges())
        self.query = (
            summaries.writeStream.format("noop")
            .option("checkpointLocation", str(self._checkpoint))
            .queryName(f"mirror-source-{self.name}")
            .trigger(processingTime=f"{s.trigger_ms} milliseconds")
            .start()
        )
        log.info("Flow %s copying %s", self.name, sorted(self.topics))

    def _task_slots(self) -> int:
        """How many tasks a micro-batch's ranges are grouped into: as many as the session
        runs at once (Spark's default parallelism: its cores), shared with the other flows
        when tasks follow (each holds its core meanwhile); 0 where unknown."""
        slots = cores(self.spark)
        if slots is None:  # Spark Connect: one task per range
            return 0
        if self.settings.following:
            return max(1, slots // max(1, self.settings.flows))
        return slots

    def record_metrics(self) -> None:
        """Record MM2's metrics of the copy's micro-batches completed since the last call
        (observed in Spark's progress reports) into the registry."""
        registry, query = self.settings.metrics, self.query
        if registry is None or query is None:
            return
        try:
            progresses = query.recentProgress
        except Exception:  # the JVM side of a stopping query
            return
        for progress in progresses or []:
            batch = (str(_field(progress, "runId")), int(_field(progress, "batchId") or 0))
            row = (_field(progress, "observedMetrics") or {}).get(OBSERVATION)
            if row is None or (batch[0] == self._recorded[0] and batch[1] <= self._recorded[1]):
                continue
            self._recorded = batch
            s = self.settings
            record_ranges(registry, s.source_alias, s.target_alias,
                          _field(row, "ranges") or (), self.remote_topic)  # fmt: skip

    def refresh(self) -> bool:
        """Restart the copy if the replicable topics or their partitions changed."""
        topics = self.source_topics()
        if topics == self.topics:
            return False
        log.info("Flow %s: topics changed to %s; restarting the copy", self.name, sorted(topics))
        self.stop()
        self.start()
        return True

    def status(self) -> str:
        """What the copy query is doing now (Spark's status message and its last batch)."""
        if self.query is None:
            return "not running"
        try:
            status, progress = self.query.status, self.query.lastProgress
        except Exception as e:  # the JVM side of a stopping query
            return f"status unavailable: {e}"
        batch = f"; last batch {progress['batchId']}" if progress else ""
        return f"{status.get('message', '?')}{batch}"

    def failure(self) -> str | None:
        """Why the flow is not copying when it should be: its query failed, or its last start
        did (reported :data:`_START_RETRY_S` after it); else None."""
        if self._start_failed is not None:
            when, why = self._start_failed
            if time.monotonic() - when < _START_RETRY_S:
                return None
            return f"its last start failed: {why}"
        if self.query is None or self.query.isActive:
            return None
        error = self.query.exception()
        return None if error is None else str(error)

    def stop(self) -> None:
        self._end_early()
        self.record_metrics()  # the last batches' figures
        if self.query is not None:
            from seaway.spark.session import stop_query

            if self._spec is not None and self._spec.follow_ms:
                request_stop(self._spec)  # its tasks end following: no wait for the period
            stop_query(self.query)
            self.query = None
        if self._checkpoint is not None:
            shutil.rmtree(self._checkpoint, ignore_errors=True)
            self._checkpoint = None


def _observed_ranges() -> Any:
    """The copy query's observation: every range summary of a micro-batch as JSON."""
    from pyspark.sql import functions as F

    summary = F.struct("topic", "partition", "last_offset", "stats")
    return F.collect_list(F.to_json(summary)).alias("ranges")


def _field(row: Any, name: str) -> Any:
    """A field of a progress report or observed row (a dict or a Row, by PySpark version)."""
    return row.get(name) if isinstance(row, dict) else getattr(row, name, None)


def register(spark: Any) -> None:
    """Register the mirror's copy source with *spark*."""
    from seaway.mirror.copy.source import MirrorCopyDataSource

    spark.dataSource.register(MirrorCopyDataSource)


__all__ = [
    "FOLLOW_DEFAULT_MS",
    "FOLLOW_MS",
    "TRIGGER_INTERVAL_DEFAULT_MS",
    "TRIGGER_INTERVAL_MS",
    "FlowSettings",
    "MirrorSourceFlow",
    "register",
]

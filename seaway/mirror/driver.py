"""Driver mode: ``seaway mirror-maker mm2.properties [--clusters B ...]`` (Kafka's
``connect-mirror-maker.sh``).

It reads MM2's file (:class:`~seaway.mirror.config.MirrorMakerConfig`), and for every
enabled flow A -> B whose target is one of ``--clusters`` (all by default) runs the
MirrorSource part (:class:`~seaway.mirror.source_flow.MirrorSourceFlow`) on one
SparkSession (``spark.master`` in the file, default ``local[*]``). Every
``refresh.topics.interval.seconds`` each flow looks for new topics and partitions; a flow
whose query failed is logged and restarted from its stored offsets, the others go on.

Each flow's checkpoint part (:class:`~seaway.mirror.checkpoint_flow.MirrorCheckpointFlow`)
emits checkpoints every ``emit.checkpoints.interval.seconds`` (and syncs group offsets with
``sync.group.offsets.enabled``); every ``sync.topic.configs.interval.seconds`` and
``sync.topic.acls.interval.seconds`` the remote topics' configs and ACLs follow the source.
A cluster that does not answer at start is reported with its ``<alias>.bootstrap.servers``.

Heartbeats (:class:`~seaway.mirror.heartbeat_flow.MirrorHeartbeatFlow`) go out for every
pair MM2 gives a herder (``cluster_pairs``: enabled flows and, by default, their reverse),
every ``emit.heartbeats.interval.seconds``, into the target's ``heartbeats`` topic; they are
started first, so each flow's first topic listing already finds ``heartbeats`` to replicate.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, Final

from seaway.kafka.timeouts import REACH_TIMEOUT_S
from seaway.mirror import monitoring
from seaway.mirror.canary import Canary
from seaway.mirror.checkpoint_flow import CheckpointSettings, MirrorCheckpointFlow
from seaway.mirror.config import (
    MIRROR_CHECKPOINT_CONNECTOR,
    MIRROR_HEARTBEAT_CONNECTOR,
    MIRROR_SOURCE_CONNECTOR,
    MirrorCheckpointConfig,
    MirrorConfigError,
    MirrorHeartbeatConfig,
    MirrorMakerConfig,
    MirrorSourceConfig,
    SourceAndTarget,
    librdkafka_config,
)
from seaway.mirror.config.defs import (
    CHECKPOINTS_TOPIC_REPLICATION_FACTOR,
    EMIT_OFFSET_SYNCS_ENABLED,
    HEARTBEATS_REPLICATION_ENABLED,
    OFFSET_LAG_MAX,
    OFFSET_SYNCS_TOPIC_REPLICATION_FACTOR,
    REPLICATION_FACTOR,
    SYNC_GROUP_OFFSETS_ENABLED,
)
from seaway.mirror.console_views import mirror_console
from seaway.mirror.heartbeat_flow import MirrorHeartbeatFlow, heartbeat_settings
from seaway.mirror.metrics import MirrorMetrics
from seaway.mirror.metrics_server import MetricsServer
from seaway.mirror.policy import replication_policy
from seaway.mirror.source_flow import (
    FOLLOW_DEFAULT_MS,
    FOLLOW_MS,
    TRIGGER_INTERVAL_DEFAULT_MS,
    TRIGGER_INTERVAL_MS,
    FlowSettings,
    MirrorSourceFlow,
    register,
)
from seaway.spark.session import cores as session_cores

log = logging.getLogger(__name__)

SPARK_MASTER: Final = "spark.master"
# Records per micro-batch and flow (Spark's maxOffsetsPerTrigger): bounds a batch, and an
# exactly-once transaction, whatever the backlog on the source.
MAX_RECORDS_PER_BATCH: Final = "seaway.max.records.per.batch"
MAX_RECORDS_PER_BATCH_DEFAULT: Final = 10_000_000
"""A task streams its range (memory does not grow with it); each micro-batch costs Spark's
planning, a summary commit and a rebuilt batch at each range edge: ~5-10 s of copying per
micro-batch on two cores, about MM2's offset flush interval (10 s)."""
_HEALTH_S: Final = 0.5
_METRICS_S: Final = 1.0  # MM2's metrics read from the copy's progress reports
_LANE_JOIN_S: Final = 10.0
EXACTLY_ONCE_SOURCE_SUPPORT: Final = "exactly.once.source.support"


def flow_settings(config: MirrorSourceConfig) -> FlowSettings:
    """A flow's settings from its MirrorSourceConnector config."""
    props = {k: str(v) for k, v in config.originals.items()}
    return FlowSettings(
        source_alias=config.source_cluster_alias,
        target_alias=config.target_cluster_alias,
        source_client=librdkafka_config(config.source_consumer_config()),
        target_client=librdkafka_config(config.target_producer_config()),
        policy=replication_policy(props),
        topic_filter=config.topic_filter(),
        config_filter=config.config_property_filter(),
        replication_factor=int(config.get(REPLICATION_FACTOR)),
        offset_lag_max=int(config.get(OFFSET_LAG_MAX)),
        emit_offset_syncs=bool(config.get(EMIT_OFFSET_SYNCS_ENABLED)),
        offset_syncs_location=config.offset_syncs_topic_location,
        heartbeats_replication=bool(config.get(HEARTBEATS_REPLICATION_ENABLED)),
        internal_replication_factor=int(config.get(OFFSET_SYNCS_TOPIC_REPLICATION_FACTOR)),
    )


def checkpoint_settings(config: MirrorCheckpointConfig, source: FlowSettings) -> CheckpointSettings:
    """A checkpoint flow's settings from its MirrorCheckpointConnector config."""
    return CheckpointSettings(
        source_alias=source.source_alias,
        target_alias=source.target_alias,
        source_client=librdkafka_config(config.source_admin_config()),
        target_client=librdkafka_config(config.target_admin_config()),
        policy=source.policy,
        topic_filter=source.topic_filter,
        group_filter=config.group_filter(),
        offset_syncs_topic=source.offset_syncs_topic,
        offset_syncs_client=source.offset_syncs_client,
        checkpoints_replication_factor=int(config.get(CHECKPOINTS_TOPIC_REPLICATION_FACTOR)),
        sync_group_offsets=bool(config.get(SYNC_GROUP_OFFSETS_ENABLED)),
    )


class UnreachableClusterError(MirrorConfigError):
    """A cluster named in mm2.properties did not answer."""


@dataclass
class _Job:
    """A periodic driver task: runs every *interval* seconds, errors logged, never fatal.

    Jobs of one *lane* run one after another on the lane's thread; lanes run side by side,
    so a job waiting on a cluster that does not answer (a checkpoint for a frozen target)
    holds up only its lane, never the health check or the lag and stall watch."""

    name: str
    interval: float
    run: Callable[[], Any]
    due: float = 0.0
    lane: str = ""


class MirrorMaker:
    """Runs the enabled flows of an mm2.properties until stopped."""

    def __init__(self, config: MirrorMakerConfig, targets: Iterable[str] | None = None) -> None:
        self.config = config
        wanted = set(targets) if targets else None
        self.pairs: list[SourceAndTarget] = [
            pair for pair in config.enabled_flows() if wanted is None or pair.target in wanted
        ]
        self.sources: dict[SourceAndTarget, MirrorSourceConfig] = {
            pair: MirrorSourceConfig(config.connector_base_config(pair, MIRROR_SOURCE_CONNECTOR))
            for pair in self.pairs
        }
        self.checkpoint_configs: dict[SourceAndTarget, MirrorCheckpointConfig] = {
            pair: MirrorCheckpointConfig(
                config.connector_base_config(pair, MIRROR_CHECKPOINT_CONNECTOR)
            )
            for pair in self.pairs
        }
        self.heartbeat_configs: dict[SourceAndTarget, MirrorHeartbeatConfig] = {
            pair: MirrorHeartbeatConfig(
                config.connector_base_config(pair, MIRROR_HEARTBEAT_CONNECTOR)
            )
            for pair in config.cluster_pairs(wanted)
        }
        self.heartbeats: dict[SourceAndTarget, MirrorHeartbeatFlow] = {}
        self.flows: dict[SourceAndTarget, MirrorSourceFlow] = {}
        self.checkpoints: dict[SourceAndTarget, MirrorCheckpointFlow] = {}
        self.jobs: list[_Job] = []
        self.canaries: dict[SourceAndTarget, Canary] = {}
        self.metrics = MirrorMetrics()  # MM2's metrics of this driver's flows
        self.metrics_server: MetricsServer | None = None
        self.spark: Any = None
        self._stop = threading.Event()

    def check_clusters(self, timeout: float = REACH_TIMEOUT_S) -> None:
        """Raise :class:`UnreachableClusterError` naming ``<alias>.bootstrap.servers`` for a
        cluster of the enabled flows that does not answer within *timeout*."""
        from confluent_kafka import KafkaException

        from seaway.kafka import clients

        aliases = sorted({a for pair in self.pairs for a in (pair.source, pair.target)})
        for alias in aliases:
            client = librdkafka_config(self.config.cluster_props(alias))
            try:
                clients.admin(client).list_topics(timeout=timeout)
            except KafkaException as error:
                raise UnreachableClusterError(
                    f"Cluster {alias} did not answer within {timeout:.0f} s at "
                    f"{alias}.bootstrap.servers={client.get('bootstrap.servers')} ({error}); "
                    "check the address and that the cluster is up."
                ) from error

    def start(self) -> None:
        from seaway.spark import spark_session
        from seaway.spark.warmup import warm_up_in_background

        self.check_clusters()
        raw = self.config.raw
        # The flows copy from the driver while Spark starts (seaway.mirror.early_copy).
        flows = self._prepare_flows()
        master = raw.get(SPARK_MASTER) or "local[*]"
        # Every other spark.* setting of mm2.properties goes to the session as it is.
        spark_config = {
            k: v for k, v in raw.items() if k.startswith("spark.") and k != SPARK_MASTER
        }
        try:
            self.spark = spark_session(
                master, app_name="seaway-mirror-maker", config=spark_config, records_in_jvm=False
            )
        except BaseException:
            for flow in flows:
                flow.stop()
            raise
        register(self.spark)
        # The flows' first tasks find their Python workers started (or starting). Their
        # queries end in Spark's noop sink: no Python writer to warm up, and a warm-up job
        # still queued when the flows' tasks hold every core would run in their hand-over.
        warm_up_in_background(self.spark, write=False)
        self.metrics_server = monitoring.metrics_server(
            raw, self.metrics, console=mirror_console(self)
        )
        self._start_heartbeats()
        now = time.monotonic()
        for (pair, source), flow in zip(self._enabled(), flows, strict=True):
            settings = flow.settings
            settings.follow_ms = self._follow_ms(str(pair), settings.exactly_once, len(flows))
            flow.spark = self.spark
            flow.start()
            self.flows[pair] = flow
            lag_interval = monitoring.lag_interval_s(raw, str(pair))
            watch = monitoring.stall_watch(raw, str(pair))
            self._every(
                f"{pair} replication lag",
                lag_interval,
                partial(monitoring.publish_lag, flow, self.metrics, watch=watch),
            )
            # health and refresh both stop and start the flow, metrics read its query: one lane
            lane = f"{pair} flow"
            self._every(f"{pair} health", _HEALTH_S, partial(self._restart_failed, flow), lane=lane)
            self._every(f"{pair} metrics", _METRICS_S, flow.record_metrics, lane=lane)
            if (interval := source.refresh_topics_interval()) is not None:
                self._every(
                    f"{pair} topic refresh", interval, flow.refresh, now + interval, lane=lane
                )
            if (interval := source.sync_topic_configs_interval()) is not None:
                self._every(f"{pair} topic config sync", interval, flow.sync_topic_configs)
            if (interval := source.sync_topic_acls_interval()) is not None:
                self._every(f"{pair} topic ACL sync", interval, flow.sync_topic_acls)
            checkpoint = self.checkpoint_configs[pair]
            interval = checkpoint.emit_checkpoints_interval()
            if interval is not None and settings.emit_offset_syncs:
                checkpoints = MirrorCheckpointFlow(
                    replace(checkpoint_settings(checkpoint, settings), metrics=self.metrics)
                )
                checkpoints.start()
                self.checkpoints[pair] = checkpoints
                self._every(f"{pair} checkpoints", interval, checkpoints.emit)
        log.info("MirrorMaker running flows %s", ", ".join(str(p) for p in self.flows))
        log.info("Mirror metrics at %s/metrics, console at %s/ui/", self.metrics_server.url,
                 self.metrics_server.url)  # fmt: skip

    def _enabled(self) -> list[tuple[SourceAndTarget, MirrorSourceConfig]]:
        return [(pair, source) for pair, source in self.sources.items() if source.enabled]

    def _prepare_flows(self) -> list[MirrorSourceFlow]:
        """The enabled flows (canaries started, topics not yet listed), each copying early
        unless following is off (``seaway.flow.follow.ms=0``: micro-batches only)."""
        raw = self.config.raw
        enabled = self._enabled()
        flows = []
        for pair, source in enabled:
            settings = flow_settings(source)
            worker = self.config.worker_config(pair)
            settings.exactly_once = worker.get(EXACTLY_ONCE_SOURCE_SUPPORT) == "enabled"
            settings.metrics = self.metrics
            batch = monitoring.positive_int(
                raw, MAX_RECORDS_PER_BATCH, MAX_RECORDS_PER_BATCH_DEFAULT, str(pair)
            )
            settings.spark_options.setdefault("maxOffsetsPerTrigger", str(batch))
            settings.trigger_ms = monitoring.non_negative_int(
                raw, TRIGGER_INTERVAL_MS, TRIGGER_INTERVAL_DEFAULT_MS, str(pair)
            )
            settings.flows = len(enabled)
            canary = monitoring.flow_canary(raw, settings, self.metrics)
            if canary is not None:
                canary.start()  # creates the canary topic before the flow lists the topics
                self.canaries[pair] = canary
            flow = MirrorSourceFlow(None, settings)
            if monitoring.non_negative_int(raw, FOLLOW_MS, FOLLOW_DEFAULT_MS, str(pair)):
                flow.start_early()
            flows.append(flow)
        return flows

    def _follow_ms(self, pair: str, exactly_once: bool, flows: int) -> int:
        """The flow's ``seaway.flow.follow.ms``, or 0 where its tasks cannot follow: an
        exactly-once flow, or more flows than the session has cores (a following task holds
        its core for the period, so a flow without one would wait out the others')."""
        raw = self.config.raw
        follow_ms = monitoring.non_negative_int(raw, FOLLOW_MS, FOLLOW_DEFAULT_MS, pair)
        if not follow_ms:
            return 0
        cores = session_cores(self.spark)
        if exactly_once:
            why = "is at least once only; the flow copies exactly once without following"
        elif cores is not None and flows > cores:
            why = (f"needs a core per flow, and {flows} flows share {cores}: the flows copy "
                   "micro-batch by micro-batch (give spark.master more cores)")  # fmt: skip
        else:
            return follow_ms
        explicit = FOLLOW_MS in raw or f"{pair}.{FOLLOW_MS}" in raw
        log.log(logging.WARNING if explicit else logging.INFO, "%s: %s %s", pair, FOLLOW_MS, why)
        return 0

    def _start_heartbeats(self) -> None:
        """One heartbeat flow per herder pair whose target has bootstrap servers."""
        for pair, config in self.heartbeat_configs.items():
            if not self.config.cluster_props(pair.target).get("bootstrap.servers"):
                log.warning("No heartbeats for %s: %s.bootstrap.servers is not set", pair,
                            pair.target)  # fmt: skip
                continue
            beats = MirrorHeartbeatFlow(heartbeat_settings(config))
            if not beats.settings.enabled:
                continue
            try:
                beats.start()
            except Exception:
                log.exception("Heartbeats of %s could not start; they stay off", pair)
                continue
            self.heartbeats[pair] = beats
            self._every(f"{pair} heartbeats", beats.settings.interval_s or 0.0, beats.emit)

    def _every(
        self,
        name: str,
        interval: float,
        run: Callable[[], Any],
        first: float | None = None,
        lane: str = "",
    ) -> None:
        due = first or time.monotonic()
        self.jobs.append(_Job(name, max(float(interval), 0.1), run, due, lane or name))

    @staticmethod
    def _restart_failed(flow: MirrorSourceFlow) -> None:
        failure = flow.failure()
        if failure is not None:
            log.error("Flow %s failed; restarting it from its offsets:\n%s", flow.name, failure)
            flow.stop()
            flow.start()

    def run(self) -> None:
        """Run the periodic jobs (health, refresh, syncs, checkpoints), each lane on its own
        thread, until :meth:`request_stop`."""
        lanes: dict[str, list[_Job]] = {}
        for job in self.jobs:
            lanes.setdefault(job.lane, []).append(job)
        threads = [
            threading.Thread(
                target=self._run_lane, args=(jobs,), name=f"mirror {lane}", daemon=True
            )
            for lane, jobs in lanes.items()
        ]
        for thread in threads:
            thread.start()
        self._stop.wait()
        for thread in threads:
            thread.join(_LANE_JOIN_S)  # a job stuck on a cluster is left behind (daemon)

    def _run_lane(self, jobs: list[_Job]) -> None:
        while True:
            wait = min(job.due for job in jobs) - time.monotonic()
            if self._stop.wait(max(wait, 0.0)):
                return
            for job in jobs:
                if self._stop.is_set() or time.monotonic() < job.due:
                    continue
                try:
                    job.run()
                except Exception:
                    log.exception("%s failed; retrying in %.0f s", job.name, job.interval)
                job.due = time.monotonic() + job.interval

    def request_stop(self) -> None:
        """Make :meth:`run` return (safe from a signal handler); :meth:`stop` stops."""
        self._stop.set()

    def stop(self) -> None:
        self._stop.set()
        for beats in self.heartbeats.values():
            beats.stop()
        for canary in self.canaries.values():
            canary.stop()
        for checkpoints in self.checkpoints.values():
            checkpoints.stop()
        for flow in self.flows.values():
            try:
                flow.stop()
            except Exception:
                log.warning("Stopping flow %s failed", flow.name, exc_info=True)
        if self.spark is not None:
            self.spark.stop()
            self.spark = None
        if self.metrics_server is not None:
            self.metrics_server.stop()
            self.metrics_server = None


__all__ = ["MirrorMaker", "UnreachableClusterError", "flow_settings"]

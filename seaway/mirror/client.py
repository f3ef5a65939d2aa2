"""Kafka's ``MirrorClient`` and ``RemoteClusterUtils``: read MM2's topology and checkpoints.

A :class:`MirrorClient` talks to one cluster (usually an MM2 *target*) through confluent-kafka:

* the topology queries (:meth:`~MirrorClient.heartbeat_topics`,
  :meth:`~MirrorClient.upstream_clusters`, :meth:`~MirrorClient.replication_hops`,
  :meth:`~MirrorClient.remote_topics`, ...) list the cluster's topics and interpret their
  names with the replication policy (:mod:`seaway.mirror.policy`);
* :meth:`~MirrorClient.remote_consumer_offsets` reads partition 0 of
  ``<remote>.checkpoints.internal`` on this cluster from the beginning and returns, per
  (target-side) partition, the downstream offset of the last checkpoint of one group: where that
  group should resume here after failing over from *remote*.

Properties are ``MirrorClientConfig``'s: ``bootstrap.servers``, ``replication.policy.class``,
``replication.policy.separator``, ``replication.policy.internal.topic.separator.enabled`` (and any
other setting the policy reads, such as ``source.cluster.alias`` for the identity policy),
security settings, and ``admin.*``/``consumer.*`` overrides for the two internal clients.
:meth:`seaway.mirror.config.MirrorMakerConfig.client_config` builds them from an
``mm2.properties``. The module functions (:func:`translate_offsets`, ...) are
``RemoteClusterUtils``: each opens a client, asks one question and closes it.

Differences from Kafka, all because the clients are librdkafka's:

* Client settings go to librdkafka as given. Unprefixed, only ``bootstrap.servers``,
  ``security.protocol``, ``ssl.*`` and ``sasl.*`` are used (Kafka: its client security
  settings); ``admin.<name>`` and ``consumer.<name>`` pass *every* ``<name>`` to that client
  (Kafka silently drops non-security ones, such as its own Javadoc example
  ``consumer.client.id``). Java-only names (``ssl.truststore.location``, ``sasl.jaas.config``)
  are rejected by librdkafka; use its names (``ssl.ca.location``, ``sasl.username``, ...).
  ``forwarding.admin.class`` is not supported.
* Every cluster call has a timeout in seconds (Kafka: ``default.api.timeout.ms``, 60 s). An
  unreachable cluster raises :class:`MirrorClientError` naming ``bootstrap.servers``.
* A missing checkpoints topic gives an empty result at once (Kafka's consumer waits for it to
  appear until it times out).
* The checkpoints topic is read up to its end offset when the call starts; later checkpoints
  are ignored (Kafka re-reads the end offset after every poll).
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Mapping
from datetime import timedelta
from types import TracebackType
from typing import Any, Final, cast

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient

from seaway.config import ConfigException
from seaway.kafka import clients
from seaway.kafka.timeouts import API_TIMEOUT_S
from seaway.mirror import policy as topology
from seaway.mirror.errors import MirrorError
from seaway.mirror.formats import Checkpoint, SchemaError
from seaway.mirror.policy import ReplicationPolicy, replication_policy

log = logging.getLogger(__name__)

__all__ = [
    "ADMIN_CLIENT_PREFIX",
    "CONSUMER_CLIENT_PREFIX",
    "DEFAULT_TIMEOUT_S",
    "MirrorClient",
    "MirrorClientError",
    "admin_config",
    "checkpoint_topics",
    "consumer_config",
    "heartbeat_topics",
    "replication_hops",
    "translate_offsets",
    "upstream_clusters",
]

BOOTSTRAP_SERVERS: Final = "bootstrap.servers"
SECURITY_PROTOCOL: Final = "security.protocol"
ADMIN_CLIENT_PREFIX: Final = "admin."
CONSUMER_CLIENT_PREFIX: Final = "consumer."
DEFAULT_TIMEOUT_S: Final = API_TIMEOUT_S
"""Timeout of the topology queries unless given (Kafka's ``default.api.timeout.ms``)."""

# Broker-internal topics, which Kafka's Admin.listTopics() leaves out (Topic.INTERNAL_TOPICS).
_KAFKA_INTERNAL_TOPICS: Final = frozenset(
    {"__consumer_offsets", "__transaction_state", "__share_group_state"}
)
_SECURITY_PREFIXES: Final = ("ssl.", "sasl.")
_POLL_S: Final = 0.5
# Consumer errors that end a checkpoint read at once (librdkafka retries the others).
_READ_ERRORS: Final = frozenset(
    {
        KafkaError.TOPIC_AUTHORIZATION_FAILED,
        KafkaError.CLUSTER_AUTHORIZATION_FAILED,
        KafkaError._AUTHENTICATION,
        KafkaError.SASL_AUTHENTICATION_FAILED,
    }
)
_BATCH: Final = 500

Timeout = float | timedelta
"""Seconds, or a :class:`~datetime.timedelta`."""


class MirrorClientError(MirrorError, RuntimeError):
    """The cluster could not be reached, or refused a request, within the timeout."""


def _seconds(timeout: Timeout) -> float:
    return timeout.total_seconds() if isinstance(timeout, timedelta) else float(timeout)


def _text(value: Any) -> Any:
    """A property value for librdkafka: lists joined with commas (Kafka's LIST type)."""
    if isinstance(value, (list, tuple)):
        return ",".join(str(item) for item in value)
    return value


def _is_client_setting(key: str) -> bool:
    return key in (BOOTSTRAP_SERVERS, SECURITY_PROTOCOL) or key.startswith(_SECURITY_PREFIXES)


def _client_config(props: Mapping[str, Any], prefix: str) -> dict[str, Any]:
    settings = {k: _text(v) for k, v in props.items() if _is_client_setting(k) and v is not None}
    settings.update(
        (key[len(prefix) :], _text(value))
        for key, value in props.items()
        if key.startswith(prefix) and len(key) > len(prefix) and value is not None
    )
    return settings


def admin_config(props: Mapping[str, Any]) -> dict[str, Any]:
    """The admin client's librdkafka settings: the cluster's connection and security settings,
    overridden by ``admin.*`` (Kafka's ``MirrorClientConfig.adminConfig``)."""
    return _client_config(props, ADMIN_CLIENT_PREFIX)


def consumer_config(props: Mapping[str, Any]) -> dict[str, Any]:
    """The checkpoint consumer's librdkafka settings: the cluster's connection and security
    settings, overridden by ``consumer.*`` (Kafka's ``MirrorClientConfig.consumerConfig``)."""
    return _client_config(props, CONSUMER_CLIENT_PREFIX)


def _error_text(exc: KafkaException) -> str:
    error = exc.args[0] if exc.args else None
    return error.str() if isinstance(error, KafkaError) else str(exc)


class MirrorClient:
    """Interprets MM2's internal topics (heartbeats, checkpoints) on one cluster.

    *timeout* (seconds) bounds each topology query that is not given its own. Use it as a
    context manager, or call :meth:`close`.
    """

    def __init__(self, props: Mapping[str, Any], *, timeout: Timeout = DEFAULT_TIMEOUT_S) -> None:
        servers = _text(props.get(BOOTSTRAP_SERVERS))
        if not servers or not str(servers).strip():
            raise ConfigException(BOOTSTRAP_SERVERS, servers, "a MirrorClient needs a cluster")
        self._policy = replication_policy(props)
        self._admin_config = admin_config(props)
        self._consumer_config = consumer_config(props)
        self._bootstrap = str(self._admin_config.get(BOOTSTRAP_SERVERS, servers))
        self._timeout = _seconds(timeout)
        self._admin: AdminClient | None = clients.admin(
            {"log.connection.close": False, **self._admin_config, "logger": log}
        )

    # -- lifecycle ---------------------------------------------------------------------------

    def close(self) -> None:
        """Release the admin client; later calls raise :class:`MirrorClientError`."""
        self._admin = None

    def __enter__(self) -> MirrorClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def replication_policy(self) -> ReplicationPolicy:
        """The policy that names and recognises remote topics (``replication.policy.class``)."""
        return self._policy

    # -- topology ----------------------------------------------------------------------------

    def list_topics(self, timeout: Timeout | None = None) -> set[str]:
        """The cluster's topics, without the broker's own (``__consumer_offsets``, ...)."""
        admin = self._open_admin()
        seconds = self._timeout if timeout is None else _seconds(timeout)
        try:
            metadata = admin.list_topics(timeout=max(seconds, 0.001))
        except KafkaException as exc:
            raise self._unreachable(seconds, exc) from exc
        return {name for name in metadata.topics if name not in _KAFKA_INTERNAL_TOPICS}

    def _open_admin(self) -> AdminClient:
        if self._admin is None:
            raise MirrorClientError("The MirrorClient is closed")
        return self._admin

    def _unreachable(self, seconds: float, exc: KafkaException) -> MirrorClientError:
        return MirrorClientError(
            f"Could not list the topics of the Kafka cluster at bootstrap.servers="
            f"'{self._bootstrap}' within {seconds:g} s: {_error_text(exc)}"
        )

    def replication_hops(self, upstream_cluster_alias: str, timeout: Timeout | None = None) -> int:
        """The fewest replication hops from *upstream_cluster_alias* to this cluster, by its
        heartbeats topics (``A.heartbeats``: 1 from A; ``B.A.heartbeats``: 2); -1 if none."""
        topics = self.list_topics(timeout)
        return topology.replication_hops(self._policy, topics, upstream_cluster_alias)

    def heartbeat_topics(self, timeout: Timeout | None = None) -> set[str]:
        """The heartbeats topics here: ``heartbeats`` and those replicated from other clusters."""
        return topology.heartbeat_topics(self._policy, self.list_topics(timeout))

    def checkpoint_topics(self, timeout: Timeout | None = None) -> set[str]:
        """The checkpoints topics here (``<alias>.checkpoints.internal``)."""
        return topology.checkpoint_topics(self._policy, self.list_topics(timeout))

    def upstream_clusters(self, timeout: Timeout | None = None) -> set[str]:
        """Every cluster replicating into this one, directly or through others (by heartbeats)."""
        return topology.upstream_clusters(self._policy, self.list_topics(timeout))

    def remote_topics(self, timeout: Timeout | None = None) -> set[str]:
        """The replicated topics here, without internal ones (heartbeats topics included)."""
        return topology.remote_topics(self._policy, self.list_topics(timeout))

    def remote_topics_from(self, source: str, timeout: Timeout | None = None) -> set[str]:
        """The topics replicated here directly from *source* (Kafka's ``remoteTopics(source)``)."""
        return topology.remote_topics(self._policy, self.list_topics(timeout), source)

    # -- checkpoints -------------------------------------------------------------------------

    def remote_consumer_checkpoints(
        self, consumer_group_id: str, remote_cluster_alias: str, timeout: Timeout
    ) -> dict[TopicPartition, Checkpoint]:
        """The last checkpoint of *consumer_group_id* per target-side partition.

        Reads partition 0 of ``policy.checkpoints_topic(remote_cluster_alias)`` on this cluster
        from the beginning up to its end offset at call time, skipping records that are not
        checkpoints (malformed, unknown version, tombstones); a later checkpoint replaces an
        earlier one even if its offsets are lower. If *timeout* runs out first, the checkpoints
        read so far are returned (as Kafka does) and a warning is logged. A missing topic gives
        ``{}``; an unreachable cluster raises :class:`MirrorClientError`.
        """
        self._open_admin()
        seconds = _seconds(timeout)
        deadline = time.monotonic() + seconds
        topic = self._policy.checkpoints_topic(remote_cluster_alias)
        if seconds <= 0:
            return {}
        if topic not in self.list_topics(seconds):
            log.info("Checkpoints topic %s does not exist; no offsets to translate", topic)
            return {}
        settings = {
            "group.id": f"mirror-client-{uuid.uuid4().hex}",
            "isolation.level": "read_uncommitted",
            "log.connection.close": False,
            "logger": log,
            **self._consumer_config,
            "enable.auto.commit": False,
            "enable.auto.offset.store": False,
            "enable.partition.eof": True,
        }
        consumer = clients.consumer(settings)
        try:
            latest = self._read_checkpoints(consumer, topic, consumer_group_id, deadline)
        finally:
            consumer.close()
        log.info(
            "Consumed %d checkpoint records for %s from %s.", len(latest), consumer_group_id, topic
        )
        return {TopicPartition(name, partition): cp for (name, partition), cp in latest.items()}

    def _read_checkpoints(
        self, consumer: Consumer, topic: str, group: str, deadline: float
    ) -> dict[tuple[str, int], Checkpoint]:
        latest: dict[tuple[str, int], Checkpoint] = {}
        remaining = deadline - time.monotonic()
        try:
            low, end = consumer.get_watermark_offsets(
                TopicPartition(topic, 0), timeout=max(remaining, 0.001), cached=False
            )
        except KafkaException as exc:
            raise MirrorClientError(
                f"Could not read the end offset of {topic}-0 on the Kafka cluster at "
                f"bootstrap.servers='{self._bootstrap}': {_error_text(exc)}"
            ) from exc
        if end <= low:
            return latest
        consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
        position = low
        while position < end:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                log.warning(
                    "Timed out reading %s at offset %d of %d; using the checkpoints read so far",
                    topic,
                    position,
                    end,
                )
                break
            for message in consumer.consume(_BATCH, timeout=min(remaining, _POLL_S)):
                error = message.error()
                if error is not None:
                    if error.code() == KafkaError._PARTITION_EOF:
                        position = end  # the broker has nothing more (gaps, markers, LSO)
                    elif error.fatal() or error.code() in _READ_ERRORS:
                        raise MirrorClientError(
                            f"Could not read {topic} on the Kafka cluster at bootstrap.servers="
                            f"'{self._bootstrap}': {error.str()}"
                        )
                    else:
                        log.debug("Reading %s: %s", topic, error.str())
                    continue
                offset = cast(int, message.offset())  # set on every record
                if offset >= end:
                    position = end
                    continue
                position = offset + 1
                try:
                    checkpoint = Checkpoint.from_record(message.key(), message.value())
                except SchemaError as exc:
                    log.info("Could not deserialize %s-0@%d. Skipping: %s", topic, offset, exc)
                    continue
                if checkpoint.consumer_group_id == group:
                    latest[(checkpoint.topic, checkpoint.partition)] = checkpoint
        return latest

    def remote_consumer_offsets(
        self, consumer_group_id: str, remote_cluster_alias: str, timeout: Timeout
    ) -> dict[TopicPartition, int]:
        """Translate a group's offsets on *remote_cluster_alias* into offsets on this cluster.

        Keys are the target-side partitions (already renamed by the policy, ``A.orders``);
        values are the downstream offsets of the last checkpoints, as read by
        :meth:`remote_consumer_checkpoints`. Each key also carries that offset and the
        checkpoint's metadata, so ``consumer.commit(offsets=list(result))`` commits them.
        """
        checkpoints = self.remote_consumer_checkpoints(
            consumer_group_id, remote_cluster_alias, timeout
        )
        return {
            TopicPartition(tp.topic, tp.partition, cp.downstream_offset, cp.metadata): (
                cp.downstream_offset
            )
            for tp, cp in checkpoints.items()
        }


# -- RemoteClusterUtils ------------------------------------------------------------------------


def replication_hops(
    props: Mapping[str, Any], upstream_cluster_alias: str, *, timeout: Timeout = DEFAULT_TIMEOUT_S
) -> int:
    """The fewest hops from *upstream_cluster_alias* to the cluster of *props*; -1 if none."""
    with MirrorClient(props, timeout=timeout) as client:
        return client.replication_hops(upstream_cluster_alias)


def heartbeat_topics(props: Mapping[str, Any], *, timeout: Timeout = DEFAULT_TIMEOUT_S) -> set[str]:
    """The heartbeats topics of the cluster of *props*."""
    with MirrorClient(props, timeout=timeout) as client:
        return client.heartbeat_topics()


def checkpoint_topics(
    props: Mapping[str, Any], *, timeout: Timeout = DEFAULT_TIMEOUT_S
) -> set[str]:
    """The checkpoints topics of the cluster of *props*."""
    with MirrorClient(props, timeout=timeout) as client:
        return client.checkpoint_topics()


def upstream_clusters(
    props: Mapping[str, Any], *, timeout: Timeout = DEFAULT_TIMEOUT_S
) -> set[str]:
    """Every cluster replicating into the cluster of *props*, directly or not."""
    with MirrorClient(props, timeout=timeout) as client:
        return client.upstream_clusters()


def translate_offsets(
    props: Mapping[str, Any], remote_cluster_alias: str, consumer_group_id: str, timeout: Timeout
) -> dict[TopicPartition, int]:
    """A remote group's offsets translated into the cluster of *props*
    (:meth:`MirrorClient.remote_consumer_offsets`)."""
    with MirrorClient(props, timeout=timeout) as client:
        return client.remote_consumer_offsets(consumer_group_id, remote_cluster_alias, timeout)

"""A Kafka cluster as the batch client sees it: brokers, partition leaders, coordinators.

Connections are opened on first use and kept, one per broker. Metadata is asked for the
topics in use and asked again when a broker says it no longer leads a partition or a
connection breaks. :meth:`KafkaCluster.retrying` runs a call until it succeeds, fails with
an error that is not retriable, or runs out of time, backing off between attempts.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from typing import Any, Final, TypeVar

from kio.schema.types import TopicName

from seaway.kafka.connection import Connection, KafkaConnectionError, parse_servers
from seaway.kafka.security import PLAINTEXT, ClientSecurity
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make, nested

__all__ = ["EARLIEST", "LATEST", "KafkaCluster", "list_offset", "raise_for"]

log = logging.getLogger(__name__)

T = TypeVar("T")

GROUP: Final = 0
TRANSACTION: Final = 1

# Errors a retry can cure once metadata or the coordinator is asked again.
_REFRESH: Final = frozenset(
    {
        ErrorCode.not_leader_or_follower,
        ErrorCode.leader_not_available,
        ErrorCode.unknown_topic_or_partition,
        ErrorCode.not_coordinator,
        ErrorCode.coordinator_not_available,
        ErrorCode.fenced_leader_epoch,
        ErrorCode.unknown_leader_epoch,
    }
)


def raise_for(code: Any, what: str, message: str | None = None) -> None:
    """Raise :class:`KafkaError` for a non-zero ``error_code`` of *what*."""
    code = ErrorCode(code)
    if code != ErrorCode.none:
        raise KafkaError(code, f"{what}: {message}" if message else what)


class KafkaCluster:
    """Brokers of one cluster reached from ``bootstrap.servers``."""

    def __init__(
        self,
        bootstrap_servers: str,
        *,
        client_id: str = "seaway",
        request_timeout_s: float = 30.0,
        retry_backoff_s: float = 0.1,
        security: ClientSecurity = PLAINTEXT,
    ) -> None:
        self.bootstrap = parse_servers(bootstrap_servers)
        self.security = security
        self.bootstrap_servers = bootstrap_servers
        self.client_id = client_id
        self.request_timeout_s = request_timeout_s
        self.retry_backoff_s = retry_backoff_s
        self._brokers: dict[int, tuple[str, int]] = {}
        self._connections: dict[int, Connection] = {}
        self._bootstrap_connection: Connection | None = None
        self._leaders: dict[tuple[str, int], int] = {}
        self._partition_counts: dict[str, int] = {}
        self._coordinators: dict[tuple[int, str], int] = {}

    # --- connections ----------------------------------------------------------------------

    def _open(self, host: str, port: int) -> Connection:
        return Connection(host, port, client_id=self.client_id, timeout_s=self.request_timeout_s,
                          security=self.security)  # fmt: skip

    def any_connection(self) -> Connection:
        """A connection to some broker: a known one, else the first bootstrap that answers."""
        for connection in self._connections.values():
            if not connection.closed:
                return connection
        if self._bootstrap_connection and not self._bootstrap_connection.closed:
            return self._bootstrap_connection
        errors = []
        for host, port in self.bootstrap:
            try:
                self._bootstrap_connection = self._open(host, port)
                return self._bootstrap_connection
            except KafkaConnectionError as error:
                errors.append(str(error))
        raise KafkaConnectionError(
            f"no broker of bootstrap.servers={self.bootstrap_servers} answered: {'; '.join(errors)}"
        )

    def connection(self, node_id: int) -> Connection:
        """The connection to broker *node_id* (opened if needed)."""
        connection = self._connections.get(node_id)
        if connection is None or connection.closed:
            if node_id not in self._brokers:
                self.refresh()
            if node_id not in self._brokers:
                raise KafkaError(ErrorCode.broker_not_available, f"broker {node_id} is unknown")
            connection = self._connections[node_id] = self._open(*self._brokers[node_id])
        return connection

    def close(self) -> None:
        for connection in [*self._connections.values(), self._bootstrap_connection]:
            if connection is not None:
                connection.close()
        self._connections.clear()
        self._bootstrap_connection = None

    # --- metadata -------------------------------------------------------------------------

    def refresh(self, topics: Iterable[str] = (), *, create: bool = False) -> None:
        """Ask for brokers and the leaders of *topics* (and of the topics already known);
        *create*: as a producer asks, so a broker that auto-creates topics creates them."""
        names = sorted({*topics, *self._partition_counts})
        connection = self.any_connection()
        cls = connection.request_class(ApiKey.METADATA, 1, 12)
        topic_cls = nested(cls, "MetadataRequestTopic")
        request = make(
            cls,
            topics=tuple(make(topic_cls, name=TopicName(n), topic_id=None) for n in names),
            allow_auto_topic_creation=create,
            include_topic_authorized_operations=False,
            include_cluster_authorized_operations=False,
        )
        response = connection.request(request)
        self._brokers = {int(b.node_id): (b.host, int(b.port)) for b in response.brokers}
        for topic in response.topics:
            if topic.error_code != ErrorCode.none:
                self._partition_counts.pop(topic.name, None)
                continue
            self._partition_counts[topic.name] = len(topic.partitions)
            for p in topic.partitions:
                key = (topic.name, int(p.partition_index))
                if p.error_code == ErrorCode.none and p.leader_id >= 0:
                    self._leaders[key] = int(p.leader_id)
                else:
                    self._leaders.pop(key, None)

    def partition_count(self, topic: str, *, create: bool = False) -> int:
        """How many partitions *topic* has; KafkaError if it does not exist (*create*: see
        :meth:`refresh`)."""
        if topic not in self._partition_counts:
            self.refresh([topic], create=create)
        if topic not in self._partition_counts:
            raise KafkaError(
                ErrorCode.unknown_topic_or_partition,
                f"topic {topic} does not exist on {self.bootstrap_servers}",
            )
        return self._partition_counts[topic]

    def leader(self, topic: str, partition: int) -> Connection:
        """The connection to the leader of *topic*/*partition*."""
        key = (topic, partition)
        if key not in self._leaders:
            self.refresh([topic])
        if key not in self._leaders:
            raise KafkaError(
                ErrorCode.leader_not_available, f"no leader for {topic}[{partition}] yet"
            )
        return self.connection(self._leaders[key])

    def coordinator(self, key: str, key_type: int) -> Connection:
        """The connection to the group (0) or transaction (1) coordinator of *key*."""
        node = self._coordinators.get((key_type, key))
        if node is None:
            connection = self.any_connection()
            cls = connection.request_class(ApiKey.FIND_COORDINATOR, 1, 3)
            response = connection.request(make(cls, key=key, key_type=key_type))
            raise_for(response.error_code, f"FindCoordinator({key})", response.error_message)
            node = int(response.node_id)
            self._brokers[node] = (response.host, int(response.port))
            self._coordinators[(key_type, key)] = node
        return self.connection(node)

    def forget(self, error: BaseException) -> None:
        """After *error*, drop what it shows to be stale (leaders, coordinators, links)."""
        if isinstance(error, KafkaConnectionError) or (
            isinstance(error, KafkaError) and error.code in _REFRESH
        ):
            self._leaders.clear()
            self._coordinators.clear()
            for node, connection in list(self._connections.items()):
                if connection.closed:
                    del self._connections[node]

    def topic_config(self, topic: str, name: str) -> str | None:
        """The value of config *name* of *topic* (the broker's default when not set)."""
        connection = self.any_connection()
        cls = connection.request_class(ApiKey.DESCRIBE_CONFIGS, 1, 4)
        resource_cls = nested(cls, "DescribeConfigsResource")
        request = make(
            cls,
            resources=(
                make(
                    resource_cls, resource_type=2, resource_name=topic, configuration_keys=(name,)
                ),
            ),
            include_synonyms=False,
            include_documentation=False,
        )
        (result,) = connection.request(request).results
        raise_for(result.error_code, f"DescribeConfigs({topic})", result.error_message)
        return next((c.value for c in result.configs if c.name == name), None)

    # --- retries --------------------------------------------------------------------------

    def retrying(self, call: Callable[[], T], what: str, timeout_s: float | None = None) -> T:
        """Run *call* until it succeeds; retry retriable errors with backoff until the time
        runs out, then raise the last error naming *what*."""
        deadline = time.monotonic() + (timeout_s or self.request_timeout_s)
        backoff = self.retry_backoff_s
        while True:
            try:
                return call()
            except (KafkaConnectionError, KafkaError) as error:
                retriable = isinstance(error, KafkaConnectionError) or error.retriable
                if not retriable or time.monotonic() + backoff > deadline:
                    raise
                log.debug("%s: %s; retrying in %.2f s", what, error, backoff)
                self.forget(error)
                time.sleep(backoff)
                backoff = min(backoff * 2, 1.0)


EARLIEST: Final = -2
LATEST: Final = -1


def list_offset(cluster: KafkaCluster, topic: str, partition: int, timestamp: int) -> int:
    """The offset ListOffsets gives for *timestamp* (:data:`EARLIEST`, :data:`LATEST`, or
    a time in ms), read_uncommitted."""

    def call() -> int:
        connection = cluster.leader(topic, partition)
        cls = connection.request_class(ApiKey.LIST_OFFSETS, 1, 7)
        topic_cls, partition_cls = (
            nested(cls, "ListOffsetsTopic"),
            nested(cls, "ListOffsetsPartition"),
        )
        request = make(
            cls,
            replica_id=-1,
            isolation_level=0,
            topics=(
                make(
                    topic_cls,
                    name=TopicName(topic),
                    partitions=(
                        make(
                            partition_cls,
                            partition_index=partition,
                            current_leader_epoch=-1,
                            timestamp=timestamp,
                        ),
                    ),
                ),
            ),
        )
        (result,) = connection.request(request).topics[0].partitions
        raise_for(result.error_code, f"ListOffsets({topic}[{partition}])")
        return int(result.offset)

    return cluster.retrying(call, f"ListOffsets({topic}[{partition}])")

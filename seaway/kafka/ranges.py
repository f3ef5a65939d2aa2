"""An offset range, and the one place that picks who fetches and who produces it.

Every hot path above this package (the Spark Kafka source's reader, the mirror's copy)
reads a range as raw record batches (:class:`RangeFetcher`) and, for the mirror, writes
raw record batches (:class:`RangeProducer`). Seaway's batch client does both wherever it
reaches the cluster (PLAINTEXT, TLS, SASL PLAIN and SCRAM:
:func:`~seaway.kafka.pool.batch_client_reaches`); for the SASL mechanisms it does not
speak (GSSAPI, OAUTHBEARER) librdkafka does, behind the same interfaces
(:mod:`~seaway.kafka.librdkafka_fetcher`, :mod:`~seaway.kafka.librdkafka_producer`), so
the callers cannot tell which one they got. :func:`range_fetcher` and
:func:`range_producer` choose; their ``librdkafka`` keyword forces one side (tests).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from seaway.kafka import pool
from seaway.kafka.fetcher import DataLossHandler, FetchedBatch, PartitionFetcher
from seaway.kafka.follower import Follower
from seaway.kafka.librdkafka_fetcher import LibrdkafkaFetcher
from seaway.kafka.librdkafka_producer import LibrdkafkaProducer
from seaway.kafka.producer import BatchProducer, Delivery
from seaway.kafka.timeouts import REQUEST_TIMEOUT_S

__all__ = [
    "OffsetRange",
    "RangeFetcher",
    "RangeProducer",
    "range_fetcher",
    "range_follower",
    "range_producer",
    "uses_librdkafka",
]


@dataclass(frozen=True, slots=True)
class OffsetRange:
    """Records ``[start, end)`` of one topic partition: one task's work."""

    topic: str
    partition: int
    start: int
    end: int

    @property
    def size(self) -> int:
        return self.end - self.start


class RangeFetcher(Protocol):
    """Fetches one partition as record batches (:class:`PartitionFetcher`'s contract)."""

    def batches(
        self, start: int, end: int, *, timeout_s: float = ..., on_data_loss: DataLossHandler = ...
    ) -> Iterator[FetchedBatch]: ...


class RangeProducer(Protocol):
    """Produces record batches, idempotent or transactional (:class:`BatchProducer`'s
    surface; a :class:`~seaway.kafka.transactions.Transactional` too)."""

    transactional_id: str | None

    def init(self) -> None: ...
    def send(
        self, topic: str, partition: int, batch: bytes | bytearray | memoryview, tag: Any = None
    ) -> Delivery: ...
    def send_all(
        self, batches: Sequence[tuple[str, int, bytes | bytearray | memoryview, Any]]
    ) -> list[Delivery]: ...
    def flush(self) -> None: ...
    def take_acked(self) -> list[Delivery]: ...
    def topic_config(self, topic: str, name: str) -> str | None: ...
    def partition_count(self, topic: str) -> int: ...
    def begin(self) -> None: ...
    def send_offsets(self, group_id: str, offsets: dict[tuple[str, int], int]) -> None: ...
    def commit(self) -> None: ...
    def abort(self) -> None: ...
    def fatal_error(self) -> Any: ...


def uses_librdkafka(config: Mapping[str, Any], librdkafka: bool | None = None) -> bool:
    """Whether a cluster of librdkafka settings *config* is fetched from and produced to
    with librdkafka: as *librdkafka* says, else where the batch client does not reach it."""
    if librdkafka is not None:
        return librdkafka
    return not pool.batch_client_reaches(config)


def range_fetcher(
    config: Mapping[str, Any],
    topic: str,
    partition: int,
    *,
    client_id: str,
    librdkafka: bool | None = None,
    api_timeout_s: float = REQUEST_TIMEOUT_S,
) -> RangeFetcher:
    """The fetcher of *topic*/*partition* for a consumer of librdkafka settings *config*
    (``bootstrap.servers``, security, ``isolation.level``, a ``group.id`` for librdkafka);
    the process's clients are shared (:mod:`seaway.kafka.pool`)."""
    if uses_librdkafka(config, librdkafka):
        return LibrdkafkaFetcher(config, topic, partition, api_timeout_s=api_timeout_s)
    cluster = pool.shared_cluster(str(config["bootstrap.servers"]), client_id, config)
    read_committed = config.get("isolation.level") == "read_committed"
    return PartitionFetcher(cluster, topic, partition, read_committed=read_committed)


def range_follower(
    config: Mapping[str, Any], positions: dict[tuple[str, int], int], *, client_id: str
) -> Follower | None:
    """A :class:`~seaway.kafka.follower.Follower` of *positions* for a consumer of
    librdkafka settings *config*, on the process's shared cluster; None where the batch
    client does not reach the cluster (librdkafka's consumer does not follow)."""
    if uses_librdkafka(config):
        return None
    cluster = pool.shared_cluster(str(config["bootstrap.servers"]), client_id, config)
    read_committed = config.get("isolation.level") == "read_committed"
    return Follower(cluster, positions, read_committed=read_committed)


def range_producer(
    config: Mapping[str, Any],
    transactional_id: str | None = None,
    *,
    client_id: str,
    librdkafka: bool | None = None,
) -> RangeProducer:
    """The process's producer for librdkafka settings *config* (one per transactional id),
    initialized when made: a transactional id fences its older producers and aborts their
    open transaction. One that failed must be dropped (:func:`seaway.kafka.pool.drop`)."""
    bootstrap = str(config["bootstrap.servers"])
    if uses_librdkafka(config, librdkafka):

        def make_librdkafka() -> LibrdkafkaProducer:
            made = LibrdkafkaProducer(config, transactional_id=transactional_id)
            made.init()
            return made

        key = ("librdkafka range producer", tuple(sorted(config.items())), transactional_id)
        return pool.shared(key, make_librdkafka, LibrdkafkaProducer.close)

    def make() -> BatchProducer:
        cluster = pool.shared_cluster(bootstrap, client_id, config)
        made = BatchProducer(cluster, transactional_id=transactional_id)
        made.init()
        return made

    # Dropped when it failed, with its connections: answers still on their way to it must
    # not reach the next producer (they are reopened on next use).
    return pool.shared(
        ("batch producer", bootstrap, client_id, transactional_id), make,
        lambda producer: producer.cluster.close(),
    )  # fmt: skip

"""The clients a process shares between its tasks, under one lock; whether the batch client
reaches a cluster.

Spark runs a Python worker's tasks one after the other and reuses the worker, so clients
outlive a task, as the JVM's producer and consumer caches do: the batch client's clusters
(:func:`shared_cluster`), librdkafka's producers, consumers and
admin clients keyed by their config, and whatever else a caller keys itself
(:func:`shared`). A client that failed is dropped (:func:`drop`); the rest are closed when
the process exits (:func:`close_all`), so none goes on calling brokers that are gone.
"""

from __future__ import annotations

import atexit
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from typing import Any, Final, TypeVar

from seaway.config import ConfigException
from seaway.kafka import clients
from seaway.kafka.cluster import KafkaCluster
from seaway.kafka.security import ClientSecurity
from seaway.kafka.timeouts import API_TIMEOUT_S

__all__ = [
    "TIMEOUT_S",
    "admin",
    "batch_client_reaches",
    "close_all",
    "connect",
    "consumer",
    "drop",
    "group_metadata",
    "init_transactions",
    "producer",
    "shared",
    "shared_cluster",
]

log = logging.getLogger(__name__)

T = TypeVar("T")
Release = Callable[[Any], None]

TIMEOUT_S: Final = API_TIMEOUT_S
CONSUMERS_MAX: Final = 8  # consumers kept per process; the least recently used is closed

_ENTRIES: OrderedDict[tuple[Hashable, ...], tuple[Any, Release | None]] = OrderedDict()
_LOCK = threading.RLock()


def shared(
    key: tuple[Hashable, ...],
    make: Callable[[], T],
    release: Release | None = None,
    *,
    limit: int | None = None,
) -> T:
    """The process's object for *key* (``(kind, ...)``), made on first use; *release* frees
    it when it is dropped, evicted or the process exits. With *limit*, at most that many
    objects of its kind are kept: the least recently used go."""
    with _LOCK:
        entry = _ENTRIES.get(key)
        if entry is None:
            entry = _ENTRIES[key] = (make(), release)
            if limit is not None:
                for old in [k for k in _ENTRIES if k[0] == key[0]][:-limit]:
                    _release(_ENTRIES.pop(old))
        _ENTRIES.move_to_end(key)
        return entry[0]


def drop(client: Any) -> None:
    """Forget *client*, one that failed, and release it (a producer's queue is purged, so
    nothing it holds is sent later)."""
    with _LOCK:
        entries = [_ENTRIES.pop(k) for k, (v, _) in list(_ENTRIES.items()) if v is client]
    for entry in entries:
        _release(entry)


@atexit.register
def close_all() -> None:
    """Release every shared client (at process exit)."""
    with _LOCK:
        entries = list(_ENTRIES.values())
        _ENTRIES.clear()
    for entry in reversed(entries):
        _release(entry)


def _release(entry: tuple[Any, Release | None]) -> None:
    value, release = entry
    if release is not None:
        try:
            release(value)
        except Exception:  # a broken client may refuse; it is forgotten anyway
            log.debug("Could not release %r", value, exc_info=True)


def _key(config: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted(config.items()))


# --- Seaway's batch client ------------------------------------------------------------------


def batch_client_reaches(config: Mapping[str, Any]) -> bool:
    """Whether Seaway's batch client can reach a cluster with these librdkafka settings:
    PLAINTEXT, SSL and SASL (PLAIN, SCRAM) can; for other SASL mechanisms librdkafka
    fetches and produces behind the same interfaces (:mod:`seaway.kafka.ranges`)."""
    try:
        ClientSecurity.from_config(config)
    except ConfigException:
        return False
    return True


def shared_cluster(
    bootstrap_servers: str, client_id: str, config: Mapping[str, Any]
) -> KafkaCluster:
    """The process's cluster for ``(bootstrap_servers, client_id)`` and the security of the
    librdkafka settings *config*, made on first use."""
    security = ClientSecurity.from_config(config)
    return shared(
        ("cluster", bootstrap_servers, client_id, security),
        lambda: KafkaCluster(bootstrap_servers, client_id=client_id, security=security),
        KafkaCluster.close,
    )


# --- librdkafka (confluent-kafka) clients ---------------------------------------------------


def connect(client: Any, timeout_s: float = TIMEOUT_S) -> None:
    """Have a librdkafka client connect to the cluster now. It asks for a producer id
    before any broker connection is up and then waits a fixed 500 ms to retry; two
    metadata requests make it connect first (the second to the broker the first named)."""
    client.list_topics(timeout=timeout_s)
    client.list_topics(timeout=timeout_s)


def init_transactions(producer: Any, timeout_s: float = TIMEOUT_S) -> None:
    """Initialize a transactional producer: this fences every older producer with its
    ``transactional.id`` and aborts the transaction they left open."""
    connect(producer, timeout_s)
    producer.init_transactions(timeout_s)


def _purge(producer: Any) -> None:
    producer.purge()
    producer.poll(0)  # serve the purged records' reports, so none lingers


def producer(config: Mapping[str, Any], *, connected: bool = False) -> Any:
    """The process's producer for *config*; *connected*: connected when made
    (:func:`connect`; an idempotent producer then gets its id at once)."""

    def make() -> Any:
        made = clients.producer(config)
        if connected:
            connect(made)
        return made

    return shared(("producer", _key(config)), make, _purge)


def consumer(config: Mapping[str, Any]) -> Any:
    """The process's consumer for *config* (at most :data:`CONSUMERS_MAX` are kept)."""
    return shared(
        ("consumer", _key(config)), lambda: clients.consumer(config), lambda c: c.close(),
        limit=CONSUMERS_MAX,
    )  # fmt: skip


def admin(config: Mapping[str, Any]) -> Any:
    """The process's admin client for *config*."""
    return shared(("admin", _key(config)), lambda: clients.admin(config))


def group_metadata(config: Mapping[str, Any], group: str) -> Any:
    """The consumer group metadata a transactional producer commits *group*'s offsets with
    (``send_offsets_to_transaction``); a consumer of *config* makes it, then closes."""

    def make() -> Any:
        made = clients.consumer(config, {"group.id": group})
        try:
            return made.consumer_group_metadata()
        finally:
            made.close()

    return shared(("group metadata", group, _key(config)), make)

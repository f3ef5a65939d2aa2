"""A log over a compacted Kafka topic: Kafka Connect's ``KafkaBasedLog``.

:class:`TopicBackedLog` creates its topic if it is missing (always ``cleanup.policy=compact``),
reads every partition from the beginning when started, and keeps reading in a background
thread, handing each record to a callback. Writes go through an idempotent producer with
``acks=all``; :meth:`~TopicBackedLog.read_to_end` waits until everything up to the current
end offsets (own writes included) has reached the callback.

>>> log = TopicBackedLog(TopicSpec("connect-offsets", partitions=25),
...                      {"bootstrap.servers": "localhost:9092"}, on_record=print)
>>> log.start()                                 # doctest: +SKIP
>>> log.send(b"key", b"value").result(30)       # doctest: +SKIP
>>> log.read_to_end(30)                         # doctest: +SKIP
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Final

from confluent_kafka import (
    OFFSET_BEGINNING,
    Consumer,
    IsolationLevel,
    KafkaError,
    KafkaException,
    Producer,
    TopicPartition,
)
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic, OffsetSpec, ResourceType

from seaway.config import ConfigException
from seaway.connect.api.errors import ConnectError
from seaway.kafka import clients
from seaway.kafka.timeouts import REQUEST_TIMEOUT_S

log = logging.getLogger(__name__)

__all__ = ["LogRecord", "RecordCallback", "TopicBackedLog", "TopicSpec"]

CLEANUP_POLICY_CONFIG: Final = "cleanup.policy"
CLEANUP_POLICY_COMPACT: Final = "compact"
DEFAULT_TIMEOUT_S: Final = REQUEST_TIMEOUT_S

# Creating a topic with no permission to do so is not fatal: the topic may exist already.
_IGNORED_CREATE_ERRORS = frozenset(
    (
        KafkaError.TOPIC_AUTHORIZATION_FAILED,
        KafkaError.CLUSTER_AUTHORIZATION_FAILED,
        KafkaError.UNSUPPORTED_VERSION,
    )
)


@dataclass(frozen=True, slots=True)
class LogRecord:
    """One record read from the log; a None value is a tombstone."""

    key: bytes | None
    value: bytes | None
    partition: int
    offset: int


RecordCallback = Callable[[LogRecord], None]


@dataclass(frozen=True, slots=True)
class TopicSpec:
    """The topic of a log, and how to create it when it is missing.

    *worker_config* names the worker property the topic came from and *purpose* says what it
    holds; both only appear in error messages.
    """

    name: str
    partitions: int = 1
    replication_factor: int = -1
    """``-1`` uses the broker's ``default.replication.factor``."""
    config: Mapping[str, str] = field(default_factory=dict)
    """Extra topic configs; ``cleanup.policy`` is always ``compact``."""
    worker_config: str = "topic"
    purpose: str = "internal state"

    def new_topic(self) -> NewTopic:
        """The CreateTopics description: compacted, whatever *config* says."""
        config = {**self.config, CLEANUP_POLICY_CONFIG: CLEANUP_POLICY_COMPACT}
        return NewTopic(self.name, self.partitions, self.replication_factor, config=config)


@dataclass(slots=True, eq=False)
class _EndWaiter:
    """A caller of read_to_end: the (low, high) offsets to reach, per partition."""

    ends: dict[int, tuple[int, int]]
    done: threading.Event = field(default_factory=threading.Event)
    error: BaseException | None = None


def _error_text(error: Any) -> str:
    return error.str() if isinstance(error, KafkaError) else str(error)


class TopicBackedLog:
    """Reads a compacted topic into a callback in the background, and writes to it.

    The callback runs on the log's consumer thread, one record at a time, in offset order
    within each partition. ``read_only=True`` creates no producer.
    """

    def __init__(
        self,
        spec: TopicSpec,
        client_config: Mapping[str, Any],
        on_record: RecordCallback,
        *,
        client_id: str = "seaway-connect",
        producer_config: Mapping[str, Any] | None = None,
        consumer_config: Mapping[str, Any] | None = None,
        read_only: bool = False,
        poll_interval: float = 0.05,
    ) -> None:
        self.spec = spec
        self.topic = spec.name
        self.client_config = {"log.connection.close": False, **client_config}
        self.client_id = client_id
        self._producer_config = dict(producer_config or {})
        self._consumer_config = dict(consumer_config or {})
        self._on_record = on_record
        self._read_only = read_only
        self._poll_interval = poll_interval
        self._producer: Producer | None = None
        self._consumer: Consumer | None = None
        self._admin: AdminClient | None = None
        self._partitions: list[int] = []
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._waiters: list[_EndWaiter] = []
        self._failure: BaseException | None = None

    # ------------------------------------------------------------------ lifecycle

    @property
    def partition_count(self) -> int:
        """How many partitions the topic has (known once started)."""
        return len(self._partitions)

    def start(self, timeout: float = 60.0) -> None:
        """Create the topic if needed, then read it to the end and keep reading.

        On failure everything started so far is stopped again.
        """
        log.info("Starting TopicBackedLog with topic %s", self.topic)
        deadline = time.monotonic() + timeout
        try:
            self._admin = clients.admin({**self.client_config, "client.id": self.client_id})
            self._ensure_topic(timeout)
            if not self._read_only:
                self._producer = clients.producer(self._producer_settings())
            self._consumer = consumer = clients.consumer(self._consumer_settings())
            self._partitions = self._await_partitions(consumer, deadline)
            consumer.assign(
                [TopicPartition(self.topic, p, OFFSET_BEGINNING) for p in self._partitions]
            )
            self._thread = threading.Thread(
                target=self._run, name=f"seaway-log-{self.topic}", daemon=True
            )
            self._thread.start()
            self.read_to_end(max(deadline - time.monotonic(), 1.0))
        except BaseException:
            self.stop()
            raise
        log.info("Started TopicBackedLog with topic %s", self.topic)

    def stop(self, timeout: float = DEFAULT_TIMEOUT_S) -> None:
        """Deliver what is still buffered, then stop reading and close the clients."""
        log.info("Stopping TopicBackedLog with topic %s", self.topic)
        producer, self._producer = self._producer, None
        if producer is not None:
            remaining = producer.flush(timeout)
            if remaining:
                log.warning("%d records for topic %s were not delivered", remaining, self.topic)
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout)
        elif self._consumer is not None:
            consumer, self._consumer = self._consumer, None
            consumer.close()
        if producer is not None and (self._thread is None or not self._thread.is_alive()):
            producer.close()  # only once the consumer thread no longer polls it
        self._admin = None
        self._fail_waiters(ConnectError(f"The log of topic {self.topic} was stopped"))
        log.info("Stopped TopicBackedLog with topic %s", self.topic)

    # ------------------------------------------------------------------ writes

    def send(self, key: bytes | str | None, value: bytes | None) -> Future[tuple[int, int]]:
        """Write one record (None value = tombstone); the future gives (partition, offset)."""
        producer = self._producer
        if producer is None:
            raise ConnectError(f"The log of topic {self.topic} is read-only or not running")
        future: Future[tuple[int, int]] = Future()
        topic = self.topic

        def on_delivery(error: Any, message: Any) -> None:
            if error is not None:
                log.error("Failed to write to topic %s: %s", topic, _error_text(error))
                future.set_exception(
                    ConnectError(f"Failed to write to topic {topic}: {_error_text(error)}")
                )
            else:
                future.set_result((message.partition(), message.offset()))

        data = key.encode() if isinstance(key, str) else key
        try:
            producer.produce(topic, key=data, value=value, on_delivery=on_delivery)
        except (KafkaException, BufferError) as exc:
            raise ConnectError(f"Failed to write to topic {topic}: {exc}") from exc
        producer.poll(0)
        return future

    def send_all(
        self,
        records: list[tuple[bytes | str | None, bytes | None]],
        timeout: float = DEFAULT_TIMEOUT_S,
    ) -> None:
        """Write records in order and wait until the broker has acknowledged all of them."""
        futures = [self.send(key, value) for key, value in records]
        self.flush(timeout)
        deadline = time.monotonic() + timeout
        for future in futures:
            _result(future, deadline, f"writing to topic {self.topic}")

    def flush(self, timeout: float = DEFAULT_TIMEOUT_S) -> None:
        """Wait until every record sent so far has been acknowledged or has failed."""
        producer = self._producer
        if producer is None:
            return
        remaining = producer.flush(timeout)
        if remaining:
            raise ConnectError(
                f"Timed out after {timeout}s waiting for {remaining} records to be written to "
                f"topic {self.topic}"
            )

    # ------------------------------------------------------------------ reads

    def read_to_end(self, timeout: float = DEFAULT_TIMEOUT_S) -> None:
        """Flush own writes, then wait until the callback has seen everything up to the
        end offsets of this moment."""
        deadline = time.monotonic() + timeout
        self.flush(timeout)
        waiter = _EndWaiter(self._end_offsets(max(deadline - time.monotonic(), 0.1)))
        with self._lock:
            if self._failure is not None:
                raise ConnectError(f"The log of topic {self.topic} failed") from self._failure
            if self._thread is None or self._stopping.is_set():
                raise ConnectError(f"The log of topic {self.topic} is not running")
            self._waiters.append(waiter)
        if not waiter.done.wait(max(deadline - time.monotonic(), 0.0)):
            with self._lock:
                if waiter in self._waiters:
                    self._waiters.remove(waiter)
            raise ConnectError(f"Timed out after {timeout}s reading topic {self.topic} to its end")
        if waiter.error is not None:
            raise ConnectError(f"Could not read topic {self.topic} to its end") from waiter.error

    def _end_offsets(self, timeout: float) -> dict[int, tuple[int, int]]:
        admin = self._admin
        if admin is None:
            raise ConnectError(f"The log of topic {self.topic} is not running")
        ends: dict[int, tuple[int, int]] = {}
        for spec, slot in ((OffsetSpec.earliest(), 0), (OffsetSpec.latest(), 1)):
            request = {TopicPartition(self.topic, p): spec for p in self._partitions}
            futures = admin.list_offsets(
                request, isolation_level=IsolationLevel.READ_COMMITTED, request_timeout=timeout
            )
            deadline = time.monotonic() + timeout
            for tp, future in futures.items():
                info = _result(future, deadline, f"listing the offsets of topic {self.topic}")
                low, high = ends.get(tp.partition, (0, 0))
                ends[tp.partition] = (info.offset, high) if slot == 0 else (low, info.offset)
        return ends

    # ------------------------------------------------------------------ consumer thread

    def _run(self) -> None:
        consumer, producer = self._consumer, self._producer
        assert consumer is not None
        try:
            while not self._stopping.is_set():
                if producer is not None:
                    producer.poll(0)  # serves delivery callbacks, so send futures complete
                for message in consumer.consume(500, timeout=self._poll_interval):
                    self._handle(message)
                if self._waiters:
                    self._complete_waiters(consumer)
        except BaseException as exc:
            log.exception("Unexpected error reading topic %s", self.topic)
            with self._lock:
                self._failure = exc
            self._fail_waiters(exc)
        finally:
            consumer.close()

    def _handle(self, message: Any) -> None:
        error = message.error()
        if error is not None:
            if error.fatal():
                raise KafkaException(error)
            log.warning("Error reading topic %s: %s", self.topic, error.str())
            return
        record = LogRecord(message.key(), message.value(), message.partition(), message.offset())
        try:
            self._on_record(record)
        except Exception:
            log.exception(
                "Unexpected error handling record %d of partition %d of topic %s",
                record.offset,
                record.partition,
                self.topic,
            )

    def _complete_waiters(self, consumer: Consumer) -> None:
        positions = {
            tp.partition: tp.offset
            for tp in consumer.position([TopicPartition(self.topic, p) for p in self._partitions])
        }
        with self._lock:
            waiting = []
            for waiter in self._waiters:
                # A partition is read when the position reaches the end offset; no position yet
                # (nothing consumed) counts as the log start, so empty partitions are read too.
                if all(
                    max(positions.get(p, -1), low) >= high for p, (low, high) in waiter.ends.items()
                ):
                    waiter.done.set()
                else:
                    waiting.append(waiter)
            self._waiters = waiting

    def _fail_waiters(self, error: BaseException) -> None:
        with self._lock:
            waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            waiter.error = error
            waiter.done.set()

    # ------------------------------------------------------------------ setup

    def _producer_settings(self) -> dict[str, Any]:
        return {
            **self.client_config,
            "client.id": self.client_id,
            **self._producer_config,
            "acks": "all",
            "enable.idempotence": True,
            # Java's default partitioner, so every writer puts a key in the same partition.
            "partitioner": "murmur2_random",
        }

    def _consumer_settings(self) -> dict[str, Any]:
        return {
            **self.client_config,
            "client.id": self.client_id,
            "isolation.level": "read_committed",
            **self._consumer_config,
            # librdkafka needs a group id; partitions are assigned, so no group is ever joined.
            "group.id": self.client_id,
            "enable.auto.commit": False,
            "enable.auto.offset.store": False,
            "auto.offset.reset": "earliest",
            "enable.partition.eof": False,
        }

    def _ensure_topic(self, timeout: float) -> None:
        assert self._admin is not None
        future = self._admin.create_topics([self.spec.new_topic()], request_timeout=timeout)[
            self.topic
        ]
        try:
            future.result(timeout)
            log.info("Created topic %s (%s)", self.topic, self.spec.purpose)
            return
        except KafkaException as exc:
            error = exc.args[0]
            code = error.code() if isinstance(error, KafkaError) else None
            if code in _IGNORED_CREATE_ERRORS:
                log.warning("Could not create topic %s: %s", self.topic, _error_text(error))
                return
            if code != KafkaError.TOPIC_ALREADY_EXISTS:
                raise ConnectError(
                    f"Unable to create topic '{self.topic}' for {self.spec.purpose}: "
                    f"{_error_text(error)}"
                ) from exc
        self._verify_compacted(timeout)

    def _verify_compacted(self, timeout: float) -> None:
        """An existing topic must have ``cleanup.policy=compact`` only (Kafka's TopicAdmin)."""
        assert self._admin is not None
        resource = ConfigResource(ResourceType.TOPIC, self.topic)
        try:
            configs = self._admin.describe_configs([resource], request_timeout=timeout)[
                resource
            ].result(timeout)
        except KafkaException as exc:
            log.info(
                "Unable to verify that the cleanup policy of topic %s is compact: %s",
                self.topic,
                exc,
            )
            return
        entry = configs.get(CLEANUP_POLICY_CONFIG)
        policies = (
            {p.strip() for p in (entry.value or "").split(",") if p.strip()} if entry else set()
        )
        if policies and policies != {CLEANUP_POLICY_COMPACT}:
            name, purpose, found = (
                self.spec.worker_config,
                self.spec.purpose,
                ",".join(sorted(policies)),
            )
            raise ConfigException(
                f"Topic '{self.topic}' supplied via the '{name}' property is required to have "
                f"'cleanup.policy=compact' to guarantee consistency and durability of {purpose}, "
                f"but found the topic currently has 'cleanup.policy={found}'. Continuing would "
                f"likely result in eventually losing {purpose} and problems restarting this "
                f"Connect cluster in the future. Change the '{name}' property in the Connect "
                f"worker configurations to use a topic with 'cleanup.policy=compact'."
            )

    def _await_partitions(self, consumer: Consumer, deadline: float) -> list[int]:
        delay = 0.1
        while True:
            try:
                metadata = consumer.list_topics(
                    self.topic, timeout=max(deadline - time.monotonic(), 0.1)
                )
                topic = metadata.topics.get(self.topic)
                if topic is not None and topic.error is None and topic.partitions:
                    return sorted(topic.partitions)
            except KafkaException as exc:
                log.debug("Metadata request for topic %s failed: %s", self.topic, exc)
            if time.monotonic() + delay > deadline:
                raise ConnectError(
                    f"Could not look up partition metadata for topic '{self.topic}' in the "
                    "allotted period. This could indicate a connectivity issue, unavailable topic "
                    "partitions, or if this is your first use of the topic it may have taken too "
                    "long to create."
                )
            time.sleep(delay)
            delay = min(delay * 2, 1.0)


def _result(future: Future[Any], deadline: float, doing: str) -> Any:
    """A future's result, with Kafka errors and timeouts turned into ConnectError."""
    try:
        return future.result(max(deadline - time.monotonic(), 0.0))
    except TimeoutError as exc:
        raise ConnectError(f"Timed out {doing}") from exc
    except KafkaException as exc:
        raise ConnectError(f"Failed {doing}: {_error_text(exc.args[0])}") from exc

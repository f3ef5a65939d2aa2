"""A sink connector's dead letter queue (Kafka's ``DeadLetterQueueReporter``, KIP-298).

With ``errors.tolerance=all`` and ``errors.deadletterqueue.topic.name`` set, a consumed
record that fails conversion or a transformation is skipped and written to that topic as
it was consumed: the original key and value bytes, headers and timestamp. With
``errors.deadletterqueue.context.headers.enable=true`` Kafka's ``__connect.errors.*``
headers say where it came from and why it failed (all UTF-8 text). The topic is created
on first use (one partition, ``errors.deadletterqueue.topic.replication.factor``) if it
does not exist. Runs in the sink task, on an executor.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Final

import pyarrow as pa
from confluent_kafka import KafkaError, KafkaException, Producer
from confluent_kafka.admin import NewTopic

from seaway.kafka import clients
from seaway.kafka.timeouts import FLUSH_TIMEOUT_S, REQUEST_TIMEOUT_S

log = logging.getLogger(__name__)

__all__ = ["DeadLetterQueue", "RawRecord", "consumed_rows"]

TOPIC: Final = "errors.deadletterqueue.topic.name"
REPLICATION_FACTOR: Final = "errors.deadletterqueue.topic.replication.factor"
CONTEXT_HEADERS: Final = "errors.deadletterqueue.context.headers.enable"

RawRecord = tuple[Any, ...]
"""A consumed row: ``(topic, partition, offset, key, value, timestamp_ms, timestamp_type,
headers)`` as the sink reads it."""


def consumed_rows(batch: pa.RecordBatch) -> Iterator[RawRecord]:
    """The rows of one of the sink reader's Arrow batches (Spark's microsecond timestamps as
    milliseconds)."""
    names = batch.schema.names
    cols = {
        name: (
            batch.column(i).cast(pa.int64()) if name == "timestamp" else batch.column(i)
        ).to_pylist()
        for i, name in enumerate(names)
    }
    timestamps = [None if t is None else t // 1000 for t in cols.get("timestamp", [])]
    headers = cols.get("headers") or [None] * batch.num_rows
    yield from zip(
        cols["topic"],
        cols["partition"],
        cols["offset"],
        cols["key"],
        cols["value"],
        timestamps,
        cols["timestampType"],
        headers,
        strict=True,
    )


_PREFIX: Final = "__connect.errors."


class DeadLetterQueue:
    """Writes the records a sink task skipped to the connector's dead letter topic."""

    def __init__(
        self, connector: str, task: int, config: Mapping[str, str], client: Mapping[str, str]
    ) -> None:
        self.connector = connector
        self.task = task
        self.topic = config[TOPIC].strip()
        self.context_headers = config.get(CONTEXT_HEADERS, "false").strip().lower() == "true"
        self.replication_factor = int(config.get(REPLICATION_FACTOR, "3"))
        self.client = {**client, "client.id": f"connector-dlq-producer-{connector}-{task}"}
        self._producer: Producer | None = None
        self.failures: list[str] = []

    @classmethod
    def of(
        cls, connector: str, task: int, config: Mapping[str, str], client: Mapping[str, str]
    ) -> DeadLetterQueue | None:
        """The connector's queue, or None when it names none."""
        if not (config.get(TOPIC) or "").strip():
            return None
        return cls(connector, task, config, client)

    def _open(self) -> Producer:
        if self._producer is None:
            self._create_topic()
            self._producer = clients.producer(self.client, {"linger.ms": 5})
        return self._producer

    def _create_topic(self) -> None:
        admin = clients.admin(self.client)
        if self.topic in admin.list_topics(timeout=REQUEST_TIMEOUT_S).topics:
            return
        future = admin.create_topics([NewTopic(self.topic, 1, self.replication_factor)])
        try:
            future[self.topic].result(REQUEST_TIMEOUT_S)
            log.info("Created dead letter queue topic %s", self.topic)
        except KafkaException as error:
            if error.args[0].code() != KafkaError.TOPIC_ALREADY_EXISTS:
                raise

    def report(
        self,
        row: RawRecord,
        stage: str,
        executing_class: str,
        error: BaseException,
        done: Callable[[str | None], None] | None = None,
    ) -> None:
        """Send the consumed *row* that failed in *stage* to the dead letter topic; *done*
        hears the delivery (None) or its failure."""
        topic, partition, offset, key, value, timestamp, _kind, raw_headers = row
        headers: list[tuple[str, str | bytes | None]] = [
            (h["key"], h["value"]) for h in raw_headers or ()
        ]
        if self.context_headers:
            kind = type(error)
            context = {
                "topic": topic,
                "partition": str(partition),
                "offset": str(offset),
                "connector.name": self.connector,
                "task.id": str(self.task),
                "stage": stage,
                "class.name": executing_class,
                "exception.class.name": f"{kind.__module__}.{kind.__qualname__}",
                "exception.message": str(error),
                "exception.stacktrace": "".join(traceback.format_exception(error)),
            }
            headers += [(_PREFIX + name, text.encode()) for name, text in context.items()]

        def delivered(failure: Any, _message: Any) -> None:
            if done is not None:
                done(None if failure is None else str(failure))
            if failure is not None:
                self.failures.append(str(failure))
                log.error(
                    "Could not write %s-%s@%s to the dead letter queue %s: %s",
                    topic, partition, offset, self.topic, failure,
                )  # fmt: skip

        producer = self._open()
        extra = {"timestamp": timestamp} if timestamp is not None and timestamp >= 0 else {}
        producer.produce(
            self.topic, value=value, key=key, headers=headers, on_delivery=delivered, **extra
        )
        producer.poll(0)

    def flush(self) -> None:
        """Wait until every reported record is in the topic (before offsets are committed)."""
        if self._producer is not None:
            left = self._producer.flush(FLUSH_TIMEOUT_S)
            if left:
                self.failures.append(f"{left} record(s) not delivered in {FLUSH_TIMEOUT_S} s")

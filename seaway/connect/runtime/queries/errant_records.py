"""A sink task's errant record reporter (KIP-610, Kafka's ``WorkerErrantRecordReporter``).

``SinkTaskContext.errant_record_reporter()`` gives a task this reporter when the connector
has a dead letter queue or ``errors.log.enable=true``. A record the task reports from
``put()`` goes to the queue as it was consumed (stage ``TASK_PUT``, the task's class as the
executing class), is logged, and counts as an error and a skipped record; the returned
future completes when the queue holds it. Under ``errors.tolerance=none`` reporting fails
the task, as in Kafka ("Tolerance exceeded in error handler").
"""

from __future__ import annotations

import logging
from concurrent.futures import Future
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from seaway.connect.api import SinkRecord
from seaway.connect.api.errors import ConnectError
from seaway.connect.api.sink import ErrantRecordReporter
from seaway.connect.runtime.queries.conversion import ConversionSpec
from seaway.connect.runtime.queries.dead_letters import DeadLetterQueue, RawRecord, consumed_rows
from seaway.connect.runtime.queries.task_metrics import TaskMetrics

__all__ = ["SinkErrantRecordReporter"]

log = logging.getLogger(__name__)

STAGE = "TASK_PUT"


class SinkErrantRecordReporter(ErrantRecordReporter):
    """Reports the records a sink task's ``put()`` could not take."""

    def __init__(
        self,
        spec: ConversionSpec,
        task_class: str,
        dead_letters: DeadLetterQueue | None,
        metrics: TaskMetrics,
    ) -> None:
        self.spec = spec
        self.task_class = task_class
        self.dead_letters = dead_letters
        self.metrics = metrics
        self._consumed: dict[int, RawRecord] = {}  # id(record) -> its consumed row
        self._batches: list[pa.RecordBatch] = []  # as read, until release_batches()

    @classmethod
    def wanted(cls, spec: ConversionSpec) -> bool:
        """Kafka gives a task a reporter when there is a queue or errors are logged."""
        queue = (spec.connector_config.get("errors.deadletterqueue.topic.name") or "").strip()
        return bool(queue) or spec.log_errors

    def consumed(self, record: SinkRecord, row: RawRecord) -> None:
        """Remember which consumed row *record* (about to be put) came from."""
        self._consumed[id(record)] = row

    def forget(self) -> None:
        """The records were put: those handed over with their rows are no longer needed (a
        later report finds its row in the batches kept)."""
        self._consumed.clear()

    def consumed_batch(self, batch: pa.RecordBatch) -> None:
        """Keep the consumed rows of *batch* (the sink reader's columns) until
        :meth:`release_batches`."""
        self._batches.append(batch)

    def release_batches(self) -> None:
        """The Spark task is over: nothing more can be reported."""
        self._batches.clear()

    def _consumed_row(self, record: SinkRecord) -> RawRecord | None:
        """The consumed row *record* came from: handed over with it, or found by where it was
        consumed in the batches kept."""
        row = self._consumed.get(id(record))
        if row is not None:
            return row
        where = (record.original_topic, record.original_kafka_partition,
                 record.original_kafka_offset)  # fmt: skip
        for batch in self._batches:
            if not batch.num_rows:
                continue
            bounds = pc.min_max(batch.column("offset")).as_py()
            if not bounds["min"] <= where[2] <= bounds["max"]:
                continue
            for found in consumed_rows(batch):
                if (found[0], found[1], found[2]) == where:
                    return found
        return None

    def report(self, record: SinkRecord, error: BaseException) -> Future[None]:
        self.metrics.failed()
        self.metrics.record_errors += 1
        if not self.spec.tolerate_all:
            raise ConnectError("Tolerance exceeded in error handler") from error
        self.metrics.records_skipped += 1
        future: Future[None] = _Delivery(self.dead_letters)
        if self.spec.log_errors:
            self.metrics.errors_logged += 1
            log.error(
                "Error encountered in connector %s. Executing stage '%s' with class '%s', "
                "where consumed record is {topic='%s', partition=%s, offset=%s}: %s",
                self.spec.connector, STAGE, self.task_class, record.topic,
                record.kafka_partition, record.kafka_offset, error,
            )  # fmt: skip
        row = self._consumed_row(record) or _row_of(record)
        if self.dead_letters is None:
            future.set_result(None)
            return future

        def done(failure: str | None) -> None:
            if failure is None:
                future.set_result(None)
            else:  # counted with the queue's other failures when it is flushed
                future.set_exception(ConnectError(f"Could not report the record: {failure}"))

        self.metrics.dlq_requests += 1
        self.dead_letters.report(row, STAGE, self.task_class, error, done)
        return future


class _Delivery(Future[None]):
    """Completes when the queue's producer delivers: waiting on it drives the delivery
    (librdkafka reports deliveries only while its producer is polled or flushed)."""

    def __init__(self, dead_letters: DeadLetterQueue | None) -> None:
        super().__init__()
        self._dead_letters = dead_letters

    def result(self, timeout: float | None = None) -> None:
        if not self.done() and self._dead_letters is not None:
            self._dead_letters.flush()
        return super().result(timeout)

    def exception(self, timeout: float | None = None) -> BaseException | None:
        if not self.done() and self._dead_letters is not None:
            self._dead_letters.flush()
        return super().exception(timeout)


def _row_of(record: SinkRecord) -> RawRecord:
    """A consumed row for a record the runtime did not hand over as such (its fields as
    the task sees them; bytes stay bytes, anything else is written as its text)."""

    def raw(value: Any) -> bytes | None:
        if value is None or isinstance(value, bytes):
            return value
        return str(value).encode("utf-8")

    return (
        record.topic, record.kafka_partition, record.kafka_offset, raw(record.key),
        raw(record.value), record.timestamp, 0, [],
    )  # fmt: skip

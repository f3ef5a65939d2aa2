"""The write side of a MirrorSource flow: ``seaway-mirror-sink``, the summary sink.

The records are already on the target when rows reach this sink: ``seaway-mirror-copy``
(:mod:`seaway.mirror.copy.source`) copies each offset range inside its Spark task and
yields one summary row per range (:class:`~seaway.mirror.copy.spec.RangeSummary`). A sink
task collects its summaries into a :class:`MirrorCommitMessage`.

``commit`` (once every task of the micro-batch succeeded) stores each source partition's
last copied offset in MM2's Connect offsets format
(``["MirrorSourceConnector",{"cluster","partition","topic"}]`` → ``{"offset": n}``) in
``mm2-offsets.<source>.internal`` on the target, where a restarted flow resumes from
(``offset + 1``): at-least-once, never a gap. An exactly-once flow stored them in each
range's transaction already. MM2's metrics do not pass here: the flow observes the summary
rows on their way (:meth:`seaway.mirror.source_flow.MirrorSourceFlow.record_metrics`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Final

import pyarrow as pa
from pyspark.sql.datasource import DataSource, DataSourceStreamArrowWriter, WriterCommitMessage

from seaway.kafka import pool
from seaway.kafka.timeouts import FLUSH_TIMEOUT_S
from seaway.mirror.copy.spec import (
    CONNECTOR_NAME,
    SUMMARY_FIELDS,
    MirrorCopySpec,
    RangeSummary,
    offset_record,
)

log = logging.getLogger(__name__)

SINK_NAME: Final = "seaway-mirror-sink"

MirrorSinkSpec = MirrorCopySpec
"""The spec in the sink's ``spec`` option: the flow's copy spec."""


@dataclass
class MirrorCommitMessage(WriterCommitMessage):
    """The last upstream offset copied per source partition: ``[[topic, partition, offset]]``,
    and the records copied."""

    copied: list[tuple[str, int, int]]
    records: int

    @classmethod
    def of(cls, summaries: Iterable[RangeSummary]) -> MirrorCommitMessage:
        """One task's summaries together."""
        done = list(summaries)
        return cls(_latest(c for s in done for c in s.copied), sum(s.records for s in done))


def store_copied_offsets(spec: MirrorCopySpec, copied: list[tuple[str, int, int]]) -> None:
    """Write MM2's source offsets for *copied* to the target's offsets topic."""
    # One producer per target for the life of the process that runs the commits (Spark
    # keeps it for the query): no connection set-up per micro-batch.
    producer = pool.producer(
        {"linger.ms": 5, "acks": "all", "partitioner": "murmur2_random", **spec.target_producer}
    )
    errors: list[str] = []

    def on_delivery(err: Any, _msg: Any) -> None:
        if err is not None:
            errors.append(str(err))

    for topic, partition, offset in copied:
        record_key, value = offset_record(spec, topic, partition, offset)
        producer.produce(spec.offsets_topic, value, record_key, on_delivery=on_delivery)
    remaining = producer.flush(FLUSH_TIMEOUT_S)
    if remaining or errors:
        message = (
            f"Could not store mirror offsets in {spec.offsets_topic}: "
            f"{errors[:3] or f'{remaining} unacknowledged after {FLUSH_TIMEOUT_S:.0f} s'}; the "
            "micro-batch is copied again from the offsets stored before it"
        )
        pool.drop(producer)
        raise RuntimeError(message)


def _latest(copied: Iterable[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """The highest offset per partition (a partition's range may be split across tasks)."""
    last: dict[tuple[str, int], int] = {}
    for topic, partition, offset in copied:
        last[(topic, partition)] = max(offset, last.get((topic, partition), -1))
    return [(t, p, o) for (t, p), o in sorted(last.items())]


class MirrorSinkWriter(DataSourceStreamArrowWriter):
    def __init__(self, spec: MirrorCopySpec) -> None:
        self.spec = spec

    def write(self, iterator: Iterator[pa.RecordBatch]) -> MirrorCommitMessage:
        summaries = (RangeSummary.from_row(row) for b in iterator for row in b.to_pylist())
        return MirrorCommitMessage.of(summaries)

    def commit(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        done = [m for m in messages if isinstance(m, MirrorCommitMessage)]
        copied = _latest(c for m in done for c in m.copied)
        if copied and not self.spec.exactly_once:  # exactly-once tasks stored their own
            store_copied_offsets(self.spec, copied)

    def abort(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        log.warning("Mirror batch %d aborted; it is copied again from the stored offsets", batchId)


def check_summary_schema(schema: Any) -> None:
    """Fail unless *schema* is ``seaway-mirror-copy``'s summary rows."""
    names = [f.name for f in getattr(schema, "fields", [])]
    wanted = [name for name, _ in SUMMARY_FIELDS]
    if names != wanted:
        raise ValueError(
            f"{SINK_NAME} takes the summary rows of seaway-mirror-copy ({wanted}), got the "
            f"columns {names}: read with readStream.format('seaway-mirror-copy')."
        )


class MirrorSinkDataSource(DataSource):
    """``writeStream.format("seaway-mirror-sink").option("spec", ...)``."""

    @classmethod
    def name(cls) -> str:
        return SINK_NAME

    def streamWriter(self, schema: Any, overwrite: bool) -> MirrorSinkWriter:
        check_summary_schema(schema)
        return MirrorSinkWriter(MirrorCopySpec.from_json(self.options["spec"]))


__all__ = [
    "CONNECTOR_NAME",
    "SINK_NAME",
    "MirrorCommitMessage",
    "MirrorSinkDataSource",
    "MirrorSinkSpec",
    "store_copied_offsets",
]

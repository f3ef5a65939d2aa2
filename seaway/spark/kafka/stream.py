"""The micro-batch reader: offsets per trigger, admission control, AvailableNow.

Runs in the driver's long-lived Python process for the source. Offsets are decided here
before any task runs; Spark writes them to the checkpoint's offset log first, so a
retried or replayed batch reads exactly the same ranges.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Sequence
from typing import Any

from pyspark.sql.datasource import DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import (
    ReadAllAvailable,
    ReadLimit,
    ReadMaxRows,
    ReadMinRows,
    SupportsTriggerAvailableNow,
)

from seaway.kafka.ranges import OffsetRange
from seaway.spark.kafka.client import KafkaOffsetReader, KafkaUnavailable
from seaway.spark.kafka.offsets import PartitionOffsets, from_json_dict, to_json_dict
from seaway.spark.kafka.options import LATEST, SourceOptions
from seaway.spark.kafka.planner import plan_ranges, rate_limit, resolve
from seaway.spark.kafka.reader import DataLossError, read_range

log = logging.getLogger(__name__)

__all__ = ["KafkaMicroBatchReader", "KafkaRangePartition"]


class KafkaRangePartition(InputPartition):
    """One task's work: an offset range, carried to the executor with the options."""

    def __init__(self, options: SourceOptions, offset_range: OffsetRange) -> None:
        super().__init__(offset_range)
        self.options = options
        self.range = offset_range


class KafkaMicroBatchReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """Spark's Kafka micro-batch source semantics over librdkafka."""

    def __init__(self, options: SourceOptions) -> None:
        self.options = options
        self._client: KafkaOffsetReader | None = None
        self._available_now: PartitionOffsets | None = None
        self._latest: PartitionOffsets = {}
        self._last_trigger = -math.inf  # monotonic seconds; the first batch is never held

    @property
    def client(self) -> KafkaOffsetReader:
        if self._client is None:
            self._client = KafkaOffsetReader(self.options)
        return self._client

    # -- offsets ---------------------------------------------------------------------------

    def initialOffset(self) -> dict[str, Any]:
        """Where a new query starts; "latest" stays symbolic (-1) until the first batch."""
        partitions = self.client.partitions()
        offsets = resolve(
            self.options.starting,
            partitions,
            self.client,
            strategy=self.options.timestamp_strategy,
            keep_latest_symbolic=True,
        )
        return to_json_dict(offsets)

    def getDefaultReadLimit(self) -> ReadLimit:
        """Spark's Kafka limits; Python has no composite limit, so with ``minOffsetsPerTrigger``
        the stream applies ``maxOffsetsPerTrigger`` itself (see :meth:`latestOffset`)."""
        if self.options.min_offsets_per_trigger:
            return ReadMinRows(self.options.min_offsets_per_trigger)
        if self.options.max_offsets_per_trigger:
            return ReadMaxRows(self.options.max_offsets_per_trigger)
        return ReadAllAvailable()

    def prepareForTriggerAvailableNow(self) -> None:
        self._available_now = self.client.latest(self.client.partitions(require_topics=False))

    def latestOffset(self, start: dict[str, Any], limit: ReadLimit) -> dict[str, Any]:
        begin = self._concrete_start(from_json_dict(start))
        partitions = self.client.partitions(require_topics=False)
        latest = self.client.latest(partitions)
        self._check_lost_partitions(begin, latest)
        if self._available_now is not None:
            latest = {tp: min(o, self._available_now.get(tp, o)) for tp, o in latest.items()}
        self._latest = latest
        # New partitions (added, or new topics matching the pattern) start at earliest.
        new = set(latest) - set(begin)
        if new:
            begin = {**begin, **self.client.earliest(new)}
        end = dict(latest)
        max_rows = limit.max_rows if isinstance(limit, ReadMaxRows) else None
        if isinstance(limit, ReadMinRows):  # with maxOffsetsPerTrigger: Spark's composite limit
            max_rows = self.options.max_offsets_per_trigger
            if self._hold_batch(begin, latest, limit.min_rows):
                end = {tp: begin[tp] for tp in latest}
        if max_rows:
            end = rate_limit(begin, end, max_rows)
        # Never move backwards (a partition whose log shrank is handled as data loss).
        end = {tp: max(o, begin.get(tp, o)) for tp, o in end.items()}
        return to_json_dict(end)

    def _hold_batch(self, begin: PartitionOffsets, latest: PartitionOffsets, rows: int) -> bool:
        """Spark's ``minOffsetsPerTrigger``: hold the next batch until ``rows`` new records
        or ``maxTriggerDelay`` since the last batch, whichever comes first. AvailableNow
        reads what there is: holding back its last batch would only delay the query's end."""
        now = time.monotonic()
        if (
            self._available_now is None
            and (now - self._last_trigger) * 1000 < self.options.max_trigger_delay_ms
            and sum(o - begin.get(tp, o) for tp, o in latest.items()) < rows
        ):
            return True
        self._last_trigger = now
        return False

    def reportLatestOffset(self) -> dict[str, Any] | None:
        return to_json_dict(self._latest) if self._latest else None

    def _concrete_start(self, start: PartitionOffsets) -> PartitionOffsets:
        """Resolve a symbolic latest (-1) start to the log end, once, when planning."""
        symbolic = {tp for tp, o in start.items() if o == LATEST}
        if not symbolic:
            return start
        return {**start, **self.client.latest(symbolic)}

    def _check_lost_partitions(self, begin: PartitionOffsets, latest: PartitionOffsets) -> None:
        gone = sorted(set(begin) - set(latest))
        if not gone:
            return
        message = (
            f"Partitions {gone} are gone (topic deleted?); some data may have been lost. "
            "Set the source option 'failOnDataLoss' to 'false' to go on without them."
        )
        if self.options.fail_on_data_loss:
            raise DataLossError(message)
        log.warning("%s Going on (failOnDataLoss=false).", message)

    # -- planning --------------------------------------------------------------------------

    def partitions(self, start: dict[str, Any], end: dict[str, Any]) -> Sequence[InputPartition]:
        end_offsets = from_json_dict(end)
        begin = from_json_dict(start)
        # A symbolic latest start means the first batch began where it ends: nothing to read.
        begin = {tp: (end_offsets.get(tp, 0) if o == LATEST else o) for tp, o in begin.items()}
        for tp in set(end_offsets) - set(begin):  # partitions discovered in this batch
            begin[tp] = self._earliest_for_new(tp)
        begin = self._check_start_available(begin, end_offsets)
        ranges = plan_ranges(
            begin,
            end_offsets,
            min_partitions=self.options.min_partitions,
            max_records_per_partition=self.options.max_records_per_partition,
        )
        return [KafkaRangePartition(self.options, r) for r in ranges]

    def _earliest_for_new(self, tp: tuple[str, int]) -> int:
        try:
            return self.client.earliest({tp})[tp]
        except KafkaUnavailable:
            return 0

    def _check_start_available(
        self, begin: PartitionOffsets, end: PartitionOffsets
    ) -> PartitionOffsets:
        """Offsets deleted by retention since they were planned: fail or skip ahead."""
        wanted = {tp for tp in begin if tp in end and end[tp] > begin[tp]}
        if not wanted:
            return begin
        lows = self.client.earliest(wanted)
        out = dict(begin)
        for tp, low in lows.items():
            if low > begin[tp]:
                message = (
                    f"offsets [{begin[tp]}, {low}) of {tp[0]}[{tp[1]}] were deleted before "
                    "they could be read (retention or DeleteRecords)"
                )
                if self.options.fail_on_data_loss:
                    raise DataLossError(
                        f"Some data may have been lost: {message}. Set the source option "
                        "'failOnDataLoss' to 'false' to skip what is gone."
                    )
                log.warning("Skipping lost data (failOnDataLoss=false): %s", message)
                out[tp] = min(low, end[tp])
        return out

    def read(self, partition: InputPartition):  # type: ignore[no-untyped-def]
        assert isinstance(partition, KafkaRangePartition)
        return read_range(partition.options, partition.range)

    def commit(self, end: dict[str, Any]) -> None:
        """Nothing to do: like Spark's Kafka source, no offsets are committed to Kafka."""

    def stop(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

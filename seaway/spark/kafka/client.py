"""Driver-side offset lookups: which partitions exist, their offsets, offsets by time.

Only the driver asks these questions, before a batch is planned, so every task reads a
range fixed in advance. One long-lived consumer per source does it (the driver keeps the
stream reader's process for the query's life).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from confluent_kafka import KafkaError, KafkaException, TopicPartition

from seaway.java.regex import compile_java_regex
from seaway.kafka import clients
from seaway.spark.errors import SparkKafkaError
from seaway.spark.kafka.offsets import PartitionOffsets
from seaway.spark.kafka.options import SourceOptions

log = logging.getLogger(__name__)

__all__ = ["KafkaOffsetReader", "KafkaUnavailable"]

_ONE_BY_ONE = 4  # above this many partitions, offsets are listed in one batch


class KafkaUnavailable(SparkKafkaError, RuntimeError):
    """The cluster cannot be reached, or a topic it should have does not exist."""


class KafkaOffsetReader:
    """Answers offset questions for one source."""

    def __init__(self, options: SourceOptions) -> None:
        self.options = options
        config = options.consumer_config()
        self._consumer = clients.consumer(config)
        self._admin: Any = None
        self._pattern = (
            compile_java_regex(options.subscribe_pattern) if options.subscribe_pattern else None
        )

    def close(self) -> None:
        self._consumer.close()

    # -- partitions ------------------------------------------------------------------------

    def _metadata(self) -> Any:
        try:
            return self._consumer.list_topics(timeout=self.options.api_timeout_s)
        except KafkaException as e:
            raise KafkaUnavailable(
                f"Cannot reach the Kafka cluster at kafka.bootstrap.servers="
                f"'{self.options.bootstrap_servers}': {e.args[0].str()}"
            ) from None

    def partitions(self, *, require_topics: bool = True) -> set[tuple[str, int]]:
        """The topic partitions the source reads now (subscriptions pick up new ones)."""
        metadata = self._metadata()
        topics = metadata.topics
        found: set[tuple[str, int]] = set()
        if self.options.assign is not None:
            for topic, parts in self.options.assign.items():
                found.update((topic, p) for p in parts)
            return found
        if self._pattern is not None:
            for name, meta in topics.items():
                if (
                    not name.startswith("__")
                    and self._pattern.fullmatch(name)
                    and meta.error is None
                ):
                    found.update((name, p) for p in meta.partitions)
            return found
        missing = []
        for name in self.options.subscribe:
            meta = topics.get(name)
            if meta is None or meta.error is not None or not meta.partitions:
                missing.append(name)
                continue
            found.update((name, p) for p in meta.partitions)
        if missing and require_topics:
            raise KafkaUnavailable(
                f"Topic(s) {', '.join(missing)} named by option 'subscribe' do not exist on "
                f"kafka.bootstrap.servers='{self.options.bootstrap_servers}'."
            )
        return found

    # -- offsets ---------------------------------------------------------------------------

    def watermarks(
        self, partitions: set[tuple[str, int]]
    ) -> dict[tuple[str, int], tuple[int, int]]:
        """``(log start offset, high watermark)`` of each partition.

        A few partitions are asked one by one; more go in two batched ListOffsets
        requests, so a trigger over a thousand partitions costs two round trips.
        """
        if len(partitions) <= _ONE_BY_ONE:
            return {tp: self._watermark(*tp) for tp in sorted(partitions)}
        from confluent_kafka.admin import OffsetSpec

        low = self._list_offsets(partitions, OffsetSpec.earliest())
        high = self._list_offsets(partitions, OffsetSpec.latest())
        return {tp: (low[tp], high[tp]) for tp in sorted(partitions)}

    def _watermark(self, topic: str, partition: int) -> tuple[int, int]:
        deadline = time.monotonic() + self.options.api_timeout_s
        while True:
            try:
                low, high = self._consumer.get_watermark_offsets(
                    TopicPartition(topic, partition),
                    timeout=self.options.api_timeout_s,
                    cached=False,
                )
                return int(low), int(high)
            except KafkaException as e:
                error = e.args[0]
                if error.code() == KafkaError._UNKNOWN_PARTITION or time.monotonic() > deadline:
                    raise KafkaUnavailable(
                        f"Cannot read offsets of {topic}[{partition}] from "
                        f"kafka.bootstrap.servers='{self.options.bootstrap_servers}': {error.str()}"
                    ) from None
                time.sleep(0.2)

    def latest(self, partitions: set[tuple[str, int]]) -> PartitionOffsets:
        """The end of each partition; the last stable offset for read_committed readers."""
        if self.options.kafka_params.get("isolation.level") == "read_committed" and partitions:
            return self._last_stable(partitions)
        return {tp: high for tp, (_, high) in self.watermarks(partitions).items()}

    def _last_stable(self, partitions: set[tuple[str, int]]) -> PartitionOffsets:
        from confluent_kafka import IsolationLevel
        from confluent_kafka.admin import OffsetSpec

        return self._list_offsets(partitions, OffsetSpec.latest(), IsolationLevel.READ_COMMITTED)

    def _list_offsets(
        self, partitions: set[tuple[str, int]], spec: Any, isolation: Any = None
    ) -> PartitionOffsets:
        """One batched ListOffsets for every partition, through an admin client."""
        from confluent_kafka import IsolationLevel

        if self._admin is None:
            self._admin = clients.admin(
                {**self.options.kafka_params, "bootstrap.servers": self.options.bootstrap_servers}
            )
        request = {TopicPartition(t, p): spec for t, p in partitions}
        level = isolation if isolation is not None else IsolationLevel.READ_UNCOMMITTED
        try:
            futures = self._admin.list_offsets(
                request, isolation_level=level, request_timeout=self.options.api_timeout_s
            )
            return {(tp.topic, tp.partition): f.result().offset for tp, f in futures.items()}
        except KafkaException as e:
            raise KafkaUnavailable(
                f"Cannot read offsets from kafka.bootstrap.servers="
                f"'{self.options.bootstrap_servers}': {e.args[0].str()}"
            ) from None

    def earliest(self, partitions: set[tuple[str, int]]) -> PartitionOffsets:
        return {tp: low for tp, (low, _) in self.watermarks(partitions).items()}

    def for_timestamps(
        self, timestamps: dict[tuple[str, int], int]
    ) -> dict[tuple[str, int], int | None]:
        """The first offset with a timestamp >= the given one per partition (None: no such)."""
        if not timestamps:
            return {}
        query = [TopicPartition(t, p, ts) for (t, p), ts in sorted(timestamps.items())]
        try:
            found = self._consumer.offsets_for_times(query, timeout=self.options.api_timeout_s)
        except KafkaException as e:
            raise KafkaUnavailable(
                f"Cannot look up offsets by timestamp: {e.args[0].str()}"
            ) from None
        return {(tp.topic, tp.partition): (tp.offset if tp.offset >= 0 else None) for tp in found}

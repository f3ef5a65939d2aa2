"""``seaway mirror verify``: does a remote topic hold exactly the records of its source topic?

Per partition, the source topic (from its log start offset: older records were deleted by
retention or DeleteRecords) is compared with the remote topic on the target, read with
``isolation.level=read_committed``. A record is identified by a 16-byte BLAKE2b digest of its
key, value, headers and timestamp; bodies are never kept and values never decoded.

Both partitions are read in step (whichever side has read fewer records reads next) into one
map of digest -> (source copies - target copies), an entry dropped when it reaches zero. A
faithful copy therefore needs memory only for the records in flight, whatever the topic's
size; differences cost one entry each. At the end, positive entries are records LOST (in the
source, missing in the target); negative entries are target records the source does not have
as often. Those are told apart by a second read of the source, looking only for them:

* DUPLICATED: the source has the record, the target has more copies of it;
* UNEXPECTED: the source does not have it (a changed record, or one written to the target by
  someone else);
* OLDER: when the source's log start is above 0, the target's leading records that the source
  does not have are taken as copies of records the source has deleted since ("not in the
  source any more"): they are counted apart and never make the check fail. (The run ends at
  the first record the source still has; a deleted record identical to a kept one, same key,
  value, headers and timestamp, cannot be told apart and counts as DUPLICATED.)

Each side also gets an order-insensitive checksum (the sum of the record digests modulo
2**128); CHECKSUM-MATCH compares the source's with the target's, OLDER records left out.

Verify a quiet mirror: records the flow has not copied yet are LOST until it has.
"""

from __future__ import annotations

import hashlib
import struct
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Final, cast

from seaway.kafka.timeouts import REQUEST_TIMEOUT_S
from seaway.mirror.errors import MirrorError
from seaway.mirror.topic_offsets import offset_ranges, topic_partitions

_BATCH: Final = 5000
_POLL_S: Final = 0.2
_MOD: Final = 1 << 128
_NULL: Final = b"\xff\xff\xff\xff"  # a null key/value/header value: length -1, as Kafka writes

Progress = Callable[[int, int], None]
"""Called with (records read, records to read) once before reading, then after each batch."""
_Headers = list[tuple[str, bytes | None]]


class VerifyError(MirrorError, RuntimeError):
    """The comparison could not be made (unknown topic, unreachable cluster, read failure)."""


_INT = struct.Struct(">i").pack
_FIXED = struct.Struct(">qi").pack  # timestamp, header count


def _length(data: bytes | None) -> bytes:
    return _NULL if data is None else _INT(len(data))


def record_digest(
    key: bytes | None,
    value: bytes | None,
    headers: _Headers | None,
    timestamp: int,
) -> bytes:
    """The 16-byte digest identifying a record: key, value, headers (in order), timestamp.

    Every part is length-prefixed, and null is told apart from empty.
    """
    parts = [_length(key), key or b"", _length(value), _FIXED(timestamp, len(headers or ()))]
    for name, data in headers or ():
        encoded = name.encode()
        parts += (_INT(len(encoded)), encoded, _length(data), data or b"")
    h = hashlib.blake2b(b"".join(parts), digest_size=16)
    if value:
        h.update(value)  # last, and never copied into the joined bytes
    return h.digest()


@dataclass(frozen=True)
class PartitionVerification:
    """The comparison of one partition; offsets are the ranges that were read."""

    partition: int
    source_start: int
    source_end: int
    target_start: int
    target_end: int
    source_records: int
    target_records: int
    lost: int
    duplicated: int
    unexpected: int
    older: int
    source_checksum: str
    target_checksum: str

    @property
    def checksum_match(self) -> bool:
        return self.source_checksum == self.target_checksum

    @property
    def ok(self) -> bool:
        """Every source record is in the target exactly once, and nothing else is."""
        return not (self.lost or self.duplicated or self.unexpected) and self.checksum_match


@dataclass(frozen=True)
class VerifyResult:
    """The comparison of a source topic with its remote topic."""

    source_topic: str
    target_topic: str
    partitions: list[PartitionVerification]

    def total(self, field: str) -> int:
        """The sum of an integer field over the partitions (``lost``, ``duplicated``, ...)."""
        return sum(int(getattr(p, field)) for p in self.partitions)

    @property
    def ok(self) -> bool:
        return all(p.ok for p in self.partitions)


class _Side:
    """One cluster: its clients, the topic's partitions and offset ranges."""

    def __init__(
        self, name: str, client: Mapping[str, str], topic: str, timeout: float, group: str
    ) -> None:
        from seaway.kafka import clients

        self.name, self.topic, self.timeout = name, topic, timeout
        self.bootstrap = client.get("bootstrap.servers", "?")
        self.admin = clients.admin({"log.connection.close": "false", **client})
        topics = topic_partitions(self.admin, name, self.bootstrap, VerifyError, timeout)
        if topic not in topics:
            raise VerifyError(
                f"Topic {topic} does not exist on the {name} cluster ({self.bootstrap})"
            )
        self.partitions = topics[topic]
        ranges = offset_ranges(
            self.admin,
            [(topic, p) for p in self.partitions],
            name,
            self.bootstrap,
            VerifyError,
            read_committed=True,
            timeout=timeout,
        )
        self.ranges = {p: r for (_, p), r in ranges.items()}
        self.consumer = clients.consumer(
            {"log.connection.close": False, **client},
            {
                "group.id": group,
                "enable.auto.commit": False,
                "enable.auto.offset.store": False,
                "enable.partition.eof": True,
                "isolation.level": "read_committed",
                "auto.offset.reset": "error",
                "fetch.wait.max.ms": 100,  # the end of a partition shows sooner
                "queued.max.messages.kbytes": 16384,  # prefetch per partition (default 64 MB)
            },
        )

    def reader(self, partition: int, start: int | None = None) -> _Reader:
        low, high = self.ranges.get(partition, (0, 0))
        return _Reader(self, partition, low if start is None else start, high)

    def close(self) -> None:
        self.consumer.close()


class _Reader:
    """Reads one partition from *start* to *end* as record digests."""

    def __init__(self, side: _Side, partition: int, start: int, end: int) -> None:
        from confluent_kafka import TopicPartition

        self.side, self.partition, self.end = side, partition, end
        self.position = start
        self.count = 0
        self.done = start >= end
        self._moved = time.monotonic()
        if not self.done:
            side.consumer.assign([TopicPartition(side.topic, partition, start)])

    def read(self, batch: int) -> list[bytes]:
        from confluent_kafka import KafkaError

        side = self.side
        out: list[bytes] = []
        # Never ask for more than is left: consume() returns as soon as it has that many.
        wanted = max(1, min(batch, self.end - self.position))
        for message in side.consumer.consume(wanted, timeout=_POLL_S):
            if message.partition() != self.partition:
                continue  # left over from the previous assignment
            error = message.error()
            if error is not None:
                if error.code() == KafkaError._PARTITION_EOF:
                    if cast(int, message.offset()) >= self.position:  # nothing more before the end
                        self.done = True
                    continue
                if error.fatal() or error.code() in (
                    KafkaError._AUTO_OFFSET_RESET,
                    KafkaError.OFFSET_OUT_OF_RANGE,
                    KafkaError.UNKNOWN_TOPIC_OR_PART,
                    KafkaError.TOPIC_AUTHORIZATION_FAILED,
                ):
                    raise VerifyError(
                        f"Reading {side.topic}-{self.partition} on the {side.name} cluster "
                        f"({side.bootstrap}) at offset {self.position} failed: {error.str()} "
                        "(were records deleted while verifying? run again)"
                    )
                continue  # transient (connection) errors: librdkafka retries
            offset = cast(int, message.offset())  # set on records and end-of-log events
            if offset >= self.end:
                self.done = True
                continue
            out.append(
                record_digest(
                    message.key(),
                    message.value(),
                    cast("_Headers | None", message.headers()),  # consumed: a list of pairs
                    message.timestamp()[1],
                )
            )
            self.position = offset + 1
            if self.position >= self.end:
                self.done = True
        now = time.monotonic()
        if out or self.done:
            self._moved = now
        elif now - self._moved > side.timeout:
            raise VerifyError(
                f"Reading {side.topic}-{self.partition} on the {side.name} cluster "
                f"({side.bootstrap}) made no progress for {side.timeout:.0f}s at offset "
                f"{self.position} (end {self.end})"
            )
        self.count += len(out)
        return out

    def all(self, batch: int) -> Iterable[list[bytes]]:
        while not self.done:
            yield self.read(batch)


def _checksum(value: int) -> str:
    return f"{value % _MOD:032x}"


class _Comparison:
    """Compares one partition, reporting progress through *tick* (records just read)."""

    def __init__(self, source: _Side, target: _Side, batch: int, tick: Callable[[int], None]):
        self.source, self.target, self.batch, self.tick = source, target, batch, tick

    def run(self, partition: int) -> PartitionVerification:
        src, tgt = self.source.reader(partition), self.target.reader(partition)
        diff: dict[bytes, int] = {}
        sums = {src: 0, tgt: 0}
        while not (src.done and tgt.done):
            reader = src if not src.done and (tgt.done or src.count <= tgt.count) else tgt
            step = 1 if reader is src else -1
            digests = reader.read(self.batch)
            total = 0
            for digest in digests:
                left = diff.get(digest, 0) + step
                if left:
                    diff[digest] = left
                else:
                    del diff[digest]
                total += int.from_bytes(digest)
            sums[reader] += total
            self.tick(len(digests))
        lost = sum(n for n in diff.values() if n > 0)
        extra = {d: -n for d, n in diff.items() if n < 0}
        in_source = self._in_source(partition, set(extra)) if extra else set()
        foreign = {d: n for d, n in extra.items() if d not in in_source}
        older, older_sum = 0, 0
        src_start, src_end = self.source.ranges.get(partition, (0, 0))
        if foreign and src_start > 0:
            older, older_sum = self._older(partition, foreign)
        tgt_start, tgt_end = self.target.ranges.get(partition, (0, 0))
        return PartitionVerification(
            partition=partition,
            source_start=src_start,
            source_end=src_end,
            target_start=tgt_start,
            target_end=tgt_end,
            source_records=src.count,
            target_records=tgt.count,
            lost=lost,
            duplicated=sum(n for d, n in extra.items() if d in in_source),
            unexpected=sum(foreign.values()),
            older=older,
            source_checksum=_checksum(sums[src]),
            target_checksum=_checksum(sums[tgt] - older_sum),
        )

    def _in_source(self, partition: int, wanted: set[bytes]) -> set[bytes]:
        """Which of *wanted* the source partition has (a second read, stopping early)."""
        found: set[bytes] = set()
        for digests in self.source.reader(partition).all(self.batch):
            self.tick(len(digests))
            found.update(d for d in digests if d in wanted)
            if len(found) == len(wanted):
                break
        return found

    def _older(self, partition: int, foreign: dict[bytes, int]) -> tuple[int, int]:
        """Count (and take out of *foreign*) the target's leading records the source lacks."""
        count, total = 0, 0
        for digests in self.target.reader(partition).all(self.batch):
            self.tick(len(digests))
            for digest in digests:
                if foreign.get(digest, 0) <= 0:
                    return count, total
                foreign[digest] -= 1
                count += 1
                total += int.from_bytes(digest)
        return count, total


def _client(cluster: str | Mapping[str, str]) -> dict[str, str]:
    return {"bootstrap.servers": cluster} if isinstance(cluster, str) else dict(cluster)


def verify_mirror(
    source: str | Mapping[str, str],
    target: str | Mapping[str, str],
    topic: str,
    remote_topic: str,
    *,
    progress: Progress | None = None,
    batch: int = _BATCH,
    timeout: float = REQUEST_TIMEOUT_S,
) -> VerifyResult:
    """Compare *topic* on *source* with *remote_topic* on *target*, partition by partition.

    *source* and *target* are bootstrap servers or librdkafka client settings. Raises
    :class:`VerifyError` when a topic is missing or a cluster cannot be read.
    """
    group = f"seaway-mirror-verify-{uuid.uuid4().hex[:8]}"  # never committed
    sides: list[_Side] = []
    try:
        sides.append(_Side("source", _client(source), topic, timeout, group))
        sides.append(_Side("target", _client(target), remote_topic, timeout, group))
        src, tgt = sides
        expected = sum(h - lo for s in sides for lo, h in s.ranges.values())
        read = 0

        def tick(n: int) -> None:
            nonlocal read, expected
            read += n
            expected = max(expected, read)
            if progress is not None:
                progress(read, expected)

        tick(0)  # the total, before the first batch
        comparison = _Comparison(src, tgt, batch, tick)
        partitions = sorted(set(src.partitions) | set(tgt.partitions))
        return VerifyResult(topic, remote_topic, [comparison.run(p) for p in partitions])
    finally:
        for side in sides:
            side.close()


__all__ = [
    "PartitionVerification",
    "Progress",
    "VerifyError",
    "VerifyResult",
    "record_digest",
    "verify_mirror",
]

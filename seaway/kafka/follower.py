"""Follow several partitions as records arrive: one long-poll Fetch per leader.

:class:`PartitionFetcher <seaway.kafka.fetcher.PartitionFetcher>` reads one planned range
of one partition. A task that keeps copying its partitions after its planned ranges (a
mirror flow's follow mode, :func:`seaway.mirror.copy.loop.copy_ranges`) waits for records
on all of them at once instead: each :meth:`Follower.poll` sends one Fetch to every leader
of the partitions (the broker answers as soon as a byte is there, or after
``max_wait_ms``) and returns each partition's new data batches, aborted ones dropped under
read_committed, as the fetcher's rule drops them. Following is an optimisation: a partition
whose fetch reports an error is no longer followed (the next planned range deals with it).
"""

from __future__ import annotations

import logging
from typing import Final

from seaway.kafka.cluster import KafkaCluster, raise_for
from seaway.kafka.connection import Connection, Pending
from seaway.kafka.fetcher import FetchedBatch, data_batches, fetch_request
from seaway.protocol.errors import ErrorCode

__all__ = ["Follower", "TopicPartition"]

log = logging.getLogger(__name__)

TopicPartition = tuple[str, int]
_OPEN_END: Final = 1 << 62  # no planned end: every batch after the position


class Follower:
    """Fetches new batches of *positions* ``{(topic, partition): next offset}``."""

    def __init__(
        self,
        cluster: KafkaCluster,
        positions: dict[TopicPartition, int],
        *,
        read_committed: bool = False,
        max_wait_ms: int = 100,
        max_bytes: int = 16 << 20,
    ) -> None:
        self.cluster = cluster
        self.positions = dict(positions)
        self.read_committed = read_committed
        self.max_wait_ms = max_wait_ms
        self.max_bytes = max_bytes

    def poll(self) -> dict[TopicPartition, list[FetchedBatch]]:
        """The data batches that arrived on each followed partition since the last poll
        (waiting up to ``max_wait_ms`` for the first byte); positions move past them. Raises
        the fetcher's errors for a request that failed, and
        :class:`~seaway.kafka.fetcher.CorruptBatchError` after a partition's good batches."""
        sent = [self._send(connection, tps) for connection, tps in self._by_leader().items()]
        out: dict[TopicPartition, list[FetchedBatch]] = {}
        for connection, pending in sent:
            response = connection.receive(pending)
            raise_for(response.error_code, "Fetch(follow)")
            for topic in response.responses:
                for data in topic.partitions:
                    tp = (str(topic.topic), int(data.partition_index))
                    position = self.positions.get(tp)
                    if position is None:
                        continue
                    code = ErrorCode(data.error_code)
                    if code != ErrorCode.none:
                        log.debug("No longer following %s[%d]: %s", *tp, code.name)
                        del self.positions[tp]
                        continue
                    where = f"{tp[0]}[{tp[1]}]"
                    batches, after, corrupt = data_batches(
                        data, position, _OPEN_END, self.read_committed, where
                    )
                    self.positions[tp] = after
                    if batches:
                        out[tp] = batches
                    if corrupt is not None:
                        del self.positions[tp]
                        raise corrupt
        return out

    def _by_leader(self) -> dict[Connection, dict[str, dict[int, int]]]:
        leaders: dict[Connection, dict[str, dict[int, int]]] = {}
        for (topic, partition), offset in self.positions.items():
            connection = self.cluster.leader(topic, partition)
            leaders.setdefault(connection, {}).setdefault(topic, {})[partition] = offset
        return leaders

    def _send(
        self, connection: Connection, positions: dict[str, dict[int, int]]
    ) -> tuple[Connection, Pending]:
        count = sum(len(p) for p in positions.values())
        request = fetch_request(
            connection,
            positions,
            read_committed=self.read_committed,
            max_bytes=self.max_bytes,
            max_wait_ms=self.max_wait_ms,
            partition_max_bytes=max(1 << 20, self.max_bytes // max(count, 1)),
        )
        return connection, connection.send(request)

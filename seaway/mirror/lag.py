"""``seaway mirror lag``: how far a MirrorSource flow A -> B is behind, per source partition.

The flow stores, for each source partition, the last offset it copied in MM2's Connect
offsets format (``["MirrorSourceConnector",{"cluster":A,"partition":p,"topic":t}]`` ->
``{"offset":n}``) in ``mm2-offsets.<A>.internal`` on the target, and resumes from ``n + 1``.
The lag of a partition is the source's end offset (high watermark) minus that next offset;
a partition never copied (or whose next offset retention has deleted) counts from the
source's log start, as the flow would start there. Like ``kafka-consumer-groups
--describe``, the end offsets include transaction markers.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from seaway.kafka import clients
from seaway.kafka.timeouts import REQUEST_TIMEOUT_S
from seaway.mirror.copy.spec import CONNECTOR_NAME
from seaway.mirror.errors import MirrorError
from seaway.mirror.topic_offsets import offset_ranges, topic_partitions


class LagError(MirrorError, RuntimeError):
    """The lag cannot be computed (unknown topic, unreachable cluster)."""


@dataclass(frozen=True)
class LagRow:
    """One source partition: its offsets, the next offset to copy and the lag."""

    topic: str
    partition: int
    source_start: int
    source_end: int
    mirrored: int | None  # the next offset to copy (stored + 1); None: never copied
    lag: int

    @property
    def next_offset(self) -> int:
        """Where the flow continues: the stored offset + 1, at least the log start."""
        return max(self.mirrored if self.mirrored is not None else 0, self.source_start)


def offsets_topic(source_alias: str) -> str:
    """The flow's Connect offsets topic on the target: ``mm2-offsets.<source>.internal``."""
    return f"mm2-offsets.{source_alias}.internal"


def _client(cluster: str | Mapping[str, str]) -> dict[str, str]:
    return {"bootstrap.servers": cluster} if isinstance(cluster, str) else dict(cluster)


def stored_offsets(
    target: str | Mapping[str, str],
    source_alias: str,
    *,
    topic: str | None = None,
    timeout: float = REQUEST_TIMEOUT_S,
) -> dict[tuple[str, int], int]:
    """The last copied offset per source ``(topic, partition)`` of the flow from
    *source_alias*, read from its offsets topic on *target* (``{}`` when the topic does not
    exist; it is never created here)."""
    from seaway.connect.runtime.storage import TopicOffsetStore, TopicSpec

    client = _client(target)
    name = topic or offsets_topic(source_alias)
    bootstrap = client.get("bootstrap.servers", "?")
    if name not in topic_partitions(clients.admin(client), "target", bootstrap, LagError, timeout):
        return {}
    store = TopicOffsetStore(
        TopicSpec(name, 25), client, client_id=f"seaway-mirror-lag-{source_alias}", read_only=True
    )
    store.start()
    try:
        out: dict[tuple[str, int], int] = {}
        for key, offset in store.connector_offsets(CONNECTOR_NAME).items():
            partition = json.loads(key)
            if partition.get("cluster") == source_alias and isinstance(offset, dict):
                out[(partition["topic"], int(partition["partition"]))] = int(offset["offset"])
        return out
    finally:
        store.stop()


def replication_lag(
    source: str | Mapping[str, str],
    target: str | Mapping[str, str],
    source_alias: str,
    topics: Iterable[str] = (),
    *,
    offsets_topic_name: str | None = None,
    timeout: float = REQUEST_TIMEOUT_S,
) -> list[LagRow]:
    """The lag of every partition of *topics* (default: every source topic the flow has
    stored offsets for), sorted by topic and partition."""
    source_client = _client(source)
    bootstrap = source_client.get("bootstrap.servers", "?")
    admin = clients.admin(source_client)
    existing = topic_partitions(admin, "source", bootstrap, LagError, timeout)
    stored = stored_offsets(target, source_alias, topic=offsets_topic_name, timeout=timeout)
    names = sorted(set(topics)) or sorted({t for t, _ in stored if t in existing})
    for name in names:
        if name not in existing:
            raise LagError(f"Topic {name} does not exist on the source cluster ({bootstrap})")
    wanted = [(t, p) for t in names for p in existing[t]]
    offsets = offset_ranges(admin, wanted, "source", bootstrap, LagError, timeout=timeout)
    rows = []
    for (name, partition), (low, high) in sorted(offsets.items()):
        last = stored.get((name, partition))
        mirrored = None if last is None else last + 1
        start = max(low, mirrored if mirrored is not None else low)
        rows.append(LagRow(name, partition, low, high, mirrored, max(high - start, 0)))
    return rows


__all__ = ["LagError", "LagRow", "offsets_topic", "replication_lag", "stored_offsets"]

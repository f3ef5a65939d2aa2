"""What a copy task is told (:class:`MirrorCopySpec`) and what it reports (:class:`RangeSummary`).

Also MM2's source offset, the record a flow stores per source partition in
``mm2-offsets.<source>.internal``: the Connect offset ``["MirrorSourceConnector",
{"cluster","partition","topic"}]`` → ``{"offset": n}`` (:func:`offset_record`).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Final

from seaway.connect.offset_format import offset_key, offset_value
from seaway.mirror.metrics import PartitionStats

__all__ = [
    "CONNECTOR_NAME",
    "SUMMARY_FIELDS",
    "MirrorCopySpec",
    "RangeSummary",
    "offset_record",
]

CONNECTOR_NAME: Final = "MirrorSourceConnector"
"""The connector name of MM2's source offsets (``["MirrorSourceConnector", {...}]``)."""


@dataclass(frozen=True)
class MirrorCopySpec:
    """What a copy task needs, as JSON in the ``spec`` option of the copy source."""

    source_alias: str
    remote_topics: dict[str, str]  # source topic -> remote topic
    target_producer: dict[str, str]
    offsets_topic: str
    offset_lag_max: int = 100
    offset_syncs_topic: str | None = None  # None: emit.offset-syncs.enabled=false
    offset_syncs_producer: dict[str, str] = field(default_factory=dict)
    exactly_once: bool = False
    target_alias: str = ""
    metrics: bool = False  # compute MM2's metrics (the driver reads them from Spark's progress)
    tasks: int = 0  # Spark tasks a micro-batch's ranges are grouped into, at most (0: one each)
    follow_ms: int = 0  # at least once: tasks keep copying this long (0: planned ranges only)
    run_id: str = ""  # this start of the flow (the progress a following task records)
    bridge_ms: int = 0  # following: a bridge copies this long at most over a hand-over (0: none)

    @property
    def flow(self) -> str:
        """``source->target``: the flow's name in logs and keys."""
        return f"{self.source_alias}->{self.target_alias}"

    @property
    def transactional_id_prefix(self) -> str:
        """Prefix of the stable transactional ids: ``<prefix>-<topic>-<partition>``."""
        return f"seaway-mirror-{self.source_alias}-{self.target_alias}"

    @property
    def marker_group(self) -> str:
        """The group on the target whose transactional commits say how far each remote
        partition is copied (``__`` keeps it out of MM2's default group filter)."""
        return f"__seaway-mirror-{self.source_alias}-{self.target_alias}"

    def transactional_id(self, topic: str, partition: int) -> str:
        """The id of every attempt, in every run, to copy *topic*/*partition*."""
        return f"{self.transactional_id_prefix}-{topic}-{partition}"

    def remote_topic(self, topic: str) -> str:
        remote = self.remote_topics.get(topic)
        if remote is None:
            raise RuntimeError(
                f"No remote topic known for source topic {topic}: the copy spec names "
                f"{sorted(self.remote_topics)}; restart the flow so it picks up new topics."
            )
        return remote

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> MirrorCopySpec:
        return cls(**json.loads(text))


def offset_record(
    spec: MirrorCopySpec, topic: str, partition: int, offset: int
) -> tuple[bytes, bytes]:
    """MM2's source offset of *topic*/*partition* as a record: ``(key, value)``."""
    key = offset_key(
        CONNECTOR_NAME, {"cluster": spec.source_alias, "partition": partition, "topic": topic}
    )
    value = offset_value({"offset": offset})
    assert value is not None
    return key, value


@dataclass(frozen=True)
class RangeSummary:
    """What one copy task did: the only row it hands to Spark."""

    topic: str
    partition: int
    start: int
    end: int
    last_offset: int  # the last upstream offset copied; -1: none
    records: int  # records produced (and acknowledged)
    skipped: int = 0  # exactly-once: offsets an earlier committed attempt copied
    stats: PartitionStats | None = None  # MM2's metrics of the remote partition

    @property
    def copied(self) -> list[tuple[str, int, int]]:
        """``[(topic, partition, last upstream offset)]``, empty when nothing was copied."""
        return [(self.topic, self.partition, self.last_offset)] if self.last_offset >= 0 else []

    def row(self) -> tuple[Any, ...]:
        """The summary as a row of :data:`SUMMARY_FIELDS`."""
        stats = None if self.stats is None else json.dumps(self.stats.to_dict())
        return (self.topic, self.partition, self.start, self.end, self.last_offset,
                self.records, self.skipped, stats)  # fmt: skip

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> RangeSummary:
        stats = row.get("stats")
        return cls(
            str(row["topic"]),
            int(row["partition"]),
            int(row["start"]),
            int(row["end"]),
            int(row["last_offset"]),
            int(row["records"]),
            int(row["skipped"]),
            None if stats is None else PartitionStats.from_dict(json.loads(stats)),
        )


SUMMARY_FIELDS: Final = (
    ("topic", "string"),
    ("partition", "int"),
    ("start", "bigint"),
    ("end", "bigint"),
    ("last_offset", "bigint"),
    ("records", "bigint"),
    ("skipped", "bigint"),
    ("stats", "string"),
)
"""The columns of a :class:`RangeSummary` row (name, Spark SQL type)."""

"""What every Debezium connector's offsets share: the one source partition,
``{"server": <topic.prefix>}``, and the ``snapshot`` value of a snapshot's offsets."""

from __future__ import annotations

from typing import Final

__all__ = ["SNAPSHOT_INITIAL", "partition"]

SNAPSHOT_INITIAL: Final = "INITIAL"


def partition(topic_prefix: str) -> dict[str, str]:
    """The one source partition of a connector."""
    return {"server": topic_prefix}

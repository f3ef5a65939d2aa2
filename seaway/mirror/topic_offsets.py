"""Topic listings and partition offset ranges over an AdminClient, for the mirror tools.

Errors are raised as ``error_class`` with a message naming the cluster (``what`` and its
bootstrap servers), so each tool reports them in its own terms.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

TIMEOUT_S: Final = 30.0


def topic_partitions(
    admin: Any,
    what: str,
    bootstrap: str,
    error_class: type[Exception],
    timeout: float = TIMEOUT_S,
) -> dict[str, list[int]]:
    """Every topic of the cluster with its partition ids."""
    from confluent_kafka import KafkaException

    try:
        metadata = admin.list_topics(timeout=timeout)
    except KafkaException as error:
        raise error_class(
            f"Cannot reach the {what} cluster at {bootstrap}: {error.args[0]}"
        ) from error
    return {name: sorted(t.partitions) for name, t in metadata.topics.items() if t.error is None}


def offset_ranges(
    admin: Any,
    partitions: Iterable[tuple[str, int]],
    what: str,
    bootstrap: str,
    error_class: type[Exception],
    *,
    read_committed: bool = False,
    timeout: float = TIMEOUT_S,
) -> dict[tuple[str, int], tuple[int, int]]:
    """(log start, end) per ``(topic, partition)``: the end is the high watermark, or with
    *read_committed* the last stable offset."""
    from confluent_kafka import IsolationLevel, KafkaException, TopicPartition
    from confluent_kafka.admin import OffsetSpec

    wanted = list(partitions)
    if not wanted:
        return {}
    isolation = IsolationLevel.READ_COMMITTED if read_committed else IsolationLevel.READ_UNCOMMITTED
    out: dict[tuple[str, int], list[int]] = {tp: [0, 0] for tp in wanted}
    for slot, spec in ((0, OffsetSpec.earliest()), (1, OffsetSpec.latest())):
        request = {TopicPartition(t, p): spec for t, p in wanted}
        futures = admin.list_offsets(request, isolation_level=isolation, request_timeout=timeout)
        for tp, future in futures.items():
            try:
                out[(tp.topic, tp.partition)][slot] = future.result(timeout).offset
            except KafkaException as error:
                raise error_class(
                    f"Cannot list the offsets of {tp.topic}-{tp.partition} on the {what} "
                    f"cluster ({bootstrap}): {error.args[0]}"
                ) from error
    return {tp: (low, high) for tp, (low, high) in out.items()}


__all__ = ["TIMEOUT_S", "offset_ranges", "topic_partitions"]

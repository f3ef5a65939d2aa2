"""The failover runbook of "Kafka: The Definitive Guide" ch. 8 as functions.

* :func:`fail_over_group`: commit a consumer group's translated offsets on the target
  cluster (from MirrorMaker's checkpoints), so the group resumes there close to where it
  stopped on the source — never ahead of it.
* :func:`reset_group_to_datetime`: the book's other method, "start from 4:03": commit, for
  each partition of the topics, the first offset at or after a point in time.

Both refuse to touch a group that still has active members, as Kafka's
``kafka-consumer-groups --reset-offsets`` does.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from typing import Any, Final

from seaway.admin import INACTIVE_GROUP_STATES, admin_client, alter_offsets, group_state
from seaway.mirror.client import MirrorClient

_TIMEOUT_S: Final = 30.0


class FailoverError(RuntimeError):
    """The group cannot be moved (active members, nothing to translate)."""


def _admin(bootstrap: str) -> Any:
    return admin_client({"bootstrap.servers": bootstrap})


def _require_inactive(admin: Any, group: str) -> None:
    state, members = group_state(admin, group)
    if state not in INACTIVE_GROUP_STATES or members:
        raise FailoverError(
            f"Group {group} has active members ({state}, {members} members); "
            "stop its consumers before moving its offsets."
        )


def _commit(admin: Any, group: str, offsets: Mapping[tuple[str, int], int]) -> None:
    from confluent_kafka import KafkaException

    try:
        alter_offsets(admin, group, offsets)
    except KafkaException as error:
        raise FailoverError(f"Committing offsets for {group} failed: {error}") from error


def translated_offsets(
    target_bootstrap: str, source_alias: str, group: str, timeout: float = _TIMEOUT_S
) -> dict[tuple[str, int], int]:
    """The group's offsets on the target, translated from *source_alias*'s checkpoints."""
    with MirrorClient({"bootstrap.servers": target_bootstrap}) as client:
        offsets = client.remote_consumer_offsets(group, source_alias, timeout)
    return {(tp.topic, tp.partition): offset for tp, offset in offsets.items()}


def fail_over_group(
    target_bootstrap: str, source_alias: str, group: str, *, execute: bool = False
) -> dict[tuple[str, int], int]:
    """The translated offsets; with *execute*, committed for the (inactive) group."""
    offsets = translated_offsets(target_bootstrap, source_alias, group)
    if not offsets:
        raise FailoverError(
            f"No checkpoint of group {group} from cluster {source_alias} on {target_bootstrap}"
            f" (is the checkpoint flow {source_alias}->... emitting for this group?)"
        )
    if execute:
        admin = _admin(target_bootstrap)
        _require_inactive(admin, group)
        _commit(admin, group, offsets)
    return offsets


def reset_group_to_datetime(
    bootstrap: str,
    group: str,
    topics: Iterable[str],
    when: dt.datetime,
    *,
    execute: bool = False,
) -> dict[tuple[str, int], int]:
    """Per partition of *topics*, the first offset at or after *when* (the end offset when
    none is); with *execute*, committed for the (inactive) group."""
    from confluent_kafka import Consumer, TopicPartition

    millis = int(when.timestamp() * 1000)
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group})
    try:
        metadata = consumer.list_topics(timeout=_TIMEOUT_S)
        wanted = []
        for topic in topics:
            if topic not in metadata.topics:
                raise FailoverError(f"Topic {topic} does not exist on {bootstrap}")
            wanted += [TopicPartition(topic, p, millis) for p in metadata.topics[topic].partitions]
        found = consumer.offsets_for_times(wanted, timeout=_TIMEOUT_S)
        offsets: dict[tuple[str, int], int] = {}
        for tp in found:
            offset = tp.offset
            if offset < 0:  # nothing at or after the time: the end
                offset = consumer.get_watermark_offsets(
                    TopicPartition(tp.topic, tp.partition), _TIMEOUT_S
                )[1]
            offsets[(tp.topic, tp.partition)] = offset
    finally:
        consumer.close()
    if execute:
        admin = _admin(bootstrap)
        _require_inactive(admin, group)
        _commit(admin, group, offsets)
    return offsets


__all__ = [
    "FailoverError",
    "fail_over_group",
    "reset_group_to_datetime",
    "translated_offsets",
]

"""The failover runbook of "Kafka: The Definitive Guide" ch. 8 as functions.

* :func:`fail_over_group`: commit a consumer group's translated offsets on the target
  cluster (from MirrorMaker's checkpoints), so the group resumes there close to where it
  stopped on the source — never ahead of it.
* :func:`reset_group_to_datetime`: the book's other method, "start from 4:03": commit, for
  each partition of the topics, the first offset at or after a point in time.

* :func:`prepare_failback`: the book's advice "after the failover": clean the old primary
  (delete the selected topics and the consumer groups that only had offsets on them), then
  mirror everything back from the new primary; it returns the mm2.properties lines for that.

They refuse to touch a group that still has active members, as Kafka's
``kafka-consumer-groups --reset-offsets`` does.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from seaway.java.regex import compile_java_regex
from seaway.kafka import clients
from seaway.kafka.admin import (
    INACTIVE_GROUP_STATES,
    alter_offsets,
    committed_offsets,
    group_state,
)
from seaway.kafka.timeouts import REQUEST_TIMEOUT_S
from seaway.mirror.client import MirrorClient
from seaway.mirror.errors import MirrorError
from seaway.mirror.policy import DefaultReplicationPolicy
from seaway.mirror.topic_offsets import offset_ranges, topic_partitions


class FailoverError(MirrorError, RuntimeError):
    """The group cannot be moved (active members, nothing to translate)."""


class ActionRefused(FailoverError):
    """A change was refused (a group has active members) or failed on the cluster."""


def _require_inactive(admin: Any, group: str) -> None:
    state, members = group_state(admin, group)
    if state not in INACTIVE_GROUP_STATES or members:
        raise ActionRefused(
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
    target_bootstrap: str, source_alias: str, group: str, timeout: float = REQUEST_TIMEOUT_S
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
        admin = clients.admin({"bootstrap.servers": target_bootstrap})
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
    from confluent_kafka import TopicPartition

    millis = int(when.timestamp() * 1000)
    consumer = clients.consumer({"bootstrap.servers": bootstrap, "group.id": group})
    try:
        metadata = consumer.list_topics(timeout=REQUEST_TIMEOUT_S)
        wanted = []
        for topic in topics:
            if topic not in metadata.topics:
                raise FailoverError(f"Topic {topic} does not exist on {bootstrap}")
            wanted += [TopicPartition(topic, p, millis) for p in metadata.topics[topic].partitions]
        found = consumer.offsets_for_times(wanted, timeout=REQUEST_TIMEOUT_S)
        offsets: dict[tuple[str, int], int] = {}
        for tp in found:
            offset = tp.offset
            if offset < 0:  # nothing at or after the time: the end
                offset = consumer.get_watermark_offsets(
                    TopicPartition(tp.topic, tp.partition), REQUEST_TIMEOUT_S
                )[1]
            offsets[(tp.topic, tp.partition)] = offset
    finally:
        consumer.close()
    if execute:
        admin = clients.admin({"bootstrap.servers": bootstrap})
        _require_inactive(admin, group)
        _commit(admin, group, offsets)
    return offsets


# --- failback ------------------------------------------------------------------------------

_IDENTITY_CLASS: Final = "org.apache.kafka.connect.mirror.IdentityReplicationPolicy"


def is_internal_topic(topic: str) -> bool:
    """Whether prepare-failback must leave *topic* alone: Kafka's (``__*``, ``.*``), MM2's
    and Connect's (``mm2-*``, ``*.internal``, ``*-internal``) and the heartbeats topics
    (``heartbeats``, ``A.heartbeats``)."""
    return (
        topic.startswith(("__", ".", "mm2-"))
        or topic.endswith((".internal", "-internal"))
        or DefaultReplicationPolicy().is_heartbeats_topic(topic)
    )


@dataclass(frozen=True)
class FailbackTopic:
    """A topic to delete: its partitions and records (offset span, log start to end)."""

    name: str
    partitions: int
    records: int


@dataclass(frozen=True)
class FailbackPlan:
    """What prepare-failback deletes (or deleted) on the old primary, and how to mirror back."""

    topics: list[FailbackTopic]
    groups: list[str]  # consumer groups whose offsets were only on those topics
    kept_groups: dict[str, list[str]]  # groups also on other topics -> those other topics
    active_groups: list[str]  # groups on those topics with active members: blocks --execute
    mirror_back: list[str]  # mm2.properties lines
    executed: bool


def _select_topics(
    existing: Mapping[str, list[int]], topics: Iterable[str], include: str | None, bootstrap: str
) -> list[str]:
    named = sorted(set(topics))
    for name in named:
        if name not in existing:
            raise FailoverError(f"Topic {name} does not exist on the old primary ({bootstrap})")
        if is_internal_topic(name):
            raise FailoverError(
                f"Topic {name} is an internal topic; prepare-failback never deletes those"
            )
    selected = set(named)
    if include is not None:
        try:
            pattern = compile_java_regex(include)
        except re.error as error:
            raise FailoverError(f"--include {include!r} is not a valid regex: {error}") from None
        selected |= {t for t in existing if pattern.fullmatch(t) and not is_internal_topic(t)}
    if not selected:
        raise FailoverError(
            f"No topic selected on the old primary ({bootstrap}): give --topic or an --include "
            "regex that matches non-internal topics"
        )
    return sorted(selected)


def _groups(admin: Any, timeout: float = REQUEST_TIMEOUT_S) -> list[str]:
    listing = admin.list_consumer_groups(request_timeout=timeout).result(timeout)
    return sorted(g.group_id for g in listing.valid)


@dataclass(frozen=True)
class _GroupInfo:
    active: bool
    assigned: frozenset[str]  # topics assigned to its members


def _describe_groups(
    admin: Any, groups: list[str], timeout: float = REQUEST_TIMEOUT_S
) -> dict[str, _GroupInfo]:
    """Whether each group has active members, and the topics assigned to them."""
    if not groups:
        return {}
    out: dict[str, _GroupInfo] = {}
    for group, future in admin.describe_consumer_groups(groups, request_timeout=timeout).items():
        description = future.result(timeout)
        state = getattr(description.state, "name", str(description.state))
        out[group] = _GroupInfo(
            state not in INACTIVE_GROUP_STATES or bool(description.members),
            frozenset(
                tp.topic
                for member in description.members
                for tp in (member.assignment.topic_partitions if member.assignment else [])
            ),
        )
    return out


def mirror_back_lines(
    old_alias: str, new_alias: str, topics: list[str], groups: list[str], policy: str
) -> list[str]:
    """The mm2.properties lines that mirror *topics* from the new primary back to the old."""
    flow = f"{new_alias}->{old_alias}"
    lines = [
        f"# Mirror {new_alias} (the new primary) back into the cleaned {old_alias}:",
        f"{flow}.enabled = true",
        f"{flow}.topics = {', '.join(topics)}",
        f"{flow}.emit.checkpoints.enabled = true",
        f"{flow}.sync.group.offsets.enabled = true",
    ]
    if groups:
        lines.append(f"{flow}.groups = {', '.join(groups)}")
    if policy == "identity":
        lines += [
            f"replication.policy.class = {_IDENTITY_CLASS}",
            "# IdentityReplicationPolicy cannot detect cycles: keep the old direction off",
            "# until the failback is complete.",
            f"{old_alias}->{new_alias}.enabled = false",
        ]
    else:
        remote = ", ".join(f"{new_alias}.{t}" for t in topics[:3])
        more = ", ..." if len(topics) > 3 else ""
        lines += [
            f"# DefaultReplicationPolicy: the copies arrive on {old_alias} as {remote}{more};",
            f"# {new_alias}'s {old_alias}.* topics (the history from before the failover) never",
            f"# go back to {old_alias}, where they came from.",
        ]
    return lines


def prepare_failback(
    bootstrap: str,
    *,
    old_alias: str,
    new_alias: str,
    topics: Iterable[str] = (),
    include: str | None = None,
    policy: str = "default",
    execute: bool = False,
) -> FailbackPlan:
    """Plan (and with *execute* carry out) the cleaning of the old primary at *bootstrap*.

    Selects *topics* and those matching *include* (a full-match regex), never internal ones;
    the groups to delete are those whose committed offsets are all on selected topics.
    Refuses (:class:`FailoverError`, nothing deleted) while any group with offsets on, or
    members assigned to, a selected topic still has active members.
    """
    if policy not in ("default", "identity"):
        raise FailoverError(f"Unknown replication policy {policy!r}: use default or identity")
    admin = clients.admin({"bootstrap.servers": bootstrap})
    existing = topic_partitions(admin, "old primary", bootstrap, FailoverError)
    selected = _select_topics(existing, topics, include, bootstrap)
    ranges = offset_ranges(
        admin, [(t, p) for t in selected for p in existing[t]], "old primary", bootstrap,
        FailoverError,
    )  # fmt: skip
    plan_topics = [
        FailbackTopic(
            t, len(existing[t]), sum(high - low for (n, _), (low, high) in ranges.items() if n == t)
        )
        for t in selected
    ]
    wanted = set(selected)
    deleted: list[str] = []
    kept: dict[str, list[str]] = {}
    involved: list[str] = []
    all_groups = _groups(admin)
    described = _describe_groups(admin, all_groups)
    for group in all_groups:
        on = {t for t, _ in committed_offsets(admin, group)}
        if on & wanted:
            involved.append(group)
            if on <= wanted:
                deleted.append(group)
            else:
                kept[group] = sorted(on - wanted)
        elif group in described and described[group].assigned & wanted:
            involved.append(group)
    active = [g for g in involved if g in described and described[g].active]
    if execute:
        for group in involved:
            _require_inactive(admin, group)
        _delete(admin, selected, deleted)
    return FailbackPlan(
        topics=plan_topics,
        groups=deleted,
        kept_groups=kept,
        active_groups=active,
        mirror_back=mirror_back_lines(old_alias, new_alias, selected, deleted, policy),
        executed=execute,
    )


def _delete(admin: Any, topics: list[str], groups: list[str]) -> None:
    from confluent_kafka import KafkaException

    try:
        if groups:
            for future in admin.delete_consumer_groups(
                groups, request_timeout=REQUEST_TIMEOUT_S
            ).values():
                future.result(REQUEST_TIMEOUT_S)
        for future in admin.delete_topics(topics, operation_timeout=REQUEST_TIMEOUT_S).values():
            future.result(REQUEST_TIMEOUT_S)
    except KafkaException as error:
        raise ActionRefused(f"Cleaning the old primary failed: {error.args[0]}") from error


__all__ = [
    "ActionRefused",
    "FailbackPlan",
    "FailbackTopic",
    "FailoverError",
    "fail_over_group",
    "is_internal_topic",
    "mirror_back_lines",
    "prepare_failback",
    "reset_group_to_datetime",
    "translated_offsets",
]

"""The server-side assignors of the consumer group protocol (KIP-848): ``uniform`` and ``range``.

An assignor maps every member to the partitions it should own (the group's *target
assignment*) from the members' subscriptions (topic ids) and the partition counts of the
subscribed topics. As Kafka's:

- ``uniform`` (Kafka's default) spreads the partitions of all subscribed topics as evenly as
  the subscriptions allow and is sticky: a member keeps the partitions of its previous target
  that are still its to keep, only the surplus moves.
- ``range`` gives each member, for each topic it subscribes to, one contiguous range of
  partitions, members sorted by ``group.instance.id`` (static members first) then member id,
  the first ``partitions % members`` getting one more; members subscribed to the same topics
  with the same partition counts therefore get the same partition numbers (co-partitioning).
  It is not sticky.

The group coordinator owns membership and reconciliation; an assignor is a pure function.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

__all__ = [
    "ASSIGNORS",
    "Assignment",
    "MemberSpec",
    "assignor_name",
    "range_assign",
    "uniform_assign",
]

Assignment = Mapping[uuid.UUID, frozenset[int]]
"""Partitions by topic id (no empty sets)."""


@dataclass(frozen=True, slots=True)
class MemberSpec:
    """What an assignor knows of one member."""

    member_id: str
    instance_id: str | None
    topics: frozenset[uuid.UUID]
    """Its subscribed topics that exist."""
    previous: Assignment = field(default_factory=dict)
    """Its current target assignment (the stickiness the uniform assignor keeps)."""


Assign = Callable[[Sequence[MemberSpec], Mapping[uuid.UUID, int]], dict[str, Assignment]]


def _freeze(owned: Mapping[uuid.UUID, set[int]]) -> Assignment:
    return {t: frozenset(p) for t, p in owned.items() if p}


def uniform_assign(
    members: Sequence[MemberSpec], partitions: Mapping[uuid.UUID, int]
) -> dict[str, Assignment]:
    """Balanced and sticky: each member keeps what it had while it is under its share, the
    rest goes to the least loaded members that subscribe to the partition's topic."""
    if not members:
        return {}
    if len({m.topics for m in members}) == 1:
        return _uniform_homogeneous(members, partitions)
    return _uniform_heterogeneous(members, partitions)


def _uniform_homogeneous(
    members: Sequence[MemberSpec], partitions: Mapping[uuid.UUID, int]
) -> dict[str, Assignment]:
    """Every member subscribes to the same topics: each gets ``total // members`` partitions,
    ``total % members`` of them one more (those keeping the most of their previous share)."""
    topics = sorted((t for t in members[0].topics if t in partitions), key=str)
    total = sum(partitions[t] for t in topics)
    kept = _kept(members, partitions)
    quota, extra = divmod(total, len(members))
    by_kept = sorted(members, key=lambda m: (-len(kept[m.member_id]), m.member_id))
    quotas = {m.member_id: quota + (1 if i < extra else 0) for i, m in enumerate(by_kept)}
    owned: dict[str, dict[uuid.UUID, set[int]]] = {m.member_id: {} for m in members}
    taken: set[tuple[uuid.UUID, int]] = set()
    for member in members:
        for tp in sorted(kept[member.member_id], key=_tp_key)[: quotas[member.member_id]]:
            owned[member.member_id].setdefault(tp[0], set()).add(tp[1])
            taken.add(tp)
    free = [(t, p) for t in topics for p in range(partitions[t]) if (t, p) not in taken]
    for member in sorted(members, key=lambda m: m.member_id):
        mine = owned[member.member_id]
        room = quotas[member.member_id] - sum(len(p) for p in mine.values())
        for t, p in free[:room]:
            mine.setdefault(t, set()).add(p)
        free = free[max(room, 0) :]
    return {m: _freeze(o) for m, o in owned.items()}


def _uniform_heterogeneous(
    members: Sequence[MemberSpec], partitions: Mapping[uuid.UUID, int]
) -> dict[str, Assignment]:
    """Members subscribe to different topics: keep previous partitions, give each free one to
    the least loaded subscriber (most constrained partitions first), then move partitions
    from a member to a subscriber holding two or more fewer until none can move."""
    kept = _kept(members, partitions)
    subscribers: dict[uuid.UUID, list[str]] = {}
    for m in sorted(members, key=lambda m: m.member_id):
        for t in m.topics:
            if t in partitions:
                subscribers.setdefault(t, []).append(m.member_id)
    owner: dict[tuple[uuid.UUID, int], str] = {}
    for member in sorted(members, key=lambda m: m.member_id):
        for tp in kept[member.member_id]:
            owner.setdefault(tp, member.member_id)
    load = {m.member_id: 0 for m in members}
    for holder in owner.values():
        load[holder] += 1
    free = [(t, p) for t in subscribers for p in range(partitions[t]) if (t, p) not in owner]
    free.sort(key=lambda tp: (len(subscribers[tp[0]]), _tp_key(tp)))
    for tp in free:
        chosen = min(subscribers[tp[0]], key=lambda m: (load[m], m))
        owner[tp] = chosen
        load[chosen] += 1
    moved = True
    while moved:
        moved = False
        for tp in sorted(owner, key=lambda tp: (-load[owner[tp]], _tp_key(tp))):
            holder = owner[tp]
            target = min(subscribers[tp[0]], key=lambda m: (load[m], m))
            if load[holder] - load[target] > 1:
                owner[tp] = target
                load[holder] -= 1
                load[target] += 1
                moved = True
    owned: dict[str, dict[uuid.UUID, set[int]]] = {m.member_id: {} for m in members}
    for (t, p), holder in owner.items():
        owned[holder].setdefault(t, set()).add(p)
    return {m: _freeze(o) for m, o in owned.items()}


def _kept(
    members: Sequence[MemberSpec], partitions: Mapping[uuid.UUID, int]
) -> dict[str, set[tuple[uuid.UUID, int]]]:
    """Each member's previous partitions that still exist and that it still subscribes to
    (a partition two members claim stays with the first by member id)."""
    seen: set[tuple[uuid.UUID, int]] = set()
    kept: dict[str, set[tuple[uuid.UUID, int]]] = {}
    for member in sorted(members, key=lambda m: m.member_id):
        mine = {
            (t, p)
            for t, ps in member.previous.items()
            if t in member.topics and t in partitions
            for p in ps
            if p < partitions[t]
        }
        kept[member.member_id] = mine - seen
        seen |= mine
    return kept


def _tp_key(tp: tuple[uuid.UUID, int]) -> tuple[str, int]:
    return str(tp[0]), tp[1]


def range_assign(
    members: Sequence[MemberSpec], partitions: Mapping[uuid.UUID, int]
) -> dict[str, Assignment]:
    """Per topic, contiguous ranges in member order (static members by instance id first)."""
    ordered = sorted(
        members,
        key=lambda m: (0, m.instance_id, "") if m.instance_id is not None else (1, "", m.member_id),
    )
    owned: dict[str, dict[uuid.UUID, set[int]]] = {m.member_id: {} for m in members}
    for topic, count in partitions.items():
        subscribed = [m for m in ordered if topic in m.topics]
        if not subscribed:
            continue
        quota, extra = divmod(count, len(subscribed))
        start = 0
        for i, member in enumerate(subscribed):
            end = start + quota + (1 if i < extra else 0)
            if end > start:
                owned[member.member_id][topic] = set(range(start, end))
            start = end
    return {m: _freeze(o) for m, o in owned.items()}


ASSIGNORS: dict[str, Assign] = {"uniform": uniform_assign, "range": range_assign}
"""The server-side assignors by name."""

_CLASS_NAMES = {
    "org.apache.kafka.coordinator.group.assignor.UniformAssignor": "uniform",
    "org.apache.kafka.coordinator.group.assignor.RangeAssignor": "range",
}


def assignor_name(configured: str) -> str:
    """The assignor a ``group.consumer.assignors`` entry names (its name or Kafka's class
    name); ValueError naming the choices otherwise."""
    name = _CLASS_NAMES.get(configured.strip(), configured.strip())
    if name not in ASSIGNORS:
        choices = ", ".join([*ASSIGNORS, *_CLASS_NAMES])
        raise ValueError(f"unknown consumer group assignor {configured!r}: use one of {choices}")
    return name

"""The consumer group protocol's server-side assignors (KIP-848): ``uniform`` balances and
sticks, ``range`` hands out contiguous ranges in member order."""

from __future__ import annotations

import uuid
from collections.abc import Mapping

import pytest

from seaway.broker.coordinator.assignors import (
    Assignment,
    MemberSpec,
    assignor_name,
    range_assign,
    uniform_assign,
)

T1, T2, T3 = (uuid.UUID(int=i) for i in (1, 2, 3))


def _count(assignment: Assignment) -> int:
    return sum(len(p) for p in assignment.values())


def _pairs(result: Mapping[str, Assignment]) -> list[tuple[uuid.UUID, int]]:
    return [(t, p) for a in result.values() for t, ps in a.items() for p in ps]


def _check_complete(result: Mapping[str, Assignment], partitions: Mapping[uuid.UUID, int]) -> None:
    """Every partition of the subscribed topics is given to exactly one member."""
    pairs = _pairs(result)
    assert len(pairs) == len(set(pairs)), "a partition went to two members"
    assert set(pairs) == {(t, p) for t, n in partitions.items() for p in range(n)}


def test_uniform_balances_members_with_the_same_subscription() -> None:
    partitions = {T1: 7, T2: 3}
    members = [MemberSpec(f"m{i}", None, frozenset({T1, T2})) for i in range(3)]
    result = uniform_assign(members, partitions)
    _check_complete(result, partitions)
    assert sorted(_count(a) for a in result.values()) == [3, 3, 4]


def test_uniform_moves_only_what_a_new_member_needs() -> None:
    partitions = {T1: 6}
    first = uniform_assign([MemberSpec("a", None, frozenset({T1}))], partitions)
    assert first == {"a": {T1: frozenset(range(6))}}
    members = [
        MemberSpec("a", None, frozenset({T1}), first["a"]),
        MemberSpec("b", None, frozenset({T1})),
    ]
    second = uniform_assign(members, partitions)
    _check_complete(second, partitions)
    assert _count(second["a"]) == _count(second["b"]) == 3
    assert second["a"][T1] <= first["a"][T1]  # a kept three of its own, gave three away
    members.append(MemberSpec("c", None, frozenset({T1})))
    members = [
        MemberSpec(m.member_id, None, m.topics, second.get(m.member_id, {})) for m in members
    ]
    third = uniform_assign(members, partitions)
    _check_complete(third, partitions)
    assert [_count(third[m]) for m in "abc"] == [2, 2, 2]
    assert third["a"][T1] <= second["a"][T1] and third["b"][T1] <= second["b"][T1]


def test_uniform_keeps_the_others_partitions_when_a_member_leaves() -> None:
    partitions = {T1: 6}
    previous = {
        "a": {T1: frozenset({0, 1})},
        "b": {T1: frozenset({2, 3})},
        "c": {T1: frozenset({4, 5})},
    }
    members = [MemberSpec(m, None, frozenset({T1}), previous[m]) for m in ("a", "b")]
    result = uniform_assign(members, partitions)
    _check_complete(result, partitions)
    assert result["a"][T1] >= previous["a"][T1] and result["b"][T1] >= previous["b"][T1]
    assert _count(result["a"]) == _count(result["b"]) == 3


def test_uniform_with_different_subscriptions_gives_each_topic_to_its_subscribers() -> None:
    partitions = {T1: 4, T2: 4, T3: 2}
    members = [
        MemberSpec("a", None, frozenset({T1})),
        MemberSpec("b", None, frozenset({T1, T2})),
        MemberSpec("c", None, frozenset({T2, T3})),
    ]
    result = uniform_assign(members, partitions)
    _check_complete(result, partitions)
    for m in members:
        assert set(result[m.member_id]) <= m.topics
    counts = sorted(_count(a) for a in result.values())
    assert counts[-1] - counts[0] <= 1


def test_uniform_drops_partitions_of_topics_no_longer_subscribed_or_gone() -> None:
    partitions = {T1: 2}
    previous = {T1: frozenset({0, 1}), T2: frozenset({0})}
    result = uniform_assign([MemberSpec("a", None, frozenset({T1}), previous)], partitions)
    assert result == {"a": {T1: frozenset({0, 1})}}


def test_range_gives_contiguous_ranges_static_members_first() -> None:
    partitions = {T1: 5, T2: 5}
    members = [
        MemberSpec("z-dynamic", None, frozenset({T1, T2})),
        MemberSpec("a-dynamic", None, frozenset({T1, T2})),
        MemberSpec("static", "instance-1", frozenset({T1, T2})),
    ]
    result = range_assign(members, partitions)
    _check_complete(result, partitions)
    expected = {
        "static": frozenset({0, 1}),
        "a-dynamic": frozenset({2, 3}),
        "z-dynamic": frozenset({4}),
    }
    for member, ps in expected.items():
        assert result[member] == {T1: ps, T2: ps}  # co-partitioned


def test_range_splits_each_topic_among_its_subscribers() -> None:
    partitions = {T1: 4, T2: 2}
    members = [MemberSpec("a", None, frozenset({T1})), MemberSpec("b", None, frozenset({T1, T2}))]
    result = range_assign(members, partitions)
    assert result == {
        "a": {T1: frozenset({0, 1})},
        "b": {T1: frozenset({2, 3}), T2: frozenset({0, 1})},
    }


def test_assignor_names_and_kafka_class_names() -> None:
    assert assignor_name("uniform") == "uniform"
    assert assignor_name("org.apache.kafka.coordinator.group.assignor.RangeAssignor") == "range"
    with pytest.raises(ValueError, match=r"sticky.*use one of uniform, range"):
        assignor_name("sticky")

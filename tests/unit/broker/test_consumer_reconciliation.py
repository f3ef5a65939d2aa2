"""A consumer group member's reconciliation (KIP-848's ``CurrentAssignmentBuilder``) and the
coordinator's heartbeats over it: no partition is ever held by two members."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

import pytest

from seaway.broker.coordinator.consumer_coordinator import (
    ConsumerGroupCoordinator,
    HeartbeatRequest,
    HeartbeatResponse,
)
from seaway.broker.coordinator.reconciliation import MemberAssignment, MemberState, reconcile
from seaway.protocol.errors import ErrorCode, KafkaError

T = uuid.UUID(int=7)


def _free(_topic: uuid.UUID, _partition: int) -> int:
    return -1


def test_a_member_revokes_before_it_moves_to_the_new_epoch() -> None:
    current = MemberAssignment(epoch=1, assigned={T: frozenset({0, 1, 2, 3})})
    step = reconcile(current, 2, {T: frozenset({0, 1})}, _free, {T: frozenset({0, 1, 2, 3})})
    assert step.state is MemberState.UNREVOKED_PARTITIONS
    assert step.epoch == 1 and step.assigned == {T: frozenset({0, 1})}
    assert step.pending_revocation == {T: frozenset({2, 3})}
    assert reconcile(step, 2, {T: frozenset({0, 1})}, _free, None) == step  # not reported yet
    done = reconcile(step, 2, {T: frozenset({0, 1})}, _free, {T: frozenset({0, 1})})
    assert (done.state, done.epoch, done.previous_epoch) == (MemberState.STABLE, 2, 1)
    assert done.assigned == {T: frozenset({0, 1})} and not done.pending_revocation


def test_a_partition_still_held_elsewhere_is_unreleased() -> None:
    held = {(T, 2): 1}
    current = MemberAssignment(epoch=1, assigned={T: frozenset({0})})
    step = reconcile(
        current, 2, {T: frozenset({0, 2})}, lambda t, p: held.get((t, p), -1), {T: frozenset({0})}
    )
    assert step.state is MemberState.UNRELEASED_PARTITIONS
    assert step.epoch == 2 and step.assigned == {T: frozenset({0})}
    held.clear()
    step = reconcile(step, 2, {T: frozenset({0, 2})}, _free, {T: frozenset({0})})
    assert step.state is MemberState.STABLE and step.assigned == {T: frozenset({0, 2})}


@dataclass
class _Topic:
    topic_id: uuid.UUID
    partitions: list[int]


@dataclass
class _Topics:
    topics: dict[str, _Topic] = field(default_factory=dict)


def _coordinator(topics: _Topics, **settings: object) -> ConsumerGroupCoordinator:
    options: dict = {
        "session_timeout_ms": 45000,
        "heartbeat_interval_ms": 5000,
        "assignors": ("uniform", "range"),
        "max_size": 100,
    }
    return ConsumerGroupCoordinator(topics, **{**options, **settings})


def _beat(
    coordinator: ConsumerGroupCoordinator,
    member: str,
    epoch: int,
    owned: dict[uuid.UUID, frozenset[int]] | None,
    **fields: object,
) -> HeartbeatResponse:
    joining = (
        {"rebalance_timeout_ms": 30000, "subscribed_topic_names": ("t",)} if epoch == 0 else {}
    )
    request = HeartbeatRequest(
        group_id="g",
        member_id=member,
        member_epoch=epoch,
        client_id="c",
        client_host="h",
        version=1,
        owned=owned,
        **{**joining, **fields},  # type: ignore[arg-type]
    )
    return coordinator.heartbeat(request, lambda _topic: True)


def test_members_hand_partitions_over_without_overlap() -> None:
    topics = _Topics({"t": _Topic(T, list(range(4)))})
    coordinator = _coordinator(topics)
    a = _beat(coordinator, "a", 0, {})
    assert (a.member_epoch, a.assignment) == (1, {T: frozenset(range(4))})
    b = _beat(coordinator, "b", 0, {})
    assert b.member_epoch == 2 and b.assignment == {}  # a still holds everything
    owned = {"a": set(range(4)), "b": set()}
    epochs = {"a": a.member_epoch, "b": b.member_epoch}
    for _ in range(4):  # a few heartbeats each, reporting what they own
        for name in ("a", "b"):
            r = _beat(coordinator, name, epochs[name], {T: frozenset(owned[name])})
            epochs[name] = r.member_epoch
            if r.assignment is not None:
                owned[name] = set(r.assignment.get(T, frozenset()))
            assert not owned["a"] & owned["b"], "a partition is owned twice"
    assert owned["a"] | owned["b"] == set(range(4)) and len(owned["a"]) == 2
    group = coordinator.groups["g"]
    assert group.state.value == "Stable" and epochs == {"a": 2, "b": 2}


def test_epochs_are_checked_and_leaving_rebalances() -> None:
    topics = _Topics({"t": _Topic(T, list(range(2)))})
    coordinator = _coordinator(topics)
    _beat(coordinator, "a", 0, {})
    with pytest.raises(KafkaError) as fenced:
        _beat(coordinator, "a", 5, {})
    assert fenced.value.code == ErrorCode.fenced_member_epoch
    with pytest.raises(KafkaError) as unknown:
        _beat(coordinator, "nobody", 1, {})
    assert unknown.value.code == ErrorCode.unknown_member_id
    left = _beat(coordinator, "a", -1, None)
    assert left.member_epoch == -1
    group = coordinator.groups["g"]
    assert group.state.value == "Empty" and group.group_epoch == 2


def test_requests_kafka_refuses() -> None:
    coordinator = _coordinator(_Topics())
    cases = [
        ({"member": "", "epoch": 0, "owned": {}}, "MemberId can't be empty."),
        ({"member": "a", "epoch": 0, "owned": None}, "TopicPartitions must be empty"),
        ({"member": "a", "epoch": -3, "owned": None}, "MemberEpoch is invalid."),
        ({"member": "a", "epoch": -2, "owned": None}, "InstanceId can't be null."),
    ]
    for args, message in cases:
        with pytest.raises(KafkaError, match=message) as e:
            _beat(coordinator, args["member"], args["epoch"], args["owned"])  # type: ignore[arg-type]
        assert e.value.code == ErrorCode.invalid_request
    with pytest.raises(KafkaError, match="Supported assignors: uniform, range") as e:
        _beat(coordinator, "a", 0, {}, server_assignor="sticky")
    assert e.value.code == ErrorCode.unsupported_assignor
    with pytest.raises(KafkaError) as e:
        _beat(coordinator, "a", 0, {}, subscribed_topic_regex="(")
    assert e.value.code == ErrorCode.invalid_regular_expression
    with pytest.raises(KafkaError) as e:
        _beat(coordinator, "a", 3, {})
    assert e.value.code == ErrorCode.group_id_not_found


def test_a_static_member_that_left_for_a_while_gets_its_partitions_back() -> None:
    topics = _Topics({"t": _Topic(T, list(range(2)))})
    coordinator = _coordinator(topics)
    first = _beat(coordinator, "a1", 0, {}, instance_id="i")
    assert first.assignment == {T: frozenset({0, 1})}
    with pytest.raises(KafkaError) as taken:
        _beat(coordinator, "a2", 0, {}, instance_id="i")
    assert taken.value.code == ErrorCode.unreleased_instance_id
    away = _beat(coordinator, "a1", -2, None, instance_id="i")
    assert away.member_epoch == -2
    group = coordinator.groups["g"]
    assert group.members["a1"].assignment.assigned == {T: frozenset({0, 1})}  # still held
    back = _beat(coordinator, "a2", 0, {}, instance_id="i")
    assert (back.member_epoch, back.assignment) == (1, {T: frozenset({0, 1})})
    assert set(group.members) == {"a2"} and group.group_epoch == 1  # no rebalance

"""Static membership (KIP-345) and KIP-814 as Kafka's classic group coordinator does them.

A member with ``group.instance.id`` that restarts takes its old member id's place (and its
partitions) without a rebalance; the old id is fenced with FENCED_INSTANCE_ID; only its
session timeout removes it. Real clients where they can show it (librdkafka, kafka-python),
the group APIs themselves where the clients cannot (KIP-814's ``skip_assignment`` needs
JoinGroup v9, which no installed client sends).
"""

from __future__ import annotations

import datetime
import sys
import time
from typing import Any

import pytest
from confluent_kafka import Consumer, ConsumerGroupState, KafkaError, KafkaException
from confluent_kafka.admin import AdminClient
from kafka import KafkaConsumer

from seaway.kafka.connection import Connection
from seaway.protocol.errors import ErrorCode
from seaway.protocol.framing import make, nested
from tests.broker.clients import balance, create_topic, quiet

pytestmark = pytest.mark.timeout(120)

OFFSET_COMMIT, JOIN_GROUP, HEARTBEAT = 8, 11, 12
LEAVE_GROUP, SYNC_GROUP, DESCRIBE_GROUPS = 13, 14, 15
META = b"subscription"  # the coordinator keeps member metadata as opaque bytes
TEN_S = datetime.timedelta(seconds=10)


def _static(bootstrap: str, group: str, instance: str, topic: str, calls: list[str]) -> Consumer:
    """A librdkafka consumer with ``group.instance.id``, its rebalance callbacks in *calls*."""
    consumer = Consumer(
        quiet(
            {
                "bootstrap.servers": bootstrap,
                "group.id": group,
                "group.instance.id": instance,
                "session.timeout.ms": 6000,
                "heartbeat.interval.ms": 300,
                "partition.assignment.strategy": "range",
            }
        )
    )
    consumer.subscribe(
        [topic],
        on_assign=lambda _, parts: calls.append(f"assign {sorted(p.partition for p in parts)}"),
        on_revoke=lambda _, parts: calls.append(f"revoke {sorted(p.partition for p in parts)}"),
    )
    return consumer


def _membership(consumer: Consumer) -> tuple[int, str]:
    """(generation, member id) as librdkafka knows them: its serialized group metadata is
    ``"CGMDv2:"``, the generation (int32, host order), then group id and member id."""
    data = consumer.consumer_group_metadata()
    assert data[:7] == b"CGMDv2:"
    generation = int.from_bytes(data[7:11], sys.byteorder, signed=True)
    member_id = data[11:].split(b"\0")[1].decode()
    return generation, member_id


def _owned(consumer: Consumer, topic: str) -> set[int]:
    return {tp.partition for tp in consumer.assignment() if tp.topic == topic}


def _describe(bootstrap: str, group: str) -> Any:
    admin = AdminClient(quiet({"bootstrap.servers": bootstrap}))
    return admin.describe_consumer_groups([group])[group].result(10)


def test_restarted_static_member_gets_its_partitions_back_without_a_rebalance(
    bootstrap: str, topic_name: str
) -> None:
    create_topic(bootstrap, topic_name, partitions=4)
    group = f"g-{topic_name}"
    a_calls: list[str] = []
    b_calls: list[str] = []
    a = _static(bootstrap, group, "a", topic_name, a_calls)
    b = _static(bootstrap, group, "b", topic_name, b_calls)
    owned_a, owned_b = balance([a, b], topic_name, 4)
    generation, old_a = _membership(a)
    assert _membership(b)[0] == generation
    member_b = _membership(b)[1]
    b_seen = len(b_calls)

    a.close()  # a static member sends no LeaveGroup on close
    restarted_calls: list[str] = []
    restarted = _static(bootstrap, group, "a", topic_name, restarted_calls)
    deadline = time.monotonic() + 30
    while _owned(restarted, topic_name) != owned_a:
        assert time.monotonic() < deadline, f"never got {owned_a} back: {restarted_calls}"
        restarted.poll(0.05)
        b.poll(0.05)
    quiet_until = time.monotonic() + 2  # several heartbeats: nothing moves afterwards
    while time.monotonic() < quiet_until:
        restarted.poll(0.05)
        b.poll(0.05)

    assert b_calls[b_seen:] == [], "the other member went through a rebalance"
    assert _owned(b, topic_name) == owned_b
    assert _membership(b) == (generation, member_b)
    new_generation, new_a = _membership(restarted)
    assert new_generation == generation and new_a != old_a and new_a.startswith("a-")
    assert restarted_calls == [f"assign {sorted(owned_a)}"]

    described = _describe(bootstrap, group)
    assert described.state == ConsumerGroupState.STABLE
    members = {
        m.group_instance_id: (m.member_id, {tp.partition for tp in m.assignment.topic_partitions})
        for m in described.members
    }
    assert members == {"a": (new_a, owned_a), "b": (member_b, owned_b)}
    restarted.close()
    b.close()


def test_static_member_away_past_its_session_timeout_is_removed(
    bootstrap: str, topic_name: str
) -> None:
    create_topic(bootstrap, topic_name, partitions=4)
    group = f"g-{topic_name}"
    b_calls: list[str] = []
    a = _static(bootstrap, group, "a", topic_name, [])
    b = _static(bootstrap, group, "b", topic_name, b_calls)
    balance([a, b], topic_name, 4)
    a.close()
    closed_at = time.monotonic()
    deadline = closed_at + 30
    while _owned(b, topic_name) != {0, 1, 2, 3}:
        assert time.monotonic() < deadline, "the absent static member never expired"
        b.poll(0.1)
    waited = time.monotonic() - closed_at
    assert 4 < waited < 20, f"rebalanced {waited:.1f}s after close with session.timeout.ms=6000"
    assert [m.group_instance_id for m in _describe(bootstrap, group).members] == ["b"]
    b.close()


def test_a_second_consumer_with_the_same_instance_id_fences_the_first(
    bootstrap: str, topic_name: str
) -> None:
    create_topic(bootstrap, topic_name, partitions=2)
    group = f"g-{topic_name}"
    first_calls: list[str] = []
    first = _static(bootstrap, group, "twin", topic_name, first_calls)
    assert balance([first], topic_name, 2) == [{0, 1}]
    second = _static(bootstrap, group, "twin", topic_name, [])
    deadline = time.monotonic() + 30
    fatal: list[str] = []  # librdkafka makes FENCED_INSTANCE_ID a fatal consumer error
    while not fatal or _owned(second, topic_name) != {0, 1}:
        assert time.monotonic() < deadline, f"first never fenced: {first_calls}"
        second.poll(0.05)
        error = (message := first.poll(0.05)) is not None and message.error()
        if error and error.code() == KafkaError._FATAL:
            fatal.append(error.str())
    assert "fenced by other consumer with same group.instance.id" in fatal[0], fatal
    (member,) = _describe(bootstrap, group).members
    assert member.member_id == _membership(second)[1] and member.group_instance_id == "twin"
    second.close()
    try:
        first.close()
    except KafkaException:
        pass  # closing a fenced consumer reports the fatal error again


def test_kafka_python_static_member_restarts_without_a_rebalance(
    bootstrap: str, topic_name: str
) -> None:
    """kafka-python (JoinGroup v7) as the static member, librdkafka as the other one (and the
    leader: kafka-python drops a JoinGroup answer that outlives its poll and joins again,
    which as the leader would force one rebalance after another)."""
    create_topic(bootstrap, topic_name, partitions=2)
    group = f"g-{topic_name}"

    def python_member() -> KafkaConsumer:
        consumer = KafkaConsumer(
            bootstrap_servers=bootstrap,
            group_id=group,
            group_instance_id="kp",
            session_timeout_ms=6000,
            heartbeat_interval_ms=300,
            enable_auto_commit=False,
        )
        consumer.subscribe([topic_name])
        return consumer

    def settle(python: KafkaConsumer, other: Consumer) -> set[int]:
        deadline = time.monotonic() + 30
        while True:
            python.poll(timeout_ms=50)
            other.poll(0.05)
            mine = {tp.partition for tp in python.assignment()}
            if mine and _owned(other, topic_name) and len(mine | _owned(other, topic_name)) == 2:
                return mine
            assert time.monotonic() < deadline, "the group never balanced"

    b_calls: list[str] = []
    b = _static(bootstrap, group, "b", topic_name, b_calls)
    assert balance([b], topic_name, 2) == [{0, 1}]
    python = python_member()
    owned = settle(python, b)
    generation, member_b = _membership(b)
    b_seen = len(b_calls)
    python.close()  # a static member leaves no group on close
    python = python_member()
    assert settle(python, b) == owned
    for _ in range(20):  # several heartbeats
        python.poll(timeout_ms=50)
        b.poll(0.05)
    assert b_calls[b_seen:] == [] and _membership(b) == (generation, member_b)
    assert {m.group_instance_id for m in _describe(bootstrap, group).members} == {"kp", "b"}
    python.close()
    b.close()


# --- the group APIs themselves: KIP-814, fencing on every API, LeaveGroup by instance id --


def _join(
    connection: Connection,
    version: int,
    group: str,
    instance: str | None,
    member_id: str = "",
    protocols: tuple[str, ...] = ("range",),
) -> Any:
    """JoinGroup offering *protocols* in preference order."""
    cls = connection.request_class(JOIN_GROUP, version, version)
    protocol_cls = nested(cls, "JoinGroupRequestProtocol")
    offered = tuple(make(protocol_cls, name=name, metadata=META) for name in protocols)
    request = make(cls, group_id=group, session_timeout=TEN_S, rebalance_timeout=TEN_S,
                   member_id=member_id, group_instance_id=instance, protocol_type="consumer",
                   protocols=offered, reason="test")  # fmt: skip
    return connection.request(request)


def _sync(
    connection: Connection,
    group: str,
    generation: int,
    member_id: str,
    instance: str | None,
    assignments: dict[str, bytes],
    protocol: str | None = "range",
) -> Any:
    cls = connection.request_class(SYNC_GROUP, 5, 5)
    assignment_cls = nested(cls, "SyncGroupRequestAssignment")
    return connection.request(
        cls(
            group_id=group,
            generation_id=generation,
            member_id=member_id,
            group_instance_id=instance,
            protocol_type="consumer",
            protocol_name=protocol,
            assignments=tuple(
                assignment_cls(member_id=m, assignment=a) for m, a in assignments.items()
            ),
        )
    )


def _heartbeat(
    connection: Connection, group: str, generation: int, member_id: str, instance: str
) -> ErrorCode:
    cls = connection.request_class(HEARTBEAT, 4, 4)
    request = cls(group_id=group, generation_id=generation, member_id=member_id,
                  group_instance_id=instance)  # fmt: skip
    return ErrorCode(connection.request(request).error_code)


def _commit(
    connection: Connection, group: str, generation: int, member_id: str, instance: str, topic: str
) -> ErrorCode:
    cls = connection.request_class(OFFSET_COMMIT, 8, 8)
    partition = nested(cls, "OffsetCommitRequestPartition")(
        partition_index=0, committed_offset=1, committed_metadata=None
    )
    topics = (nested(cls, "OffsetCommitRequestTopic")(name=topic, partitions=(partition,)),)
    request = cls(group_id=group, generation_id_or_member_epoch=generation, member_id=member_id,
                  group_instance_id=instance, topics=topics)  # fmt: skip
    ((answer,),) = [t.partitions for t in connection.request(request).topics]
    return ErrorCode(answer.error_code)


def _described(connection: Connection, group: str) -> Any:
    cls = connection.request_class(DESCRIBE_GROUPS, 6, 6)
    (described,) = connection.request(
        cls(groups=(group,), include_authorized_operations=False)
    ).groups
    return described


def test_kip_814_static_leader_rejoining_a_stable_group_skips_the_assignment(
    bootstrap: str, topic_name: str, connection: Connection
) -> None:
    create_topic(bootstrap, topic_name, partitions=1)
    group = f"g-{topic_name}"
    first = _join(connection, 9, group, "s1")  # static: no MEMBER_ID_REQUIRED round (KIP-394)
    assert first.error_code == ErrorCode.none and first.member_id.startswith("s1-")
    assert first.leader == first.member_id and not first.skip_assignment
    generation = first.generation_id
    assert [(m.member_id, m.group_instance_id) for m in first.members] == [(first.member_id, "s1")]
    synced = _sync(connection, group, generation, first.member_id, "s1", {first.member_id: b"A"})
    assert (synced.error_code, synced.assignment) == (ErrorCode.none, b"A")

    again = _join(connection, 9, group, "s1")  # restarted: no member id
    assert again.error_code == ErrorCode.none and again.member_id != first.member_id
    assert again.generation_id == generation  # no rebalance
    assert again.skip_assignment and again.leader == again.member_id
    assert [(m.member_id, m.group_instance_id, m.metadata) for m in again.members] == [
        (again.member_id, "s1", META)
    ]
    kept = _sync(connection, group, generation, again.member_id, "s1", {})
    assert (kept.error_code, kept.assignment) == (ErrorCode.none, b"A")

    # The replaced member id is fenced on every group API.
    fenced = ErrorCode.fenced_instance_id
    assert _heartbeat(connection, group, generation, first.member_id, "s1") == fenced
    assert _sync(connection, group, generation, first.member_id, "s1", {}).error_code == fenced
    assert _commit(connection, group, generation, first.member_id, "s1", topic_name) == fenced
    assert _commit(connection, group, generation, again.member_id, "s1", topic_name) == (
        ErrorCode.none
    )
    rejoin_old = _join(connection, 9, group, "s1", member_id=first.member_id)
    assert rejoin_old.error_code == fenced

    # Before KIP-814 (v8) the static leader is answered as a follower: the previous leader
    # id and no members, so it syncs without assigning.
    older = _join(connection, 8, group, "s1")
    assert older.error_code == ErrorCode.none and older.generation_id == generation
    assert older.leader == again.member_id and older.members == ()
    kept = _sync(connection, group, generation, older.member_id, "s1", {})
    assert (kept.error_code, kept.assignment) == (ErrorCode.none, b"A")
    assert _heartbeat(connection, group, generation, older.member_id, "s1") == ErrorCode.none


def test_static_member_with_a_new_protocol_rebalances_then_leaves_by_instance_id(
    bootstrap: str, topic_name: str, connection: Connection
) -> None:
    group = f"g-{topic_name}"
    first = _join(connection, 9, group, "s1")
    generation = first.generation_id
    _sync(connection, group, generation, first.member_id, "s1", {first.member_id: b"A"})

    # Preferring another protocol changes the group's selected one: that needs a rebalance.
    changed = _join(connection, 9, group, "s1", protocols=("roundrobin", "range"))
    assert changed.error_code == ErrorCode.none and not changed.skip_assignment
    assert changed.generation_id == generation + 1 and changed.protocol_name == "roundrobin"
    assert changed.leader == changed.member_id and len(changed.members) == 1

    # SyncGroup v5: protocol type and name are mandatory and must be the group's (KIP-559).
    member = changed.member_id
    wrong = _sync(connection, group, generation + 1, member, "s1", {}, protocol="range")
    assert wrong.error_code == ErrorCode.inconsistent_group_protocol
    missing = _sync(connection, group, generation + 1, member, "s1", {}, protocol=None)
    assert missing.error_code == ErrorCode.inconsistent_group_protocol
    ok = _sync(connection, group, generation + 1, member, "s1", {member: b"B"}, "roundrobin")
    assert (ok.error_code, ok.assignment) == (ErrorCode.none, b"B")

    described = _described(connection, group)
    assert (described.error_code, described.group_state) == (ErrorCode.none, "Stable")
    assert [(m.member_id, m.group_instance_id) for m in described.members] == [(member, "s1")]

    # LeaveGroup v5 by group.instance.id alone (an empty member id), as admin tools do.
    cls = connection.request_class(LEAVE_GROUP, 5, 5)
    identity = nested(cls, "MemberIdentity")
    leaving = (identity(member_id="", group_instance_id="s1", reason="scale down"),
               identity(member_id="", group_instance_id="nobody", reason=None))  # fmt: skip
    left = connection.request(cls(group_id=group, members=leaving))
    assert left.error_code == ErrorCode.none
    assert [(m.group_instance_id, m.error_code) for m in left.members] == [
        ("s1", ErrorCode.none),
        ("nobody", ErrorCode.unknown_member_id),
    ]
    emptied = _described(connection, group)
    assert (emptied.group_state, emptied.members) == ("Empty", ())

    # DescribeGroups v6 (KIP-1043): a group that does not exist is GROUP_ID_NOT_FOUND.
    unknown = _described(connection, f"{group}-missing")
    assert (unknown.error_code, unknown.group_state) == (ErrorCode.group_id_not_found, "Dead")
    assert unknown.error_message == f"Group {group}-missing not found."

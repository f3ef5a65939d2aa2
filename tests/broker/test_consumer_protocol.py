"""The consumer group protocol (KIP-848) with real librdkafka consumers
(``group.protocol=consumer``): the broker assigns partitions (``uniform``, ``range``), members
reconcile through ConsumerGroupHeartbeat without ever holding a partition twice, leave, time
out, commit with their member epoch, and are described by ConsumerGroupDescribe; classic
groups keep working beside them.
"""

from __future__ import annotations

import datetime
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from confluent_kafka import (
    Consumer,
    ConsumerGroupState,
    ConsumerGroupTopicPartitions,
    ConsumerGroupType,
    KafkaError,
    TopicPartition,
)
from confluent_kafka.admin import AclOperation, AdminClient, NewTopic, ResourceType

from seaway.broker import BrokerThread
from seaway.kafka.connection import Connection
from seaway.protocol.errors import ErrorCode
from seaway.protocol.framing import nested
from tests.broker.acl_cluster import TIMEOUT_S, AclBroker, start_acl_broker
from tests.broker.clients import balance, create_topic, produce, quiet

pytestmark = pytest.mark.timeout(180)

SESSION_S = 6
FAST = {
    "group.consumer.session.timeout.ms": SESSION_S * 1000,
    "group.consumer.heartbeat.interval.ms": 300,
}
TEN_S = datetime.timedelta(seconds=10)


@pytest.fixture
def fast(kafka_cluster: Callable[..., BrokerThread]) -> str:
    """A broker of the test's own whose consumer group members heartbeat every 300 ms."""
    return kafka_cluster(FAST).bootstrap_servers


@pytest.fixture
def raw(fast: str) -> Iterator[Connection]:
    host, port = fast.rsplit(":", 1)
    connection = Connection(host, int(port))
    yield connection
    connection.close()


class Ledger:
    """Who holds which partition, from the members' rebalance callbacks: a partition
    assigned to one member while another still holds it is recorded as an overlap."""

    def __init__(self) -> None:
        self.holder: dict[tuple[str, int], str] = {}
        self.overlaps: list[str] = []

    def consumer(
        self, bootstrap: str, group: str, name: str, topics: list[str], **extra: Any
    ) -> Consumer:
        consumer = Consumer(
            quiet(
                {
                    "bootstrap.servers": bootstrap,
                    "group.id": group,
                    "group.protocol": "consumer",
                    "auto.offset.reset": "earliest",
                    "client.id": name,
                    **extra,
                }
            )
        )

        def assigned(_: Consumer, partitions: list[TopicPartition]) -> None:
            for tp in partitions:
                other = self.holder.get((tp.topic, tp.partition))
                if other is not None and other != name:
                    self.overlaps.append(f"{tp.topic}-{tp.partition} to {name} held by {other}")
                self.holder[tp.topic, tp.partition] = name

        def revoked(_: Consumer, partitions: list[TopicPartition]) -> None:
            for tp in partitions:
                if self.holder.get((tp.topic, tp.partition)) == name:
                    del self.holder[tp.topic, tp.partition]

        consumer.subscribe(topics, on_assign=assigned, on_revoke=revoked, on_lost=revoked)
        return consumer


def _admin(bootstrap: str) -> AdminClient:
    return AdminClient(quiet({"bootstrap.servers": bootstrap}))


def _describe(bootstrap: str, group: str) -> Any:
    admin = _admin(bootstrap)  # kept until the answer: a dropped client never completes it
    return admin.describe_consumer_groups([group])[group].result(10)


def _owned(consumer: Consumer) -> set[tuple[str, int]]:
    return {(tp.topic, tp.partition) for tp in consumer.assignment()}


def _until(
    consumers: list[Consumer], done: Callable[[], bool], what: str, timeout: float = 40
) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, f"never {what}"
        for c in consumers:
            c.poll(0.05)


def _consume(consumer: Consumer, count: int) -> list[Any]:
    """The next ``count`` records ``consumer`` reads (within 40 s)."""
    seen: list[Any] = []
    deadline = time.monotonic() + 40
    while len(seen) < count:
        assert time.monotonic() < deadline, f"read {len(seen)} records of {count}"
        seen += [m for m in consumer.consume(count - len(seen), 0.1) if m.error() is None]
    return seen


def test_members_split_partitions_without_holding_one_twice(fast: str, topic_name: str) -> None:
    create_topic(fast, topic_name, partitions=4)
    group = f"g-{topic_name}"
    ledger = Ledger()
    a = ledger.consumer(fast, group, "a", [topic_name])
    assert balance([a], topic_name, 4) == [{0, 1, 2, 3}]
    b = ledger.consumer(fast, group, "b", [topic_name])
    owned = balance([a, b], topic_name, 4)
    assert sorted(len(o) for o in owned) == [2, 2]
    _until([a, b], lambda: _describe(fast, group).state == ConsumerGroupState.STABLE, "stable")
    c = ledger.consumer(fast, group, "c", [topic_name])
    owned = balance([a, b, c], topic_name, 4)
    assert sorted(len(o) for o in owned) == [1, 1, 2]
    a.close()
    owned = balance([b, c], topic_name, 4)
    assert sorted(len(o) for o in owned) == [2, 2]
    b.close()
    assert balance([c], topic_name, 4) == [{0, 1, 2, 3}]
    assert ledger.overlaps == []
    assert {p for (_, p), name in ledger.holder.items() if name == "c"} == {0, 1, 2, 3}
    c.close()


def test_a_killed_members_partitions_move_after_the_session_timeout(
    fast: str, topic_name: str
) -> None:
    create_topic(fast, topic_name, partitions=2)
    group = f"g-{topic_name}"
    script = textwrap.dedent(
        f"""
        from confluent_kafka import Consumer
        c = Consumer({{"bootstrap.servers": "{fast}", "group.id": "{group}",
                       "group.protocol": "consumer"}})
        c.subscribe(["{topic_name}"])
        while not c.assignment():
            c.poll(0.1)
        print("assigned", flush=True)
        while True:
            c.poll(0.1)
        """
    )
    victim = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    try:
        assert victim.stdout is not None
        assert victim.stdout.readline().strip() == b"assigned"
        survivor = Ledger().consumer(fast, group, "survivor", [topic_name])
        _until([survivor], lambda: len(survivor.assignment()) == 1, "split with the victim")
        victim.kill()  # SIGKILL: no leaving heartbeat; only the session timeout removes it
        victim.wait()
        killed_at = time.monotonic()
        _until([survivor], lambda: len(survivor.assignment()) == 2, "took the victim's partition")
        waited = time.monotonic() - killed_at
        assert SESSION_S - 2 < waited < SESSION_S + 10, f"fenced after {waited:.1f}s"
        assert [m.client_id for m in _describe(fast, group).members] == ["survivor"]
        survivor.close()
    finally:
        victim.kill()


@pytest.mark.parametrize("assignor", ["uniform", "range"])
def test_the_member_chosen_server_assignor(fast: str, topic_name: str, assignor: str) -> None:
    """``range`` gives each member the same partition numbers of both topics; ``uniform``
    (the default) balances the partitions of all topics together."""
    topics = [f"{topic_name}-x", f"{topic_name}-y"]
    for t in topics:
        create_topic(fast, t, partitions=2)
    group = f"g-{topic_name}"
    ledger = Ledger()
    members = [
        ledger.consumer(fast, group, name, topics, **{"group.remote.assignor": assignor})
        for name in ("a", "b")
    ]
    _until(
        members,
        lambda: (
            all(len(_owned(m)) == 2 for m in members)
            and len(_owned(members[0]) | _owned(members[1])) == 4
        ),
        "balanced",
    )
    if assignor == "range":
        for m in members:
            ((_, p1), (_, p2)) = sorted(_owned(m))
            assert p1 == p2, f"range split the topics differently: {_owned(m)}"
    described = _describe(fast, group)
    assert described.partition_assignor == assignor
    assert ledger.overlaps == []
    for m in members:
        m.close()


def test_a_regex_subscription_follows_new_topics(
    fast: str, raw: Connection, topic_name: str
) -> None:
    """librdkafka sends the regex (SubscribedTopicRegex, v1): the broker resolves it."""
    create_topic(fast, f"{topic_name}-a", partitions=1)
    create_topic(fast, f"{topic_name}-b", partitions=1)
    create_topic(fast, f"other-{topic_name}", partitions=1)
    consumer = Ledger().consumer(fast, f"g-{topic_name}", "r", [f"^{topic_name}-.*"])
    wanted = {(f"{topic_name}-a", 0), (f"{topic_name}-b", 0)}
    _until([consumer], lambda: _owned(consumer) == wanted, "got the matching topics")
    described = raw.request(
        raw.request_class(69, 1, 1)(
            group_ids=(f"g-{topic_name}",), include_authorized_operations=False
        )
    )
    ((member,),) = [g.members for g in described.groups]
    assert member.subscribed_topic_regex == f"(^{topic_name}-.*)"  # librdkafka's grouping
    assert member.subscribed_topic_names == ()
    create_topic(fast, f"{topic_name}-c", partitions=2)
    wanted |= {(f"{topic_name}-c", 0), (f"{topic_name}-c", 1)}
    _until([consumer], lambda: _owned(consumer) == wanted, "picked up the new topic")
    consumer.close()


def test_offsets_are_committed_with_the_member_epoch(
    fast: str, raw: Connection, topic_name: str
) -> None:
    create_topic(fast, topic_name, partitions=1)
    produce(fast, topic_name, [(None, f"v{i}".encode(), 0) for i in range(10)])
    group = f"g-{topic_name}"
    consumer = Ledger().consumer(fast, group, "c", [topic_name], **{"enable.auto.commit": False})
    assert len(_consume(consumer, 10)) == 10
    consumer.commit(offsets=[TopicPartition(topic_name, 0, 7)], asynchronous=False)
    assert consumer.committed([TopicPartition(topic_name, 0)], 10)[0].offset == 7
    admin = _admin(fast)
    listed = admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group)])
    assert [tp.offset for tp in listed[group].result(10).topic_partitions] == [7]

    member = _describe(fast, group).members[0]
    epoch = _member_epoch(raw, group)

    def commit(version: int, member_epoch: int) -> ErrorCode:
        cls = raw.request_class(8, version, version)
        part = nested(cls, "OffsetCommitRequestPartition")(
            partition_index=0, committed_offset=3, committed_metadata=None
        )
        topic = nested(cls, "OffsetCommitRequestTopic")(name=topic_name, partitions=(part,))
        resp = raw.request(
            cls(
                group_id=group,
                generation_id_or_member_epoch=member_epoch,
                member_id=member.member_id,
                group_instance_id=None,
                topics=(topic,),
            )
        )
        return resp.topics[0].partitions[0].error_code

    assert commit(9, epoch + 1) == ErrorCode.stale_member_epoch
    assert commit(8, epoch) == ErrorCode.unsupported_version
    assert commit(9, epoch) == ErrorCode.none
    fetch = raw.request_class(9, 9, 9)
    group_cls = nested(fetch, "OffsetFetchRequestGroup")
    stale = raw.request(
        fetch(
            groups=(
                group_cls(
                    group_id=group, member_id=member.member_id, member_epoch=epoch + 1, topics=None
                ),
            )
        )
    )
    assert stale.groups[0].error_code == ErrorCode.stale_member_epoch
    fresh = raw.request(
        fetch(
            groups=(
                group_cls(
                    group_id=group, member_id=member.member_id, member_epoch=epoch, topics=None
                ),
            )
        )
    )
    assert fresh.groups[0].error_code == ErrorCode.none
    assert fresh.groups[0].topics[0].partitions[0].committed_offset == 3
    consumer.close()


def _member_epoch(raw: Connection, group: str) -> int:
    cls = raw.request_class(69, 1, 1)
    described = raw.request(cls(group_ids=(group,), include_authorized_operations=False))
    return described.groups[0].members[0].member_epoch


def test_consumer_group_describe_shows_members_and_assignments(
    fast: str, raw: Connection, topic_name: str
) -> None:
    create_topic(fast, topic_name, partitions=3)
    group = f"g-{topic_name}"
    ledger = Ledger()
    members = [ledger.consumer(fast, group, name, [topic_name]) for name in ("a", "b")]
    balance(members, topic_name, 3)
    _until(members, lambda: _describe(fast, group).state == ConsumerGroupState.STABLE, "stable")
    described = _describe(fast, group)
    assert described.type == ConsumerGroupType.CONSUMER
    assert described.partition_assignor == "uniform"
    by_client = {m.client_id: m for m in described.members}
    assert set(by_client) == {"a", "b"}
    for name, consumer in zip(("a", "b"), members, strict=True):
        m = by_client[name]
        current = {(tp.topic, tp.partition) for tp in m.assignment.topic_partitions}
        target = {(tp.topic, tp.partition) for tp in m.target_assignment.topic_partitions}
        assert current == target == _owned(consumer)

    cls = raw.request_class(69, 1, 1)
    resp = raw.request(cls(group_ids=(group, "no-such-group"), include_authorized_operations=True))
    found, missing = resp.groups
    assert (found.error_code, found.group_state, found.assignor_name) == (
        ErrorCode.none,
        "Stable",
        "uniform",
    )
    assert found.group_epoch == found.assignment_epoch > 0
    assert {m.member_epoch for m in found.members} == {found.assignment_epoch}
    assert {m.member_type for m in found.members} == {1}
    assert {m.subscribed_topic_names for m in found.members} == {(topic_name,)}
    assert found.authorized_operations != -(2**31)
    assert missing.error_code == ErrorCode.group_id_not_found
    for m in members:
        m.close()


def test_classic_and_consumer_groups_side_by_side(
    fast: str, raw: Connection, topic_name: str
) -> None:
    create_topic(fast, topic_name, partitions=2)
    classic_group, consumer_group = f"classic-{topic_name}", f"consumer-{topic_name}"
    classic = Consumer(
        quiet({"bootstrap.servers": fast, "group.id": classic_group, "heartbeat.interval.ms": 300})
    )
    classic.subscribe([topic_name])
    modern = Ledger().consumer(fast, consumer_group, "m", [topic_name])
    _until(  # each group reads every partition
        [classic, modern],
        lambda: len(classic.assignment()) == len(modern.assignment()) == 2,
        "assigned",
    )

    admin = _admin(fast)
    listed = admin.list_consumer_groups().result(10)
    types = {g.group_id: g.type for g in listed.valid}
    assert types[classic_group] == ConsumerGroupType.CLASSIC
    assert types[consumer_group] == ConsumerGroupType.CONSUMER
    assert _describe(fast, classic_group).type == ConsumerGroupType.CLASSIC
    assert _describe(fast, consumer_group).type == ConsumerGroupType.CONSUMER

    join = raw.request_class(11, 9, 9)
    protocol = nested(join, "JoinGroupRequestProtocol")(name="range", metadata=b"")
    joined = raw.request(
        join(
            group_id=consumer_group,
            session_timeout=TEN_S,
            rebalance_timeout=TEN_S,
            member_id="",
            protocol_type="consumer",
            protocols=(protocol,),
        )
    )
    assert joined.error_code == ErrorCode.group_id_not_found
    joined = raw.request(
        join(
            group_id=consumer_group,
            session_timeout=TEN_S,
            rebalance_timeout=TEN_S,
            member_id="",
            protocol_type="connect",
            protocols=(protocol,),
        )
    )
    assert joined.error_code == ErrorCode.inconsistent_group_protocol
    heartbeat = raw.request_class(68, 1, 1)
    beat = raw.request(
        heartbeat(
            group_id=classic_group,
            member_id="m-1",
            member_epoch=0,
            rebalance_timeout=TEN_S,
            subscribed_topic_names=(topic_name,),
            topic_partitions=(),
        )
    )
    assert beat.error_code == ErrorCode.group_id_not_found
    describe = raw.request_class(15, 6, 6)
    dead = raw.request(describe(groups=(consumer_group,), include_authorized_operations=False))
    assert (dead.groups[0].error_code, dead.groups[0].group_state) == (
        ErrorCode.group_id_not_found,
        "Dead",
    )
    classic.close()
    modern.close()


def test_an_empty_classic_group_becomes_a_consumer_group_with_its_offsets(
    fast: str, topic_name: str
) -> None:
    create_topic(fast, topic_name, partitions=1)
    produce(fast, topic_name, [(None, f"v{i}".encode(), 0) for i in range(6)])
    group = f"g-{topic_name}"
    admin = _admin(fast)
    committed = admin.alter_consumer_group_offsets(
        [ConsumerGroupTopicPartitions(group, [TopicPartition(topic_name, 0, 4)])]
    )
    committed[group].result(10)
    consumer = Ledger().consumer(fast, group, "c", [topic_name])
    assert [m.offset() for m in _consume(consumer, 2)] == [4, 5]
    assert _describe(fast, group).type == ConsumerGroupType.CONSUMER
    consumer.close()


def test_the_consumer_group_apis_at_kafka_4s_versions(raw: Connection) -> None:
    """ConsumerGroupHeartbeat and ConsumerGroupDescribe v0-1; OffsetCommit and OffsetFetch
    v9 (member epochs); ListGroups v5 (group types)."""
    assert {api: raw.versions[api] for api in (8, 9, 16, 68, 69)} == {
        8: (0, 9), 9: (0, 9), 16: (0, 5), 68: (0, 1), 69: (0, 1)
    }  # fmt: skip


@pytest.fixture(scope="module")
def acl_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AclBroker]:
    yield from start_acl_broker(tmp_path_factory.mktemp("acl-consumer-protocol"), **FAST)


def test_a_member_needs_read_on_the_group_and_describe_on_its_topics(
    acl_broker: AclBroker, topic_name: str
) -> None:
    acl_broker.revoke_all()
    acl_broker.admin().create_topics([NewTopic(topic_name, 1)])[topic_name].result(TIMEOUT_S)
    group = f"g-{topic_name}"

    def first_error() -> Any:
        consumer = acl_broker.consumer("alice", group, **{"group.protocol": "consumer"})
        consumer.subscribe([topic_name])
        try:
            deadline = time.monotonic() + TIMEOUT_S
            while time.monotonic() < deadline:
                msg = consumer.poll(0.1)
                error = msg.error() if msg is not None else None
                if error is not None:
                    return error.code()
                if consumer.assignment():
                    return None
            raise AssertionError("neither an error nor an assignment")
        finally:
            consumer.close()

    assert first_error() == KafkaError.GROUP_AUTHORIZATION_FAILED
    acl_broker.allow("alice", ResourceType.GROUP, group, AclOperation.READ)
    assert first_error() == KafkaError.TOPIC_AUTHORIZATION_FAILED
    acl_broker.allow(
        "alice", ResourceType.TOPIC, topic_name, AclOperation.DESCRIBE, AclOperation.READ
    )
    assert first_error() is None

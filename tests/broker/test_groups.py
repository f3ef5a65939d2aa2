"""Consumer-group behaviour the clients rely on: assignors, session expiry, rebalance errors."""

from __future__ import annotations

import datetime
import subprocess
import sys
import textwrap
import time
import uuid
from typing import Any

import pytest
from confluent_kafka import Consumer, TopicPartition

from seaway.kafka.connection import Connection
from seaway.protocol.errors import ErrorCode
from seaway.protocol.framing import nested
from tests.broker.clients import balance, create_topic, produce, quiet

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("strategy", ["range", "roundrobin", "cooperative-sticky"])
def test_client_side_assignors(bootstrap: str, topic_name: str, strategy: str) -> None:
    create_topic(bootstrap, topic_name, partitions=4)
    config = quiet(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"g-{topic_name}",
            "partition.assignment.strategy": strategy,
            "heartbeat.interval.ms": 300,
        }
    )
    first = Consumer(config)
    first.subscribe([topic_name])
    assert balance([first], topic_name, 4) == [{0, 1, 2, 3}]
    second = Consumer(config)
    second.subscribe([topic_name])
    owned = balance([first, second], topic_name, 4)
    assert sorted(len(o) for o in owned) == [2, 2]
    second.close()
    assert balance([first], topic_name, 4) == [{0, 1, 2, 3}]
    first.close()


def test_killed_member_is_expired_after_its_session_timeout(
    bootstrap: str, topic_name: str
) -> None:
    create_topic(bootstrap, topic_name, partitions=2)
    produce(bootstrap, topic_name, [(None, b"x", p) for p in range(2)])
    group = f"g-{topic_name}"
    script = textwrap.dedent(
        f"""
        import sys
        from confluent_kafka import Consumer
        c = Consumer({{"bootstrap.servers": "{bootstrap}", "group.id": "{group}",
                       "session.timeout.ms": 6000, "heartbeat.interval.ms": 500,
                       "auto.offset.reset": "earliest"}})
        c.subscribe(["{topic_name}"])
        while True:
            m = c.poll(0.2)
            if m is not None and not m.error():
                print("consuming", flush=True)
        """
    )
    victim = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    try:
        assert victim.stdout is not None
        assert victim.stdout.readline().strip() == b"consuming"
        survivor = Consumer(
            quiet({"bootstrap.servers": bootstrap, "group.id": group, "session.timeout.ms": 6000})
        )
        survivor.subscribe([topic_name])
        deadline = time.monotonic() + 30
        while len(survivor.assignment()) != 1:  # the group now has two members
            assert time.monotonic() < deadline
            survivor.poll(0.1)
        victim.kill()  # SIGKILL: no LeaveGroup; only the session timeout can remove it
        victim.wait()
        killed_at = time.monotonic()
        while len(survivor.assignment()) != 2:
            assert time.monotonic() < deadline, "dead member never expired"
            survivor.poll(0.1)
        waited = time.monotonic() - killed_at
        assert 4 < waited < 20, f"member expired after {waited:.1f}s with session.timeout.ms=6000"
        survivor.close()
    finally:
        victim.kill()


def test_committed_offsets_of_a_stable_group_reject_strangers(
    bootstrap: str, topic_name: str
) -> None:
    """A simple (generation -1) commit into a group with live members is refused."""
    create_topic(bootstrap, topic_name, partitions=1)
    group = f"g-{topic_name}"
    member = Consumer(quiet({"bootstrap.servers": bootstrap, "group.id": group}))
    member.subscribe([topic_name])
    balance([member], topic_name, 1)
    stranger = Consumer(quiet({"bootstrap.servers": bootstrap, "group.id": group}))
    from confluent_kafka import KafkaException

    with pytest.raises(KafkaException) as exc:
        stranger.commit(offsets=[TopicPartition(topic_name, 0, 5)], asynchronous=False)
    assert "UNKNOWN_MEMBER_ID" in str(exc.value) or "Unknown member" in str(exc.value)
    stranger.close()
    member.close()


def test_committing_a_partition_that_does_not_exist_fails_for_that_partition_only(
    bootstrap: str, topic_name: str
) -> None:
    """Kafka answers UNKNOWN_TOPIC_OR_PARTITION for a missing topic or partition; the
    others in the request are committed."""
    create_topic(bootstrap, topic_name, partitions=1)
    consumer = Consumer(quiet({"bootstrap.servers": bootstrap, "group.id": f"g-{topic_name}"}))
    wanted = [TopicPartition(topic_name, 0, 5), TopicPartition(topic_name, 3, 5),
              TopicPartition(f"{topic_name}-missing", 0, 5)]  # fmt: skip
    from confluent_kafka import KafkaError, KafkaException

    with pytest.raises(KafkaException):
        consumer.commit(offsets=wanted, asynchronous=False)
    committed = consumer.committed(wanted[:1], timeout=10)
    assert committed[0].offset == 5
    admin_errors = _commit_errors(bootstrap, f"g-{topic_name}", wanted)
    assert admin_errors == {
        (topic_name, 0): None,
        (topic_name, 3): KafkaError.UNKNOWN_TOPIC_OR_PART,
        (f"{topic_name}-missing", 0): KafkaError.UNKNOWN_TOPIC_OR_PART,
    }
    consumer.close()


def _commit_errors(
    bootstrap: str, group: str, offsets: list[TopicPartition]
) -> dict[tuple[str, int], int | None]:
    """Per-partition errors of an OffsetCommit sent by the admin client."""
    from confluent_kafka import ConsumerGroupTopicPartitions
    from confluent_kafka.admin import AdminClient

    admin = AdminClient(quiet({"bootstrap.servers": bootstrap}))
    request = [ConsumerGroupTopicPartitions(group, offsets)]
    result = admin.alter_consumer_group_offsets(request)[group].result(10).topic_partitions
    return {(tp.topic, tp.partition): (tp.error.code() if tp.error else None) for tp in result}


def test_group_apis_are_served_at_the_versions_of_kafka_4(connection: Connection) -> None:
    """JoinGroup v9, Heartbeat v4, LeaveGroup v5, SyncGroup v5, DescribeGroups v6; a dynamic
    member still gets its member id through MEMBER_ID_REQUIRED first (KIP-394)."""
    assert {api: connection.versions[api][1] for api in (11, 12, 13, 14, 15)} == {
        11: 9, 12: 4, 13: 5, 14: 5, 15: 6
    }  # fmt: skip
    cls = connection.request_class(11, 9, 9)
    protocol = nested(cls, "JoinGroupRequestProtocol")(name="range", metadata=b"")
    ten_s = datetime.timedelta(seconds=10)
    group = f"g-{uuid.uuid4().hex[:8]}"

    def join(member_id: str) -> Any:
        return connection.request(
            cls(group_id=group, session_timeout=ten_s, rebalance_timeout=ten_s,
                member_id=member_id, protocol_type="consumer", protocols=(protocol,))
        )  # fmt: skip

    first = join("")
    assert first.error_code == ErrorCode.member_id_required
    assert first.member_id.startswith(f"{connection.client_id}-")
    joined = join(first.member_id)
    assert (joined.error_code, joined.member_id, joined.leader) == (
        ErrorCode.none, first.member_id, first.member_id
    )  # fmt: skip
    assert not joined.skip_assignment and len(joined.members) == 1

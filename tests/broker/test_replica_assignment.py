"""Manual replica assignments in CreateTopics and CreatePartitions, checked as Kafka's
``ReplicationControlManager`` checks them: every replica a registered broker (on one node:
each list is exactly [its node id])."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import AdminClient, NewPartitions, NewTopic
from kio.schema.create_topics.v7.request import (
    CreatableReplicaAssignment,
    CreatableTopic,
    CreateTopicsRequest,
)

from tests.broker.clients import quiet
from tests.broker.test_bad_input import wire

pytestmark = pytest.mark.timeout(60)

NONE = 0
INVALID_REPLICA_ASSIGNMENT = 39
INVALID_REQUEST = 42


def _admin(bootstrap: str) -> tuple[AdminClient, int]:
    """An AdminClient and the node id of the (single) broker."""
    admin = AdminClient(quiet({"bootstrap.servers": bootstrap}))
    (node,) = admin.list_topics(timeout=10).brokers
    return admin, node


def _error(future: Any) -> KafkaError:
    with pytest.raises(KafkaException) as info:
        future.result(20)
    error: KafkaError = info.value.args[0]
    return error


def test_create_topic_with_assignment_on_this_node(bootstrap: str, topic_name: str) -> None:
    admin, node = _admin(bootstrap)
    new = NewTopic(topic_name, 3, replica_assignment=[[node], [node], [node]])
    admin.create_topics([new], validate_only=True)[topic_name].result(20)
    assert topic_name not in admin.list_topics(timeout=10).topics
    admin.create_topics([new])[topic_name].result(20)
    partitions = admin.list_topics(topic_name, timeout=10).topics[topic_name].partitions
    assert sorted(partitions) == [0, 1, 2]
    assert all(p.replicas == [node] for p in partitions.values())

    grown = NewPartitions(topic_name, 5, replica_assignment=[[node], [node]])
    admin.create_partitions([grown], validate_only=True)[topic_name].result(20)
    assert len(admin.list_topics(topic_name, timeout=10).topics[topic_name].partitions) == 3
    admin.create_partitions([grown])[topic_name].result(20)
    assert len(admin.list_topics(topic_name, timeout=10).topics[topic_name].partitions) == 5


def test_create_topic_assignment_refusals(bootstrap: str, topic_name: str) -> None:
    admin, node = _admin(bootstrap)
    other = node + 1
    cases = {
        f"{topic_name}-unknown": (
            [[node], [other]],
            f"The manual partition assignment includes broker {other}, but no such broker is "
            "registered.",
        ),
        f"{topic_name}-rf2": (
            [[node, other]],
            f"The manual partition assignment includes broker {other}, but no such broker is "
            "registered.",
        ),
        f"{topic_name}-twice": (
            [[node, node]],
            f"The manual partition assignment includes the broker {node} more than once.",
        ),
    }
    for validate_only in (True, False):
        futures = admin.create_topics(
            [
                NewTopic(name, len(lists), replica_assignment=lists)
                for name, (lists, _) in cases.items()
            ],
            validate_only=validate_only,
        )
        for name, (_, message) in cases.items():
            error = _error(futures[name])
            assert error.code() == KafkaError.INVALID_REPLICA_ASSIGNMENT, (name, error)
            assert error.str() == message, (name, error.str())
    assert not cases.keys() & admin.list_topics(timeout=10).topics.keys()


def test_create_partitions_assignment_refusals(bootstrap: str, topic_name: str) -> None:
    admin, node = _admin(bootstrap)
    admin.create_topics([NewTopic(topic_name, 1)])[topic_name].result(20)
    cases = [
        (
            [[node + 1]],
            f"The manual partition assignment includes broker {node + 1}, but no such broker "
            "is registered.",
        ),
        (
            [[node]] * 2,
            "Attempted to add 1 additional partition(s), but only 2 assignment(s) were specified.",
        ),
    ]
    for lists, message in cases:
        grown = NewPartitions(topic_name, 2, replica_assignment=lists)
        error = _error(admin.create_partitions([grown])[topic_name])
        assert error.code() == KafkaError.INVALID_REPLICA_ASSIGNMENT, error
        assert error.str() == message
    assert len(admin.list_topics(topic_name, timeout=10).topics[topic_name].partitions) == 1


def _create(bootstrap: str, name: str, partitions: int, replication: int, lists: Any) -> Any:
    """The CreateTopics result of one raw request with *lists* as ``(index, brokers)``."""
    topic = CreatableTopic(
        name=name,
        num_partitions=partitions,
        replication_factor=replication,
        assignments=tuple(
            CreatableReplicaAssignment(partition_index=i, broker_ids=tuple(ids)) for i, ids in lists
        ),
        configs=(),
    )
    request = CreateTopicsRequest(
        topics=(topic,), timeout=datetime.timedelta(seconds=10), validate_only=False
    )
    with wire(bootstrap) as w:
        (result,) = w.request(request).topics
    return result


@pytest.mark.parametrize(
    ("partitions", "replication", "lists", "code", "message"),
    [
        (1, -1, [(0, [1])], INVALID_REQUEST,
         "A manual partition assignment was specified, but numPartitions was not set to -1."),
        (-1, 1, [(0, [1])], INVALID_REQUEST,
         "A manual partition assignment was specified, but replication factor was not set to -1."),
        (-1, -1, [(0, [1]), (0, [1])], INVALID_REPLICA_ASSIGNMENT,
         "Found multiple manual partition assignments for partition 0"),
        (-1, -1, [(0, [1]), (2, [1])], INVALID_REPLICA_ASSIGNMENT,
         "partitions should be a consecutive 0-based integer sequence"),
        (-1, -1, [(0, [])], INVALID_REPLICA_ASSIGNMENT,
         "The manual partition assignment includes an empty replica list."),
    ],
)  # fmt: skip
def test_create_topic_raw_assignment_refusals(
    bootstrap: str,
    topic_name: str,
    partitions: int,
    replication: int,
    lists: Any,
    code: int,
    message: str,
) -> None:
    _, node = _admin(bootstrap)
    lists = [(i, [node for _ in ids]) for i, ids in lists]
    result = _create(bootstrap, topic_name, partitions, replication, lists)
    assert (result.error_code, result.error_message) == (code, message)
    assert result.num_partitions == -1
    ok = _create(bootstrap, topic_name, -1, -1, [(0, [node]), (1, [node])])
    assert (ok.error_code, ok.num_partitions, ok.replication_factor) == (NONE, 2, 1)

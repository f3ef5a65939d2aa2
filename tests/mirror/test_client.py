"""MirrorClient / RemoteClusterUtils against the embedded broker.

The broker is shared by the whole run, so every test uses cluster aliases unique to it and
checks only the topics named after them.
"""

from __future__ import annotations

import socket
import time
import uuid
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

import pytest
from confluent_kafka import KafkaError, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from seaway.config import ConfigException
from seaway.mirror import client as remote_cluster_utils
from seaway.mirror.client import MirrorClient, MirrorClientError, admin_config, consumer_config
from seaway.mirror.formats import Checkpoint, Heartbeat
from seaway.mirror.policy import DefaultReplicationPolicy, IdentityReplicationPolicy
from tests.broker.clients import produce, quiet

pytestmark = pytest.mark.waits

TIMEOUT = 30.0


class Aliases:
    """Cluster aliases (and a local topic name) unique to one test."""

    def __init__(self) -> None:
        uid = uuid.uuid4().hex[:8]
        self.uid = uid
        self.a, self.b, self.c, self.d = (f"{x}{uid}" for x in "abcd")
        self.orders = f"orders{uid}"

    def mine(self, names: Iterable[str]) -> set[str]:
        """The names that belong to this test."""
        return {name for name in names if self.uid in name}


@pytest.fixture
def ids() -> Aliases:
    return Aliases()


@pytest.fixture
def props(bootstrap: str) -> dict[str, Any]:
    return {"bootstrap.servers": bootstrap}


def create_topics(bootstrap: str, *names: str, partitions: int = 1) -> None:
    """Create topics, accepting ones that exist (``heartbeats`` is shared by tests)."""
    admin = AdminClient(quiet({"bootstrap.servers": bootstrap}))
    futures = admin.create_topics([NewTopic(name, partitions) for name in names])
    for future in futures.values():
        try:
            future.result(TIMEOUT)
        except KafkaException as exc:
            if exc.args[0].code() != KafkaError.TOPIC_ALREADY_EXISTS:
                raise


def heartbeat(bootstrap: str, topic: str, source: str, target: str) -> None:
    beat = Heartbeat(source, target, int(time.time() * 1000))
    produce(bootstrap, topic, [(beat.record_key(), beat.record_value())])


def checkpoint_records(*checkpoints: Checkpoint) -> list[tuple[bytes, bytes, int]]:
    return [(cp.record_key(), cp.record_value(), 0) for cp in checkpoints]


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# -- configuration ------------------------------------------------------------------------------


def test_client_settings_come_from_security_settings_and_client_prefixes() -> None:
    props = {
        "bootstrap.servers": ["h1:9092", "h2:9092"],
        "security.protocol": "SASL_SSL",
        "sasl.mechanism": "PLAIN",
        "ssl.ca.location": "/ca.pem",
        "replication.policy.separator": "_",
        "clusters": "A, B",
        "client.id": "not-for-clients",
        "admin.client.id": "admin-id",
        "admin.ssl.ca.location": "/admin-ca.pem",
        "consumer.fetch.max.bytes": "1048576",
        "consumer.bootstrap.servers": "h3:9092",
        "producer.acks": "all",
        "admin.": "ignored",
    }
    shared = {"security.protocol": "SASL_SSL", "sasl.mechanism": "PLAIN"}
    assert admin_config(props) == {
        **shared,
        "bootstrap.servers": "h1:9092,h2:9092",
        "ssl.ca.location": "/admin-ca.pem",
        "client.id": "admin-id",
    }
    assert consumer_config(props) == {
        **shared,
        "bootstrap.servers": "h3:9092",
        "ssl.ca.location": "/ca.pem",
        "fetch.max.bytes": "1048576",
    }


def test_bootstrap_servers_is_required() -> None:
    with pytest.raises(ConfigException, match=r"bootstrap\.servers"):
        MirrorClient({"replication.policy.separator": "_"})


def test_replication_policy_is_configured_from_props(props: dict[str, Any]) -> None:
    with MirrorClient(props) as client:
        policy = client.replication_policy()
        assert isinstance(policy, DefaultReplicationPolicy)
        assert policy.checkpoints_topic("A") == "A.checkpoints.internal"
    custom = {**props, "replication.policy.separator": "__"}
    with MirrorClient(custom) as client:
        assert client.replication_policy().checkpoints_topic("A") == "A__checkpoints__internal"
    legacy = {**custom, "replication.policy.internal.topic.separator.enabled": "false"}
    with MirrorClient(legacy) as client:
        assert client.replication_policy().checkpoints_topic("A") == "A.checkpoints.internal"
    with pytest.raises(ConfigException, match="NoSuchPolicy"):
        MirrorClient({**props, "replication.policy.class": "NoSuchPolicy"})


# -- topology -----------------------------------------------------------------------------------


def test_replication_hops_and_upstream_clusters_follow_heartbeat_chains(
    bootstrap: str, props: dict[str, Any], ids: Aliases
) -> None:
    a, b, c = ids.a, ids.b, ids.c
    two_hops, three_hops = f"{b}.{a}.heartbeats", f"{c}.{b}.{a}.heartbeats"
    create_topics(bootstrap, "heartbeats", two_hops, three_hops, f"{a}.orders")
    heartbeat(bootstrap, two_hops, a, b)
    heartbeat(bootstrap, three_hops, a, b)
    with MirrorClient(props, timeout=TIMEOUT) as client:
        assert client.replication_hops(a) == 2  # A -> B -> here
        assert client.replication_hops(b) == 1
        assert client.replication_hops(c) == 1
        assert client.replication_hops(ids.d) == -1
        assert ids.mine(client.upstream_clusters()) == {a, b, c}
        heartbeats = client.heartbeat_topics()
        assert "heartbeats" in heartbeats  # the local one counts too
        assert ids.mine(heartbeats) == {two_hops, three_hops}

        create_topics(bootstrap, f"{a}.heartbeats")  # now A also replicates here directly
        assert client.replication_hops(a) == 1
        assert client.replication_hops(b) == 1
        assert ids.mine(client.heartbeat_topics()) == {f"{a}.heartbeats", two_hops, three_hops}


def test_checkpoint_topics(bootstrap: str, props: dict[str, Any], ids: Aliases) -> None:
    create_topics(
        bootstrap,
        f"{ids.a}.checkpoints.internal",
        f"{ids.b}.checkpoints.internal",
        f"{ids.c}checkpoints.internal",  # no separator: not a checkpoints topic
        f"{ids.d}.checkpoints",
    )
    with MirrorClient(props) as client:
        assert ids.mine(client.checkpoint_topics()) == {
            f"{ids.a}.checkpoints.internal",
            f"{ids.b}.checkpoints.internal",
        }
        assert not ids.mine(client.remote_topics()) & ids.mine(client.checkpoint_topics())


def test_remote_topics(bootstrap: str, props: dict[str, Any], ids: Aliases) -> None:
    a, b = ids.a, ids.b
    create_topics(
        bootstrap,
        ids.orders,  # local
        f"{a}.{ids.orders}",
        f"{a}.payments{ids.uid}",
        f"{b}.{a}.{ids.orders}",  # replicated directly from B (from A before that)
        f"{a}.heartbeats",  # heartbeats topics are remote, not internal
        f"{a}.checkpoints.internal",
        f"mm2-offset-syncs.{a}.internal",
        f"{a}.connect-configs-internal",
    )
    with MirrorClient(props) as client:
        assert ids.mine(client.remote_topics()) == {
            f"{a}.{ids.orders}",
            f"{a}.payments{ids.uid}",
            f"{b}.{a}.{ids.orders}",
            f"{a}.heartbeats",
        }
        assert client.remote_topics_from(a) == {
            f"{a}.{ids.orders}",
            f"{a}.payments{ids.uid}",
            f"{a}.heartbeats",
        }
        assert client.remote_topics_from(b) == {f"{b}.{a}.{ids.orders}"}
        assert client.remote_topics_from(ids.c) == set()


def test_custom_separator(bootstrap: str, props: dict[str, Any], ids: Aliases) -> None:
    a, b = ids.a, ids.b
    create_topics(
        bootstrap, f"{b}__{a}__heartbeats", f"{a}__{ids.orders}", f"{a}__checkpoints__internal"
    )
    with MirrorClient({**props, "replication.policy.separator": "__"}) as client:
        assert client.replication_hops(a) == 2
        assert ids.mine(client.upstream_clusters()) == {a, b}
        assert ids.mine(client.remote_topics()) == {f"{a}__{ids.orders}", f"{b}__{a}__heartbeats"}
        assert ids.mine(client.checkpoint_topics()) == {f"{a}__checkpoints__internal"}
    with MirrorClient(props) as client:  # with "." nothing here looks replicated
        assert client.replication_hops(a) == -1
        assert not ids.mine(client.remote_topics())


def test_identity_policy(bootstrap: str, props: dict[str, Any], ids: Aliases) -> None:
    a, b = ids.a, ids.b
    create_topics(bootstrap, ids.orders, f"{b}.{a}.heartbeats")
    identity = {**props, "replication.policy.class": "IdentityReplicationPolicy"}
    with MirrorClient({**identity, "source.cluster.alias": a}) as client:
        assert isinstance(client.replication_policy(), IdentityReplicationPolicy)
        # Every topic is "remote" and comes from the configured source alias.
        assert ids.mine(client.remote_topics()) == {ids.orders, f"{b}.{a}.heartbeats"}
        assert ids.orders in client.remote_topics_from(a)
        # Heartbeats topics are still named and parsed as by the default policy.
        assert client.replication_hops(a) == 2
        assert client.replication_hops(b) == 1
        assert ids.mine(client.upstream_clusters()) == {a, b}
    with MirrorClient(identity) as client:  # no source.cluster.alias: only heartbeats are remote
        assert ids.mine(client.remote_topics()) == {f"{b}.{a}.heartbeats"}
        assert client.remote_topics_from(b) == {f"{b}.{a}.heartbeats"}


def test_remote_cluster_utils_functions(
    bootstrap: str, props: dict[str, Any], ids: Aliases
) -> None:
    a, b = ids.a, ids.b
    create_topics(bootstrap, f"{b}.{a}.heartbeats", f"{a}.checkpoints.internal")
    assert remote_cluster_utils.replication_hops(props, a) == 2
    assert remote_cluster_utils.replication_hops(props, ids.c, timeout=TIMEOUT) == -1
    assert ids.mine(remote_cluster_utils.heartbeat_topics(props)) == {f"{b}.{a}.heartbeats"}
    assert ids.mine(remote_cluster_utils.checkpoint_topics(props)) == {f"{a}.checkpoints.internal"}
    assert ids.mine(remote_cluster_utils.upstream_clusters(props)) == {a, b}


# -- offset translation -------------------------------------------------------------------------


def test_translate_offsets_keeps_the_last_checkpoint_per_partition_of_the_group(
    bootstrap: str, props: dict[str, Any], ids: Aliases
) -> None:
    a = ids.a
    topic = f"{a}.checkpoints.internal"
    remote = f"{a}.{ids.orders}"
    group, other = f"group-{ids.uid}", f"other-{ids.uid}"
    create_topics(bootstrap, topic, partitions=2)
    records = checkpoint_records(
        Checkpoint(group, remote, 0, 10, 8, "m1"),
        Checkpoint(other, remote, 0, 500, 400),
        Checkpoint(group, remote, 0, 20, 18, "m2"),
        Checkpoint(group, remote, 1, 7, 5),
        Checkpoint(group, ids.orders, 2, 3, 3),  # a topic that came back home: no prefix
        Checkpoint(group, remote, 0, 6, 4, "rewound"),  # the group rewound: last one wins
        Checkpoint(other, remote, 1, 70, 60),
    )
    key = Checkpoint(group, remote, 1, 0, 0).record_key()
    records += [
        (key, b"\x00\x01" + bytes(16) + b"\x00\x00", 0),  # version 1: skipped
        (key, b"\x00\x00\x00", 0),  # truncated: skipped
        (key, None, 0),  # tombstone: skipped
        (b"\x00", Checkpoint(group, remote, 1, 1, 1).record_value(), 0),  # bad key: skipped
        # Only partition 0 of the checkpoints topic is read.
        *[(k, v, 1) for k, v, _ in checkpoint_records(Checkpoint(group, remote, 1, 99, 99))],
    ]
    produce(bootstrap, topic, records)

    started = time.monotonic()
    offsets = remote_cluster_utils.translate_offsets(props, a, group, TIMEOUT)
    assert time.monotonic() - started < 10  # returns at the end of the topic, not the timeout
    assert offsets == {
        TopicPartition(remote, 0): 4,
        TopicPartition(remote, 1): 5,
        TopicPartition(ids.orders, 2): 3,
    }
    # Each key carries its offset and metadata, ready for Consumer.commit(offsets=...).
    keys = {(tp.topic, tp.partition): (tp.offset, tp.metadata) for tp in offsets}
    assert keys[(remote, 0)] == (4, "rewound")
    assert keys[(remote, 1)] == (5, "")

    with MirrorClient(props) as client:
        assert client.remote_consumer_offsets(other, a, timedelta(seconds=TIMEOUT)) == {
            TopicPartition(remote, 0): 400,
            TopicPartition(remote, 1): 60,
        }
        checkpoints = client.remote_consumer_checkpoints(group, a, TIMEOUT)
        assert checkpoints[TopicPartition(remote, 0)] == Checkpoint(
            group, remote, 0, 6, 4, "rewound"
        )
        assert client.remote_consumer_offsets(f"unknown-{ids.uid}", a, TIMEOUT) == {}


def test_translate_offsets_reads_the_checkpoints_topic_of_the_policy(
    bootstrap: str, props: dict[str, Any], ids: Aliases
) -> None:
    a = ids.a
    group = f"group-{ids.uid}"
    create_topics(bootstrap, f"{a}__checkpoints__internal", f"{a}.checkpoints.internal")
    produce(
        bootstrap,
        f"{a}__checkpoints__internal",
        checkpoint_records(Checkpoint(group, f"{a}__{ids.orders}", 0, 5, 3)),
    )
    custom = {**props, "replication.policy.separator": "__"}
    assert remote_cluster_utils.translate_offsets(custom, a, group, TIMEOUT) == {
        TopicPartition(f"{a}__{ids.orders}", 0): 3
    }
    assert remote_cluster_utils.translate_offsets(props, a, group, TIMEOUT) == {}  # empty topic
    legacy = {**custom, "replication.policy.internal.topic.separator.enabled": "false"}
    assert remote_cluster_utils.translate_offsets(legacy, a, group, TIMEOUT) == {}


def test_translate_offsets_without_a_checkpoints_topic_is_empty(
    props: dict[str, Any], ids: Aliases
) -> None:
    started = time.monotonic()
    assert remote_cluster_utils.translate_offsets(props, ids.a, "group", TIMEOUT) == {}
    assert time.monotonic() - started < 10
    with MirrorClient(props) as client:
        assert client.remote_consumer_offsets("group", ids.a, 0) == {}


# -- errors -------------------------------------------------------------------------------------


def test_unreachable_cluster_fails_within_the_timeout() -> None:
    servers = f"127.0.0.1:{closed_port()}"
    props = {"bootstrap.servers": servers}
    started = time.monotonic()
    with pytest.raises(MirrorClientError, match=f"bootstrap.servers='{servers}'"):
        remote_cluster_utils.upstream_clusters(props, timeout=1.0)
    with pytest.raises(MirrorClientError, match=f"bootstrap.servers='{servers}'"):
        remote_cluster_utils.translate_offsets(props, "A", "group", 1.0)
    with MirrorClient(props) as client, pytest.raises(MirrorClientError, match=servers):
        client.replication_hops("A", timeout=timedelta(seconds=1))
    assert time.monotonic() - started < 8


def test_closed_client_refuses_calls(props: dict[str, Any]) -> None:
    client = MirrorClient(props)
    client.close()
    with pytest.raises(MirrorClientError, match="closed"):
        client.heartbeat_topics()
    with pytest.raises(MirrorClientError, match="closed"):
        client.remote_consumer_offsets("group", "A", TIMEOUT)

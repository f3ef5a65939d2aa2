"""Remote topics follow their sources: configs (incremental sync), partitions, deletions;
ACL sync against a cluster without ACLs; an unreachable cluster named by its key."""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest
from confluent_kafka.admin import (
    AclBinding,
    AclOperation,
    AclPermissionType,
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    NewPartitions,
    NewTopic,
    ResourcePatternType,
    ResourceType,
)

from seaway.mirror.config import MirrorMakerConfig
from seaway.mirror.driver import MirrorMaker, UnreachableClusterError
from seaway.mirror.policy import DefaultReplicationPolicy
from seaway.mirror.source_flow import MirrorSourceFlow, register
from seaway.mirror.topic_sync import AclSync, acls_to_sync
from tests.mirror.test_source_flow import _ends, _produce, _records, _settings, _wait

pytestmark = [pytest.mark.slow, pytest.mark.waits]


def _configs(bootstrap: str, topic: str) -> dict[str, Any]:
    resource = ConfigResource("topic", topic)
    admin = AdminClient({"bootstrap.servers": bootstrap})  # referenced until the reply
    return admin.describe_configs([resource])[resource].result(10)


def _alter(bootstrap: str, topic: str, *entries: ConfigEntry) -> None:
    resource = ConfigResource("topic", topic, incremental_configs=list(entries))
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.incremental_alter_configs([resource])[resource].result(10)


def test_configs_and_partitions_follow_the_source(
    spark: Any, cluster_a: Any, cluster_b: Any
) -> None:
    register(spark)
    a, b = cluster_a.bootstrap_servers, cluster_b.bootstrap_servers
    alias = f"S{uuid.uuid4().hex[:4]}"
    topic = f"configs-{uuid.uuid4().hex[:6]}"
    admin = AdminClient({"bootstrap.servers": a})
    config = {"retention.ms": "86400000", "message.timestamp.type": "LogAppendTime"}
    admin.create_topics([NewTopic(topic, 2, 1, config=config)])[topic].result(30)
    _produce(a, topic, 100)
    flow = MirrorSourceFlow(
        spark, _settings(a, b, alias, "B", DefaultReplicationPolicy(), topics=topic)
    )
    remote = f"{alias}.{topic}"
    flow.start()
    try:
        created = _configs(b, remote)
        assert created["retention.ms"].value == "86400000"
        # config.properties.exclude's default keeps message.timestamp.type at the target's
        assert created["message.timestamp.type"].is_default

        # A changed and a new config reach the remote topic on the next sync...
        _alter(
            a, topic,
            ConfigEntry("retention.ms", "3600000", incremental_operation=AlterConfigOpType.SET),
            ConfigEntry("max.message.bytes", "200000", incremental_operation=AlterConfigOpType.SET),
        )  # fmt: skip
        assert flow.sync_topic_configs() == 1
        synced = _configs(b, remote)
        assert synced["retention.ms"].value == "3600000"
        assert synced["max.message.bytes"].value == "200000"
        # ...and one reset to its default on the source reverts to the target's default.
        _alter(a, topic, ConfigEntry("retention.ms", None,
                                     incremental_operation=AlterConfigOpType.DELETE))  # fmt: skip
        flow.sync_topic_configs()
        assert _configs(b, remote)["retention.ms"].is_default
        assert _configs(b, remote)["max.message.bytes"].value == "200000"

        # Partitions added on the source appear on the target at the next refresh.
        admin.create_partitions([NewPartitions(topic, 4)])[topic].result(30)
        assert flow.refresh()
        assert flow.topics == {topic: 4}
        _produce(a, topic, 400, start=100)
        _wait("records of the new partitions", lambda: _ends(b, remote, 4) >= 500)
    finally:
        flow.stop()
    copy, source = _records(b, remote, 4), _records(a, topic, 4)
    # LogAppendTime is the source's: same keys, values and headers per partition.
    assert {p: [r[1:4] for r in rows] for p, rows in copy.items()} == {
        p: [r[1:4] for r in rows] for p, rows in source.items()
    }


def test_deleted_source_topic_is_skipped_not_fatal(
    spark: Any, cluster_a: Any, cluster_b: Any
) -> None:
    register(spark)
    a, b = cluster_a.bootstrap_servers, cluster_b.bootstrap_servers
    alias = f"D{uuid.uuid4().hex[:4]}"
    keep, gone = f"keep-{uuid.uuid4().hex[:6]}", f"gone-{uuid.uuid4().hex[:6]}"
    admin = AdminClient({"bootstrap.servers": a})
    for name in (keep, gone):
        admin.create_topics([NewTopic(name, 1, 1)])[name].result(30)
        _produce(a, name, 50)
    settings = _settings(a, b, alias, "B", DefaultReplicationPolicy(), topics=f"{keep}|{gone}")
    flow = MirrorSourceFlow(spark, settings)
    flow.start()
    try:
        _wait("both topics copied", lambda: _ends(b, f"{alias}.{keep}", 1) >= 50
              and _ends(b, f"{alias}.{gone}", 1) >= 50)  # fmt: skip
        admin.delete_topics([gone])[gone].result(30)
        _produce(a, keep, 50, start=50)

        def driver_round() -> bool:  # what the driver's health and refresh jobs do
            MirrorMaker._restart_failed(flow)
            flow.refresh()
            return _ends(b, f"{alias}.{keep}", 1) >= 100

        _wait("the other topic to go on", driver_round)
        assert gone not in flow.topics
    finally:
        flow.stop()
    assert _records(b, f"{alias}.{keep}", 1)[0] == _records(a, keep, 1)[0]


def test_acl_sync_skips_a_cluster_without_acls(cluster_a: Any, cluster_b: Any) -> None:
    sync = AclSync(
        {"bootstrap.servers": cluster_a.bootstrap_servers},
        {"bootstrap.servers": cluster_b.bootstrap_servers},
        lambda topic: True,
        lambda topic: f"A.{topic}",
    )
    assert sync.sync() == 0
    assert sync.disabled_reason  # logged once, never retried
    assert sync.sync() == 0


def test_acls_are_filtered_and_renamed_as_mm2_does() -> None:
    def binding(name: str, op: AclOperation, perm: AclPermissionType, **kw: Any) -> AclBinding:
        return AclBinding(
            kw.get("restype", ResourceType.TOPIC), name,
            kw.get("pattern", ResourcePatternType.LITERAL), "User:alice", "*", op, perm,
        )  # fmt: skip

    allow, deny = AclPermissionType.ALLOW, AclPermissionType.DENY
    source = [
        binding("orders", AclOperation.ALL, allow),  # downgraded to READ
        binding("orders", AclOperation.WRITE, allow),  # dropped: only the mirror writes
        binding("orders", AclOperation.DESCRIBE, allow),
        binding("orders", AclOperation.ALL, deny),  # kept as is
        binding("ord", AclOperation.READ, allow, pattern=ResourcePatternType.PREFIXED),
        binding("group-1", AclOperation.READ, allow, restype=ResourceType.GROUP),
        binding("private", AclOperation.READ, allow),  # not replicated
    ]
    target = acls_to_sync(source, lambda t: t != "private", lambda t: f"A.{t}")
    assert [(b.name, b.operation, b.permission_type) for b in target] == [
        ("A.orders", AclOperation.READ, allow),
        ("A.orders", AclOperation.DESCRIBE, allow),
        ("A.orders", AclOperation.ALL, deny),
    ]


def test_unreachable_cluster_is_named_by_its_key(cluster_b: Any) -> None:
    config = MirrorMakerConfig(
        {
            "clusters": "A, B",
            "A.bootstrap.servers": "127.0.0.1:1",
            "B.bootstrap.servers": cluster_b.bootstrap_servers,
            "A->B.enabled": "true",
        }
    )
    started = time.monotonic()
    with pytest.raises(UnreachableClusterError, match=r"A\.bootstrap\.servers=127\.0\.0\.1:1"):
        MirrorMaker(config).check_clusters(timeout=2)
    assert time.monotonic() - started < 10

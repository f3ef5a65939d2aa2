"""MirrorMaker's topic ACL sync between two brokers that enforce ACLs (Kafka's authorizer),
configured the way mm2.properties users write it: Java SASL settings per cluster."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka.admin import (
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    ResourcePatternType,
    ResourceType,
)

from seaway.mirror.config import MirrorMakerConfig, SourceAndTarget
from seaway.mirror.driver import MirrorMaker, flow_settings
from seaway.mirror.topic_sync import AclSync
from tests.broker.acl_cluster import TIMEOUT_S, AclBroker, start_acl_broker

pytestmark = [pytest.mark.timeout(120), pytest.mark.waits]

ALLOW, DENY = AclPermissionType.ALLOW, AclPermissionType.DENY
JAAS = (
    "org.apache.kafka.common.security.plain.PlainLoginModule required "
    'username="{u}" password="{u}-secret";'
)


@pytest.fixture
def source(tmp_path: Path) -> Iterator[AclBroker]:
    yield from start_acl_broker(tmp_path / "a")


@pytest.fixture
def target(tmp_path: Path) -> Iterator[AclBroker]:
    yield from start_acl_broker(tmp_path / "b")


def _acl_sync(source: AclBroker, target: AclBroker, source_user: str) -> AclSync:
    """The A->B flow's ACL sync, from an mm2.properties with each cluster's SASL login."""
    props = {
        "clusters": "A, B",
        "A->B.enabled": "true",
        "A->B.topics": "orders|payments",
        "A.bootstrap.servers": source.bootstrap,
        "B.bootstrap.servers": target.bootstrap,
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": "PLAIN",
        "A.sasl.jaas.config": JAAS.format(u=source_user),
        "B.sasl.jaas.config": JAAS.format(u="admin"),
    }
    maker = MirrorMaker(MirrorMakerConfig(props))
    s = flow_settings(maker.sources[SourceAndTarget("A", "B")])
    return AclSync(
        s.source_client,
        s.target_client,
        s.topic_filter.should_replicate_topic,
        lambda topic: s.policy.format_remote_topic("A", topic),
    )


def _target_acls(target: AclBroker) -> set[tuple[str, str, AclOperation, AclPermissionType]]:
    everything = AclBindingFilter(ResourceType.ANY, None, ResourcePatternType.ANY, None, None,
                                  AclOperation.ANY, AclPermissionType.ANY)  # fmt: skip
    found = target.admin().describe_acls(everything, request_timeout=TIMEOUT_S).result(TIMEOUT_S)
    return {(b.name, b.principal, b.operation, b.permission_type) for b in found}


def test_topic_acls_reach_the_target_filtered_and_downgraded(
    source: AclBroker, target: AclBroker
) -> None:
    source.allow("alice", ResourceType.TOPIC, "orders", AclOperation.READ, AclOperation.WRITE)
    source.allow("bob", ResourceType.TOPIC, "payments", AclOperation.ALL)
    source.deny("mallory", ResourceType.TOPIC, "orders", AclOperation.READ)
    source.allow("alice", ResourceType.TOPIC, "ord", AclOperation.READ,
                 pattern=ResourcePatternType.PREFIXED)  # fmt: skip
    source.allow("alice", ResourceType.TOPIC, "private", AclOperation.READ)
    source.allow("alice", ResourceType.GROUP, "orders", AclOperation.READ)
    sync = _acl_sync(source, target, "admin")
    assert sync.sync() == 3
    assert _target_acls(target) == {
        ("A.orders", "User:alice", AclOperation.READ, ALLOW),  # WRITE dropped
        ("A.payments", "User:bob", AclOperation.READ, ALLOW),  # ALL downgraded to READ
        ("A.orders", "User:mallory", AclOperation.READ, DENY),  # DENY as it is
    }
    # Never deleted on the target, and a second round changes nothing.
    source.revoke_all()
    assert sync.sync() == 0
    assert len(_target_acls(target)) == 3
    assert sync.disabled_reason is None


def test_a_source_principal_without_cluster_describe_syncs_nothing_and_says_why(
    source: AclBroker, target: AclBroker, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="seaway.mirror.topic_sync")
    source.allow("alice", ResourceType.TOPIC, "orders", AclOperation.READ)
    sync = _acl_sync(source, target, "mallory")
    assert sync.sync() == 0
    assert sync.disabled_reason is None  # an authorizer is there: tried again next round
    assert "needs DESCRIBE on the CLUSTER" in caplog.text
    assert _target_acls(target) == set()
    source.allow("mallory", ResourceType.BROKER, "kafka-cluster", AclOperation.DESCRIBE)
    assert sync.sync() == 1

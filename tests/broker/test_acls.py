"""The ACL admin APIs (CreateAcls, DescribeAcls, DeleteAcls) through confluent-kafka's
AdminClient: Kafka's answers without an authorizer, for users without ALTER or DESCRIBE on
the cluster, for invalid ACLs; filters; ACLs kept across a restart; principals from SASL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import KafkaError, KafkaException, Producer
from confluent_kafka.admin import (
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    AdminClient,
    ResourcePatternType,
    ResourceType,
)
from kafka.admin import (
    ACLFilter,
    ACLOperation,
    ACLPermissionType,
    ACLResourcePatternType,
    KafkaAdminClient,
    ResourcePatternFilter,
)
from kafka.admin import ResourceType as KafkaResourceType
from kafka.errors import ClusterAuthorizationFailedError, SecurityDisabledError

from seaway.broker import BrokerThread
from seaway.config import ConfigException
from seaway.security.acl import AclBinding as SeawayAcl
from seaway.security.acl import AclOperation as SeawayOp
from seaway.security.acl import AclPermissionType as SeawayPermission
from seaway.security.acl import PatternType as SeawayPattern
from seaway.security.acl import ResourceType as SeawayResource
from tests.broker.acl_cluster import TIMEOUT_S, AclBroker, acl_broker_config, start_acl_broker
from tests.broker.certs import make_certs

pytestmark = pytest.mark.timeout(120)

LITERAL, PREFIXED = ResourcePatternType.LITERAL, ResourcePatternType.PREFIXED
ALLOW, DENY = AclPermissionType.ALLOW, AclPermissionType.DENY


@pytest.fixture
def acls(tmp_path: Path) -> Iterator[AclBroker]:
    yield from start_acl_broker(tmp_path)


def _everything() -> AclBindingFilter:
    return AclBindingFilter(ResourceType.ANY, None, ResourcePatternType.ANY, None, None,
                            AclOperation.ANY, AclPermissionType.ANY)  # fmt: skip


def _describe(admin: AdminClient, selection: AclBindingFilter) -> set[AclBinding]:
    return set(admin.describe_acls(selection, request_timeout=TIMEOUT_S).result(TIMEOUT_S))


def _code(error: pytest.ExceptionInfo[KafkaException]) -> int:
    return int(error.value.args[0].code())


def _describe_error(bootstrap: str, **sasl: str) -> type[Exception] | None:
    """The error of a DescribeAcls for everything, through kafka-python: librdkafka reports
    a DescribeAcls error only on the ACLs it returns, so with none it answers []."""
    admin = KafkaAdminClient(bootstrap_servers=bootstrap, **sasl)
    everything = ACLFilter(
        principal=None, host=None, operation=ACLOperation.ANY,
        permission_type=ACLPermissionType.ANY,
        resource_pattern=ResourcePatternFilter(KafkaResourceType.ANY, None,
                                               ACLResourcePatternType.ANY),
    )  # fmt: skip
    try:
        admin.describe_acls(everything)
    except Exception as error:
        return type(error)
    finally:
        admin.close()
    return None


def _sasl(user: str) -> dict[str, str]:
    return {"security_protocol": "SASL_PLAINTEXT", "sasl_mechanism": "PLAIN",
            "sasl_plain_username": user, "sasl_plain_password": f"{user}-secret"}  # fmt: skip


def test_without_an_authorizer_the_acl_apis_answer_security_disabled(tmp_path: Path) -> None:
    with BrokerThread(tmp_path, config={}) as broker:
        admin = AdminClient({"bootstrap.servers": broker.bootstrap_servers})
        assert _describe_error(broker.bootstrap_servers) is SecurityDisabledError
        binding = AclBinding(ResourceType.TOPIC, "t", LITERAL, "User:a", "*",
                             AclOperation.READ, ALLOW)  # fmt: skip
        future = admin.create_acls([binding], request_timeout=TIMEOUT_S)[binding]
        with pytest.raises(KafkaException) as error:
            future.result(TIMEOUT_S)
        assert _code(error) == KafkaError.SECURITY_DISABLED


def test_created_acls_are_described_by_filters_and_deleted(acls: AclBroker) -> None:
    acls.allow("alice", ResourceType.TOPIC, "orders", AclOperation.READ, AclOperation.WRITE)
    acls.allow("alice", ResourceType.GROUP, "app-", AclOperation.READ, pattern=PREFIXED)
    acls.deny("bob", ResourceType.TOPIC, "*", AclOperation.ALL, host="10.1.1.1")
    acls.allow("alice", ResourceType.TOPIC, "orders", AclOperation.READ)  # again: idempotent
    admin = acls.admin()
    assert len(_describe(admin, _everything())) == 4
    orders = AclBindingFilter(ResourceType.TOPIC, "orders", ResourcePatternType.MATCH, None,
                              None, AclOperation.ANY, AclPermissionType.ANY)  # fmt: skip
    matched = _describe(admin, orders)
    assert {(b.name, b.principal, b.operation) for b in matched} == {
        ("orders", "User:alice", AclOperation.READ),
        ("orders", "User:alice", AclOperation.WRITE),
        ("*", "User:bob", AclOperation.ALL),
    }
    groups = AclBindingFilter(ResourceType.GROUP, None, ResourcePatternType.ANY, "User:alice",
                              None, AclOperation.ANY, AclPermissionType.ANY)  # fmt: skip
    (group,) = _describe(admin, groups)
    assert (group.name, group.resource_pattern_type, group.host) == ("app-", PREFIXED, "*")
    writes = AclBindingFilter(ResourceType.TOPIC, None, ResourcePatternType.ANY, None, None,
                              AclOperation.WRITE, AclPermissionType.ANY)  # fmt: skip
    deleted = admin.delete_acls([writes], request_timeout=TIMEOUT_S)[writes].result(TIMEOUT_S)
    assert [(b.name, b.operation) for b in deleted] == [("orders", AclOperation.WRITE)]
    assert len(_describe(admin, _everything())) == 3


def test_invalid_acls_are_refused_with_the_reason(acls: AclBroker) -> None:
    bad = [
        AclBinding(ResourceType.BROKER, "my-cluster", LITERAL, "User:a", "*",
                   AclOperation.ALTER, ALLOW),
        AclBinding(ResourceType.TOPIC, "t", LITERAL, "alice", "*", AclOperation.READ, ALLOW),
    ]  # fmt: skip
    good = AclBinding(ResourceType.TOPIC, "t", LITERAL, "User:a", "*", AclOperation.READ, ALLOW)
    futures = acls.admin().create_acls([*bad, good], request_timeout=TIMEOUT_S)
    messages = []
    for binding in bad:
        with pytest.raises(KafkaException) as error:
            futures[binding].result(TIMEOUT_S)
        assert _code(error) == KafkaError.INVALID_REQUEST
        messages.append(str(error.value))
    assert "kafka-cluster" in messages[0] and "no colon" in messages[1], messages
    futures[good].result(TIMEOUT_S)
    assert _describe(acls.admin(), _everything()) == {good}


def test_only_principals_with_cluster_alter_and_describe_manage_acls(acls: AclBroker) -> None:
    binding = AclBinding(ResourceType.TOPIC, "t", LITERAL, "User:mallory", "*",
                         AclOperation.ALL, ALLOW)  # fmt: skip
    mallory = acls.admin("mallory")
    with pytest.raises(KafkaException) as error:
        mallory.create_acls([binding], request_timeout=TIMEOUT_S)[binding].result(TIMEOUT_S)
    assert _code(error) == KafkaError.CLUSTER_AUTHORIZATION_FAILED
    assert _describe_error(acls.bootstrap, **_sasl("mallory")) is ClusterAuthorizationFailedError
    assert _describe_error(acls.bootstrap, **_sasl("admin")) is None
    acls.allow("mallory", ResourceType.BROKER, "kafka-cluster", AclOperation.ALTER)
    mallory.create_acls([binding], request_timeout=TIMEOUT_S)[binding].result(TIMEOUT_S)
    assert binding in _describe(mallory, _everything())  # ALTER implies DESCRIBE


def test_acls_survive_a_restart(tmp_path: Path) -> None:
    config = acl_broker_config()
    with BrokerThread(tmp_path, config=config) as broker:
        AclBroker(broker).allow("alice", ResourceType.TOPIC, "orders", AclOperation.READ)
    with BrokerThread(tmp_path, config=config) as broker:
        (found,) = _describe(AclBroker(broker).admin(), _everything())
        assert (found.name, found.principal, found.operation) == (
            "orders", "User:alice", AclOperation.READ)  # fmt: skip


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"authorizer.class.name": "com.example.MyAuthorizer"}, "other authorizer plugins"),
        ({"super.users": "admin"}, "Type:name"),
    ],
)
def test_bad_authorizer_settings_name_the_key(
    tmp_path: Path, settings: dict[str, str], message: str
) -> None:
    with pytest.raises(ConfigException, match=message):
        BrokerThread(tmp_path, config=acl_broker_config(**settings)).start()


def test_a_client_certificate_is_the_principal_on_an_ssl_listener(tmp_path: Path) -> None:
    """``User:CN=alice`` (the certificate's subject): allowed to write one topic, denied
    another; the principal is what the audit log and the ACLs name."""
    certs = make_certs(tmp_path)
    config = acl_broker_config(
        listeners="SSL://127.0.0.1:0",
        **{
            "ssl.keystore.type": "PEM",
            "ssl.keystore.location": str(certs.server),
            "ssl.truststore.type": "PEM",
            "ssl.truststore.location": str(certs.ca),
            "ssl.client.auth": "required",
            "super.users": "User:CN=admin",
        },
    )
    del config["sasl.enabled.mechanisms"]
    with BrokerThread(tmp_path / "data", config=config) as broker:
        tls = {
            "bootstrap.servers": broker.listeners["SSL"],
            "security.protocol": "SSL",
            "ssl.ca.location": str(certs.ca),
            "ssl.certificate.location": str(certs.client_cert),
            "ssl.key.location": str(certs.client_key),
        }
        owner = broker.broker.authorizer
        assert owner is not None
        owner.create([
            SeawayAcl(SeawayResource.TOPIC, "mine", SeawayPattern.LITERAL, "User:CN=alice", "*",
                      op, SeawayPermission.ALLOW)
            for op in (SeawayOp.WRITE, SeawayOp.CREATE)  # CREATE: auto-created by Metadata
        ])  # fmt: skip
        producer = Producer(tls)
        results: dict[str, KafkaError | None] = {}
        for topic in ("mine", "theirs"):
            producer.produce(topic, b"v", on_delivery=lambda e, m: results.update({m.topic(): e}))
        producer.flush(TIMEOUT_S)
        assert results["mine"] is None
        error = results["theirs"]
        assert error is not None and error.code() == KafkaError.TOPIC_AUTHORIZATION_FAILED

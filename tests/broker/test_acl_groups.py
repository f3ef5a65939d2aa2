"""Authorization of the group, config and SCRAM APIs, through real clients against a broker
with Kafka's ACL authorizer: consumers need READ on their group and topics; ListGroups
filters silently; DescribeGroups, DeleteGroups and OffsetDelete answer per group or
partition; configs need DESCRIBE_CONFIGS / ALTER_CONFIGS on the topic or the cluster; the
SCRAM credential APIs need DESCRIBE / ALTER on the cluster."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, TopicPartition
from confluent_kafka.admin import (
    AclOperation,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    NewTopic,
    ResourceType,
    ScramCredentialInfo,
    ScramMechanism,
    UserScramCredentialUpsertion,
)
from kafka import KafkaConsumer
from kafka import TopicPartition as PyTopicPartition
from kafka.admin import KafkaAdminClient
from kafka.errors import ClusterAuthorizationFailedError

from tests.broker.acl_cluster import TIMEOUT_S, AclBroker, start_acl_broker

pytestmark = pytest.mark.timeout(180)

GROUP, TOPIC, CLUSTER = ResourceType.GROUP, ResourceType.TOPIC, ResourceType.BROKER
READ, DESCRIBE, DELETE = AclOperation.READ, AclOperation.DESCRIBE, AclOperation.DELETE
DESCRIBE_CONFIGS, ALTER_CONFIGS = AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AclBroker]:
    yield from start_acl_broker(tmp_path_factory.mktemp("acl-groups"))


@pytest.fixture
def acls(broker: AclBroker) -> Iterator[AclBroker]:
    """The shared broker, with no ACL left from an earlier test."""
    broker.revoke_all()
    yield broker


def _topics(acls: AclBroker, *names: str, records: int = 0) -> None:
    """Create *names* (one partition each) as the super user, with *records* in each."""
    futures = acls.admin().create_topics([NewTopic(n, 1) for n in names])
    for future in futures.values():
        future.result(TIMEOUT_S)
    if records:
        producer = acls.producer("admin")
        for name in names:
            for i in range(records):
                producer.produce(name, f"{name}-{i}".encode())
        assert producer.flush(TIMEOUT_S) == 0


def _code(error: pytest.ExceptionInfo[KafkaException]) -> int:
    return int(error.value.args[0].code())


def _poll_error(consumer: Consumer, timeout_s: float = TIMEOUT_S) -> KafkaError:
    """The first error the consumer reports (failing if it only gets messages)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        message = consumer.poll(0.5)
        if message is not None:
            assert message.error() is not None, f"consumed {message.value()!r}"
            return message.error()
    raise AssertionError("the consumer reported no error")


def _python_sasl(acls: AclBroker, user: str) -> dict[str, str]:
    """kafka-python's settings to log in as *user*."""
    return {"bootstrap_servers": acls.bootstrap, "security_protocol": "SASL_PLAINTEXT",
            "sasl_mechanism": "PLAIN", "sasl_plain_username": user,
            "sasl_plain_password": f"{user}-secret"}  # fmt: skip


def _python_admin(acls: AclBroker, user: str) -> KafkaAdminClient:
    return KafkaAdminClient(**_python_sasl(acls, user))


def _node_id(acls: AclBroker) -> int:
    (node,) = acls.admin().list_topics(timeout=TIMEOUT_S).brokers
    return int(node)


def _commit_as_admin(acls: AclBroker, group: str, topic: str) -> None:
    """Give *group* a committed offset (an Empty group), as the super user."""
    consumer = acls.consumer("admin", group)
    consumer.commit(offsets=[TopicPartition(topic, 0, 1)], asynchronous=False)
    consumer.close()


# -- consumers -------------------------------------------------------------------------------


def test_a_consumer_of_a_group_it_may_read_consumes_and_commits(acls: AclBroker) -> None:
    _topics(acls, "orders", records=3)
    acls.allow("alice", TOPIC, "orders", READ)
    acls.allow("alice", GROUP, "billing", READ)
    consumer = acls.consumer("alice", "billing", **{"enable.auto.commit": False})
    consumer.subscribe(["orders"])
    values = []
    deadline = time.monotonic() + TIMEOUT_S
    while len(values) < 3 and time.monotonic() < deadline:
        message = consumer.poll(0.5)
        if message is not None:
            assert message.error() is None, message.error()
            values.append(message.value())
    assert values == [b"orders-0", b"orders-1", b"orders-2"]
    (committed,) = consumer.commit(asynchronous=False)
    assert (committed.topic, committed.offset, committed.error) == ("orders", 3, None)
    (fetched,) = consumer.committed([TopicPartition("orders", 0)], timeout=TIMEOUT_S)
    assert fetched.offset == 3
    consumer.close()


def test_a_consumer_without_read_on_its_group_fails_to_poll_and_commit(acls: AclBroker) -> None:
    _topics(acls, "payments", records=1)
    acls.allow("alice", TOPIC, "payments", READ)
    acls.allow("alice", GROUP, "elsewhere", READ)  # an ACL on another group only
    consumer = acls.consumer("alice", "payments-app")
    consumer.subscribe(["payments"])
    assert _poll_error(consumer).code() == KafkaError.GROUP_AUTHORIZATION_FAILED  # no coordinator
    consumer.close()
    # DESCRIBE finds the coordinator; joining and committing need READ
    acls.allow("alice", GROUP, "payments-app", DESCRIBE)
    consumer = acls.consumer("alice", "payments-app")
    consumer.subscribe(["payments"])
    assert _poll_error(consumer).code() == KafkaError.GROUP_AUTHORIZATION_FAILED
    with pytest.raises(KafkaException) as error:
        consumer.commit(offsets=[TopicPartition("payments", 0, 1)], asynchronous=False)
    assert _code(error) == KafkaError.GROUP_AUTHORIZATION_FAILED
    consumer.close()


def test_a_member_whose_read_is_revoked_fails_to_heartbeat_and_leave(
    acls: AclBroker, caplog: pytest.LogCaptureFixture
) -> None:
    """Through kafka-python, which logs the heartbeat's and LeaveGroup's error codes
    (librdkafka retries a failed heartbeat without telling)."""
    _topics(acls, "beats", records=1)
    acls.allow("alice", TOPIC, "beats", READ)
    acls.allow("alice", GROUP, "beaters", READ)
    consumer = KafkaConsumer(
        "beats", group_id="beaters", auto_offset_reset="earliest", heartbeat_interval_ms=200,
        enable_auto_commit=False, **_python_sasl(acls, "alice"),
    )  # fmt: skip

    def logged(text: str) -> bool:
        return any(text in r.getMessage() for r in caplog.records)

    try:
        records: dict[Any, list[Any]] = {}
        deadline = time.monotonic() + TIMEOUT_S
        while not records and time.monotonic() < deadline:
            records = consumer.poll(500)
        assert [r.value for batch in records.values() for r in batch] == [b"beats-0"]
        assert not logged("[Error 30]")
        acls.revoke_all()
        acls.allow("alice", TOPIC, "beats", READ)
        acls.allow("alice", GROUP, "beaters", DESCRIBE)  # no READ any more
        while not logged("Heartbeat failed: authorization error: [Error 30]"):
            assert time.monotonic() < deadline, "no heartbeat failed"
            consumer.poll(200)
    finally:
        consumer.close()
    assert logged("LeaveGroup request for group beaters failed with error: [Error 30]")


def test_find_coordinator_of_a_transactional_id_needs_describe_on_it(acls: AclBroker) -> None:
    producer = acls.producer("alice", **{"transactional.id": "alice-tx"})
    with pytest.raises(KafkaException) as error:
        producer.init_transactions(TIMEOUT_S)
    assert _code(error) == KafkaError.TRANSACTIONAL_ID_AUTHORIZATION_FAILED


def test_a_commit_for_a_topic_without_read_fails_for_that_partition(acls: AclBroker) -> None:
    _topics(acls, "visible", "hidden")
    acls.allow("alice", GROUP, "mixed", READ)
    acls.allow("alice", TOPIC, "visible", READ)
    acls.allow("alice", TOPIC, "hidden", DESCRIBE)  # may see it, not read it
    consumer = acls.consumer("alice", "mixed")
    offsets = [TopicPartition("visible", 0, 0), TopicPartition("hidden", 0, 0)]
    with pytest.raises(KafkaException) as error:
        consumer.commit(offsets=offsets, asynchronous=False)
    assert _code(error) == KafkaError.TOPIC_AUTHORIZATION_FAILED
    consumer.close()
    # the authorized partition was committed all the same, the other one not
    admin = _python_admin(acls, "admin")
    try:
        committed = admin.list_group_offsets({"mixed": None})["mixed"]
    finally:
        admin.close()
    assert {tp.topic: meta.offset for tp, meta in committed.items()} == {"visible": 0}


def test_offset_fetch_answers_a_topic_without_describe_with_29(acls: AclBroker) -> None:
    _topics(acls, "fetch-open", "fetch-secret")
    for topic in ("fetch-open", "fetch-secret"):
        _commit_as_admin(acls, "fetcher", topic)
    acls.allow("alice", GROUP, "fetcher", READ)
    acls.allow("alice", TOPIC, "fetch-open", READ)
    consumer = acls.consumer("alice", "fetcher")
    wanted = [TopicPartition("fetch-open", 0), TopicPartition("fetch-secret", 0)]
    got = {tp.topic: tp for tp in consumer.committed(wanted, timeout=TIMEOUT_S)}
    assert (got["fetch-open"].offset, got["fetch-open"].error) == (1, None)
    assert got["fetch-secret"].error.code() == KafkaError.TOPIC_AUTHORIZATION_FAILED
    consumer.close()


# -- group admin -----------------------------------------------------------------------------


def test_list_groups_shows_only_the_groups_one_may_describe(acls: AclBroker) -> None:
    _topics(acls, "listed")
    for group in ("team-a", "team-b", "team-c"):
        _commit_as_admin(acls, group, "listed")
    acls.allow("bob", GROUP, "team-b", DESCRIBE)
    acls.allow("bob", GROUP, "team-c", READ)  # READ implies DESCRIBE
    acls.allow("alice", CLUSTER, "kafka-cluster", DESCRIBE)

    def listed(user: str) -> set[str]:
        result = acls.admin(user).list_consumer_groups(request_timeout=TIMEOUT_S).result()
        assert not result.errors
        return {g.group_id for g in result.valid}

    assert listed("bob") == {"team-b", "team-c"}
    assert listed("mallory") == set()
    assert {"team-a", "team-b", "team-c"} <= listed("admin")
    assert {"team-a", "team-b", "team-c"} <= listed("alice")


def test_describe_groups_answers_each_group_it_may_not_describe_with_30(
    acls: AclBroker,
) -> None:
    _topics(acls, "described")
    for group in ("seen", "unseen"):
        _commit_as_admin(acls, group, "described")
    acls.allow("bob", GROUP, "seen", READ)
    admin = _python_admin(acls, "bob")  # DescribeGroups straight to the node, no lookup
    try:
        described = admin.describe_groups(["seen", "unseen"], group_coordinator_id=_node_id(acls))
    finally:
        admin.close()
    assert described["seen"]["error"] is None
    assert described["seen"]["group_state"] == "Empty"
    assert set(described["seen"]["authorized_operations"]) == {"READ", "DESCRIBE"}
    assert "GroupAuthorizationFailedError" in described["unseen"]["error"]
    assert described["unseen"]["members"] == []


def test_authorized_operations_of_a_group_only_when_asked(acls: AclBroker) -> None:
    _topics(acls, "opsy")
    _commit_as_admin(acls, "ops-group", "opsy")
    acls.allow("bob", GROUP, "ops-group", DESCRIBE, DELETE)
    admin = acls.admin("bob")
    (asked,) = admin.describe_consumer_groups(
        ["ops-group"], include_authorized_operations=True, request_timeout=TIMEOUT_S
    ).values()
    assert set(asked.result(TIMEOUT_S).authorized_operations) == {DESCRIBE, DELETE}
    (plain,) = admin.describe_consumer_groups(["ops-group"], request_timeout=TIMEOUT_S).values()
    assert plain.result(TIMEOUT_S).authorized_operations is None


def test_delete_groups_and_offsets_need_delete_on_the_group(acls: AclBroker) -> None:
    _topics(acls, "doomed-a", "doomed-b")
    for topic in ("doomed-a", "doomed-b"):
        _commit_as_admin(acls, "old-app", topic)
    acls.allow("bob", GROUP, "old-app", DESCRIBE)  # finds the coordinator, may not delete
    future = acls.admin("bob").delete_consumer_groups(["old-app"], request_timeout=TIMEOUT_S)
    with pytest.raises(KafkaException) as error:
        future["old-app"].result(TIMEOUT_S)
    assert _code(error) == KafkaError.GROUP_AUTHORIZATION_FAILED
    node = _node_id(acls)
    admin = _python_admin(acls, "bob")
    try:
        with pytest.raises(Exception, match="GroupAuthorizationFailed"):
            admin.delete_group_offsets("old-app", [PyTopicPartition("doomed-a", 0)], node)
        acls.allow("bob", GROUP, "old-app", DELETE)
        acls.allow("bob", TOPIC, "doomed-a", READ)
        parts = [PyTopicPartition("doomed-a", 0), PyTopicPartition("doomed-b", 0)]
        errors = admin.delete_group_offsets("old-app", parts, node)
    finally:
        admin.close()
    assert {tp.topic: e.__name__ for tp, e in errors.items()} == {
        "doomed-a": "NoError",
        "doomed-b": "TopicAuthorizationFailedError",
    }
    future = acls.admin("bob").delete_consumer_groups(["old-app"], request_timeout=TIMEOUT_S)
    future["old-app"].result(TIMEOUT_S)


# -- configs ---------------------------------------------------------------------------------


def _configs_error(future: Any) -> int | None:
    try:
        future.result(TIMEOUT_S)
    except KafkaException as error:
        return int(error.args[0].code())
    return None


@pytest.mark.filterwarnings("ignore:alter_configs has been deprecated")
def test_configs_need_describe_configs_and_alter_configs(acls: AclBroker) -> None:
    _topics(acls, "tuned", "tuned-too")
    admin = acls.admin("alice")
    topic = ConfigResource(ConfigResource.Type.TOPIC, "tuned")
    other = ConfigResource(ConfigResource.Type.TOPIC, "tuned-too")
    node = ConfigResource(ConfigResource.Type.BROKER, str(_node_id(acls)))

    def describe(resource: ConfigResource) -> int | None:
        (future,) = admin.describe_configs([resource], request_timeout=TIMEOUT_S).values()
        return _configs_error(future)

    def alter(resource: ConfigResource, name: str, value: str) -> int | None:
        entry = ConfigEntry(name, value, incremental_operation=AlterConfigOpType.SET)
        change = ConfigResource(resource.restype, resource.name, incremental_configs=[entry])
        futures = admin.incremental_alter_configs([change], request_timeout=TIMEOUT_S)
        (future,) = futures.values()
        return _configs_error(future)

    assert describe(topic) == KafkaError.TOPIC_AUTHORIZATION_FAILED
    assert describe(node) == KafkaError.CLUSTER_AUTHORIZATION_FAILED
    assert alter(topic, "retention.ms", "1000") == KafkaError.TOPIC_AUTHORIZATION_FAILED
    assert alter(node, "log.retention.ms", "1000") == KafkaError.CLUSTER_AUTHORIZATION_FAILED

    acls.allow("alice", TOPIC, "tuned", DESCRIBE_CONFIGS)
    acls.allow("alice", CLUSTER, "kafka-cluster", DESCRIBE_CONFIGS)
    assert describe(topic) is None
    assert describe(node) is None
    assert alter(topic, "retention.ms", "1000") == KafkaError.TOPIC_AUTHORIZATION_FAILED

    acls.allow("alice", TOPIC, "tuned-too", ALTER_CONFIGS)  # implies DESCRIBE_CONFIGS
    assert alter(other, "retention.ms", "1000") is None
    assert describe(other) is None
    (future,) = admin.describe_configs([other], request_timeout=TIMEOUT_S).values()
    assert future.result(TIMEOUT_S)["retention.ms"].value == "1000"
    # legacy AlterConfigs asks the same
    legacy = ConfigResource(ConfigResource.Type.TOPIC, "tuned", set_config={"retention.ms": "5"})
    (future,) = admin.alter_configs([legacy], request_timeout=TIMEOUT_S).values()
    assert _configs_error(future) == KafkaError.TOPIC_AUTHORIZATION_FAILED


# -- SCRAM credentials -----------------------------------------------------------------------


def test_scram_credentials_need_describe_and_alter_on_the_cluster(acls: AclBroker) -> None:
    admin = acls.admin("alice")
    upsert = UserScramCredentialUpsertion(
        "zoe", ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 8192), b"zoe-secret"
    )

    def describe() -> Any:
        return admin.describe_user_scram_credentials(["zoe"], request_timeout=TIMEOUT_S)["zoe"]

    def alter() -> Any:
        return admin.alter_user_scram_credentials([upsert], request_timeout=TIMEOUT_S)["zoe"]

    def describe_error() -> type[Exception] | None:
        """Through kafka-python: librdkafka aborts the process on a DescribeUserScramCredentials
        response with a top-level error (it frees a string it did not allocate)."""
        python = _python_admin(acls, "alice")
        try:
            python.describe_user_scram_credentials(["zoe"])
        except Exception as error:
            return type(error)
        finally:
            python.close()
        return None

    assert describe_error() is ClusterAuthorizationFailedError
    assert _configs_error(alter()) == KafkaError.CLUSTER_AUTHORIZATION_FAILED
    acls.allow("alice", CLUSTER, "kafka-cluster", DESCRIBE)
    assert describe_error() is None
    assert _configs_error(describe()) == KafkaError.RESOURCE_NOT_FOUND  # authorized: no zoe
    assert _configs_error(alter()) == KafkaError.CLUSTER_AUTHORIZATION_FAILED
    acls.revoke_all()
    acls.allow("alice", CLUSTER, "kafka-cluster", AclOperation.ALTER)  # implies DESCRIBE
    alter().result(TIMEOUT_S)
    infos = describe().result(TIMEOUT_S).scram_credential_infos
    assert [(i.mechanism, i.iterations) for i in infos] == [(ScramMechanism.SCRAM_SHA_256, 8192)]

"""ACLs on the data path, through real clients logged in as alice, bob and mallory:
Produce and InitProducerId (WRITE, IDEMPOTENT_WRITE, the KIP-679 fallback), Fetch (READ),
Metadata (DESCRIBE, filtered listings, authorized operations), CreateTopics, DeleteTopics,
DeleteRecords and CreatePartitions, transactions (WRITE on TRANSACTIONAL_ID), and DENY
winning over ALLOW."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import (
    Consumer,
    KafkaError,
    KafkaException,
    Producer,
    TopicCollection,
    TopicPartition,
)
from confluent_kafka.admin import (
    AclOperation,
    NewPartitions,
    NewTopic,
    ResourcePatternType,
    ResourceType,
)
from kafka.admin import KafkaAdminClient
from kafka.errors import TransactionalIdAuthorizationFailedError

from tests.broker.acl_cluster import TIMEOUT_S, AclBroker, start_acl_broker

pytestmark = pytest.mark.timeout(120)

PREFIXED = ResourcePatternType.PREFIXED
CLUSTER = "kafka-cluster"
EOF_CODE = KafkaError._PARTITION_EOF


@pytest.fixture
def acls(tmp_path: Path) -> Iterator[AclBroker]:
    yield from start_acl_broker(tmp_path)


def _create(acls: AclBroker, *names: str) -> None:
    """One-partition topics, created by the super user."""
    futures = acls.admin().create_topics([NewTopic(n, 1) for n in names], request_timeout=TIMEOUT_S)
    for future in futures.values():
        future.result(TIMEOUT_S)


def _produce(producer: Producer, topic: str, count: int = 1) -> KafkaError | None:
    """Produce *count* records; the first delivery error, or None."""
    errors: list[KafkaError | None] = []
    for i in range(count):
        producer.produce(topic, value=f"v{i}".encode(), on_delivery=lambda e, _: errors.append(e))
    assert producer.flush(TIMEOUT_S) == 0, "undelivered records"
    return next((e for e in errors if e is not None), None)


def _code(error: KafkaError | None) -> int | None:
    return None if error is None else error.code()


def _read(consumer: Consumer, topic: str, expected: int) -> tuple[list[bytes], KafkaError | None]:
    """Assign partition 0 from offset 0 and poll until *expected* values or an error."""
    consumer.assign([TopicPartition(topic, 0, 0)])
    values: list[bytes] = []
    deadline = time.monotonic() + TIMEOUT_S
    try:
        while len(values) < expected and time.monotonic() < deadline:
            for msg in consumer.consume(100, timeout=0.5):
                error = msg.error()
                if error is None:
                    values.append(msg.value())
                elif error.code() != EOF_CODE:
                    return values, error
    finally:
        consumer.close()
    return values, None


def _future_code(future: Any) -> int | None:
    try:
        future.result(TIMEOUT_S)
    except KafkaException as error:
        return int(error.args[0].code())
    return None


def _kafka_python(acls: AclBroker, user: str) -> KafkaAdminClient:
    """kafka-python's admin client, for what librdkafka does not show."""
    return KafkaAdminClient(
        bootstrap_servers=acls.bootstrap,
        security_protocol="SASL_PLAINTEXT",
        sasl_mechanism="PLAIN",
        sasl_plain_username=user,
        sasl_plain_password=f"{user}-secret",
        request_timeout_ms=TIMEOUT_S * 1000,
    )


# -- Produce and InitProducerId ---------------------------------------------------------------


def test_write_on_a_topic_lets_alice_produce_to_it_and_no_other(acls: AclBroker) -> None:
    _create(acls, "orders", "payments")
    acls.allow("alice", ResourceType.TOPIC, "orders", AclOperation.WRITE)
    acls.allow("alice", ResourceType.TOPIC, "payments", AclOperation.DESCRIBE)
    alice = acls.producer("alice")
    assert _produce(alice, "orders", 3) is None
    # Metadata shows "payments" (DESCRIBE), so the Produce request itself is refused.
    assert _code(_produce(alice, "payments")) == KafkaError.TOPIC_AUTHORIZATION_FAILED
    mallory = acls.producer("mallory")
    assert _code(_produce(mallory, "orders")) == KafkaError.TOPIC_AUTHORIZATION_FAILED
    values, error = _read(acls.consumer("admin", "g"), "orders", 3)
    assert (values, error) == ([b"v0", b"v1", b"v2"], None)


def test_an_idempotent_producer_needs_idempotent_write_or_write_on_some_topic(
    acls: AclBroker,
) -> None:
    _create(acls, "t")
    acls.allow("alice", ResourceType.TOPIC, "t", AclOperation.WRITE)
    alice = acls.producer("alice", **{"enable.idempotence": True})
    assert _produce(alice, "t", 2) is None

    # mallory may see "t" (DESCRIBE), so what fails is InitProducerId, fatally.
    acls.allow("mallory", ResourceType.TOPIC, "t", AclOperation.DESCRIBE)
    mallory = acls.producer("mallory", **{"enable.idempotence": True})
    mallory.produce("t", b"v")
    with pytest.raises(KafkaException) as error:
        mallory.flush(TIMEOUT_S)
    assert error.value.args[0].code() == KafkaError.CLUSTER_AUTHORIZATION_FAILED
    # WRITE on any topic is enough for a producer id (KIP-679), not to write to "t".
    acls.allow("mallory", ResourceType.TOPIC, "elsewhere-", AclOperation.WRITE, pattern=PREFIXED)
    mallory = acls.producer("mallory", **{"enable.idempotence": True})
    assert _code(_produce(mallory, "t")) == KafkaError.TOPIC_AUTHORIZATION_FAILED

    acls.allow("bob", ResourceType.BROKER, CLUSTER, AclOperation.IDEMPOTENT_WRITE)
    acls.allow("bob", ResourceType.TOPIC, "t", AclOperation.WRITE)
    bob = acls.producer("bob", **{"enable.idempotence": True})
    assert _produce(bob, "t") is None


# -- Fetch -------------------------------------------------------------------------------------


def test_read_on_a_topic_lets_alice_consume_and_without_it_fetch_is_denied(
    acls: AclBroker,
) -> None:
    _create(acls, "events", "audit")
    assert _produce(acls.producer("admin"), "events", 2) is None
    assert _produce(acls.producer("admin"), "audit", 2) is None
    acls.allow("alice", ResourceType.TOPIC, "events", AclOperation.READ)
    acls.allow("alice", ResourceType.TOPIC, "audit", AclOperation.DESCRIBE)
    acls.allow("alice", ResourceType.GROUP, "alice-", AclOperation.READ, pattern=PREFIXED)
    quiet = {"enable.auto.commit": False}
    values, error = _read(acls.consumer("alice", "alice-1", **quiet), "events", 2)
    assert (values, error) == ([b"v0", b"v1"], None)
    # DESCRIBE lets alice see "audit" and its offsets, not fetch from it.
    values, error = _read(acls.consumer("alice", "alice-2", **quiet), "audit", 2)
    assert values == [] and _code(error) == KafkaError.TOPIC_AUTHORIZATION_FAILED


def test_a_consumer_group_member_with_read_reads_and_commits(acls: AclBroker) -> None:
    _create(acls, "clicks")
    assert _produce(acls.producer("admin"), "clicks", 3) is None
    acls.allow("alice", ResourceType.TOPIC, "clicks", AclOperation.READ)
    acls.allow("alice", ResourceType.GROUP, "clickers", AclOperation.READ)
    consumer = acls.consumer("alice", "clickers", **{"enable.auto.commit": False})
    consumer.subscribe(["clicks"])
    values: list[bytes] = []
    deadline = time.monotonic() + TIMEOUT_S
    try:
        while len(values) < 3 and time.monotonic() < deadline:
            for msg in consumer.consume(10, timeout=0.5):
                assert msg.error() is None, msg.error()
                values.append(msg.value())
        committed = consumer.commit(asynchronous=False)
    finally:
        consumer.close()
    assert values == [b"v0", b"v1", b"v2"]
    assert [(tp.topic, tp.offset, tp.error) for tp in committed] == [("clicks", 3, None)]


# -- Metadata ----------------------------------------------------------------------------------


def test_metadata_lists_only_described_topics_and_names_a_denied_one(acls: AclBroker) -> None:
    _create(acls, "meta-a", "meta-b", "meta-c")
    acls.allow("bob", ResourceType.TOPIC, "meta-a", AclOperation.DESCRIBE)
    acls.allow("bob", ResourceType.TOPIC, "meta-b", AclOperation.READ)  # implies DESCRIBE
    bob = acls.admin("bob")
    assert set(bob.list_topics(timeout=TIMEOUT_S).topics) == {"meta-a", "meta-b"}
    assert {"meta-a", "meta-b", "meta-c"} <= set(acls.admin().list_topics(timeout=TIMEOUT_S).topics)
    named = bob.list_topics("meta-c", timeout=TIMEOUT_S).topics["meta-c"]
    assert _code(named.error) == KafkaError.TOPIC_AUTHORIZATION_FAILED
    assert named.partitions == {}
    assert bob.list_topics("meta-a", timeout=TIMEOUT_S).topics["meta-a"].error is None


def test_metadata_reports_authorized_operations_when_asked(acls: AclBroker) -> None:
    _create(acls, "ops")
    acls.allow("bob", ResourceType.TOPIC, "ops", AclOperation.READ)
    bob = acls.admin("bob")
    topics = TopicCollection(["ops"])
    futures = bob.describe_topics(topics, include_authorized_operations=True)
    described = futures["ops"].result(TIMEOUT_S)
    assert set(described.authorized_operations) == {AclOperation.READ, AclOperation.DESCRIBE}
    cluster = bob.describe_cluster(include_authorized_operations=True).result(TIMEOUT_S)
    assert not cluster.authorized_operations  # no DESCRIBE on the cluster: 0
    admin_view = acls.admin().describe_cluster(include_authorized_operations=True)
    assert AclOperation.IDEMPOTENT_WRITE in admin_view.result(TIMEOUT_S).authorized_operations
    acls.allow("bob", ResourceType.BROKER, CLUSTER, AclOperation.DESCRIBE, AclOperation.CREATE)
    cluster = bob.describe_cluster(include_authorized_operations=True).result(TIMEOUT_S)
    assert set(cluster.authorized_operations) == {AclOperation.DESCRIBE, AclOperation.CREATE}


def test_auto_creation_needs_create_on_the_cluster_or_the_topic(acls: AclBroker) -> None:
    writer = (AclOperation.WRITE, AclOperation.CREATE)
    acls.allow("alice", ResourceType.TOPIC, "auto-", *writer, pattern=PREFIXED)
    acls.allow("alice", ResourceType.TOPIC, "nope", AclOperation.WRITE)
    alice = acls.producer("alice")
    assert _produce(alice, "auto-1") is None
    assert _code(_produce(alice, "nope")) == KafkaError.TOPIC_AUTHORIZATION_FAILED
    assert "nope" not in acls.admin().list_topics(timeout=TIMEOUT_S).topics


# -- CreateTopics, DeleteTopics, DeleteRecords, CreatePartitions -----------------------------


def test_create_topics_needs_create_on_the_cluster_or_the_topic(acls: AclBroker) -> None:
    alice = acls.admin("alice")
    assert _future_code(alice.create_topics([NewTopic("alice-1", 1)])["alice-1"]) == (
        KafkaError.TOPIC_AUTHORIZATION_FAILED
    )
    acls.allow("alice", ResourceType.TOPIC, "alice-", AclOperation.CREATE, pattern=PREFIXED)
    futures = alice.create_topics([NewTopic("alice-1", 2), NewTopic("bob-1", 1)])
    assert _future_code(futures["alice-1"]) is None
    assert _future_code(futures["bob-1"]) == KafkaError.TOPIC_AUTHORIZATION_FAILED
    acls.allow("bob", ResourceType.BROKER, CLUSTER, AclOperation.CREATE)
    bob = acls.admin("bob")
    assert _future_code(bob.create_topics([NewTopic("bob-1", 1)])["bob-1"]) is None


def test_created_topic_configs_come_back_only_with_describe_configs(acls: AclBroker) -> None:
    """librdkafka drops the configs of a CreateTopics answer: kafka-python shows them."""
    acls.allow("alice", ResourceType.TOPIC, "cfg-", AclOperation.CREATE, pattern=PREFIXED)
    acls.allow("alice", ResourceType.TOPIC, "cfg-shown", AclOperation.DESCRIBE_CONFIGS)
    client = _kafka_python(acls, "alice")
    try:
        spec = {"num_partitions": 1, "configs": {"retention.ms": "12345"}}
        wanted = {"cfg-shown": spec, "cfg-hidden": spec, "x": spec}
        result = client.create_topics(wanted, raise_errors=False)
    finally:
        client.close()
    topics = {t["name"]: t for t in result["topics"]}
    assert topics["x"]["error_code"] == KafkaError.TOPIC_AUTHORIZATION_FAILED
    assert topics["x"]["error_message"] == "Authorization failed."
    shown, hidden = topics["cfg-shown"], topics["cfg-hidden"]
    assert shown["error_code"] == hidden["error_code"] == 0
    assert shown["topic_config_error_code"] == 0
    retention = shown["configs"]["retention.ms"]
    assert (retention["value"], retention["config_source"]) == ("12345", "DYNAMIC_TOPIC_CONFIG")
    assert hidden["topic_config_error_code"] == KafkaError.TOPIC_AUTHORIZATION_FAILED
    assert not hidden.get("configs")


def test_delete_topics_and_records_need_delete(acls: AclBroker) -> None:
    _create(acls, "old", "older")
    assert _produce(acls.producer("admin"), "old", 3) is None
    alice = acls.admin("alice")
    acls.allow("alice", ResourceType.TOPIC, "old", AclOperation.DESCRIBE)
    records = [TopicPartition("old", 0, 2)]
    assert _future_code(alice.delete_records(records)[records[0]]) == (
        KafkaError.TOPIC_AUTHORIZATION_FAILED
    )
    assert _future_code(alice.delete_topics(["old"])["old"]) == (
        KafkaError.TOPIC_AUTHORIZATION_FAILED
    )
    acls.allow("alice", ResourceType.TOPIC, "old", AclOperation.DELETE)
    deleted = alice.delete_records(records)[records[0]].result(TIMEOUT_S)
    assert deleted.low_watermark == 2
    assert _future_code(alice.delete_topics(["old"])["old"]) is None
    acls.allow("bob", ResourceType.BROKER, CLUSTER, AclOperation.DELETE)
    assert _future_code(acls.admin("bob").delete_topics(["older"])["older"]) is None
    assert not {"old", "older"} & set(acls.admin().list_topics(timeout=TIMEOUT_S).topics)


def test_create_partitions_needs_alter_on_the_topic(acls: AclBroker) -> None:
    _create(acls, "grow")
    alice = acls.admin("alice")
    acls.allow("alice", ResourceType.TOPIC, "grow", AclOperation.DESCRIBE)
    assert _future_code(alice.create_partitions([NewPartitions("grow", 3)])["grow"]) == (
        KafkaError.TOPIC_AUTHORIZATION_FAILED
    )
    acls.allow("alice", ResourceType.TOPIC, "grow", AclOperation.ALTER)
    assert _future_code(alice.create_partitions([NewPartitions("grow", 3)])["grow"]) is None
    assert len(acls.admin().list_topics("grow", timeout=TIMEOUT_S).topics["grow"].partitions) == 3


# -- transactions ------------------------------------------------------------------------------


def _grant_transactions(acls: AclBroker, user: str, topic: str) -> None:
    acls.allow(user, ResourceType.TRANSACTIONAL_ID, "tx-", AclOperation.WRITE, pattern=PREFIXED)
    acls.allow(user, ResourceType.TOPIC, topic, AclOperation.WRITE, AclOperation.READ)
    acls.allow(user, ResourceType.GROUP, f"{user}-", AclOperation.READ, pattern=PREFIXED)


def test_a_transaction_of_alice_commits_and_read_committed_sees_it(acls: AclBroker) -> None:
    _create(acls, "ledger")
    _grant_transactions(acls, "alice", "ledger")
    producer = acls.producer("alice", **{"transactional.id": "tx-1"})
    producer.init_transactions(TIMEOUT_S)
    producer.begin_transaction()
    for i in range(3):
        producer.produce("ledger", value=f"v{i}".encode())
    producer.commit_transaction(TIMEOUT_S)
    reader = acls.consumer("alice", "alice-reader", **{"isolation.level": "read_committed"})
    values, error = _read(reader, "ledger", 3)
    assert (values, error) == ([b"v0", b"v1", b"v2"], None)


def test_a_transaction_sends_offsets_only_for_a_group_it_may_read(acls: AclBroker) -> None:
    _create(acls, "ledger")
    _grant_transactions(acls, "alice", "ledger")
    producer = acls.producer("alice", **{"transactional.id": "tx-offsets"})
    producer.init_transactions(TIMEOUT_S)
    producer.begin_transaction()
    producer.produce("ledger", value=b"v")
    offsets = [TopicPartition("ledger", 0, 1)]
    group = Consumer(acls.client_config("alice", **{"group.id": "alice-app"}))
    try:
        producer.send_offsets_to_transaction(offsets, group.consumer_group_metadata(), TIMEOUT_S)
        producer.commit_transaction(TIMEOUT_S)
        committed = group.committed(offsets, timeout=TIMEOUT_S)
    finally:
        group.close()
    assert [tp.offset for tp in committed] == [1]

    producer.begin_transaction()
    other = Consumer(acls.client_config("alice", **{"group.id": "someone-else"}))
    try:
        with pytest.raises(KafkaException) as error:
            producer.send_offsets_to_transaction(
                offsets, other.consumer_group_metadata(), TIMEOUT_S
            )
    finally:
        other.close()
    assert error.value.args[0].code() == KafkaError.GROUP_AUTHORIZATION_FAILED


def test_without_the_transactional_id_acl_init_transactions_fails(acls: AclBroker) -> None:
    _create(acls, "ledger")
    _grant_transactions(acls, "alice", "ledger")
    producer = acls.producer("alice", **{"transactional.id": "other-1"})
    with pytest.raises(KafkaException) as error:
        producer.init_transactions(TIMEOUT_S)
    assert error.value.args[0].code() == KafkaError.TRANSACTIONAL_ID_AUTHORIZATION_FAILED


def test_a_transaction_cannot_add_a_topic_alice_may_not_write(acls: AclBroker) -> None:
    """AddPartitionsToTxn fails as a whole: the transaction must be aborted."""
    _create(acls, "ledger", "other")
    _grant_transactions(acls, "alice", "ledger")
    acls.allow("alice", ResourceType.TOPIC, "other", AclOperation.DESCRIBE)
    producer = acls.producer("alice", **{"transactional.id": "tx-2", "linger.ms": 50})
    producer.init_transactions(TIMEOUT_S)
    producer.begin_transaction()
    producer.produce("ledger", value=b"a")
    producer.produce("other", value=b"b")
    with pytest.raises(KafkaException) as error:
        producer.commit_transaction(TIMEOUT_S)
    assert error.value.args[0].code() == KafkaError.TOPIC_AUTHORIZATION_FAILED
    assert error.value.args[0].txn_requires_abort()


def test_a_deny_on_the_transactional_id_stops_the_next_batch(acls: AclBroker) -> None:
    """Produce checks WRITE on the transactional id of transactional batches."""
    _create(acls, "ledger")
    _grant_transactions(acls, "alice", "ledger")
    producer = acls.producer("alice", **{"transactional.id": "tx-3"})
    producer.init_transactions(TIMEOUT_S)
    producer.begin_transaction()
    assert _produce(producer, "ledger") is None
    acls.deny("alice", ResourceType.TRANSACTIONAL_ID, "tx-3", AclOperation.WRITE)
    denied = KafkaError.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
    assert _code(_produce(producer, "ledger")) == denied
    with pytest.raises(KafkaException) as error:
        producer.commit_transaction(TIMEOUT_S)
    assert error.value.args[0].code() == denied


def test_transactions_are_described_and_listed_with_describe_on_the_id(acls: AclBroker) -> None:
    """kafka-python (librdkafka has no Describe/ListTransactions): bob may DESCRIBE the id
    but not the topic, so he sees the transaction without its partitions; mallory gets
    TRANSACTIONAL_ID_AUTHORIZATION_FAILED and an empty listing."""
    _create(acls, "ledger")
    _grant_transactions(acls, "alice", "ledger")
    producer = acls.producer("alice", **{"transactional.id": "tx-described"})
    producer.init_transactions(TIMEOUT_S)
    producer.begin_transaction()
    producer.produce("ledger", value=b"open")
    assert producer.flush(TIMEOUT_S) == 0
    acls.allow("bob", ResourceType.TRANSACTIONAL_ID, "tx-described", AclOperation.DESCRIBE)
    seen: dict[str, tuple[set[str], set[str]]] = {}
    for user in ("alice", "bob"):
        client = _kafka_python(acls, user)
        try:
            described = client.describe_transactions(["tx-described"])["tx-described"]
            listed = client.list_transactions()
        finally:
            client.close()
        ids = {t.transactional_id for listings in listed.values() for t in listings}
        seen[user] = ({tp.topic for tp in described.topic_partitions}, ids)
    assert seen == {"alice": ({"ledger"}, {"tx-described"}), "bob": (set(), {"tx-described"})}
    client = _kafka_python(acls, "mallory")
    try:
        with pytest.raises(TransactionalIdAuthorizationFailedError):
            client.describe_transactions(["tx-described"])
        listed = client.list_transactions()
    finally:
        client.close()
    assert not any(listed.values())
    producer.abort_transaction(TIMEOUT_S)


# -- DENY over ALLOW ---------------------------------------------------------------------------


def test_a_deny_beats_an_allow_end_to_end(acls: AclBroker) -> None:
    _create(acls, "public", "secret")
    acls.allow("alice", ResourceType.TOPIC, "*", AclOperation.ALL)
    acls.allow("alice", ResourceType.GROUP, "alice-", AclOperation.READ, pattern=PREFIXED)
    acls.deny("alice", ResourceType.TOPIC, "secret", AclOperation.WRITE, AclOperation.READ)
    alice = acls.producer("alice")
    assert _produce(alice, "public") is None
    assert _code(_produce(alice, "secret")) == KafkaError.TOPIC_AUTHORIZATION_FAILED
    assert _produce(acls.producer("admin"), "secret") is None  # super users pass any DENY
    values, error = _read(acls.consumer("alice", "alice-1"), "public", 1)
    assert (values, error) == ([b"v0"], None)
    values, error = _read(acls.consumer("alice", "alice-2"), "secret", 1)
    assert values == [] and _code(error) == KafkaError.TOPIC_AUTHORIZATION_FAILED
    # A DENY of everything to everyone on a prefix hides the topics from listings.
    acls.deny("alice", ResourceType.TOPIC, "sec", AclOperation.DESCRIBE, pattern=PREFIXED)
    listed = set(acls.admin("alice").list_topics(timeout=TIMEOUT_S).topics)
    assert listed == {"public", "__consumer_offsets"}  # made by this test's groups

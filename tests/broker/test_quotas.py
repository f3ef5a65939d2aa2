"""Client quotas against a real broker: AlterClientQuotas and DescribeClientQuotas (asked over
Seaway's own Kafka connection: neither confluent-kafka 2.16 nor kafka-python 3.0 has them in
its admin client), Kafka's errors and precedence, durability, ACLs, and librdkafka producers
and consumers throttled by their byte rates.

The broker keeps 3 quota samples of 1 s, so a client may burst 2 s of its quota before it is
throttled; the timings asserted are lower bounds at half what the quota implies.
"""

from __future__ import annotations

import datetime
import time
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AclOperation, ResourceType
from kio.schema.alter_client_quotas.v1 import request as alter_v1
from kio.schema.describe_client_quotas.v1 import request as describe_v1
from kio.schema.produce.v9 import request as produce_v9

from seaway.broker import BrokerThread
from seaway.java.sampled_stat import SampledStat
from seaway.kafka.connection import Connection
from seaway.kafka.security import ClientSecurity
from seaway.protocol.errors import ErrorCode
from seaway.protocol.record_codec import Record, build_batch
from tests.broker.acl_cluster import AclBroker, start_acl_broker
from tests.broker.clients import create_topic, produce, quiet

pytestmark = pytest.mark.timeout(120)

QUOTA_CONFIG = {"quota.window.num": 3, "quota.window.size.seconds": 1}
BURST_WINDOWS = 2  # quota.window.num - 1
RATE = 200 * 1024  # bytes/s
RECORDS, RECORD_BYTES = 1024, 1000  # ~1 MB

Entity = Mapping[str, str | None]  # entity type -> name (None: <default>)
Ops = Mapping[str, float | None]  # key -> value (None: remove)
Result = tuple[dict[str, str | None], ErrorCode, str | None]
Described = dict[tuple[tuple[str, str | None], ...], dict[str, float]]
Components = list[tuple[str, int, str | None]]  # entity type, match type, match


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerThread]:
    with BrokerThread(tmp_path_factory.mktemp("quotas"), config=QUOTA_CONFIG) as b:
        yield b


def connect(bootstrap: str, **librdkafka: Any) -> Connection:
    host, port = bootstrap.rsplit(":", 1)
    return Connection(host, int(port), security=ClientSecurity.from_config(librdkafka))


@pytest.fixture
def connection(broker: BrokerThread) -> Iterator[Connection]:
    c = connect(broker.bootstrap_servers)
    yield c
    c.close()


def alter(
    c: Connection, changes: list[tuple[Entity, Ops]], validate_only: bool = False
) -> list[Result]:
    request = c.request_class(49, 1, 1)
    entries = tuple(
        alter_v1.EntryData(
            entity=tuple(alter_v1.EntityData(entity_type=t, entity_name=n) for t, n in e.items()),
            ops=tuple(
                alter_v1.OpData(key=k, value=v or 0.0, remove=v is None) for k, v in ops.items()
            ),
        )
        for e, ops in changes
    )
    reply = c.request(request(entries=entries, validate_only=validate_only))
    return [
        ({x.entity_type: x.entity_name for x in r.entity}, r.error_code, r.error_message)
        for r in reply.entries
    ]


def describe(c: Connection, components: Components | None = None, strict: bool = False) -> Any:
    request = c.request_class(48, 1, 1)
    wanted = tuple(describe_v1.ComponentData(entity_type=t, match_type=m, match=n)
                   for t, m, n in components or ())  # fmt: skip
    return c.request(request(components=wanted, strict=strict))


def described(
    c: Connection, components: Components | None = None, strict: bool = False
) -> Described:
    reply = describe(c, components, strict)
    assert reply.error_code == ErrorCode.none, reply.error_message
    return {
        tuple(sorted((x.entity_type, x.entity_name) for x in entry.entity)): {
            v.key: v.value for v in entry.values
        }
        for entry in reply.entries
    }


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


EXACT, DEFAULT, SPECIFIED = 0, 1, 2


def test_alter_then_describe_with_kafkas_filters(connection: Connection) -> None:
    alice, c1 = unique("alice"), unique("c")
    ok = alter(connection, [
        ({"user": alice}, {"producer_byte_rate": 1024}),
        ({"user": alice, "client-id": c1}, {"request_percentage": 50.5,
                                             "controller_mutation_rate": 3.0}),
        ({"user": None}, {"consumer_byte_rate": 4096}),
        ({"client-id": c1}, {"consumer_byte_rate": 2048}),
    ])  # fmt: skip
    assert [code for _, code, _ in ok] == [ErrorCode.none] * 4
    everything = described(connection)
    assert everything[(("user", alice),)] == {"producer_byte_rate": 1024.0}
    assert everything[(("client-id", c1), ("user", alice))] == {
        "request_percentage": 50.5,
        "controller_mutation_rate": 3.0,
    }
    assert everything[(("user", None),)] == {"consumer_byte_rate": 4096.0}
    # exact name, not strict: every entity naming alice; strict: alice alone
    assert set(described(connection, [("user", EXACT, alice)])) == {
        (("user", alice),),
        (("client-id", c1), ("user", alice)),
    }
    assert set(described(connection, [("user", EXACT, alice)], strict=True)) == {(("user", alice),)}
    assert set(described(connection, [("user", DEFAULT, None)], strict=True)) == {(("user", None),)}
    assert set(described(connection, [("user", SPECIFIED, None), ("client-id", EXACT, c1)])) == {
        (("client-id", c1), ("user", alice))
    }
    # removing a key; removing the last one removes the entity
    assert (
        alter(connection, [({"user": alice, "client-id": c1}, {"request_percentage": None})])[0][1]
        == ErrorCode.none
    )
    assert described(connection, [("client-id", EXACT, c1), ("user", EXACT, alice)]) == {
        (("client-id", c1), ("user", alice)): {"controller_mutation_rate": 3.0}
    }
    alter(connection, [({"user": alice, "client-id": c1}, {"controller_mutation_rate": None})])
    assert described(connection, [("client-id", EXACT, c1), ("user", EXACT, alice)]) == {}
    alter(connection, [({"user": None}, {"consumer_byte_rate": None})])


def test_bad_keys_and_values_fail_with_kafkas_errors(connection: Connection) -> None:
    bob, carol = unique("bob"), unique("carol")
    results = alter(connection, [
        ({"user": bob}, {"producer_byte_rate": 100, "produce_byte_rate": 5}),
        ({"user": carol}, {"consumer_byte_rate": 1000}),
        ({"client-id": unique("c")}, {"producer_byte_rate": 10.5}),
        ({"client-id": unique("c")}, {"consumer_byte_rate": 0}),
        ({"group": "g"}, {"consumer_byte_rate": 1}),
        ({"user": ""}, {"consumer_byte_rate": 1}),
        ({}, {"consumer_byte_rate": 1}),
    ])  # fmt: skip
    assert [(code, message) for _, code, message in results] == [
        (ErrorCode.invalid_request, "Invalid configuration key produce_byte_rate"),
        (ErrorCode.none, None),
        (ErrorCode.invalid_request, "producer_byte_rate cannot be a fractional value."),
        (ErrorCode.invalid_request, "Quota consumer_byte_rate must be greater than 0"),
        (ErrorCode.invalid_request, "Unhandled client quota entity type: group"),
        (ErrorCode.invalid_request, "Empty user not supported"),
        (ErrorCode.invalid_request, "Invalid empty client quota entity"),
    ]
    # an entity in error changes nothing; the valid one in the same request applies
    assert described(connection, [("user", EXACT, bob)]) == {}
    assert described(connection, [("user", EXACT, carol)]) == {
        (("user", carol),): {"consumer_byte_rate": 1000.0}
    }
    twice = alter(connection, [({"user": bob}, {"producer_byte_rate": 1}),
                               ({"user": bob}, {"consumer_byte_rate": 1})])  # fmt: skip
    shown = f"ClientQuotaEntity(entries={{user={bob}}})"
    assert twice == [
        ({"user": bob}, ErrorCode.invalid_request, f"Ignoring duplicate entity {shown}")
    ]
    dry = alter(connection, [({"user": carol}, {"consumer_byte_rate": 5})], validate_only=True)
    assert dry == [({"user": carol}, ErrorCode.none, None)]
    assert described(connection, [("user", EXACT, carol)])[(("user", carol),)] == {
        "consumer_byte_rate": 1000.0
    }


def test_bad_filters_fail_with_kafkas_errors(connection: Connection) -> None:
    cases = [
        ([("group", EXACT, "g")], ErrorCode.unsupported_version, "Unsupported entity type group"),
        ([("user", EXACT, None)], ErrorCode.invalid_request,
         "Request specified MATCH_TYPE_EXACT, but set match string to null."),
        ([("user", DEFAULT, "a")], ErrorCode.invalid_request,
         "Request specified MATCH_TYPE_DEFAULT, but also specified a match string."),
        ([("user", 7, None)], ErrorCode.invalid_request, "Unknown match type 7"),
        ([("user", DEFAULT, None), ("user", SPECIFIED, None)], ErrorCode.invalid_request,
         "Entity type user cannot appear more than once in the filter."),
    ]  # fmt: skip
    for components, code, message in cases:
        reply = describe(connection, components)
        assert (reply.error_code, reply.error_message, reply.entries) == (code, message, None)


def test_the_most_specific_quota_applies(broker: BrokerThread, connection: Connection) -> None:
    user, client, other = unique("user"), unique("client"), unique("client")
    key = "producer_byte_rate"

    def quota(u: str, c: str) -> float | None:
        async def ask() -> float | None:
            return broker.broker.quotas.produce.quota(u, c)

        return broker.call(ask())  # type: ignore[no-any-return]

    levels: list[tuple[Entity, float]] = [
        ({"client-id": None}, 8),
        ({"client-id": client}, 7),
        ({"user": None}, 6),
        ({"user": None, "client-id": None}, 5),
        ({"user": None, "client-id": client}, 4),
        ({"user": user}, 3),
        ({"user": user, "client-id": None}, 2),
        ({"user": user, "client-id": client}, 1),
    ]
    try:
        for entity, value in levels:  # each more specific than the ones before
            alter(connection, [(entity, {key: value})])
            assert quota(user, client) == value
        assert quota(user, other) == 2  # users/<user>/clients/<default>
        assert quota(unique("someone"), client) == 4  # users/<default>/clients/<client-id>
        for entity, _ in reversed(levels):
            alter(connection, [(entity, {key: None})])
        assert quota(user, client) is None
    finally:
        alter(connection, [(entity, {key: None}) for entity, _ in levels])


def test_quotas_survive_a_restart(tmp_path: Path) -> None:
    with BrokerThread(tmp_path / "data") as first:
        c = connect(first.bootstrap_servers)
        alter(c, [({"user": "dora", "client-id": None}, {"consumer_byte_rate": 123456}),
                  ({"client-id": "app"}, {"request_percentage": 12.5})])  # fmt: skip
        c.close()
    with BrokerThread(tmp_path / "data") as second:
        c = connect(second.bootstrap_servers)
        assert described(c) == {
            (("client-id", None), ("user", "dora")): {"consumer_byte_rate": 123456.0},
            (("client-id", "app"),): {"request_percentage": 12.5},
        }
        c.close()

        async def limit() -> float | None:
            return second.broker.quotas.fetch.quota("dora", "any")

        assert second.call(limit()) == 123456.0


def test_throttle_time_is_kafkas_formula() -> None:
    rate = SampledStat(samples=11, window_ms=1000)
    rate.record(2 * 1024 * 1024, now_ms=0)
    # 2 MiB over the 10 windows assumed passed: 209715.2 B/s against 100 KiB/s
    assert rate.throttle_ms(102400, now_ms=0) == round((209715.2 - 102400) / 102400 * 10000)
    assert rate.throttle_ms(300000, now_ms=0) == 0


def _throttle_events(events: list[Any]) -> Any:
    def on_throttle(event: Any) -> None:
        events.append(event)

    return on_throttle


def test_a_producer_over_its_quota_is_throttled(
    broker: BrokerThread, connection: Connection
) -> None:
    topic, client = unique("throttled"), unique("slow-producer")
    create_topic(broker.bootstrap_servers, topic, partitions=1)
    alter(connection, [({"client-id": client}, {"producer_byte_rate": RATE})])
    events: list[Any] = []
    producer = Producer(quiet({
        "bootstrap.servers": broker.bootstrap_servers, "client.id": client,
        "batch.size": 16384, "linger.ms": 5, "throttle_cb": _throttle_events(events),
    }))  # fmt: skip
    started = time.monotonic()
    for i in range(RECORDS):
        producer.produce(topic, b"x" * RECORD_BYTES, key=b"%d" % i)
        producer.poll(0)
    assert producer.flush(60) == 0
    elapsed = time.monotonic() - started
    implied = (RECORDS * RECORD_BYTES - BURST_WINDOWS * RATE) / RATE
    assert elapsed >= 0.5 * implied, f"{elapsed:.2f}s for ~1 MB at {RATE} B/s"
    assert events and max(e.throttle_time for e in events) > 0
    # another client id has no quota: nothing throttles it
    others: list[Any] = []
    produce(broker.bootstrap_servers, topic, [(b"k", b"x" * RECORD_BYTES)] * 200,
            **{"client.id": unique("fast"), "throttle_cb": _throttle_events(others)})  # fmt: skip
    assert not others


def test_a_consumer_over_its_quota_is_throttled(
    broker: BrokerThread, connection: Connection
) -> None:
    topic, client = unique("throttled-read"), unique("slow-consumer")
    create_topic(broker.bootstrap_servers, topic, partitions=1)
    records = [(b"%d" % i, b"y" * RECORD_BYTES) for i in range(RECORDS)]
    # batches far smaller than the 400 kB the quota lets one fetch carry: a batch larger
    # than that (sent whole, KIP-74) would be throttled for ever, in Kafka as here
    produce(broker.bootstrap_servers, topic, records, **{"batch.size": 16384})
    alter(connection, [({"client-id": client}, {"consumer_byte_rate": RATE})])
    events: list[Any] = []
    consumer = Consumer(quiet({
        "bootstrap.servers": broker.bootstrap_servers, "client.id": client,
        "group.id": unique("g"), "throttle_cb": _throttle_events(events),
    }))  # fmt: skip
    consumer.assign([TopicPartition(topic, 0, 0)])
    offsets: list[int] = []
    started = time.monotonic()
    try:
        while len(offsets) < RECORDS and time.monotonic() - started < 60:
            offsets += [m.offset() for m in consumer.consume(100, 0.2) if m.error() is None]
    finally:
        consumer.close()
    elapsed = time.monotonic() - started
    assert offsets == list(range(RECORDS))  # throttled responses lose nothing
    implied = (RECORDS * RECORD_BYTES - BURST_WINDOWS * RATE) / RATE
    assert elapsed >= 0.5 * implied, f"{elapsed:.2f}s for ~1 MB at {RATE} B/s"
    assert events and max(e.throttle_time for e in events) > 0


def test_a_throttled_connection_is_read_no_further_until_its_time_is_up(
    broker: BrokerThread,
) -> None:
    """Seaway's own connection ignores throttle times: whatever spaces its pipelined
    requests out is the broker muting the connection (KIP-219)."""
    topic, client = unique("muted"), unique("raw-producer")
    create_topic(broker.bootstrap_servers, topic, partitions=1)
    admin = connect(broker.bootstrap_servers)
    alter(admin, [({"client-id": client}, {"producer_byte_rate": RATE})])
    admin.close()
    host, port = broker.bootstrap_servers.rsplit(":", 1)
    c = Connection(host, int(port), client_id=client)
    batch = build_batch([Record(0, 0, None, b"z" * (RATE // 2))])
    data = (produce_v9.TopicProduceData(name=topic, partition_data=(
        produce_v9.PartitionProduceData(index=0, records=batch),)),)  # fmt: skip
    request = produce_v9.ProduceRequest(
        transactional_id=None, acks=1, timeout=datetime.timedelta(seconds=30), topic_data=data
    )
    try:
        started = time.monotonic()
        pending = [c.send(request) for _ in range(8)]  # 4 x the quota's 2 s burst
        throttles = [c.receive(p).throttle_time.total_seconds() for p in pending]
        elapsed = time.monotonic() - started
    finally:
        c.close()
    assert throttles[0] == 0.0 and throttles[-1] > 0.5
    # each response came at once; the next request was read only when the mute was over
    assert elapsed >= 0.5 * sum(throttles[:-1]), (elapsed, throttles)


@pytest.fixture
def acls(tmp_path: Path) -> Iterator[AclBroker]:
    yield from start_acl_broker(tmp_path)


def test_quota_apis_need_alter_and_describe_configs_on_the_cluster(acls: AclBroker) -> None:
    alice = connect(acls.bootstrap, **acls.client_config("alice"))
    change = [({"user": "alice"}, {"producer_byte_rate": 1000})]
    try:
        assert alter(alice, change) == [({"user": "alice"}, ErrorCode.cluster_authorization_failed,
                                         "Cluster authorization failed.")]  # fmt: skip
        assert describe(alice).error_code == ErrorCode.cluster_authorization_failed
        acls.allow("alice", ResourceType.BROKER, "kafka-cluster", AclOperation.DESCRIBE_CONFIGS)
        assert described(alice) == {}
        assert alter(alice, change)[0][1] == ErrorCode.cluster_authorization_failed
        acls.allow("alice", ResourceType.BROKER, "kafka-cluster", AclOperation.ALTER_CONFIGS)
        assert alter(alice, change)[0][1] == ErrorCode.none
        assert described(alice) == {(("user", "alice"),): {"producer_byte_rate": 1000.0}}
    finally:
        alice.close()

    async def limit() -> float | None:  # the SASL user is the quota's user
        return acls.broker.broker.quotas.produce.quota("alice", "rdkafka")

    assert acls.broker.call(limit()) == 1000.0

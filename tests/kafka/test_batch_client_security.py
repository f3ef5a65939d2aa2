"""Seaway's batch client over TLS and SASL (PLAIN, SCRAM-SHA-256/512): what it produces on
each secured listener librdkafka reads back with the same settings, and what librdkafka
wrote it fetches; wrong credentials and untrusted brokers fail with the reason."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, NewTopic

from seaway.broker import BrokerThread
from seaway.config import ConfigException
from seaway.kafka import pool
from seaway.kafka.cluster import LATEST, KafkaCluster, list_offset
from seaway.kafka.connection import KafkaConnectionError
from seaway.kafka.fetcher import PartitionFetcher
from seaway.kafka.pool import batch_client_reaches
from seaway.kafka.producer import BatchProducer
from seaway.kafka.ranges import OffsetRange
from seaway.kafka.security import ClientSecurity
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.record_codec import Record, build_batch, decode_records
from seaway.spark.kafka.options import parse_source_options
from seaway.spark.kafka.reader import read_range
from tests.broker.certs import Certs, make_certs
from tests.broker.test_security import broker_config

pytestmark = pytest.mark.timeout(120)

CASES = [
    ("SSL", None, None),
    ("SASL_PLAINTEXT", "PLAIN", "alice"),
    ("SASL_PLAINTEXT", "SCRAM-SHA-256", "carol"),
    ("SASL_SSL", "SCRAM-SHA-512", "carol"),
    ("SASL_SSL", "PLAIN", "bob"),
]


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Certs:
    return make_certs(tmp_path_factory.mktemp("certs"))


@pytest.fixture(scope="module")
def secure(tmp_path_factory: pytest.TempPathFactory, certs: Certs) -> Iterator[BrokerThread]:
    with BrokerThread(tmp_path_factory.mktemp("secure"), config=broker_config(certs)) as b:
        yield b


def _settings(protocol: str, mechanism: str | None, user: str | None, certs: Certs,
              password: str | None = None) -> dict[str, Any]:  # fmt: skip
    """librdkafka settings, as Seaway hands them to both clients."""
    config: dict[str, Any] = {"security.protocol": protocol}
    if "SSL" in protocol:
        config["ssl.ca.location"] = str(certs.ca)
        if protocol == "SSL":  # the SSL listener requires a client certificate
            config |= {"ssl.certificate.location": str(certs.client_cert),
                       "ssl.key.location": str(certs.client_key)}  # fmt: skip
    if mechanism:
        config |= {"sasl.mechanism": mechanism, "sasl.username": user,
                   "sasl.password": password or f"{user}-secret"}  # fmt: skip
    return config


def _cluster(secure: BrokerThread, protocol: str, config: dict[str, Any]) -> KafkaCluster:
    return KafkaCluster(secure.listeners[protocol], request_timeout_s=10,
                        security=ClientSecurity.from_config(config))  # fmt: skip


@pytest.mark.parametrize(("protocol", "mechanism", "user"), CASES)
def test_batches_both_ways_on_a_secured_listener(
    secure: BrokerThread, certs: Certs, protocol: str, mechanism: str | None, user: str | None
) -> None:
    config = _settings(protocol, mechanism, user, certs)
    assert batch_client_reaches(config)
    topic = f"secure-{protocol}-{mechanism}".lower()
    address = secure.listeners[protocol]
    admin = AdminClient({"bootstrap.servers": address, **config})
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(30)
    cluster = _cluster(secure, protocol, config)
    try:
        producer = BatchProducer(cluster)
        records = [Record(0, 1_700_000_000_000 + i, b"k%d" % i, b"v%d" % i, ()) for i in range(50)]
        producer.send(topic, 0, build_batch(records, compression=4), tag=0)
        producer.flush()
        librdkafka = Producer({"bootstrap.servers": address, **config})
        librdkafka.produce(topic, b"from-librdkafka", b"k", 0)
        assert librdkafka.flush(30) == 0
        end = list_offset(cluster, topic, 0, LATEST)
        assert end == 51
        fetched = [r for b in PartitionFetcher(cluster, topic, 0).batches(0, end)
                   for r in decode_records(b.data)[1]]  # fmt: skip
        assert [r.value for r in fetched] == [r.value for r in records] + [b"from-librdkafka"]
    finally:
        cluster.close()
    consumer = Consumer({"bootstrap.servers": address, "group.id": topic,
                         "auto.offset.reset": "earliest", **config})  # fmt: skip
    consumer.subscribe([topic])
    values: list[bytes] = []
    while len(values) < 51:
        message = consumer.poll(30)
        assert message is not None and message.error() is None, message and message.error()
        values.append(message.value())
    consumer.close()
    assert values[:50] == [r.value for r in records]


@pytest.mark.parametrize("mechanism", ["PLAIN", "SCRAM-SHA-256"])
def test_a_wrong_password_fails_with_the_brokers_reason(
    secure: BrokerThread, certs: Certs, mechanism: str
) -> None:
    user = "alice" if mechanism == "PLAIN" else "carol"
    config = _settings("SASL_PLAINTEXT", mechanism, user, certs, password="wrong")
    with pytest.raises(KafkaError) as error:
        list_offset(_cluster(secure, "SASL_PLAINTEXT", config), "t", 0, LATEST)
    assert error.value.code == ErrorCode.sasl_authentication_failed
    assert "Authentication failed" in str(error.value)


def test_an_untrusted_broker_certificate_is_refused(secure: BrokerThread, tmp_path: Path) -> None:
    other = make_certs(tmp_path)  # a CA that did not sign the broker's certificate
    config = {**_settings("SASL_SSL", "PLAIN", "bob", other), "ssl.ca.location": str(other.ca)}
    with pytest.raises(KafkaConnectionError, match="CERTIFICATE_VERIFY_FAILED"):
        _cluster(secure, "SASL_SSL", config).any_connection()


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"security.protocol": "SASL_SSL", "sasl.mechanism": "GSSAPI"}, "GSSAPI is not supported"),
        ({"security.protocol": "TLS"}, "security.protocol"),
        ({"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN"}, "sasl.username"),
    ],
)
def test_settings_it_cannot_honour_name_the_key(config: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigException, match=message):
        ClientSecurity.from_config(config)
    if "GSSAPI" in message:
        assert not batch_client_reaches(config)  # librdkafka takes it, behind the same interfaces


def test_the_spark_source_reads_a_sasl_ssl_cluster_on_the_batch_path(
    secure: BrokerThread, certs: Certs
) -> None:
    """Java settings as a Spark user writes them (``kafka.sasl.jaas.config``, a PEM
    truststore): the batch client reads the same rows as the librdkafka fetcher."""
    address = secure.listeners["SASL_SSL"]
    topic = "spark-over-sasl-ssl"
    config = _settings("SASL_SSL", "SCRAM-SHA-512", "carol", certs)
    admin = AdminClient({"bootstrap.servers": address, **config})
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(30)
    producer = Producer({"bootstrap.servers": address, "compression.type": "lz4", **config})
    for i in range(2_000):
        producer.produce(topic, b"v%d" % i, b"k%d" % (i % 5), headers=[("h", b"%d" % i)])
    assert producer.flush(30) == 0
    options = parse_source_options(
        {
            "kafka.bootstrap.servers": address,
            "subscribe": topic,
            "kafka.security.protocol": "SASL_SSL",
            "kafka.sasl.mechanism": "SCRAM-SHA-512",
            "kafka.sasl.jaas.config": "org.apache.kafka.common.security.scram.ScramLoginModule "
            'required username="carol" password="carol-secret";',
            "kafka.ssl.truststore.type": "PEM",
            "kafka.ssl.truststore.location": str(certs.ca),
        },
        streaming=False,
    )
    assert batch_client_reaches(options.kafka_params)
    whole = OffsetRange(topic, 0, 0, 2_000)
    try:
        fast = pa.Table.from_batches(list(read_range(options, whole, batch_client=True)))
        slow = pa.Table.from_batches(list(read_range(options, whole, batch_client=False)))
    finally:
        pool.close_all()  # the pooled clients of this module's broker, which stops after it
    assert fast.num_rows == 2_000
    assert fast.equals(slow)

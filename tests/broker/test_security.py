"""TLS and SASL listeners: confluent-kafka, kafka-python and aiokafka produce and consume over
SSL, SASL_PLAINTEXT (PLAIN, SCRAM-SHA-256/512) and SASL_SSL; bad credentials, certificates
and tokens are refused while the broker keeps serving everyone else."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import ssl
import struct
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.helpers import create_ssl_context
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer
from confluent_kafka.admin import (
    AdminClient,
    ScramCredentialInfo,
    ScramMechanism,
    UserScramCredentialUpsertion,
)
from kafka import KafkaConsumer, KafkaProducer

from seaway.broker import BrokerThread
from seaway.security.sasl import plain_token
from seaway.security.scram import MECHANISMS, ScramClient
from tests.broker.certs import Certs, make_certs

pytestmark = pytest.mark.timeout(120)

PLAIN_JAAS = (
    "org.apache.kafka.common.security.plain.PlainLoginModule required "
    'user_alice="alice-secret" user_bob="bob-secret";'
)


SCRAM_USERS = (
    "SCRAM-SHA-256=[name=carol,password=carol-secret];"
    "SCRAM-SHA-512=[name=carol,password=carol-secret,iterations=8192]"
)
SASL_CASES = [("SASL_PLAINTEXT", "PLAIN", "alice", "alice-secret"),
              ("SASL_PLAINTEXT", "SCRAM-SHA-256", "carol", "carol-secret"),
              ("SASL_PLAINTEXT", "SCRAM-SHA-512", "carol", "carol-secret"),
              ("SASL_SSL", "PLAIN", "bob", "bob-secret"),
              ("SASL_SSL", "SCRAM-SHA-512", "carol", "carol-secret")]  # fmt: skip


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Certs:
    return make_certs(tmp_path_factory.mktemp("certs"))


def broker_config(certs: Certs) -> dict[str, Any]:
    return {
        "listeners": "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0,"
        "SASL_PLAINTEXT://127.0.0.1:0,SASL_SSL://localhost:0",
        "ssl.keystore.type": "PEM",
        "ssl.keystore.location": str(certs.server),
        "ssl.truststore.type": "PEM",
        "ssl.truststore.location": str(certs.ca),
        "ssl.client.auth": "required",
        "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
        "listener.name.sasl_plaintext.plain.sasl.jaas.config": PLAIN_JAAS,
        "listener.name.sasl_ssl.plain.sasl.jaas.config": PLAIN_JAAS,
        "seaway.scram.credentials": SCRAM_USERS,
        "group.initial.rebalance.delay.ms": 0,
    }


@pytest.fixture(scope="module")
def secure(tmp_path_factory: pytest.TempPathFactory, certs: Certs) -> Iterator[BrokerThread]:
    with BrokerThread(tmp_path_factory.mktemp("secure"), config=broker_config(certs)) as b:
        yield b


# -- one produce-and-consume round trip per client library ------------------------------------


def _security(protocol: str, certs: Certs, mechanism: str, user: str, password: str) -> dict:
    """The neutral settings of a client: protocol, TLS files, SASL mechanism and user."""
    return {"protocol": protocol, "certs": certs, "mechanism": mechanism, "user": user,
            "password": password}  # fmt: skip


def _confluent(s: dict[str, Any]) -> dict[str, Any]:
    config: dict[str, Any] = {"security.protocol": s["protocol"], "log.connection.close": False}
    if "SSL" in s["protocol"]:
        config |= {"ssl.ca.location": str(s["certs"].ca)}
        if s["protocol"] == "SSL":
            config |= {"ssl.certificate.location": str(s["certs"].client_cert),
                       "ssl.key.location": str(s["certs"].client_key)}  # fmt: skip
    if "SASL" in s["protocol"]:
        config |= {"sasl.mechanism": s["mechanism"], "sasl.username": s["user"],
                   "sasl.password": s["password"]}  # fmt: skip
    return config


def _python(s: dict[str, Any]) -> dict[str, Any]:
    config: dict[str, Any] = {"security_protocol": s["protocol"]}
    if "SSL" in s["protocol"]:
        config |= {"ssl_cafile": str(s["certs"].ca), "ssl_check_hostname": True}
        if s["protocol"] == "SSL":
            config |= {"ssl_certfile": str(s["certs"].client_cert),
                       "ssl_keyfile": str(s["certs"].client_key)}  # fmt: skip
    if "SASL" in s["protocol"]:
        config |= {"sasl_mechanism": s["mechanism"], "sasl_plain_username": s["user"],
                   "sasl_plain_password": s["password"]}  # fmt: skip
    return config


def _aio(s: dict[str, Any]) -> dict[str, Any]:
    config: dict[str, Any] = {"security_protocol": s["protocol"]}
    if "SSL" in s["protocol"]:
        mutual = s["protocol"] == "SSL"
        config["ssl_context"] = create_ssl_context(
            cafile=str(s["certs"].ca),
            certfile=str(s["certs"].client_cert) if mutual else None,
            keyfile=str(s["certs"].client_key) if mutual else None,
        )
    if "SASL" in s["protocol"]:
        config |= {"sasl_mechanism": s["mechanism"], "sasl_plain_username": s["user"],
                   "sasl_plain_password": s["password"]}  # fmt: skip
    return config


def roundtrip_confluent(bootstrap: str, s: dict[str, Any], topic: str) -> list[bytes]:
    producer = Producer({"bootstrap.servers": bootstrap, **_confluent(s)})
    for i in range(3):
        producer.produce(topic, value=b"v%d" % i)
    assert producer.flush(30) == 0
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": topic,
                         "auto.offset.reset": "earliest", **_confluent(s)})  # fmt: skip
    consumer.subscribe([topic])
    values: list[bytes] = []
    try:
        while len(values) < 3:
            msg = consumer.poll(30)
            assert msg is not None and msg.error() is None, msg and msg.error()
            values.append(msg.value())
    finally:
        consumer.close()
    return values


def roundtrip_python(bootstrap: str, s: dict[str, Any], topic: str) -> list[bytes]:
    producer = KafkaProducer(bootstrap_servers=bootstrap, **_python(s))
    for i in range(3):
        producer.send(topic, value=b"v%d" % i)
    producer.flush(30)
    producer.close()
    consumer = KafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=topic,
                             auto_offset_reset="earliest", consumer_timeout_ms=30_000,
                             **_python(s))  # fmt: skip
    try:
        return [msg.value for _, msg in zip(range(3), consumer, strict=False)]
    finally:
        consumer.close()


def roundtrip_aio(bootstrap: str, s: dict[str, Any], topic: str) -> list[bytes]:
    async def run() -> list[bytes]:
        producer = AIOKafkaProducer(bootstrap_servers=bootstrap, **_aio(s))
        await producer.start()
        try:
            for i in range(3):
                await producer.send_and_wait(topic, value=b"v%d" % i)
        finally:
            await producer.stop()
        consumer = AIOKafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=topic,
                                    auto_offset_reset="earliest", **_aio(s))  # fmt: skip
        await consumer.start()
        try:
            return [(await asyncio.wait_for(consumer.getone(), 30)).value for _ in range(3)]
        finally:
            await consumer.stop()

    return asyncio.run(run())


ROUNDTRIPS = {"confluent": roundtrip_confluent, "kafka-python": roundtrip_python,
              "aiokafka": roundtrip_aio}  # fmt: skip


def roundtrip(client: str, secure: BrokerThread, protocol: str, certs: Certs,
              mechanism: str = "", user: str = "", password: str = "") -> None:  # fmt: skip
    topic = f"sec-{client}-{protocol}-{mechanism}-{uuid.uuid4().hex[:6]}".lower()
    s = _security(protocol, certs, mechanism, user, password)
    values = ROUNDTRIPS[client](secure.listeners[protocol], s, topic)
    assert values == [b"v0", b"v1", b"v2"]


# -- listeners and TLS -------------------------------------------------------------------------


def test_each_listener_is_bound_and_the_first_plaintext_one_bootstraps(
    secure: BrokerThread,
) -> None:
    assert list(secure.listeners) == ["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"]
    assert secure.bootstrap_servers == secure.listeners["PLAINTEXT"]
    assert secure.listeners["SASL_SSL"].startswith("localhost:")
    assert len({address.rsplit(":")[1] for address in secure.listeners.values()}) == 4


@pytest.mark.parametrize("client", ROUNDTRIPS)
def test_ssl_with_a_client_certificate(client: str, secure: BrokerThread, certs: Certs) -> None:
    roundtrip(client, secure, "SSL", certs)


def test_metadata_advertises_the_listener_the_request_came_in_on(
    secure: BrokerThread, certs: Certs
) -> None:
    for protocol in ("PLAINTEXT", "SSL"):
        s = _security(protocol, certs, "", "", "")
        admin = AdminClient({"bootstrap.servers": secure.listeners[protocol], **_confluent(s)})
        (broker,) = admin.list_topics(timeout=30).brokers.values()
        assert f"{broker.host}:{broker.port}" == secure.listeners[protocol]


API_VERSIONS_V0 = struct.pack(">ihhih", 10, 18, 0, 1, -1)  # a complete ApiVersions v0 request


def _tls_api_versions(address: str, context: ssl.SSLContext) -> bytes:
    """Send ApiVersions over TLS, return the first bytes of the answer."""
    host, port = address.split(":")
    with (
        socket.create_connection((host, int(port)), timeout=10) as raw,
        context.wrap_socket(raw, server_hostname="localhost") as tls,
    ):
        tls.sendall(API_VERSIONS_V0)
        return tls.recv(4)


def test_an_unknown_or_expired_client_certificate_is_refused_when_client_auth_is_required(
    secure: BrokerThread, certs: Certs
) -> None:
    trusted = ssl.create_default_context(cafile=str(certs.ca))
    trusted.load_cert_chain(certs.client_cert, certs.client_key)
    assert len(_tls_api_versions(secure.listeners["SSL"], trusted)) == 4
    refused = ((certs.rogue_cert, certs.rogue_key), (certs.expired_cert, certs.expired_key),
               (None, None))  # fmt: skip
    for cert, key in refused:
        context = ssl.create_default_context(cafile=str(certs.ca))
        if cert is not None:
            context.load_cert_chain(cert, key)
        # TLS 1.3: the refusal (an alert, or just the end of the stream) comes with the answer
        with contextlib.suppress(ssl.SSLError, ConnectionError):
            assert _tls_api_versions(secure.listeners["SSL"], context) == b""
    roundtrip("confluent", secure, "SSL", certs)  # the broker is unharmed


# -- SASL ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("client", ROUNDTRIPS)
@pytest.mark.parametrize(("protocol", "mechanism", "user", "password"), SASL_CASES)
def test_sasl(client: str, protocol: str, mechanism: str, user: str, password: str,
              secure: BrokerThread, certs: Certs) -> None:  # fmt: skip
    roundtrip(client, secure, protocol, certs, mechanism, user, password)


def _admin(bootstrap: str, s: dict[str, Any]) -> AdminClient:
    return AdminClient({"bootstrap.servers": bootstrap, **_confluent(s)})


@pytest.mark.parametrize("mechanism", ["PLAIN", "SCRAM-SHA-256"])
def test_a_wrong_password_is_an_authentication_error(
    mechanism: str, secure: BrokerThread, certs: Certs
) -> None:
    user = "alice" if mechanism == "PLAIN" else "carol"
    s = _security("SASL_PLAINTEXT", certs, mechanism, user, "wrong")
    errors: list[KafkaError] = []
    admin = AdminClient({"bootstrap.servers": secure.listeners["SASL_PLAINTEXT"],
                         "error_cb": errors.append, **_confluent(s)})  # fmt: skip
    with pytest.raises(KafkaException):
        admin.list_topics(timeout=5)
    admin.poll(1)  # serves error_cb
    failed = [e.str() for e in errors if e.code() == KafkaError._AUTHENTICATION]
    assert failed and "Authentication failed" in failed[0], errors
    roundtrip("confluent", secure, "SASL_PLAINTEXT", certs, mechanism, user, f"{user}-secret")


def test_an_unknown_mechanism_is_refused_with_the_enabled_list(secure: BrokerThread) -> None:
    with _connect(secure.listeners["SASL_PLAINTEXT"]) as sock:
        error, rest = _call(sock, 17, 1, _string("GSSAPI"))
        assert error == 33 and b"SCRAM-SHA-512" in rest
        assert sock.recv(1) == b""


def test_a_request_before_authentication_closes_the_connection(secure: BrokerThread) -> None:
    with _connect(secure.listeners["SASL_PLAINTEXT"]) as sock:
        assert _call(sock, 18, 0, b"")[0] == 0  # ApiVersions is served
        sock.sendall(struct.pack(">ihhihi", 14, 3, 0, 2, -1, 0))  # Metadata v0, all topics
        assert _drain(sock) == b""


@pytest.mark.parametrize("mechanism", ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"])
@pytest.mark.parametrize("handshake", [0, 1])
def test_random_bytes_as_sasl_tokens(
    mechanism: str, handshake: int, secure: BrokerThread, certs: Certs
) -> None:
    with _connect(secure.listeners["SASL_PLAINTEXT"]) as sock:
        assert _call(sock, 17, handshake, _string(mechanism))[0] == 0
        token = os.urandom(64)
        if handshake == 0:  # bare tokens: a failure closes the connection without an answer
            sock.sendall(struct.pack(">i", len(token)) + token)
        else:
            error, rest = _call(sock, 36, 1, struct.pack(">i", len(token)) + token)
            assert error == 58 and rest[2:].startswith((b"Authentication failed", b"Invalid"))
        assert _drain(sock) == b""
    roundtrip("confluent", secure, "SASL_PLAINTEXT", certs, "PLAIN", "alice", "alice-secret")


@pytest.mark.parametrize("listener", ["SSL", "SASL_SSL"])
def test_random_bytes_as_a_tls_handshake(listener: str, secure: BrokerThread, certs: Certs) -> None:
    """Garbage where a ClientHello belongs, and a ClientHello cut short: the connection
    closes, the broker goes on serving."""
    for garbage in (os.urandom(512), b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc" + os.urandom(40)):
        with _connect(secure.listeners[listener]) as sock:
            sock.sendall(garbage)
            sock.shutdown(socket.SHUT_WR)
            assert _drain(sock)[:1] in (b"", b"\x15")  # nothing, or a TLS alert record
    roundtrip("confluent", secure, "SASL_SSL", certs, "PLAIN", "bob", "bob-secret")


@pytest.mark.parametrize("mechanism", ["PLAIN", "SCRAM-SHA-256"])
def test_a_v0_handshake_exchanges_bare_tokens(mechanism: str, secure: BrokerThread) -> None:
    with _connect(secure.listeners["SASL_PLAINTEXT"]) as sock:
        assert _call(sock, 17, 0, _string(mechanism))[0] == 0
        if mechanism == "PLAIN":
            assert _token(sock, plain_token("alice", "alice-secret")) == b""
        else:
            client = ScramClient(MECHANISMS[mechanism], "carol", "carol-secret")
            server_first = _token(sock, client.first())
            client.verify(_token(sock, client.final(server_first)))
        assert _call(sock, 18, 0, b"")[0] == 0  # authenticated: every API is served
        sock.sendall(struct.pack(">ihhihi", 14, 3, 0, 2, -1, 0))  # Metadata v0
        assert len(_recv(sock, 4)) == 4


def _token(sock: socket.socket, token: bytes) -> bytes:
    sock.sendall(struct.pack(">i", len(token)) + token)
    return _recv(sock, struct.unpack(">i", _recv(sock, 4))[0])


def test_an_admin_adds_a_scram_user_who_then_logs_in_also_after_a_restart(
    tmp_path: Path, certs: Certs
) -> None:
    config = broker_config(certs)
    with BrokerThread(tmp_path / "data", config=config) as b:
        admin = _admin(b.bootstrap_servers, _security("PLAINTEXT", certs, "", "", ""))
        info = ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 8192)
        upsert = UserScramCredentialUpsertion("dave", info, b"dave-secret")
        admin.alter_user_scram_credentials([upsert])["dave"].result(30)
        described = admin.describe_user_scram_credentials(["dave"])["dave"].result(30)
        assert [(i.mechanism, i.iterations) for i in described.scram_credential_infos] == [
            (ScramMechanism.SCRAM_SHA_256, 8192)
        ]
        _login(b, certs, "dave", "dave-secret")
        with pytest.raises(KafkaException, match="does not exist: nobody"):
            admin.describe_user_scram_credentials(["nobody"])["nobody"].result(30)
        too_few = ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 1024)
        eve = admin.alter_user_scram_credentials(
            [UserScramCredentialUpsertion("eve", too_few, b"eve-secret")]
        )["eve"]
        with pytest.raises(KafkaException, match="Too few iterations"):
            eve.result(30)
    with BrokerThread(tmp_path / "data", config=config) as b:
        _login(b, certs, "dave", "dave-secret")


def _login(b: BrokerThread, certs: Certs, user: str, password: str) -> None:
    s = _security("SASL_PLAINTEXT", certs, "SCRAM-SHA-256", user, password)
    assert _admin(b.listeners["SASL_PLAINTEXT"], s).list_topics(timeout=30).brokers


# -- a few raw requests --------------------------------------------------------------------------


def _connect(address: str) -> socket.socket:
    host, port = address.split(":")
    return socket.create_connection((host, int(port)), timeout=10)


def _string(text: str) -> bytes:
    return struct.pack(">h", len(text)) + text.encode()


def _call(sock: socket.socket, api_key: int, version: int, body: bytes) -> tuple[int, bytes]:
    """A request with header v1 (no client id); the answer's error code and the rest."""
    frame = struct.pack(">hhih", api_key, version, 7, -1) + body
    sock.sendall(struct.pack(">i", len(frame)) + frame)
    answer = _recv(sock, struct.unpack(">i", _recv(sock, 4))[0])
    return struct.unpack(">h", answer[4:6])[0], answer[6:]


def _recv(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        assert chunk, "connection closed"
        data += chunk
    return data


def _drain(sock: socket.socket) -> bytes:
    """Everything until the broker closes the connection."""
    data = b""
    while chunk := sock.recv(4096):
        data += chunk
    return data

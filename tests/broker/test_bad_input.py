"""The broker survives bad input, as Kafka does.

Malformed frames close only the offending connection (with a log line naming the peer);
well-framed requests with bad contents get Kafka's own error codes. Meanwhile other
clients keep working and nothing already written changes. Requests are built with kio and
sent over raw sockets, so every byte on the wire is under the test's control.

Where Kafka's behaviour is subtle, the rule is cited: ``ProduceRequest.validateRecords``
and ``ByteBufferLogInputStream.nextBatchSize`` (clients), ``UnifiedLog.analyzeAndValidateRecords``,
``LogValidator.validateBatch`` and ``ProducerAppendInfo`` (storage), ``SocketServer`` and
``ApiVersionsRequest.getErrorResponse`` (KIP-511).
"""

from __future__ import annotations

import datetime
import io
import logging
import random
import socket
import struct
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from crc32c import crc32c
from kio.index import load_response_schema
from kio.schema.api_versions.v3.request import ApiVersionsRequest
from kio.schema.create_topics.v7.request import (
    CreatableTopic,
    CreatableTopicConfig,
    CreateTopicsRequest,
)
from kio.schema.find_coordinator.v4.request import FindCoordinatorRequest
from kio.schema.init_producer_id.v4.request import InitProducerIdRequest
from kio.schema.list_offsets.v7.request import (
    ListOffsetsPartition,
    ListOffsetsRequest,
    ListOffsetsTopic,
)
from kio.schema.metadata.v12.request import MetadataRequest, MetadataRequestTopic
from kio.schema.produce.v9.request import (
    PartitionProduceData,
    ProduceRequest,
    TopicProduceData,
)
from kio.serial import entity_reader, entity_writer

from seaway.broker import BrokerThread
from seaway.protocol.record_codec import Record, build_batch
from seaway.protocol.records import ATTR_CONTROL, ATTR_TRANSACTIONAL, control_batch
from tests.broker.clients import consume_all, create_topic, produce, quiet

# Kafka's error codes (org.apache.kafka.common.protocol.Errors).
NONE = 0
CORRUPT_MESSAGE = 2
UNKNOWN_TOPIC_OR_PARTITION = 3
MESSAGE_TOO_LARGE = 10
INVALID_TOPIC_EXCEPTION = 17
UNSUPPORTED_VERSION = 35
INVALID_PARTITIONS = 37
INVALID_REPLICATION_FACTOR = 38
INVALID_CONFIG = 40
OUT_OF_ORDER_SEQUENCE_NUMBER = 45
INVALID_PRODUCER_EPOCH = 47
TRANSACTIONAL_ID_AUTHORIZATION_FAILED = 53
INVALID_RECORD = 87

API_VERSIONS = 18
MAX_REQUEST_BYTES = 100 * 1024 * 1024  # socket.request.max.bytes default
SENTINEL_CID = 0x5E4A_0001
IO_TIMEOUT = 5.0


# -- raw wire ------------------------------------------------------------------------------


def encode_request(
    req: Any, correlation_id: int, *, api_version: int | None = None, client_id: str = "bad-input"
) -> bytes:
    """A size-prefixed request frame; ``api_version`` overrides the header's version only."""
    header_cls = req.__header_schema__
    buf = io.BytesIO()
    entity_writer(header_cls)(
        buf,
        header_cls(
            request_api_key=req.__api_key__,
            request_api_version=req.__version__ if api_version is None else api_version,
            correlation_id=correlation_id,
            client_id=client_id,
        ),
    )
    entity_writer(type(req))(buf, req)
    body = buf.getvalue()
    return struct.pack(">i", len(body)) + body


def decode_response(api_key: int, version: int, payload: bytes) -> tuple[int, Any]:
    """``(correlation_id, body)`` of a response payload (the bytes after the size prefix)."""
    cls = load_response_schema(api_key, version)
    header, used = entity_reader(cls.__header_schema__)(payload, 0)
    body, size = entity_reader(cls)(payload, used)
    assert used + size == len(payload), f"{len(payload) - used - size} bytes after {cls.__name__}"
    return header.correlation_id, body


class Wire:
    """One raw TCP connection to the broker."""

    def __init__(self, bootstrap: str) -> None:
        host, port = bootstrap.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=IO_TIMEOUT)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.local = "{}:{}".format(*self.sock.getsockname()[:2])
        self._cid = 0

    def close(self) -> None:
        self.sock.close()

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def _read_exactly(self, n: int) -> bytes | None:
        out = bytearray()
        while len(out) < n:
            try:
                chunk = self.sock.recv(n - len(out))
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                if out:
                    raise AssertionError(f"connection closed mid-frame after {len(out)}/{n} bytes")
                return None
            out += chunk
        return bytes(out)

    def read_frame(self, timeout: float = IO_TIMEOUT) -> bytes | None:
        """The next response payload, or None once the broker has closed the connection.

        Raises ``TimeoutError`` if neither happens within ``timeout``.
        """
        self.sock.settimeout(timeout)
        prefix = self._read_exactly(4)
        if prefix is None:
            return None
        (size,) = struct.unpack(">i", prefix)
        assert 4 <= size <= MAX_REQUEST_BYTES, f"response frame size {size}"
        payload = self._read_exactly(size)
        assert payload is not None, "connection closed between a size prefix and its payload"
        return payload

    def closed_by_broker(self, timeout: float = IO_TIMEOUT) -> bool:
        """Whether the broker closes the connection without sending anything more."""
        try:
            payload = self.read_frame(timeout)
        except TimeoutError:
            return False
        assert payload is None, f"expected the connection to be closed, got {payload[:32]!r}"
        return True

    def request(self, req: Any, *, api_version: int | None = None) -> Any:
        """Send ``req`` and return the decoded response body."""
        self._cid += 1
        cid = self._cid
        self.send(encode_request(req, cid, api_version=api_version))
        payload = self.read_frame()
        assert payload is not None, f"broker closed the connection on {type(req).__name__}"
        got, body = decode_response(req.__api_key__, req.__version__, payload)
        assert got == cid
        return body


@contextmanager
def wire(bootstrap: str) -> Iterator[Wire]:
    w = Wire(bootstrap)
    try:
        yield w
    finally:
        w.close()


def api_versions_request() -> ApiVersionsRequest:
    return ApiVersionsRequest(client_software_name="bad-input", client_software_version="1.0")


def assert_serves(w: Wire) -> None:
    """The connection still answers ApiVersions v3 correctly."""
    resp = w.request(api_versions_request())
    assert resp.error_code == NONE
    assert any(k.api_key == API_VERSIONS for k in resp.api_keys)


def closing_logged(caplog: pytest.LogCaptureFixture, peer: str) -> list[str]:
    """Warnings the broker logged about closing the connection from ``peer`` (host:port)."""
    return [
        r.getMessage()
        for r in caplog.records
        if r.name.startswith("seaway.broker")
        and r.levelno >= logging.WARNING
        and "Closing connection from" in r.getMessage()
        and f"from {peer}: " in r.getMessage()
    ]


def logged_about(caplog: pytest.LogCaptureFixture, peer: str) -> bool:
    """Whether the broker logged a warning or error naming the connection from ``peer``."""
    return any(
        r.name.startswith("seaway")
        and r.levelno >= logging.WARNING
        and f"from {peer}" in r.getMessage()
        for r in caplog.records
    )


def broker_errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    """ERROR records (handler crashes, unhandled exceptions in connection tasks)."""
    return [
        f"{r.name}: {r.getMessage()}\n{r.exc_text or ''}"
        for r in caplog.records
        if r.levelno >= logging.ERROR and r.name.startswith(("seaway", "asyncio"))
    ]


# -- record batches ------------------------------------------------------------------------


def _varint(value: int) -> bytes:
    value = (value << 1) ^ (value >> 63)
    out = bytearray()
    while value & ~0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def record_batch(
    values: Sequence[bytes],
    *,
    producer_id: int = -1,
    producer_epoch: int = -1,
    base_sequence: int = -1,
    magic: int = 2,
    base_offset: int = 0,
    attributes: int = 0,
) -> bytearray:
    """An uncompressed RecordBatch v2 as a client writes it (Kafka's DefaultRecordBatch)."""
    ts = int(time.time() * 1000)
    records = b""
    for i, value in enumerate(values):
        body = (
            b"\x00"  # attributes
            + _varint(0)  # timestamp delta
            + _varint(i)  # offset delta
            + _varint(-1)  # null key
            + _varint(len(value))
            + value
            + _varint(0)  # headers
        )
        records += _varint(len(body)) + body
    tail = (
        struct.pack(
            ">hiqqqhii",
            attributes,
            len(values) - 1,  # last offset delta
            ts,
            ts,
            producer_id,
            producer_epoch,
            base_sequence,
            len(values),
        )
        + records
    )
    head = struct.pack(">qiibI", base_offset, len(tail) + 9, -1, magic, crc32c(tail))
    return bytearray(head + tail)


def fix_crc(batch: bytearray) -> bytearray:
    struct.pack_into(">I", batch, 17, crc32c(bytes(batch[21:])))
    return batch


def produce_request(topic: str, partition: int, records: bytes | None, acks: int = -1) -> Any:
    return ProduceRequest(
        acks=acks,
        timeout=datetime.timedelta(seconds=10),
        topic_data=(
            TopicProduceData(
                name=topic,
                partition_data=(PartitionProduceData(index=partition, records=records),),
            ),
        ),
    )


def produce_raw(w: Wire, topic: str, partition: int, records: bytes | None) -> Any:
    """Produce v9 (acks=all); return the one partition's response."""
    resp = w.request(produce_request(topic, partition, records))
    (topic_resp,) = resp.responses
    assert topic_resp.name == topic
    (part,) = topic_resp.partition_responses
    assert part.index == partition
    return part


def log_end_offset(w: Wire, topic: str, partition: int) -> int:
    resp = w.request(
        ListOffsetsRequest(
            replica_id=-1,
            isolation_level=0,
            topics=(
                ListOffsetsTopic(
                    name=topic,
                    partitions=(ListOffsetsPartition(partition_index=partition, timestamp=-1),),
                ),
            ),
        )
    )
    (part,) = resp.topics[0].partitions
    assert part.error_code == NONE, part
    return part.offset


def segment_bytes(broker: BrokerThread, topic: str, partitions: int) -> dict[str, bytes]:
    """Every ``.log`` file of a topic, by path: what a client wrote, as stored."""
    data_dir = Path(broker.broker.data_dir)
    return {
        str(path.relative_to(data_dir)): path.read_bytes()
        for p in range(partitions)
        for path in sorted((data_dir / f"{topic}-{p}").glob("*.log"))
    }


def snapshot(messages: list[Any]) -> list[tuple[Any, ...]]:
    return sorted(
        (m.partition(), m.offset(), m.key(), m.value(), m.timestamp(), m.headers())
        for m in messages
    )


# -- 1. fuzzed and malformed frames --------------------------------------------------------


def _probe(bootstrap: str, frame: bytes) -> tuple[str, str]:
    """Send ``frame`` then an ApiVersions sentinel on a fresh connection.

    Returns ``(outcome, peer)``: ``closed`` (the broker closed the connection), ``answered``
    (the sentinel got its response, so the connection survived the frame; any response
    before it must answer the frame) or ``pending`` (no answer yet: only acceptable for a
    request that legitimately waits, e.g. a long-polling Fetch).
    """
    sentinel = encode_request(api_versions_request(), SENTINEL_CID)
    with wire(bootstrap) as w:
        try:
            w.send(frame + sentinel)
        except (BrokenPipeError, ConnectionResetError):
            return "closed", w.local
        while True:
            try:
                payload = w.read_frame(timeout=2.0)
            except TimeoutError:
                return "pending", w.local
            if payload is None:
                return "closed", w.local
            (cid,) = struct.unpack_from(">i", payload)
            if cid == SENTINEL_CID:
                _, body = decode_response(API_VERSIONS, 3, payload)
                assert body.error_code == NONE
                return "answered", w.local
            _check_fuzz_response(frame, payload)


def _check_fuzz_response(frame: bytes, payload: bytes) -> None:
    """A response to a fuzzed frame must answer that frame, and decode as its API's response."""
    api_key, version, cid = struct.unpack_from(">hhi", frame, 4)
    got = struct.unpack_from(">i", payload)[0]
    assert got == cid, f"response correlation id {got} answers no request (sent {cid})"
    if api_key == API_VERSIONS and not 0 <= version <= 4:
        version = 0  # KIP-511: an unsupported ApiVersions version is answered in v0
    decode_response(api_key, version, payload)


def _frame(body: bytes) -> bytes:
    return struct.pack(">i", len(body)) + body


def _garbage_frames(rng: random.Random, templates: list[bytes]) -> Iterator[tuple[str, bytes]]:
    # Random bytes with a correct size prefix (some shorter than a request header).
    for _ in range(150):
        yield "random", _frame(rng.randbytes(rng.choice([rng.randint(0, 12), rng.randint(0, 400)])))
    # A plausible header (random API key and version), then random bytes.
    keys = [*range(-2, 70), 1000, 32767, -32768]
    for _ in range(150):
        key = rng.choice(keys)
        version = rng.choice([rng.randint(-2, 14), rng.randint(-32768, 32767)])
        client_id = rng.choice([b"\xff\xff", b"\x00\x04fuzz", rng.randbytes(rng.randint(0, 6))])
        tagged = rng.choice([b"", b"\x00", rng.randbytes(2)])
        body = rng.randbytes(rng.randint(0, 64))
        yield (
            "header",
            _frame(
                struct.pack(">hhi", key, version, rng.getrandbits(31)) + client_id + tagged + body
            ),
        )
    # Valid requests with a few bytes flipped, inserted or deleted after the size prefix.
    for _ in range(120):
        body = bytearray(rng.choice(templates)[4:])
        for _ in range(rng.randint(1, 4)):
            pos = rng.randrange(len(body))
            op = rng.random()
            if op < 0.6:
                body[pos] ^= 1 << rng.randrange(8)
            elif op < 0.8:
                body[pos] = rng.choice([0x00, 0x7F, 0x80, 0xFF])
            elif op < 0.9:
                del body[pos]
            else:
                body.insert(pos, rng.getrandbits(8))
        yield "mutated", _frame(bytes(body))
    # Valid requests cut short, with a size prefix that claims only the bytes sent.
    for _ in range(60):
        body = rng.choice(templates)[4:]
        yield "short", _frame(body[: rng.randrange(len(body))])


def _truncated_full_prefix(rng: random.Random, templates: list[bytes]) -> Iterator[bytes]:
    """Valid requests cut short while the size prefix still claims the whole request."""
    for _ in range(40):
        frame = rng.choice(templates)
        yield frame[: rng.randrange(1, len(frame))]


BAD_SIZES = [-1, -(2**31), 0, 1, 7, MAX_REQUEST_BYTES + 1, 2**31 - 1]


@pytest.mark.timeout(60)
def test_fuzzed_frames_close_only_their_connection(
    broker: BrokerThread, bootstrap: str, topic_name: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="seaway")
    before_topic = f"{topic_name}-before"
    fuzz_topic = f"{topic_name}-fuzz"
    create_topic(bootstrap, before_topic, partitions=3)
    create_topic(bootstrap, fuzz_topic, partitions=1)
    produce(
        bootstrap,
        before_topic,
        [(f"k{i}".encode(), f"value-{i}".encode() * (i % 7 + 1)) for i in range(60)],
    )
    written = snapshot(consume_all(bootstrap, before_topic, 60))
    assert len(written) == 60
    stored = segment_bytes(broker, before_topic, 3)
    assert any(stored.values())

    # Clients connected across the fuzzing: a raw connection and a librdkafka producer.
    bystander = Wire(bootstrap)
    assert_serves(bystander)
    long_lived = Producer(quiet({"bootstrap.servers": bootstrap, "linger.ms": 2}))
    assert long_lived.list_topics(before_topic, timeout=10).topics[before_topic].error is None

    templates = [
        encode_request(api_versions_request(), 11),
        encode_request(
            MetadataRequest(
                topics=(MetadataRequestTopic(topic_id=None, name=fuzz_topic),),
                allow_auto_topic_creation=False,
                include_topic_authorized_operations=False,
            ),
            12,
        ),
        encode_request(produce_request(fuzz_topic, 0, bytes(record_batch([b"fuzz"] * 3))), 13),
        encode_request(
            ListOffsetsRequest(
                replica_id=-1,
                isolation_level=0,
                topics=(
                    ListOffsetsTopic(
                        name=fuzz_topic,
                        partitions=(ListOffsetsPartition(partition_index=0, timestamp=-2),),
                    ),
                ),
            ),
            14,
        ),
        encode_request(FindCoordinatorRequest(key_type=0, coordinator_keys=("fuzz-group",)), 15),
    ]
    rng = random.Random(0x5EA_3A7)
    outcomes: dict[str, int] = {}
    unlogged: list[str] = []
    pending: list[tuple[str, bytes]] = []
    crashes: list[str] = []
    for i, (kind, frame) in enumerate(_garbage_frames(rng, templates)):
        outcome, peer = _probe(bootstrap, frame)
        outcomes[f"{kind}/{outcome}"] = outcomes.get(f"{kind}/{outcome}", 0) + 1
        if outcome == "closed" and not logged_about(caplog, peer):
            unlogged.append(f"frame {i} ({kind}): {frame[:48].hex()}")
        elif outcome == "pending":
            pending.append((kind, frame))
        crashes += [
            f"frame {i} ({kind}) {frame.hex()}:\n{error}"
            for error in broker_errors(caplog)
            if f"from {peer}" in error
        ]

    for frame in _truncated_full_prefix(rng, templates):
        with wire(bootstrap) as w:
            w.send(frame)
            w.sock.shutdown(socket.SHUT_WR)  # the rest never comes
            assert w.closed_by_broker(), f"truncated frame {frame.hex()} left the connection open"

    for size in BAD_SIZES:
        with wire(bootstrap) as w:
            w.send(struct.pack(">i", size) + b"\x00\x12\x00\x03\x00\x00\x00\x01")
            assert w.closed_by_broker(), f"size prefix {size} did not close the connection"
            logged = closing_logged(caplog, w.local)
            assert any(f"frame size {size} " in m for m in logged), logged

    # The broker, and the clients connected all along, still work.
    assert_serves(bystander)
    bystander.close()
    after_topic = f"{topic_name}-after"
    create_topic(bootstrap, after_topic, partitions=2)
    delivered: list[Any] = []
    for i in range(20):
        long_lived.produce(
            after_topic,
            key=b"k%d" % i,
            value=b"after-%d" % i,
            on_delivery=lambda err, _msg: delivered.append(err),
        )
    assert long_lived.flush(30) == 0
    assert delivered == [None] * 20
    assert sorted(m.value() for m in consume_all(bootstrap, after_topic, 20)) == sorted(
        b"after-%d" % i for i in range(20)
    )

    # And what was written before the fuzzing is untouched.
    assert snapshot(consume_all(bootstrap, before_topic, 60)) == written
    assert segment_bytes(broker, before_topic, 3) == stored

    assert outcomes.get("random/closed", 0) > 100, outcomes
    assert not unlogged, f"connections closed without a log line: {unlogged}"
    # A request the broker parsed may legitimately wait (Fetch long polls, JoinGroup parks);
    # nothing else may leave a connection without an answer or a close.
    waiting_apis = {1, 11, 14}
    stuck = [
        (kind, frame[:48].hex())
        for kind, frame in pending
        if struct.unpack_from(">h", frame, 4)[0] not in waiting_apis
    ]
    assert not stuck, f"frames left without answer or close: {stuck}"
    # Kafka rejects undecodable requests before any handler runs (RequestContext.parseRequest
    # -> InvalidRequestException -> the connection is closed); a handler must never crash.
    assert not crashes, f"{len(crashes)} handler crash(es):\n" + "\n".join(crashes)


def _null_last_array(frame: bytes) -> bytes:
    """Turn the request's last (empty) compact array, just before two tagged-field bytes,
    into a null one: what kio reads as ``None`` although the field is not nullable."""
    assert frame.endswith(b"\x01\x00\x00"), frame[-8:].hex()
    return frame[:-3] + b"\x00\x00\x00"


@pytest.mark.timeout(15)
@pytest.mark.parametrize("api", ["produce", "list-offsets"])
def test_null_in_non_nullable_array_is_a_malformed_request(
    bootstrap: str, topic_name: str, caplog: pytest.LogCaptureFixture, api: str
) -> None:
    """Kafka's generated readers throw "non-nullable field X was serialized as null", so
    RequestContext.parseRequest fails with InvalidRequestException and SocketServer closes
    the connection before any handler runs: nothing of the request is applied."""
    caplog.set_level(logging.WARNING, logger="seaway")
    create_topic(bootstrap, topic_name, partitions=1)
    if api == "produce":
        # The first topic is valid; the second has a null partition_data array.
        req = ProduceRequest(
            acks=-1,
            timeout=datetime.timedelta(seconds=10),
            topic_data=(
                TopicProduceData(
                    name=topic_name,
                    partition_data=(PartitionProduceData(index=0, records=GOOD),),
                ),
                TopicProduceData(name=topic_name, partition_data=()),
            ),
        )
    else:
        req = ListOffsetsRequest(
            replica_id=-1,
            isolation_level=0,
            topics=(ListOffsetsTopic(name=topic_name, partitions=()),),
        )
    frame = _null_last_array(encode_request(req, 77))
    with wire(bootstrap) as w:
        w.send(frame)
        assert w.closed_by_broker(), "a request with a null non-nullable array was answered"
        peer = w.local
    assert logged_about(caplog, peer), "no log line names the closed connection"
    with wire(bootstrap) as w:
        assert log_end_offset(w, topic_name, 0) == 0, "part of the rejected request was applied"
    errors = [e for e in broker_errors(caplog) if f"from {peer}" in e]
    assert not errors, "a handler crashed on the malformed request:\n" + "\n".join(errors)


# -- 2. unknown APIs and versions ----------------------------------------------------------


@pytest.mark.timeout(15)
@pytest.mark.parametrize(
    ("api_key", "version"),
    [
        (1000, 0),  # no such API
        (-1, 0),
        (25, 3),  # AddOffsetsToTxn: not enabled on this broker (Kafka: "not enabled", close)
        (3, 99),  # Metadata: a version above the advertised range
        (0, -1),  # Produce: a negative version
    ],
)
def test_unknown_api_or_version_closes_connection(
    bootstrap: str, caplog: pytest.LogCaptureFixture, api_key: int, version: int
) -> None:
    # Kafka's SocketServer cannot parse the header of an unknown API key or of an
    # unsupported version (other than ApiVersions): it closes the connection.
    caplog.set_level(logging.WARNING, logger="seaway")
    body = struct.pack(">hhi", api_key, version, 7) + b"\x00\x04test" + b"\x00" * 8
    with wire(bootstrap) as w:
        w.send(_frame(body))
        assert w.closed_by_broker()
        assert closing_logged(caplog, w.local), "no log line names the closed connection"
    with wire(bootstrap) as other:
        assert_serves(other)


@pytest.mark.timeout(15)
def test_api_versions_unsupported_version_answers_v0_error(bootstrap: str) -> None:
    with wire(bootstrap) as w:
        # KIP-511: ApiVersions of a version the broker does not know is answered in v0 with
        # UNSUPPORTED_VERSION and the broker's own ApiVersions range, so the client can retry.
        w.send(encode_request(api_versions_request(), 4242, api_version=127))
        payload = w.read_frame()
        assert payload is not None, "broker closed the connection on ApiVersions v127"
        cid, resp = decode_response(API_VERSIONS, 0, payload)
        assert cid == 4242
        assert resp.error_code == UNSUPPORTED_VERSION
        entries = {k.api_key: (k.min_version, k.max_version) for k in resp.api_keys}
        assert entries.keys() == {API_VERSIONS}
        assert entries[API_VERSIONS][0] == 0

        # The same connection then serves the version the client picks from that range.
        full = w.request(api_versions_request())
        assert full.error_code == NONE
        advertised = {k.api_key: (k.min_version, k.max_version) for k in full.api_keys}
        assert entries[API_VERSIONS] == advertised[API_VERSIONS]
        assert advertised[API_VERSIONS][1] >= 3
        assert {0, 1, 2, 3, 19, 22} <= advertised.keys()


# -- 3. bad produce requests ---------------------------------------------------------------


@pytest.fixture(scope="module")
def produce_topics(broker: BrokerThread) -> dict[str, str]:
    suffix = uuid.uuid4().hex[:8]
    names = {"plain": f"bad-produce-{suffix}", "small": f"bad-produce-small-{suffix}"}
    create_topic(broker.bootstrap_servers, names["plain"], partitions=2)
    create_topic(
        broker.bootstrap_servers, names["small"], partitions=1, config={"max.message.bytes": "1000"}
    )
    return names


def _flip_record_byte() -> bytes:
    batch = record_batch([b"some value"] * 3)
    batch[61 + 5] ^= 0x01  # inside the first record, covered by the CRC
    return bytes(batch)


def _with_magic(magic: int) -> bytes:
    return bytes(fix_crc(record_batch([b"v"], magic=magic)))


def _batch_length(length: int) -> bytes:
    batch = record_batch([b"v"])
    struct.pack_into(">i", batch, 8, length)
    return bytes(batch)


def _count_mismatch() -> bytes:
    batch = record_batch([b"a", b"b"])
    struct.pack_into(">i", batch, 57, 3)  # recordsCount 3, lastOffsetDelta 1
    return bytes(fix_crc(batch))


def _non_transactional_control_batch() -> bytes:
    # A transactional batch without a transactional id is refused earlier, as
    # TRANSACTIONAL_ID_AUTHORIZATION_FAILED (KafkaApis.handleProduceRequest): clear that bit.
    batch = bytearray(
        control_batch(
            base_offset=0,
            producer_id=1,
            producer_epoch=0,
            commit=True,
            coordinator_epoch=0,
            timestamp=int(time.time() * 1000),
        )
    )
    struct.pack_into(">h", batch, 21, ATTR_CONTROL)
    return bytes(fix_crc(batch))


GOOD = bytes(record_batch([b"x"]))

# (id, records, topic key, expected error code). Kafka's rule for each:
BAD_PRODUCE = [
    # UnifiedLog.analyzeAndValidateRecords: !batch.isValid -> CorruptRecordException.
    ("bad-crc", _flip_record_byte(), "plain", CORRUPT_MESSAGE),
    # ProduceRequest.validateRecords: magic != 2 -> InvalidRecordException.
    ("magic-1", _with_magic(1), "plain", INVALID_RECORD),
    ("magic-0", _with_magic(0), "plain", INVALID_RECORD),
    # ByteBufferLogInputStream.nextBatchSize: magic > CURRENT_MAGIC_VALUE ->
    # CorruptRecordException (raised while iterating the batches, before validateRecords).
    ("magic-3", _with_magic(3), "plain", CORRUPT_MESSAGE),
    # nextBatchSize: batch length < LegacyRecord.RECORD_OVERHEAD_V0 (14) -> CorruptRecordException.
    ("length-negative", _batch_length(-1), "plain", CORRUPT_MESSAGE),
    ("length-below-minimum", _batch_length(13), "plain", CORRUPT_MESSAGE),
    # A truncated batch is not returned by the batch iterator, so validateRecords finds
    # no batch: "must have at least one record batch per partition" -> INVALID_RECORD.
    ("truncated-header", GOOD[:30], "plain", INVALID_RECORD),
    ("truncated-records", GOOD[:-1], "plain", INVALID_RECORD),
    ("truncated-length", GOOD[:10], "plain", INVALID_RECORD),
    ("empty", b"", "plain", INVALID_RECORD),
    # validateRecords: "only allowed to contain exactly one record batch per partition".
    ("two-batches", GOOD + GOOD, "plain", INVALID_RECORD),
    # analyzeAndValidateRecords: client batches must have baseOffset 0.
    ("base-offset-not-zero", bytes(record_batch([b"v"], base_offset=42)), "plain", INVALID_RECORD),
    # LogValidator.validateBatch: record count must match the offset range, clients may
    # not write control batches, an idempotent batch needs a sequence.
    ("count-mismatch", _count_mismatch(), "plain", INVALID_RECORD),
    ("control-batch", _non_transactional_control_batch(), "plain", INVALID_RECORD),
    (
        "pid-without-sequence",
        bytes(record_batch([b"v"], producer_id=123456, producer_epoch=0, base_sequence=-1)),
        "plain",
        INVALID_RECORD,
    ),
    # KafkaApis.handleProduceRequest: transactional records need an authorized
    # transactional id; a request without one is refused as a whole.
    (
        "transactional-without-id",
        bytes(
            record_batch(
                [b"v"],
                producer_id=123457,
                producer_epoch=0,
                base_sequence=0,
                attributes=ATTR_TRANSACTIONAL,
            )
        ),
        "plain",
        TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
    ),
    # analyzeAndValidateRecords: batch size > max.message.bytes -> RecordTooLargeException.
    ("too-large", bytes(record_batch([b"x" * 1200])), "small", MESSAGE_TOO_LARGE),
]


@pytest.mark.timeout(15)
@pytest.mark.parametrize(
    ("records", "topic_key", "expected"),
    [pytest.param(r, t, e, id=name) for name, r, t, e in BAD_PRODUCE],
)
def test_bad_batch_is_rejected_and_nothing_is_written(
    bootstrap: str,
    produce_topics: dict[str, str],
    caplog: pytest.LogCaptureFixture,
    records: bytes,
    topic_key: str,
    expected: int,
) -> None:
    caplog.set_level(logging.DEBUG, logger="seaway.broker.handlers.produce")
    topic = produce_topics[topic_key]
    with wire(bootstrap) as w:
        before = log_end_offset(w, topic, 0)
        part = produce_raw(w, topic, 0, records)
        assert part.error_code == expected, part
        assert part.base_offset == -1
        assert log_end_offset(w, topic, 0) == before
        assert any(f"{topic}-0" in r.getMessage() for r in caplog.records), "no log line"

        # The connection and the partition still take a good batch, at the next offset.
        good = produce_raw(w, topic, 0, GOOD)
        assert good.error_code == NONE, good
        assert good.base_offset == before
        assert log_end_offset(w, topic, 0) == before + 1


@pytest.mark.timeout(15)
@pytest.mark.parametrize(("partition", "topic_exists"), [(0, False), (99, True), (-1, True)])
def test_produce_to_unknown_topic_or_partition(
    bootstrap: str, produce_topics: dict[str, str], partition: int, topic_exists: bool
) -> None:
    topic = produce_topics["plain"] if topic_exists else f"no-such-topic-{uuid.uuid4().hex[:8]}"
    with wire(bootstrap) as w:
        part = produce_raw(w, topic, partition, GOOD)
        assert part.error_code == UNKNOWN_TOPIC_OR_PARTITION, part
        assert part.base_offset == -1
        # Produce never auto-creates a topic.
        meta = w.request(
            MetadataRequest(
                topics=(MetadataRequestTopic(topic_id=None, name=topic),),
                allow_auto_topic_creation=False,
                include_topic_authorized_operations=False,
            )
        )
        (t,) = meta.topics
        assert (t.error_code == NONE) == topic_exists
        if topic_exists:
            assert len(t.partitions) == 2
        good = produce_raw(w, produce_topics["plain"], 1, GOOD)
        assert good.error_code == NONE


@pytest.mark.timeout(15)
def test_null_keys_on_a_compacted_topic_are_named_as_record_errors(
    bootstrap: str, topic_name: str
) -> None:
    """KIP-467: the batch is refused with INVALID_RECORD, and ``record_errors`` names each
    record without a key by its index in the batch, with Kafka's message."""
    create_topic(bootstrap, topic_name, partitions=1, config={"cleanup.policy": "compact"})
    records = [Record(0, 0, b"k0", b"a"), Record(1, 0, None, b"b"), Record(2, 0, b"k2", b"c"),
               Record(3, 0, None, b"d")]  # fmt: skip
    with wire(bootstrap) as w:
        part = produce_raw(w, topic_name, 0, bytes(build_batch(records)))
        assert part.error_code == INVALID_RECORD
        expected = (
            f"Compacted topic cannot accept message without key in topic partition {topic_name}-0."
        )
        assert [(e.batch_index, e.batch_index_error_message) for e in part.record_errors] == [
            (1, expected), (3, expected)]  # fmt: skip
        assert "2 record errors in total" in (part.error_message or "")
        assert log_end_offset(w, topic_name, 0) == 0  # nothing of the batch was written
        keyed = produce_raw(w, topic_name, 0, bytes(build_batch([records[0], records[2]])))
        assert keyed.error_code == NONE


# -- 4. idempotent producers ---------------------------------------------------------------


@pytest.mark.timeout(20)
def test_idempotent_sequence_errors(bootstrap: str, topic_name: str) -> None:
    create_topic(bootstrap, topic_name, partitions=1)
    with wire(bootstrap) as w:
        init = w.request(
            InitProducerIdRequest(
                transactional_id=None, transaction_timeout=datetime.timedelta(seconds=60)
            )
        )
        assert init.error_code == NONE
        pid, epoch = init.producer_id, init.producer_epoch
        assert pid >= 0 and epoch == 0

        def batch(seq: int, value: bytes, epoch: int = 0) -> bytes:
            return bytes(
                record_batch([value], producer_id=pid, producer_epoch=epoch, base_sequence=seq)
            )

        sent = [batch(seq, b"seq-%d" % seq) for seq in range(5)]
        for seq, b in enumerate(sent):
            part = produce_raw(w, topic_name, 0, b)
            assert (part.error_code, part.base_offset) == (NONE, seq)
        assert log_end_offset(w, topic_name, 0) == 5

        # A retried batch (any of the last five) is acknowledged with its original offset.
        for seq in (4, 0, 2):
            part = produce_raw(w, topic_name, 0, sent[seq])
            assert (part.error_code, part.base_offset) == (NONE, seq), part
        assert log_end_offset(w, topic_name, 0) == 5

        # A gap in the sequence (5 expected).
        part = produce_raw(w, topic_name, 0, batch(7, b"gap"))
        assert part.error_code == OUT_OF_ORDER_SEQUENCE_NUMBER, part
        assert log_end_offset(w, topic_name, 0) == 5

        part = produce_raw(w, topic_name, 0, batch(5, b"seq-5"))
        assert (part.error_code, part.base_offset) == (NONE, 5)

        # A bumped epoch must start at sequence 0 (ProducerAppendInfo.checkSequence) ...
        part = produce_raw(w, topic_name, 0, batch(3, b"epoch-1-seq-3", epoch=1))
        assert part.error_code == OUT_OF_ORDER_SEQUENCE_NUMBER, part
        part = produce_raw(w, topic_name, 0, batch(0, b"epoch-1", epoch=1))
        assert (part.error_code, part.base_offset) == (NONE, 6)

        # ... and fences the older one (checkProducerEpoch: InvalidProducerEpochException).
        part = produce_raw(w, topic_name, 0, batch(6, b"old-epoch"))
        assert part.error_code == INVALID_PRODUCER_EPOCH, part
        part = produce_raw(w, topic_name, 0, sent[4])
        assert part.error_code == INVALID_PRODUCER_EPOCH, part
        assert log_end_offset(w, topic_name, 0) == 7

    consumer = Consumer(
        quiet(
            {
                "bootstrap.servers": bootstrap,
                "group.id": f"bad-input-{uuid.uuid4().hex[:8]}",
                "enable.auto.commit": False,
            }
        )
    )
    try:
        consumer.assign([TopicPartition(topic_name, 0, 0)])
        values: list[tuple[int, bytes]] = []
        deadline = time.monotonic() + 15
        while len(values) < 7 and time.monotonic() < deadline:
            for msg in consumer.consume(100, timeout=0.5):
                assert msg.error() is None, msg.error()
                values.append((msg.offset(), msg.value()))
    finally:
        consumer.close()
    assert values == [(i, b"seq-%d" % i) for i in range(6)] + [(6, b"epoch-1")]


# -- 5. bad CreateTopics -------------------------------------------------------------------


def _create(
    w: Wire,
    name: str,
    partitions: int = 1,
    replication: int = -1,
    configs: dict[str, str | None] | None = None,
) -> Any:
    resp = w.request(
        CreateTopicsRequest(
            topics=(
                CreatableTopic(
                    name=name,
                    num_partitions=partitions,
                    replication_factor=replication,
                    assignments=(),
                    configs=tuple(
                        CreatableTopicConfig(name=k, value=v) for k, v in (configs or {}).items()
                    ),
                ),
            ),
            timeout=datetime.timedelta(seconds=10),
            validate_only=False,
        )
    )
    (result,) = resp.topics
    assert result.name == name
    return result


def _exists(w: Wire, name: str) -> bool:
    meta = w.request(
        MetadataRequest(
            topics=None, allow_auto_topic_creation=False, include_topic_authorized_operations=False
        )
    )
    return any(t.name == name for t in meta.topics)


@pytest.mark.timeout(15)
@pytest.mark.parametrize("name", ["bad name!", "", ".", "..", "a" * 250, "tab\tname", "ünïcode"])
def test_create_topic_invalid_name(bootstrap: str, name: str) -> None:
    with wire(bootstrap) as w:
        result = _create(w, name)
        assert result.error_code == INVALID_TOPIC_EXCEPTION, result
        assert result.error_message
        assert not _exists(w, name)


@pytest.mark.timeout(15)
@pytest.mark.parametrize(
    ("configs", "key"),
    [
        ({"no.such.config": "1"}, "no.such.config"),
        ({"retention.ms": "abc"}, "retention.ms"),
        ({"cleanup.policy": "shred"}, "cleanup.policy"),
        ({"max.message.bytes": "-5x"}, "max.message.bytes"),
    ],
)
def test_create_topic_invalid_config(
    bootstrap: str, topic_name: str, configs: dict[str, str], key: str
) -> None:
    with wire(bootstrap) as w:
        result = _create(w, topic_name, configs=configs)
        assert result.error_code == INVALID_CONFIG, result
        assert key in (result.error_message or ""), result.error_message
        assert not _exists(w, topic_name)


@pytest.mark.timeout(15)
@pytest.mark.parametrize(
    ("partitions", "replication", "expected"),
    [
        (0, -1, INVALID_PARTITIONS),
        (-2, -1, INVALID_PARTITIONS),
        (1, 3, INVALID_REPLICATION_FACTOR),
        (1, 0, INVALID_REPLICATION_FACTOR),
    ],
)
def test_create_topic_invalid_counts(
    bootstrap: str, topic_name: str, partitions: int, replication: int, expected: int
) -> None:
    with wire(bootstrap) as w:
        result = _create(w, topic_name, partitions=partitions, replication=replication)
        assert result.error_code == expected, result
        assert not _exists(w, topic_name)
        # The same name is then free for a valid request.
        assert _create(w, topic_name, partitions=1).error_code == NONE
        assert _exists(w, topic_name)


@pytest.mark.timeout(20)
def test_create_topic_errors_through_admin_client(bootstrap: str, topic_name: str) -> None:
    """The same errors as librdkafka's AdminClient reports them (KafkaError codes)."""
    admin = AdminClient(quiet({"bootstrap.servers": bootstrap}))
    cases = [
        (NewTopic("bad name!", 1), INVALID_TOPIC_EXCEPTION, None),
        (NewTopic("", 1), INVALID_TOPIC_EXCEPTION, None),
        (NewTopic(".", 1), INVALID_TOPIC_EXCEPTION, None),
        (NewTopic("t" * 250, 1), INVALID_TOPIC_EXCEPTION, None),
        (
            NewTopic(f"{topic_name}-key", 1, config={"no.such.key": "1"}),
            INVALID_CONFIG,
            "no.such.key",
        ),
        (
            NewTopic(f"{topic_name}-val", 1, config={"retention.ms": "abc"}),
            INVALID_CONFIG,
            "retention.ms",
        ),
        (NewTopic(f"{topic_name}-p0", 0), INVALID_PARTITIONS, None),
        (NewTopic(f"{topic_name}-rf", 1, replication_factor=3), INVALID_REPLICATION_FACTOR, None),
    ]
    futures = admin.create_topics([t for t, _, _ in cases], request_timeout=15)
    for new_topic, expected, named in cases:
        with pytest.raises(KafkaException) as info:
            futures[new_topic.topic].result(20)
        error = info.value.args[0]
        assert error.code() == expected, (new_topic.topic, error)
        if named:
            assert named in error.str(), error.str()
    listed = admin.list_topics(timeout=10).topics
    assert not {t.topic for t, _, _ in cases} & listed.keys()

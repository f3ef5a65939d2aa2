"""The search sink benchmark's pieces outside Connect: the search server, the topic of JSON
records with schemas, the plain reference script (confluent-kafka + opensearch-py's bulk
helper) and the check that both indexes hold the same documents."""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaException, Producer, TopicPartition

from bench._workload import CONSUMER_CONFIG, PRODUCER_CONFIG, unique_name
from seaway.connect.api.data import Schema, SchemaBuilder, Struct, Timestamp
from seaway.connect.converters.json_converter import JsonConverter

#: The value schema: a user row as a JDBC source or a CDC connector would make it.
SCHEMA = (
    SchemaBuilder.struct()
    .name("bench.user")
    .field("id", Schema.INT64_SCHEMA)
    .field("email", Schema.OPTIONAL_STRING_SCHEMA)
    .field("balance", Schema.OPTIONAL_FLOAT64_SCHEMA)
    .field("updated_at", Timestamp.builder().optional().build())
    .field("active", Schema.OPTIONAL_BOOLEAN_SCHEMA)
    .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).optional().build())
    .build()
)
_BASE_MS = 1_793_491_200_000  # 2026-11-01T00:00:00Z
_TAGS: tuple[list[str], ...] = (["new"], ["gold", "eu"], [], ["churn-risk", "us", "b2b"])

#: The sink's defaults, which the reference script uses too: ``batch.size`` actions and
#: ``bulk.size.bytes`` per bulk request, ``max.in.flight.requests`` (parallel_bulk's threads).
CHUNK_SIZE = 2000
CHUNK_BYTES = 5 * 1024 * 1024
IN_FLIGHT = 5
HELPERS = ("bulk", "parallel_bulk")
_START_TIMEOUT_S = 30.0


def payload(i: int) -> dict[str, Any]:
    """Record *i*'s value (the JSON payload; ``updated_at`` in epoch milliseconds)."""
    return {
        "id": i,
        "email": f"user{i}@example.com",
        "balance": (i * 7919) % 10_000_000 / 100,
        "updated_at": _BASE_MS + i * 997,
        "active": i % 3 != 0,
        "tags": _TAGS[i % len(_TAGS)],
    }


def _struct(i: int) -> Struct:
    value = Struct(SCHEMA)
    for name, field in payload(i).items():
        if name == "updated_at":
            field = dt.datetime.fromtimestamp(field / 1000, dt.UTC)
        value.put(name, field)
    return value


def envelopes(records: int) -> Iterator[tuple[bytes, bytes]]:
    """``(key, value)`` of each record: the id as a string, and the value in Kafka's
    JsonConverter envelope (``schemas.enable=true``) byte for byte as the converter writes
    it (checked on every 1000th record; the others reuse its schema part)."""
    converter = JsonConverter()
    converter.configure({"schemas.enable": True}, False)
    first = converter.from_connect_data("bench", SCHEMA, _struct(0))
    assert first is not None
    prefix = first[: first.index(b',"payload":') + len(b',"payload":')]
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    for i in range(records):
        value = prefix + dumps(payload(i)).encode() + b"}"
        if i % 1000 == 0 and value != converter.from_connect_data("bench", SCHEMA, _struct(i)):
            raise AssertionError(f"record {i} differs from JsonConverter's bytes: {value!r}")
        yield str(i).encode(), value


def produce_records(bootstrap: str, topic: str, records: int) -> int:
    """Produce the records into *topic* (the partitioner spreads keys); their value bytes."""
    producer = Producer({"bootstrap.servers": bootstrap, **PRODUCER_CONFIG, "acks": "all"})
    size = 0
    for key, value in envelopes(records):
        size += len(value)
        while True:
            try:
                producer.produce(topic, value, key)
                break
            except BufferError:
                producer.poll(0.01)
    if producer.flush(120):
        raise TimeoutError(f"records of {topic} still unacknowledged after 120 s")
    return size


# --------------------------------------------------------------------------- the server


class SearchProcess:
    """``osmem-server`` (the in-memory OpenSearch-compatible server of the ``test`` extra)
    on a free port of 127.0.0.1, its logs in *folder*; it exits with this process."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.process: subprocess.Popen[bytes] | None = None
        self.url = ""

    @property
    def pid(self) -> int:
        assert self.process is not None, "not started"
        return self.process.pid

    def start(self) -> SearchProcess:
        try:
            from osmem_server import resolve_binary
        except ImportError:
            raise RuntimeError("osmem-server is missing: pip install -e '.[test]'") from None
        self.folder.mkdir(parents=True, exist_ok=True)
        out = self.folder / "stdout.log"
        with out.open("wb") as stdout, (self.folder / "stderr.log").open("wb") as stderr:
            self.process = subprocess.Popen(
                [
                    resolve_binary(),
                    "--addr",
                    "127.0.0.1:0",
                    "--no-ja",
                    "--parent-pid",
                    str(os.getpid()),
                ],
                stdin=subprocess.PIPE,
                stdout=stdout,
                stderr=stderr,
            )
        deadline = time.monotonic() + _START_TIMEOUT_S
        while time.monotonic() < deadline:
            for line in out.read_text(errors="replace").splitlines():
                try:
                    ready = json.loads(line)
                except ValueError:
                    continue
                if isinstance(ready, dict) and "url" in ready:
                    self.url = str(ready["url"]).rstrip("/")
                    return self
            if self.process.poll() is not None:
                raise RuntimeError(f"osmem-server exited with {self.process.returncode}")
            time.sleep(0.02)
        raise RuntimeError(f"osmem-server was not ready within {_START_TIMEOUT_S:.0f} s")

    def stop(self) -> None:
        """stdin's EOF (the server's signal to exit), then SIGTERM, then SIGKILL."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        try:
            assert process.stdin is not None
            process.stdin.close()
            process.wait(5)
        except (OSError, subprocess.TimeoutExpired):
            process.terminate()
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """``(status, decoded JSON)`` of one request, whatever the status."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                status, text = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, text = error.code, error.read()
        return status, json.loads(text) if text else None

    def count(self, index: str) -> int:
        """The documents in *index* (0 while it does not exist)."""
        status, body = self.request("GET", f"/{urllib.parse.quote(index)}/_count")
        return int(body["count"]) if status == 200 else 0

    def stored(self, index: str) -> int:
        """The documents in *index* by its stats (a quarter of ``_count``'s cost on osmem)."""
        status, body = self.request("GET", f"/{urllib.parse.quote(index)}/_stats/docs")
        return int(body["_all"]["primaries"]["docs"]["count"]) if status == 200 else 0

    def exists(self, index: str, document_id: str) -> bool:
        """Whether document *document_id* is in *index* (``HEAD``, well under a ms)."""
        quoted = f"/{urllib.parse.quote(index)}/_doc/{urllib.parse.quote(document_id)}"
        request = urllib.request.Request(self.url + quoted, method="HEAD")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return bool(response.status == 200)
        except urllib.error.HTTPError as error:
            if error.code == 404:
                return False
            raise

    def documents(self, index: str, ids: Sequence[str]) -> dict[str, Any]:
        """``{id: (version, _source)}`` of the documents *ids* found in *index*."""
        status, body = self.request(
            "POST", f"/{urllib.parse.quote(index)}/_mget", {"ids": list(ids)}
        )
        if status != 200:
            raise RuntimeError(f"_mget {index} answered {status}: {body}")
        return {d["_id"]: (d.get("_version"), d["_source"]) for d in body["docs"] if d["found"]}


# --------------------------------------------------------------------------- the reference


@dataclass(frozen=True)
class PlainRun:
    """The plain script's copy: seconds from its start until the last bulk answer."""

    seconds: float
    requests: int


def run_plain(
    bootstrap: str,
    topic: str,
    partitions: int,
    url: str,
    index: str,
    records: int,
    helper: str,
    stall_timeout: float,
) -> PlainRun:
    """What a plain Python script does: read *topic* from the beginning with confluent-kafka,
    ``json.loads`` each value, and index its payload into *index* with opensearch-py's bulk
    helper (*helper*: ``bulk``, one request at a time, or ``parallel_bulk`` with
    :data:`IN_FLIGHT` threads), the sink's settings: :data:`CHUNK_SIZE` actions and
    :data:`CHUNK_BYTES` per request, the key as id, ``version_type=external`` with the
    offset as version. Raises on any failed item."""
    from opensearchpy import OpenSearch, helpers

    started = time.perf_counter()
    client = OpenSearch([url])
    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": unique_name("plain"), **CONSUMER_CONFIG}
    )
    consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(partitions)])

    def actions() -> Iterator[dict[str, Any]]:
        seen, last = 0, time.perf_counter()
        while seen < records:
            messages = consumer.consume(10_000, 0.5)
            if not messages and time.perf_counter() - last > stall_timeout:
                raise TimeoutError(f"plain: consumer stalled at {seen:,}/{records:,} records")
            for message in messages:
                if message.error() is not None:
                    raise KafkaException(message.error())
                key, value = message.key(), message.value()
                assert key is not None and value is not None  # every record has both
                yield {
                    "_index": index,
                    "_id": key.decode(),
                    "version": message.offset(),
                    "version_type": "external",
                    "_source": json.loads(value)["payload"],
                }
            if messages:
                seen, last = seen + len(messages), time.perf_counter()

    try:
        if helper == "bulk":
            written, _ = helpers.bulk(
                client, actions(), chunk_size=CHUNK_SIZE, max_chunk_bytes=CHUNK_BYTES
            )
        else:
            results = helpers.parallel_bulk(
                client,
                actions(),
                thread_count=IN_FLIGHT,
                chunk_size=CHUNK_SIZE,
                max_chunk_bytes=CHUNK_BYTES,
                queue_size=IN_FLIGHT,
            )
            written = sum(1 for ok, _ in results if ok)
        seconds = time.perf_counter() - started
    finally:
        consumer.close()
        client.close()
    if written != records:
        raise RuntimeError(f"plain: {written:,} of {records:,} documents written")
    return PlainRun(seconds=seconds, requests=-(-records // CHUNK_SIZE))


# --------------------------------------------------------------------------- the check


def verify(server: SearchProcess, plain: str, seaway: str, records: int, sample: int) -> str:
    """Both indexes hold *records* documents, and a sample of ids (the first, the last and
    *sample* random ones) has equal ``_source`` and ``_version`` in both; a summary."""
    counts = {index: server.count(index) for index in (plain, seaway)}
    if set(counts.values()) != {records}:
        raise AssertionError(f"document counts {counts}, expected {records:,} each")
    chosen = sorted(
        {0, records - 1, *random.Random(11).sample(range(records), min(sample, records))}
    )
    ids = [str(i) for i in chosen]
    mismatched: deque[str] = deque(maxlen=3)
    for start in range(0, len(ids), 500):
        part = ids[start : start + 500]
        found = [server.documents(index, part) for index in (plain, seaway)]
        for i in part:
            a, b = (docs.get(i) for docs in found)
            if a is None or b is None or a != b or a[1] != payload(int(i)):
                mismatched.append(f"id {i}: plain {a}, seaway {b}")
    if mismatched:
        raise AssertionError("documents differ: " + "; ".join(mismatched))
    return f"{records:,} documents in each index; {len(ids):,} sampled ids identical"

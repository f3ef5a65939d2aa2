"""The search sink's task and bulk writer against a real OpenSearch-compatible server
(osmem-server, started in ~10 ms on a free port): the column path builds the same bulk
actions as the record path, requests are cut by ``batch.size`` and ``bulk.size.bytes``,
item failures follow Confluent's rules, keys and tombstones give Confluent's errors, and
``GET /`` tells the servers apart."""

from __future__ import annotations

import datetime as dt
import json
import math
import uuid
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
import pytest

from seaway.connect.api import ConnectError, SinkRecord
from seaway.connect.api.batches import SinkBatch
from seaway.connect.api.data import Schema, SchemaBuilder, Struct, Timestamp
from seaway.connect.api.data.arrow import structs_to_table
from seaway.connect.api.errors import DataError
from seaway.connectors.elasticsearch.client import server_info, supported
from seaway.connectors.elasticsearch.sink import ElasticsearchSinkTask, OpensearchSinkTask
from tests.search import FaultProxy, SearchServer

SCHEMA = (
    SchemaBuilder.struct().name("user")
    .field("id", Schema.INT64_SCHEMA)
    .field("email", Schema.OPTIONAL_STRING_SCHEMA)
    .field("balance", Schema.OPTIONAL_FLOAT64_SCHEMA)
    .field("seen", Timestamp.builder().optional().build())
    .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).optional().build())
    .build()
)  # fmt: skip


@pytest.fixture(scope="module")
def search() -> Iterator[SearchServer]:
    with SearchServer() as server:
        yield server


def _task(url: str, **config: Any) -> ElasticsearchSinkTask:
    task = ElasticsearchSinkTask()
    task.start({"connection.url": url, "topics": "t", **{k: str(v) for k, v in config.items()}})
    return task


def _structs(n: int) -> list[Struct]:
    return [
        Struct(SCHEMA).put("id", i).put("email", None if i % 5 == 0 else f'u"{i}"\\\n@é.org')
        .put("balance", i * 1.25).put("seen", dt.datetime(2026, 1, 1, tzinfo=dt.UTC))
        .put("tags", ["a", f"t{i}"] if i % 2 else [])
        for i in range(n)
    ]  # fmt: skip


def _batch(topic: str, n: int, *, keys: str = "string", first: int = 0) -> SinkBatch:
    table = structs_to_table(SCHEMA, _structs(n)).combine_chunks()
    columns = [c.chunk(0) for c in table.columns]
    value = pa.StructArray.from_arrays(columns, fields=list(table.schema))
    key: pa.Array
    key_schema: Schema | None
    if keys == "string":
        key, key_schema = pa.array([f"k{i}" for i in range(n)]), Schema.STRING_SCHEMA
    else:
        key, key_schema = pa.array(range(n), pa.int64()), Schema.INT64_SCHEMA
    offsets = pa.array(range(first, first + n), pa.int64())
    timestamps = pa.array([1_700_000_000_000 + i for i in range(n)], pa.int64())
    records = pa.RecordBatch.from_arrays(
        [offsets, timestamps, key, value], names=["offset", "timestamp", "key", "value"]
    )
    return SinkBatch(topic, 0, records, key_schema, SCHEMA)


def _topic() -> str:
    return f"t-{uuid.uuid4().hex[:8]}"


@pytest.mark.parametrize(
    "config, keys",
    [({"key.ignore": "true"}, "string"), ({}, "string"), ({}, "int"),
     ({"write.method": "upsert"}, "string")],
)  # fmt: skip
def test_the_column_path_builds_the_record_paths_actions(
    search: SearchServer, config: dict[str, str], keys: str
) -> None:
    task = _task(search.url, **config)
    batch = _batch(_topic(), 40, keys=keys, first=7)
    lines = task._batch_lines(batch)
    assert lines is not None, "the column path should take this batch"
    column = [bytes(line) for line in lines.to_pylist()]
    record = [task._action(r) for r in batch.sink_records()]
    assert len(column) == len(record) == 40
    for built, reference in zip(column, record, strict=True):
        assert reference is not None
        action, document, end = built.split(b"\n")
        ref_action, ref_document, ref_end = reference.split(b"\n")
        assert action == ref_action  # ids, versions, index: byte for byte
        assert json.loads(document) == json.loads(ref_document)
        assert end == ref_end == b""
    task.stop()


def test_a_batch_is_indexed_with_its_offsets_as_versions(search: SearchServer) -> None:
    topic = _topic()
    task = _task(search.url, **{"batch.size": 7})
    task.put_batch(_batch(topic, 30, first=100))
    task.flush({})
    assert search.request("GET", f"/{topic}/_count")[1]["count"] == 30
    _, doc = search.request("GET", f"/{topic}/_doc/k3")
    assert doc["_version"] == 103
    assert doc["_source"]["tags"] == ["a", "t3"] and doc["_source"]["id"] == 3
    task.put_batch(_batch(topic, 30, first=100))  # a replay: version conflicts, not errors
    task.flush({})
    assert search.request("GET", f"/{topic}/_doc/k3")[1]["_version"] == 103
    task.stop()


def test_requests_are_cut_by_batch_size_and_bytes(search: SearchServer) -> None:
    with FaultProxy(search.url) as proxy:
        task = _task(proxy.url, **{"batch.size": 6, "key.ignore": "true"})
        task.put_batch(_batch(_topic(), 40))
        task.flush({})
        bulks = [r for r in proxy.requests if r.path.startswith("/_bulk")]
        assert len(bulks) == math.ceil(40 / 6)
        before = len(proxy.requests)
        task = _task(proxy.url, **{"bulk.size.bytes": 1000, "key.ignore": "true"})
        lines = task._batch_lines(_batch(_topic(), 40))
        assert lines is not None
        sizes = [len(line) for line in lines.to_pylist()]
        task.put_batch(_batch(_topic(), 40))
        task.flush({})
        bulks = [r for r in proxy.requests[before:] if r.path.startswith("/_bulk")]
        per_request = max(1000 // max(sizes), 1)
        assert len(bulks) >= math.ceil(40 / per_request)
        assert int(bulks[0].headers.get("Content-Length", "0")) <= 1000
        assert bulks[0].headers["Content-Type"] == "application/x-ndjson"
        assert "compatible-with" not in json.dumps(bulks[0].headers)


def test_malformed_documents_fail_or_warn(search: SearchServer) -> None:
    topic = _topic()
    search.request("PUT", f"/{topic}")
    search.request("PUT", f"/{topic}/_mapping", {"properties": {"email": {"type": "long"}}})
    failing = _task(search.url, **{"key.ignore": "true"})
    failing.put_batch(_batch(topic, 3))
    with pytest.raises(ConnectError, match=r"Indexing record failed.*mapper_parsing_exception"):
        failing.flush({})
    warning = _task(search.url, **{"key.ignore": "true",
                                   "behavior.on.malformed.documents": "warn"})  # fmt: skip
    warning.put_batch(_batch(topic, 3))
    warning.flush({})  # the one document without email (id 0) is indexed
    assert search.request("GET", f"/{topic}/_count")[1]["count"] == 1


def _record(value: Any, key: Any = "k", key_schema: Schema | None = Schema.STRING_SCHEMA,
            offset: int = 5) -> SinkRecord:  # fmt: skip
    return SinkRecord(topic="t", kafka_partition=0, key_schema=key_schema, key=key,
                      value_schema=SCHEMA if value is not None else None, value=value,
                      kafka_offset=offset)  # fmt: skip


def test_null_values_and_keys_as_confluent_answers_them(search: SearchServer) -> None:
    task = _task(search.url)
    with pytest.raises(DataError, match=r"null value encountered for topic/partition/offset "
                       r"t/0/5 .*'behavior.on.null.values' from 'fail' to 'ignore'"):  # fmt: skip
        task._action(_record(None))
    assert _task(search.url, **{"behavior.on.null.values": "ignore"})._action(_record(None)) is None
    deleting = _task(search.url, **{"behavior.on.null.values": "delete"})
    assert deleting._action(_record(None)) == (
        b'{"delete":{"_index":"t","_id":"k","version":5,"version_type":"external"}}\n'
    )
    assert deleting._action(_record(None, key=None, key_schema=None)) is None
    value = _structs(1)[0]
    with pytest.raises(DataError, match=r"Key is used as document id and can not be null\."):
        task._action(_record(value, key=None))
    with pytest.raises(DataError, match=r"STRUCT is not supported as the document id\."):
        task._action(_record(value, key=value, key_schema=SCHEMA))
    with pytest.raises(DataError, match=r"FLOAT64 is not supported as the document id\."):
        task._action(_record(value, key=1.5, key_schema=None))


def test_the_servers_are_told_apart_by_their_root_answer() -> None:
    es8 = {"version": {"number": "8.15.0", "build_flavor": "default"},
           "tagline": "You Know, for Search"}  # fmt: skip
    os2 = {"version": {"distribution": "opensearch", "number": "2.17.1"},
           "tagline": "The OpenSearch Project: https://opensearch.org/"}  # fmt: skip
    es6 = {"version": {"number": "6.8.23"}, "tagline": "You Know, for Search"}
    assert server_info(es8).distribution == "elasticsearch" and server_info(es8).major == 8
    assert server_info(os2).distribution == "opensearch" and server_info(os2).major == 2
    assert supported(server_info(os2), "u").major == 2
    with pytest.raises(ConnectError, match=r"Elasticsearch 6\.8\.23 at u is not supported"):
        supported(server_info(es6), "u")
    # OpenSearch 1 may report 7.10.2 for old clients; its distribution still says so
    os1 = {"version": {"distribution": "opensearch", "number": "7.10.2"}}
    assert server_info(os1).distribution == "opensearch"


def test_aivens_names_drive_the_same_sink(search: SearchServer) -> None:
    """Aiven's OpenSearch sink: ``index.write.method=upsert`` and its default
    ``behavior.on.null.values=ignore``, on the same code."""
    topic = _topic()
    task = OpensearchSinkTask()
    task.start({"connection.url": search.url, "topics": topic,
                "index.write.method": "upsert", "key.ignore": "false"})  # fmt: skip
    assert task.settings.aiven_index_names
    assert task._action(_record(None)) is None  # a tombstone ignored by default
    task.put_batch(_batch(topic, 5))
    task.flush({})
    _, doc = search.request("GET", f"/{topic}/_doc/k2")
    assert doc["_source"]["id"] == 2 and doc["_version"] == 1  # upserts are not versioned
    task.stop()

"""The partitioned-file sink without a worker: Confluent's file names and layout, files of
flush.size records, replays that write nothing twice, schema changes, clear errors."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from seaway.config import ConfigException
from seaway.config.plugins import CONNECTORS, load_class
from seaway.connect.api import ConnectError, OffsetAndMetadata, Schema, SinkRecord, TopicPartition
from seaway.connect.api.data import SchemaBuilder, Struct
from seaway.connectors.hdfs import HdfsSinkConnector, HdfsSinkTask

V1 = (SchemaBuilder.struct().name("login").version(1).field("id", Schema.INT32_SCHEMA)
      .field("username", Schema.STRING_SCHEMA).build())  # fmt: skip
V2 = (SchemaBuilder.struct().name("login").version(2)
      .field("id", Schema.INT32_SCHEMA).field("username", Schema.STRING_SCHEMA)
      .field("country", SchemaBuilder.string().optional().build()).build())  # fmt: skip


def _record(offset: int, schema: Schema = V1, partition: int = 0) -> SinkRecord:
    value = Struct(schema).put("id", offset).put("username", f"user{offset}")
    return SinkRecord(
        topic="login", kafka_partition=partition, kafka_offset=offset, value_schema=schema,
        value=value, timestamp=1_795_168_800_000 + offset,
    )  # fmt: skip


def _task(tmp_path: Path, **props: str) -> HdfsSinkTask:
    config = {"store.url": f"file://{tmp_path}", "flush.size": "2", "topics": "login", **props}
    connector = HdfsSinkConnector()
    connector.start(config)
    task = HdfsSinkTask()
    task.start(connector.task_configs(1)[0])
    task.open([TopicPartition("login", 0)])
    return task


def _batch(task: HdfsSinkTask, records: list[SinkRecord]) -> None:
    """One micro-batch: put, then the pre_commit that ends it."""
    task.put(records)
    ends = {TopicPartition(r.topic, r.kafka_partition or 0): OffsetAndMetadata(r.kafka_offset + 1)
            for r in records}  # fmt: skip
    task.pre_commit(ends)


def _files(tmp_path: Path) -> list[str]:
    folder = tmp_path / "topics" / "login" / "partition=0"
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_plugin_names() -> None:
    for name in ("HdfsSinkConnector", "HdfsSink", "io.confluent.connect.hdfs.HdfsSinkConnector"):
        assert load_class(name, CONNECTORS) is HdfsSinkConnector


def test_files_of_flush_size_records_and_replays(tmp_path: Path) -> None:
    _batch(_task(tmp_path), [_record(i) for i in range(5)])
    assert _files(tmp_path) == [
        "login+0+0000000000+0000000001.parquet",
        "login+0+0000000002+0000000003.parquet",
        "login+0+0000000004+0000000004.parquet",  # the end of the micro-batch closes it
    ]
    table = pq.read_table(
        tmp_path / "topics/login/partition=0/login+0+0000000002+0000000003.parquet"
    )
    assert table.to_pylist() == [{"id": 2, "username": "user2"}, {"id": 3, "username": "user3"}]
    assert not table.schema.field("id").nullable
    # A replay after a crash (a new task, the same records and more): nothing twice.
    _batch(_task(tmp_path), [_record(i) for i in range(3, 8)])
    assert _files(tmp_path)[3:] == ["login+0+0000000005+0000000006.parquet",
                                    "login+0+0000000007+0000000007.parquet"]  # fmt: skip
    # A temp file left by a crash is not a committed file.
    leftover = tmp_path / "topics" / "+tmp" / "login" / "partition=0" / "x_tmp.parquet"
    leftover.write_bytes(b"half a file")
    _batch(_task(tmp_path), [_record(8)])
    assert _files(tmp_path)[-1] == "login+0+0000000008+0000000008.parquet"


def test_schema_changes(tmp_path: Path) -> None:
    _batch(_task(tmp_path, **{"flush.size": "10"}), [_record(0), _record(1, V2), _record(2)])
    assert _files(tmp_path) == ["login+0+0000000000+0000000000.parquet",  # NONE: each rolls
                                "login+0+0000000001+0000000001.parquet",
                                "login+0+0000000002+0000000002.parquet"]  # fmt: skip
    # Equal schemas are the same schema, whichever object a converter hands over.
    twin = (SchemaBuilder.struct().name("login").version(1).field("id", Schema.INT32_SCHEMA)
            .field("username", Schema.STRING_SCHEMA).build())  # fmt: skip
    assert twin == V1 and twin is not V1
    same = tmp_path / "same"
    _batch(_task(same, **{"flush.size": "10"}), [_record(0), _record(1, twin), _record(2)])
    assert _files(same) == ["login+0+0000000000+0000000002.parquet"]
    backward = tmp_path / "b"
    _batch(_task(backward, **{"flush.size": "10", "schema.compatibility": "BACKWARD"}),
           [_record(0), _record(1, V2), _record(2), _record(3)])  # fmt: skip
    assert _files(backward) == ["login+0+0000000000+0000000000.parquet",
                                "login+0+0000000001+0000000003.parquet"]  # fmt: skip
    rows = pq.read_table(
        backward / "topics/login/partition=0/login+0+0000000001+0000000003.parquet"
    )
    assert rows.column("country").to_pylist() == [None, None, None]  # v1 projected to v2
    # Without a version (Debezium's rows) the fields decide: V1 cannot hold a record lacking
    # its required username, so the unversioned schema is newer (test_hdfs_cdc_records.py).
    unversioned = SchemaBuilder.struct().field("id", Schema.INT32_SCHEMA).build()
    _batch(_task(tmp_path / "c", **{"schema.compatibility": "BACKWARD"}),
           [_record(0), SinkRecord(topic="login", kafka_partition=0, kafka_offset=1,
            value_schema=unversioned, value=Struct(unversioned).put("id", 1))])  # fmt: skip
    assert _files(tmp_path / "c") == ["login+0+0000000000+0000000000.parquet",
                                      "login+0+0000000001+0000000001.parquet"]  # fmt: skip


def test_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigException, match=r'Missing required configuration "store\.url"'):
        HdfsSinkConnector().start({"flush.size": "3", "topics": "login"})
    with pytest.raises(ConfigException, match=r"flush\.size"):
        HdfsSinkConnector().start({"store.url": f"file://{tmp_path}", "topics": "login"})
    task = _task(tmp_path)
    with pytest.raises(ConnectError, match=r"writes Struct values with a schema.*has no schema"):
        task.put([SinkRecord(topic="login", kafka_partition=0, kafka_offset=0, value="text")])
    task.put([SinkRecord(topic="login", kafka_partition=0, kafka_offset=0, value=None)])
    task.pre_commit({})
    assert _files(tmp_path) == []  # a tombstone writes nothing

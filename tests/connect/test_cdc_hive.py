"""Issue 30's MySQL -> Hive with CDC (the schema-change problem of 000 §7.1.4, with no gaps):
MariaDB's binlog -> Debezium's MariaDB connector -> JSON with schemas ->
``ExtractNewRecordState`` (deletes rewritten as rows with ``__deleted=true``) -> the HDFS sink
with Hive integration. The append-only Hive table holds every row version in order: the
snapshot, an update, an insert, a delete, then a column added with ``ALTER TABLE`` and rows
with it, all in one micro-batch of the sink (row schemas without versions). Spark SQL in
another process reads it back: decimals as decimals, ``DATETIME(3)`` as timestamps, NULL in
the new column before the ``ALTER``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from confluent_kafka import Consumer, TopicPartition

from tests.broker.clients import quiet
from tests.connect.test_debezium_mariadb import _config, _database, _execute
from tests.connect.test_hdfs_hive import _hive_settings
from tests.connect.test_worker_recovery import _create_topic
from tests.connect.workers import WorkerProcess, distributed_props, wait_for
from tests.databases import MariaDbServer

JSON = "org.apache.kafka.connect.json.JsonConverter"
CONVERTERS = {"key.converter": JSON, "value.converter": JSON}
COLUMNS = "id, name, balance, updated_at, country, __op, __deleted"
EXPECTED = [  # every row version, in the topic's order
    [1, "sally", "1000.00", "2026-01-01 00:00:00", None, "r", "false"],
    [2, "george", None, "2026-01-01 00:00:01.500000", None, "r", "false"],
    [3, "edward", "-7.25", "2026-01-01 00:00:02", None, "r", "false"],
    [1, "sally", "1234.50", "2026-01-02 09:30:00.123000", None, "u", "false"],
    [4, "anne", "0.10", "2026-01-02 10:00:00", None, "c", "false"],
    [2, "george", None, "2026-01-01 00:00:01.500000", None, "d", "true"],
    [5, "kim", "99999999.99", "2026-01-03 00:00:00.999000", "NL", "c", "false"],
    [3, "edward", "-7.25", "2026-01-01 00:00:02", "DE", "u", "false"],
]


@pytest.fixture(scope="module")
def server() -> Iterator[MariaDbServer]:
    """One MariaDB of this module with the binlog as CDC needs it."""
    with MariaDbServer(binlog=True) as db:
        yield db


def _sink(topic: str, lake: Path) -> dict[str, Any]:
    """The HDFS sink over the CDC topic: rows, deletes as rows, the Kafka offset as ``__offset``."""
    return {
        "connector.class": "io.confluent.connect.hdfs.HdfsSinkConnector", "topics": topic,
        "store.url": lake.as_uri(), "flush.size": "1000",
        "format.class": "io.confluent.connect.hdfs.parquet.ParquetFormat",
        "schema.compatibility": "BACKWARD", "hive.integration": "true", "hive.database": "cdc",
        "transforms": "unwrap,offset",
        "transforms.unwrap.type": "io.debezium.transforms.ExtractNewRecordState",
        "transforms.unwrap.delete.tombstone.handling.mode": "rewrite",
        "transforms.unwrap.add.fields": "op,source.ts_ms",
        "transforms.offset.type": "org.apache.kafka.connect.transforms.InsertField$Value",
        "transforms.offset.offset.field": "__offset", **CONVERTERS,
    }  # fmt: skip


def _messages(bootstrap: str, topic: str) -> int:
    """The records of the topic's one partition (tombstones included)."""
    consumer = Consumer(quiet({"bootstrap.servers": bootstrap, "group.id": uuid.uuid4().hex}))
    try:
        return int(consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)[1])
    finally:
        consumer.close()


def _rows_in_files(lake: Path, topic: str) -> int:
    files = (lake / "topics" / topic).glob("partition=*/*.parquet")
    return sum(pq.read_metadata(f).num_rows for f in files)


def _file_offsets(lake: Path, topic: str) -> list[tuple[int, int]]:
    """The (first, last) offsets of the topic's files, from their names."""
    files = (lake / "topics" / topic).glob("partition=*/*.parquet")
    return sorted((int(f.stem.split("+")[2]), int(f.stem.split("+")[3])) for f in files)


def _query(hive: Path, sql: str, cwd: Path) -> dict[str, Any]:
    """*sql*'s column types and rows, from a Spark session of another process over the Hive
    metastore in *hive* (Derby in files: the worker must have stopped), in UTC."""
    settings = {**_hive_settings(hive), "spark.sql.session.timeZone": "UTC"}
    script = textwrap.dedent(f"""
        import json
        from pyspark.sql import SparkSession
        builder = SparkSession.builder.master("local[1]")
        for key, value in {settings!r}.items():
            builder = builder.config(key, value)
        spark = builder.enableHiveSupport().getOrCreate()
        frame = spark.sql({sql!r})
        rows = [list(row) for row in frame.collect()]
        print(json.dumps({{"types": frame.dtypes, "rows": rows}}, default=str))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=300, cwd=cwd, env={**os.environ, "TZ": "UTC"})  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def test_cdc_rows_into_a_hive_table_that_gains_a_column(
    tmp_path: Path, bootstrap: str, topic_name: str, server: MariaDbServer
) -> None:
    prefix = f"cdc-hive-{uuid.uuid4().hex[:8]}"
    db = _database(server, prefix)
    _execute(server, db,
             "CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(40) NOT NULL, "
             "balance DECIMAL(10,2), updated_at DATETIME(3) NOT NULL)",
             "INSERT INTO customers VALUES (1, 'sally', 1000.00, '2026-01-01 00:00:00'), "
             "(2, 'george', NULL, '2026-01-01 00:00:01.5'), "
             "(3, 'edward', -7.25, '2026-01-01 00:00:02')")  # fmt: skip
    topic = f"{prefix}.{db}.customers"
    table = f"cdc.{topic.replace('.', '_').replace('-', '_')}"
    _create_topic(bootstrap, topic)
    hive, lake = tmp_path / "hive", tmp_path / "lake"
    source = {**_config(server, bootstrap, prefix, db), **CONVERTERS}
    worker = WorkerProcess(distributed_props(bootstrap, topic_name, **_hive_settings(hive)),
                           tmp_path / "w").start()  # fmt: skip
    try:
        rest = worker.rest
        assert rest is not None
        rest.ok("POST", "/connectors", {"name": "cdc", "config": source})
        rest.ok("POST", "/connectors", {"name": "lake", "config": _sink(topic, lake)})
        wait_for("the snapshot in files", lambda: _rows_in_files(lake, topic) == 3, timeout=180)
        wait_for("the table", lambda: f"Hive table {table} over" in worker.tail(400))
        # the changes reach the sink in one micro-batch: before and after the ALTER
        rest.ok("PUT", "/connectors/lake/pause")
        wait_for("the sink paused", lambda: rest.get("/connectors/lake/status")[1]
                 ["tasks"][0]["state"] == "PAUSED")  # fmt: skip
        _execute(server, db,
                 "UPDATE customers SET balance = 1234.50, updated_at = '2026-01-02 09:30:00.123' "
                 "WHERE id = 1",
                 "INSERT INTO customers VALUES (4, 'anne', 0.10, '2026-01-02 10:00:00')",
                 "DELETE FROM customers WHERE id = 2",
                 "ALTER TABLE customers ADD COLUMN country VARCHAR(2) NULL",
                 "INSERT INTO customers VALUES (5, 'kim', 99999999.99, "
                 "'2026-01-03 00:00:00.999', 'NL')",
                 "UPDATE customers SET country = 'DE' WHERE id = 3")  # fmt: skip
        # 3 snapshot rows, u, c, d and its tombstone, c, u
        wait_for("the changes in the topic", lambda: _messages(bootstrap, topic) == 9)
        rest.ok("PUT", "/connectors/lake/resume")
        wait_for("every row version in files", lambda: _rows_in_files(lake, topic) == 8)
        wait_for("the new column", lambda: "updated_at, country" in worker.tail(400))
        # the snapshot; then one micro-batch: the rows before the ALTER, those after it (6 is
        # the delete's tombstone)
        assert _file_offsets(lake, topic) == [(0, 2), (3, 5), (7, 8)]
        _, status = rest.get("/connectors/lake/status")
        assert status["tasks"][0]["state"] == "RUNNING", status
    except BaseException:
        print(worker.tail(200))
        raise
    finally:
        worker.stop()
    result = _query(hive, f"SELECT {COLUMNS}, __source_ts_ms FROM {table} ORDER BY __offset",
                    tmp_path)  # fmt: skip
    assert dict(result["types"]) == {
        "id": "int", "name": "string", "balance": "decimal(10,2)", "updated_at": "timestamp",
        "country": "string", "__op": "string", "__deleted": "string", "__source_ts_ms": "bigint",
    }  # fmt: skip
    assert [row[:-1] for row in result["rows"]] == EXPECTED
    assert all(row[-1] > 1_700_000_000_000 for row in result["rows"])

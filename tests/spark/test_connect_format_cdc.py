"""Debezium's MariaDB connector straight into a Parquet table with ``format("connect")``, no
Kafka and no Connect: the driver killed with -9 while rows are inserted, then started again on
the same checkpoint: every change (the snapshot's rows and each insert) in the table exactly
once. And one table's changes as typed structs, from MariaDB and from PostgreSQL."""

from __future__ import annotations

import collections
import json
import random
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import SparkSession

from tests.databases import MariaDbServer, PostgresServer

pytestmark = pytest.mark.timeout(600)

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT_ROWS = 200
INSERTS = 1500


@pytest.fixture(scope="module")
def server() -> Iterator[MariaDbServer]:
    with MariaDbServer(binlog=True) as db:
        yield db


@pytest.fixture(scope="module")
def postgres() -> Iterator[PostgresServer]:
    with PostgresServer(logical=True) as db:
        yield db


def _job(config: dict[str, Any], table: Path, checkpoint: Path) -> subprocess.Popen[bytes]:
    job = subprocess.Popen(
        [sys.executable, "-m", "tests.spark.cdc_job", json.dumps(config), str(table),
         str(checkpoint)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    assert job.stdout is not None
    assert job.stdout.readline().strip() == b"started"
    return job


def _changes(spark: SparkSession, table: Path, topic: str) -> list[dict[str, Any]]:
    """The committed rows of *topic* (the file sink's log names the committed files)."""
    try:
        rows = spark.read.parquet(str(table)).where(f"topic = '{topic}'").collect()
    except AnalysisException:  # no file committed yet
        return []
    return [json.loads(r.value) for r in rows]


def _batches(folder: Path) -> int:
    return max((int(p.name) for p in folder.iterdir() if p.name.isdigit()), default=-1)


def _mid_batch(checkpoint: Path) -> bool:
    """Whether the query has planned a micro-batch it has not committed (a kill now makes
    the next driver replay it: its polled records must come again)."""
    return _batches(checkpoint / "offsets") > _batches(checkpoint / "commits")


def _wait(what: str, done: Any, job: subprocess.Popen[bytes], timeout: float = 240) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        assert job.poll() is None, f"the job died waiting for {what}"
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.005)


def test_cdc_into_parquet_exactly_once_across_a_driver_kill(
    server: MariaDbServer, spark: SparkSession, tmp_path: Path
) -> None:
    db = f"cdc_fmt_{random.randint(0, 10**6)}"
    server.create_database(db)
    with server.connect(db) as connection, connection.cursor() as cursor:
        cursor.execute("CREATE TABLE orders (id INT PRIMARY KEY, note VARCHAR(40))")
        cursor.executemany("INSERT INTO orders VALUES (%s, %s)",
                           [(i, f"snap-{i}") for i in range(SNAPSHOT_ROWS)])  # fmt: skip
        connection.commit()
    prefix = "shop"
    config = {
        "connector.class": "io.debezium.connector.mariadb.MariaDbConnector",
        "database.hostname": "127.0.0.1", "database.port": str(server.port),
        "database.user": "root", "database.server.id": str(random.randint(1000, 2**31)),
        "topic.prefix": prefix, "database.include.list": db, "poll.interval.ms": "100",
        "schema.history.internal": "io.debezium.storage.file.history.FileSchemaHistory",
        "schema.history.internal.file.filename": str(tmp_path / "history.dat"),
        "key.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter.schemas.enable": "false",
    }  # fmt: skip
    table, checkpoint, topic = tmp_path / "orders", tmp_path / "ckpt", f"{prefix}.{db}.orders"

    def insert() -> None:
        with server.connect(db) as connection, connection.cursor() as cursor:
            for i in range(INSERTS):
                cursor.execute("INSERT INTO orders VALUES (%s, %s)", (10_000 + i, f"ins-{i}"))
                connection.commit()
                time.sleep(0.004)

    job = _job(config, table, checkpoint)
    inserting = threading.Thread(target=insert)
    try:
        _wait("the snapshot", lambda: len(_changes(spark, table, topic)) >= SNAPSHOT_ROWS, job)
        inserting.start()
        _wait("some inserts", lambda: len(_changes(spark, table, topic)) >= SNAPSHOT_ROWS + 200,
              job)  # fmt: skip
        _wait("a micro-batch planned, not committed", lambda: _mid_batch(checkpoint), job)
    finally:
        job.kill()  # mid-batch, mid-stream: inserts go on while no driver runs
        job.wait()
    written = len(_changes(spark, table, topic))
    assert written < SNAPSHOT_ROWS + INSERTS, "every insert was in before the kill"
    job = _job(config, table, checkpoint)
    try:
        inserting.join()
        total = SNAPSHOT_ROWS + INSERTS
        _wait("every change", lambda: len(_changes(spark, table, topic)) >= total, job)
        time.sleep(2)  # a duplicate would come with the next micro-batches
        changes = _changes(spark, table, topic)
    finally:
        job.kill()
        job.wait()
    ids = collections.Counter(c["after"]["id"] for c in changes)
    assert [i for i, n in ids.items() if n > 1] == []
    assert sorted(ids) == list(range(SNAPSHOT_ROWS)) + list(range(10_000, 10_000 + INSERTS))
    assert collections.Counter(c["op"] for c in changes) == {"r": SNAPSHOT_ROWS, "c": INSERTS}


def _one_table_config(database: str, server: Any, db: str, tmp_path: Path) -> dict[str, str]:
    """A capture of database *db* (one table) by *database*'s connector, without Kafka."""
    config = {"database.hostname": "127.0.0.1", "database.port": str(server.port),
              "topic.prefix": "typed", "poll.interval.ms": "100"}  # fmt: skip
    if database == "postgresql":
        return {**config, "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
                "database.user": "postgres", "database.dbname": db,
                "slot.name": f"s_{db}"}  # fmt: skip
    return {
        **config,
        "connector.class": "io.debezium.connector.mariadb.MariaDbConnector",
        "database.user": "root",
        "database.server.id": str(random.randint(1000, 2**31)),
        "database.include.list": db,
        "include.schema.changes": "false",
        "schema.history.internal": "io.debezium.storage.file.history.FileSchemaHistory",
        "schema.history.internal.file.filename": str(tmp_path / "history.dat"),
    }


@pytest.mark.parametrize("database", ["mariadb", "postgresql"])
def test_one_tables_changes_as_typed_structs(
    database: str, request: pytest.FixtureRequest, spark: SparkSession, tmp_path: Path
) -> None:
    """No converter named and one table captured (MariaDB: without schema change events):
    keys and values are Debezium's structs as Spark columns (``after.id``, ``op``), a
    delete's tombstone a null value."""
    server = request.getfixturevalue("server" if database == "mariadb" else "postgres")
    db = f"cdc_typed_{random.randint(0, 10**6)}"
    server.create_database(db)
    with server.connect(db) as connection, connection.cursor() as cursor:
        cursor.execute("CREATE TABLE items (id INT PRIMARY KEY, price DECIMAL(6,2), note TEXT)")
        cursor.execute("INSERT INTO items VALUES (1, 1.50, 'one'), (2, 2.25, NULL)")
        connection.commit()
    config = _one_table_config(database, server, db, tmp_path)
    changes = spark.readStream.format("connect").options(**config).load()
    assert changes.schema["key"].dataType.simpleString() == "struct<id:int>"
    value = changes.schema["value"].dataType
    assert [f.name for f in value.fields][:5] == ["before", "after", "source", "transaction", "op"]
    assert value["after"].dataType.simpleString() == (
        "struct<id:int,price:decimal(6,2),note:string>"
    )
    seen: list[Any] = []
    query = (
        changes.writeStream.foreachBatch(
            lambda batch, _: seen.extend(
                batch.selectExpr(
                    "key.id AS key", "value.op AS op", "value.after AS after"
                ).collect()
            )
        )
        .trigger(processingTime="200 milliseconds")
        .start()
    )
    try:
        deadline = time.monotonic() + 120
        while len(seen) < 2 and time.monotonic() < deadline:
            query.processAllAvailable()
        with server.connect(db) as connection, connection.cursor() as cursor:
            cursor.execute("INSERT INTO items VALUES (3, 9.99, 'three')")
            cursor.execute("UPDATE items SET price = 2.50 WHERE id = 2")
            cursor.execute("DELETE FROM items WHERE id = 1")
            connection.commit()
        while len(seen) < 6 and time.monotonic() < deadline:
            query.processAllAvailable()
            time.sleep(0.1)
    finally:
        query.stop()
    got = [(r.key, r.op, None if r.after is None else (r.after.id, str(r.after.price)))
           for r in seen]  # fmt: skip
    assert got == [
        (1, "r", (1, "1.50")), (2, "r", (2, "2.25")), (3, "c", (3, "9.99")),
        (2, "u", (2, "2.50")), (1, "d", None), (1, None, None),  # the delete, its tombstone
    ]  # fmt: skip


@pytest.mark.parametrize("database", ["mariadb", "postgresql"])
def test_a_batch_read_of_the_snapshot_with_initial_only(
    database: str, request: pytest.FixtureRequest, spark: SparkSession, tmp_path: Path
) -> None:
    """``spark.read.format("connect")`` plans until a batch would be empty: a busy database's
    stream never is, so ``snapshot.mode=initial_only`` is the bounded read of the tables
    as they are (typed rows, one per row)."""
    server = request.getfixturevalue("server" if database == "mariadb" else "postgres")
    db = f"cdc_batch_{random.randint(0, 10**6)}"
    server.create_database(db)
    with server.connect(db) as connection, connection.cursor() as cursor:
        cursor.execute("CREATE TABLE items (id INT PRIMARY KEY, note TEXT)")
        cursor.executemany("INSERT INTO items VALUES (%s, %s)", [(i, f"n{i}") for i in range(50)])
        connection.commit()
    config = {**_one_table_config(database, server, db, tmp_path), "snapshot.mode": "initial_only"}
    rows = spark.read.format("connect").options(**config).load()
    got = rows.selectExpr("value.op AS op", "value.after.id AS id", "value.after.note AS note")
    assert sorted(tuple(r) for r in got.collect()) == [("r", i, f"n{i}") for i in range(50)]

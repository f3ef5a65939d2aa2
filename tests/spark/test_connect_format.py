"""``format("connect")``: Seaway's connectors in a user's own PySpark job, without Connect and
(for a source into a file table) without Kafka: the FileStream source into Parquet across a
restart, a batch read with converters and a transformation, the JDBC source typed into
``foreachBatch``, a DataFrame into the FileStream sink, and the errors that stop a query
before it starts."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from pyspark.errors import PySparkException
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.types import DecimalType, IntegerType, StringType, StructType, TimestampType

from tests.spark.helpers import run_caught_up

pytestmark = pytest.mark.timeout(300)

STRINGS = "org.apache.kafka.connect.storage.StringConverter"
JSON = "org.apache.kafka.connect.json.JsonConverter"


def _lines(path: Path, first: int, count: int) -> None:
    with path.open("a") as out:
        out.writelines(f"line-{i}\n" for i in range(first, first + count))


def _file_source(spark: SparkSession, path: Path) -> DataFrame:
    return (
        spark.readStream.format("connect")
        .option("connector.class", "FileStreamSource")
        .option("file", str(path))
        .option("topic", "lines")
        .load()
    )


def test_file_lines_stream_into_parquet_once_across_a_restart(
    spark: SparkSession, tmp_path: Path
) -> None:
    source, table, checkpoint = tmp_path / "in.txt", tmp_path / "table", tmp_path / "ckpt"
    _lines(source, 0, 300)
    frame = _file_source(spark, source)
    assert frame.schema["value"].dataType == StringType()  # typed: the connector's schema

    writer = (
        frame.writeStream.format("parquet")
        .option("path", str(table))
        .option("checkpointLocation", str(checkpoint))
    )
    run_caught_up(writer)
    _lines(source, 300, 200)  # written while no query runs
    run_caught_up(writer)  # the same checkpoint: goes on from its offsets
    rows = spark.read.parquet(str(table)).select("topic", "partition", "offset", "value")
    values = [r.value for r in rows.collect()]
    assert sorted(values, key=lambda v: int(v.split("-")[1])) == [f"line-{i}" for i in range(500)]
    first = rows.where("value = 'line-0'").collect()[0]
    assert first.topic == "lines"
    assert json.loads(first.partition) == {"filename": str(source)}
    assert json.loads(first.offset)["position"] > 0


def test_batch_read_with_a_converter_and_a_transformation(
    spark: SparkSession, tmp_path: Path
) -> None:
    source = tmp_path / "in.txt"
    _lines(source, 0, 20)
    frame = (
        spark.read.format("connect")
        .option("connector.class", "org.apache.kafka.connect.file.FileStreamSourceConnector")
        .option("file", str(source))
        .option("topic", "lines")
        .option("value.converter", JSON)
        .option("value.converter.schemas.enable", "false")
        .option("transforms", "Wrap")  # an alias with capitals: Spark lowercases option names
        .option("transforms.Wrap.type", "org.apache.kafka.connect.transforms.HoistField$Value")
        .option("transforms.Wrap.field", "line")
        .load()
    )
    assert frame.schema["value"].dataType.simpleString() == "binary"
    values = [json.loads(r.value) for r in frame.orderBy("offset").collect()]
    assert sorted(values, key=lambda v: int(v["line"].split("-")[1])) == [
        {"line": f"line-{i}"} for i in range(20)
    ]


def test_a_dataframe_into_the_file_sink(spark: SparkSession, tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    frame = spark.createDataFrame([(f"row-{i}",) for i in range(40)], "value string")
    (
        frame.repartition(2)
        .write.format("connect")
        .option("connector.class", "FileStreamSink")
        .option("file", str(target))
        .option("topics", "rows")
        .option("value.converter", STRINGS)
        .mode("append")
        .save()
    )
    assert sorted(target.read_text().split()) == sorted(f"row-{i}" for i in range(40))


def test_jdbc_rows_typed_into_foreach_batch(spark: SparkSession, mariadb: Any) -> None:
    db = f"fmt_{int(time.time() * 1000) % 10**9}"
    with mariadb.connect() as connection, connection.cursor() as cursor:
        cursor.execute(f"CREATE DATABASE {db}")
        cursor.execute(
            f"CREATE TABLE {db}.orders (id INT PRIMARY KEY AUTO_INCREMENT, "
            "customer VARCHAR(40) NOT NULL, amount DECIMAL(10,2), placed DATETIME(3))"
        )
        for i in range(50):
            cursor.execute(
                f"INSERT INTO {db}.orders (customer, amount, placed) VALUES (%s, %s, %s)",
                (f"c{i}", f"{i}.25", f"2026-01-02 03:04:{i % 60:02d}.500"),
            )
        connection.commit()
    frame = (
        spark.readStream.format("connect")
        .option("connector.class", "io.confluent.connect.jdbc.JdbcSourceConnector")
        .option("connection.url", f"jdbc:mysql://127.0.0.1:{mariadb.port}/{db}?user=root")
        .option("mode", "incrementing")
        .option("incrementing.column.name", "id")
        .option("table.whitelist", "orders")
        .option("topic.prefix", "db-")
        .load()
    )
    value = frame.schema["value"].dataType
    assert isinstance(value, StructType)
    assert [(f.name, f.dataType) for f in value.fields] == [
        ("id", IntegerType()),
        ("customer", StringType()),
        ("amount", DecimalType(10, 2)),
        ("placed", TimestampType()),
    ]
    seen: list[Any] = []

    def collect(batch: DataFrame, batch_id: int) -> None:
        seen.extend(batch.select("topic", "value.*").collect())

    query = frame.writeStream.foreachBatch(collect).trigger(processingTime="200 milliseconds")
    running = query.start()
    try:
        running.processAllAvailable()
        with mariadb.connect() as connection, connection.cursor() as cursor:
            cursor.execute(f"INSERT INTO {db}.orders (customer, amount) VALUES ('late', 1.5)")
            connection.commit()
        deadline = time.monotonic() + 60
        while len(seen) < 51 and time.monotonic() < deadline:
            running.processAllAvailable()
            time.sleep(0.2)
    finally:
        running.stop()
    assert sorted(r.id for r in seen) == list(range(1, 52))
    first = next(r for r in seen if r.id == 1)
    assert (first.topic, first.customer, str(first.amount)) == ("db-orders", "c0", "0.25")
    assert first.placed.microsecond == 500_000
    assert next(r for r in seen if r.id == 51).customer == "late"


def _failure(load: Any) -> str:
    with pytest.raises(PySparkException) as raised:
        load()
    return str(raised.value)


def test_errors_name_the_option_and_the_fix_before_a_query_starts(
    spark: SparkSession, tmp_path: Path
) -> None:
    reader = spark.readStream.format("connect")
    unknown = _failure(lambda: reader.option("connector.class", "NoSuchConnector").load())
    assert "option connector.class=NoSuchConnector" in unknown
    assert "FileStreamSource" in unknown  # the available ones are listed
    missing = _failure(lambda: spark.readStream.format("connect").option("file", "x").load())
    assert "needs the option connector.class" in missing
    sink = _failure(
        lambda: (
            spark.readStream.format("connect")
            .options(**{"connector.class": "FileStreamSink", "file": "x", "topics": "t"})
            .load()
        )
    )
    assert "FileStreamSinkConnector is a sink connector" in sink
    assert 'df.writeStream.format("connect")' in sink
    invalid = _failure(
        lambda: (
            spark.read.format("connect")
            .options(**{"connector.class": "JdbcSource", "mode": "sometimes"})
            .load()
        )
    )
    assert "option connection.url" in invalid and "option mode=sometimes" in invalid
    frame = spark.createDataFrame([("a",)], "line string")
    no_value = _failure(
        lambda: (
            frame.write.format("connect")
            .options(
                **{"connector.class": "FileStreamSink", "file": str(tmp_path / "o"), "topics": "t"}
            )
            .mode("append")
            .save()
        )
    )
    assert "needs a value column" in no_value
    source_as_sink = _failure(
        lambda: (
            frame.selectExpr("line AS value")
            .write.format("connect")
            .options(**{"connector.class": "FileStreamSource", "file": "x", "topic": "t"})
            .mode("append")
            .save()
        )
    )
    assert "is a source connector" in source_as_sink
    assert not (tmp_path / "o").exists()


def test_a_table_copied_typed_from_jdbc_source_to_jdbc_sink(
    spark: SparkSession, mariadb: Any, postgres: Any, tmp_path: Path
) -> None:
    """MariaDB -> PostgreSQL with no converter anywhere: the source's typed struct goes to the
    sink as it is (its Connect schema from the Spark type), upserted by key, the table made."""
    source_db = f"fmt_copy_{int(time.time() * 1000) % 10**9}"
    with mariadb.connect() as connection, connection.cursor() as cursor:
        cursor.execute(f"CREATE DATABASE {source_db}")
        cursor.execute(
            f"CREATE TABLE {source_db}.items (id INT PRIMARY KEY, name VARCHAR(40) NOT NULL, "
            "price DECIMAL(8,3), added DATETIME(3))"
        )
        cursor.executemany(
            f"INSERT INTO {source_db}.items VALUES (%s, %s, %s, %s)",
            [(i, f"item {i}", f"{i}.125", f"2026-03-04 05:06:{i % 60:02d}.250") for i in range(30)],
        )
        connection.commit()
    target_db = source_db.replace("copy", "target")
    postgres.create_database(target_db)
    items = (
        spark.readStream.format("connect")
        .option("connector.class", "JdbcSourceConnector")
        .option("connection.url", f"jdbc:mysql://127.0.0.1:{mariadb.port}/{source_db}?user=root")
        .option("mode", "incrementing")
        .option("incrementing.column.name", "id")
        .option("table.whitelist", "items")
        .option("topic.prefix", "src-")
        .load()
    )
    run_caught_up(
        items.select("value")
        .writeStream.format("connect")
        .option("connector.class", "io.confluent.connect.jdbc.JdbcSinkConnector")
        .option("connection.url", postgres.url(target_db))
        .option("topics", "items")
        .option("auto.create", "true")
        .option("insert.mode", "upsert")
        .option("pk.mode", "record_value")
        .option("pk.fields", "id")
        .option("checkpointLocation", str(tmp_path / "ckpt"))
    )
    with postgres.connect(target_db) as connection:
        rows = connection.execute("SELECT id, name, price, added FROM items ORDER BY id").fetchall()
    assert [(r[0], r[1], str(r[2])) for r in rows] == [
        (i, f"item {i}", f"{i}.125") for i in range(30)
    ]
    assert rows[7][3].isoformat().startswith("2026-03-04T05:06:07.250")


def test_a_typed_value_with_a_converter_named_is_refused(
    spark: SparkSession, tmp_path: Path
) -> None:
    frame = spark.createDataFrame([(1, "a")], "id int, name string").selectExpr(
        "struct(id, name) AS value"
    )
    refused = _failure(
        lambda: (
            frame.write.format("connect")
            .options(
                **{
                    "connector.class": "FileStreamSink",
                    "file": str(tmp_path / "o"),
                    "topics": "t",
                    "value.converter": STRINGS,
                }
            )
            .mode("append")
            .save()
        )
    )
    assert "column value is struct<id:int,name:string>" in refused
    assert "drop the option" in refused

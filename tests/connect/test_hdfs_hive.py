"""The seed's MySQL -> Hive end: Avro records into Parquet files and a table in Spark's Hive
metastore (the pyspark wheel's embedded Derby) that gains a column when the record schema
gains a field, queried afterwards with Spark SQL from another process."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from confluent_kafka import Producer
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

from seaway.registry.server import RegistryServer
from tests.broker.clients import create_topic, quiet
from tests.connect.workers import WorkerProcess, distributed_props, wait_for

AVRO = "io.confluent.connect.avro.AvroConverter"
V1 = {"type": "record", "name": "login", "fields": [
    {"name": "id", "type": "int"}, {"name": "username", "type": "string"}]}  # fmt: skip
V2 = {**V1, "fields": [*V1["fields"], {"name": "country", "type": ["null", "string"],
                                         "default": None}]}  # fmt: skip


def _hive_settings(root: Path) -> dict[str, str]:
    """A Spark session with a Hive metastore in Derby files under *root*."""
    return {
        "spark.sql.catalogImplementation": "hive",
        "spark.sql.warehouse.dir": str(root / "warehouse"),
        "spark.hadoop.javax.jdo.option.ConnectionURL":
            f"jdbc:derby:;databaseName={root / 'metastore_db'};create=true",
        "spark.driver.extraJavaOptions": f"-Dderby.system.home={root}",
    }  # fmt: skip


def _produce(bootstrap: str, topic: str, registry: str, schema: dict[str, Any],
             rows: list[dict[str, Any]]) -> None:  # fmt: skip
    serializer = AvroSerializer(SchemaRegistryClient({"url": registry}), json.dumps(schema))
    producer = Producer(quiet({"bootstrap.servers": bootstrap}))
    for row in rows:
        value = serializer(row, SerializationContext(topic, MessageField.VALUE))
        producer.produce(topic, value=value, partition=row["id"] % 2)
    assert producer.flush(30) == 0


def test_files_and_a_hive_table_that_gains_a_column(
    tmp_path: Path, bootstrap: str, topic_name: str, registry: RegistryServer
) -> None:
    topic = f"{topic_name}-login".replace("-", "_")
    create_topic(bootstrap, topic, partitions=2)
    _produce(bootstrap, topic, registry.url, V1,
             [{"id": i, "username": f"user{i}"} for i in range(1, 4)])  # fmt: skip
    hive = tmp_path / "hive"
    props = distributed_props(bootstrap, topic_name, **_hive_settings(hive))
    worker = WorkerProcess(props, tmp_path / "w").start()
    try:
        assert worker.rest is not None
        worker.rest.ok("POST", "/connectors", {"name": "hive-login", "config": {
            "connector.class": "HdfsSinkConnector", "topics": topic, "flush.size": "100",
            "store.url": f"file://{tmp_path / 'lake'}", "schema.compatibility": "BACKWARD",
            "hive.integration": "true", "hive.database": "shop", "value.converter": AVRO,
            "value.converter.schema.registry.url": registry.url}})  # fmt: skip
        wait_for(
            "the table and its partitions", lambda: "partitions ['0', '1']" in worker.tail(400)
        )
        _produce(bootstrap, topic, registry.url, V2,
                 [{"id": 4, "username": "jun", "country": "NL"}])  # fmt: skip
        wait_for("the new column", lambda: "username, country" in worker.tail(400))
    finally:
        worker.stop()
    # The metastore is Derby in files: read it from a new Spark session in another process.
    script = textwrap.dedent(f"""
        import json
        from pyspark.sql import SparkSession
        builder = SparkSession.builder.master("local[1]")
        for key, value in {_hive_settings(hive)!r}.items():
            builder = builder.config(key, value)
        spark = builder.enableHiveSupport().getOrCreate()
        rows = spark.sql("SELECT id, username, country, partition FROM shop.{topic} ORDER BY id")
        print(json.dumps([r.asDict() for r in rows.collect()]))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=300, cwd=tmp_path)  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [
        {"id": 1, "username": "user1", "country": None, "partition": "1"},
        {"id": 2, "username": "user2", "country": None, "partition": "0"},
        {"id": 3, "username": "user3", "country": None, "partition": "1"},
        {"id": 4, "username": "jun", "country": "NL", "partition": "0"},
    ]

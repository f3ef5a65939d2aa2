"""The AvroConverter against confluent-kafka's AvroSerializer / AvroDeserializer.

Both sides encode the same records (a 10-field login row: ints, strings, an optional
string, a decimal, a timestamp) with the same registry (Seaway's, on an embedded broker),
in the same process, one record at a time as Connect converts them; the registry lookups
are cached on both sides after the first record. Reported: records/s and CPU µs per record
for each, and Seaway's ratio to Confluent's (higher is better), serializing and reading.

    .venv/bin/python -m bench.avro_converter [--records N]
"""

from __future__ import annotations

import argparse
import datetime as dt
import decimal
import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

from bench._util import progress
from seaway.broker import BrokerThread
from seaway.connect.api.data import Schema, SchemaBuilder, Struct
from seaway.connect.api.data.logical import Decimal, Timestamp
from seaway.connect.converters.avro_data import from_connect_schema, from_connect_value
from seaway.connect.converters.registry import new_converter
from seaway.registry.server import RegistryServer

LOGIN = (
    SchemaBuilder.struct().name("bench.Login")
    .field("id", Schema.INT64_SCHEMA).field("user", Schema.STRING_SCHEMA)
    .field("host", Schema.STRING_SCHEMA).field("port", Schema.INT32_SCHEMA)
    .field("email", Schema.OPTIONAL_STRING_SCHEMA).field("score", Schema.FLOAT64_SCHEMA)
    .field("active", Schema.BOOLEAN_SCHEMA).field("amount", Decimal.schema(2))
    .field("login_time", Timestamp.SCHEMA).field("agent", Schema.STRING_SCHEMA)
    .build()
)  # fmt: skip


def _record(i: int) -> Struct:
    return (
        Struct(LOGIN).put("id", i).put("user", f"user{i % 1000}").put("host", "10.0.0.7")
        .put("port", 5000 + i % 100).put("email", None if i % 3 else f"u{i}@example.com")
        .put("score", i / 7).put("active", i % 2 == 0)
        .put("amount", decimal.Decimal(i % 100000) / 100)
        .put("login_time", dt.datetime(2026, 1, 1, tzinfo=dt.UTC) + dt.timedelta(seconds=i))
        .put("agent", "Mozilla/5.0 (X11; Linux x86_64)")
    )  # fmt: skip


def _timed(what: str, count: int, run: Callable[[], Any]) -> tuple[float, float]:
    """(records/s, CPU µs per record) of *run*."""
    wall, cpu = time.perf_counter(), time.process_time()
    run()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    progress(f"{what}: {count / wall:,.0f} records/s, {cpu / count * 1e6:.1f} µs CPU/record")
    return count / wall, cpu / count * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=100_000)
    n = parser.parse_args().records
    records = [_record(i) for i in range(n)]
    dicts = [from_connect_value(LOGIN, r) for r in records]
    topic, context = "logins", SerializationContext("logins", MessageField.VALUE)
    with tempfile.TemporaryDirectory() as tmp, BrokerThread(Path(tmp)) as broker:
        props = {"listeners": "http://127.0.0.1:0",
                 "kafkastore.bootstrap.servers": broker.bootstrap_servers,
                 "kafkastore.topic.replication.factor": "1"}  # fmt: skip
        with RegistryServer(props) as registry:
            seaway = new_converter(
                "AvroConverter", {"schema.registry.url": registry.url}, is_key=False
            )
            client = SchemaRegistryClient({"url": registry.url})
            confluent = AvroSerializer(client, json.dumps(from_connect_schema(LOGIN)))
            reader = AvroDeserializer(client)
            seaway.from_connect_data(topic, LOGIN, records[0])  # registers; both then cache
            confluent(dicts[0], context)
            out: list[bytes] = []
            s_write = _timed("seaway write", n, lambda: out.extend(
                seaway.from_connect_data(topic, LOGIN, r) for r in records))  # fmt: skip
            c_out: list[bytes] = []
            c_write = _timed("confluent write", n, lambda: c_out.extend(
                confluent(d, context) for d in dicts))  # fmt: skip
            assert out[:100] == c_out[:100], "the two encodings differ"
            s_read = _timed("seaway read", n, lambda: [
                seaway.to_connect_data(topic, b) for b in out])  # fmt: skip
            c_read = _timed("confluent read", n, lambda: [reader(b, context) for b in out])
    for name, (ours, theirs) in (("write", (s_write, c_write)), ("read", (s_read, c_read))):
        print(
            f"{name}: {ours[0]:,.0f} vs {theirs[0]:,.0f} records/s = {ours[0] / theirs[0]:.2f}x "
            f"({ours[1]:.1f} vs {theirs[1]:.1f} µs CPU/record)"
        )


if __name__ == "__main__":
    main()

"""The AvroConverter against confluent-kafka's AvroSerializer / AvroDeserializer.

Both sides encode the same records (a 10-field login row: ints, strings, an optional
string, a decimal, a timestamp) with the same registry (Seaway's, on an embedded broker),
in the same process, one record at a time as Connect converts them; the registry lookups
are cached on both sides after the first record. Reported: records/s and CPU µs per record
for each, and Seaway's ratio to Confluent's, serializing and reading.

    .venv/bin/python -m bench.avro_converter [--records N] [--json PATH]
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

from bench._report import (
    CpuMeter,
    Row,
    arg_parser,
    comparison_table,
    own_cpu,
    report_head,
    run_in_data_dir,
    us_per,
)
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


def _timed(what: str, count: int, run: Callable[[], Any]) -> tuple[float, float | None]:
    """(records/s, CPU µs per record) of *run*."""
    meter, wall = CpuMeter(cpu=own_cpu), time.perf_counter()
    run()
    rate, cpu = count / (time.perf_counter() - wall), us_per(meter.read()["cpu"], count)
    progress(f"{what}: {rate:,.0f} records/s, {cpu:.1f} µs CPU/record")
    return rate, cpu


def main(argv: Sequence[str] | None = None) -> int:
    parser = arg_parser("avro_converter", __doc__)
    parser.add_argument("--records", type=int, default=100_000, help="default 100,000")
    args = parser.parse_args(argv)
    return run_in_data_dir(args, "avro", lambda root: run(args.records, root))


def run(n: int, root: Path) -> dict[str, Any]:
    """Both sides' writes and reads of *n* records; the JSON report."""
    records = [_record(i) for i in range(n)]
    dicts = [from_connect_value(LOGIN, r) for r in records]
    topic, context = "logins", SerializationContext("logins", MessageField.VALUE)
    with BrokerThread(root) as broker:
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
    rows = [
        Row(name, unit, ours[i], theirs[i])
        for name, ours, theirs in (("write", s_write, c_write), ("read", s_read, c_read))
        for i, unit in enumerate(("records/s", "µs CPU/record"))
    ]
    print(comparison_table(rows, "seaway", "confluent", "seaway/confluent"))
    return {
        **report_head("bench/avro_converter.py"),
        "records": n,
        "rows": [r.json("seaway", "confluent") for r in rows],
    }


if __name__ == "__main__":
    sys.exit(main())

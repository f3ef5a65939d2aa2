"""The CDC benchmark's reference: a plain Python script that reads MariaDB's binlog with
pymysqlreplication (the library Seaway's connector uses) from a GTID position and produces
every row change of one table to a topic with confluent-kafka, as the JSON records Debezium's
MariaDB connector writes with Kafka's JsonConverter (``schemas.enable=true``): key
``{"schema", "payload": {id}}``, value ``{"schema", "payload": {before, after, source,
transaction, op, ts_ms, ts_us, ts_ns}}`` with DECIMAL as base64 bytes and DATETIME(3) as epoch
milliseconds, and a tombstone after each delete.

It uses nothing of Seaway's: ``python -m bench._cdc_plain --port ... --gtid ... --topic ...``.
With ``--records N`` it exits once N records are acknowledged; without, it follows the binlog
until SIGTERM. Either way its last stdout line is a JSON object: records, seconds, its own CPU
seconds (``getrusage``: Python and librdkafka's threads) and peak RSS bytes.
"""

from __future__ import annotations

import argparse
import base64
import datetime
import json
import random
import resource
import signal
import sys
import time
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from confluent_kafka import Producer
from pymysqlreplication import BinLogStreamReader
from pymysqlreplication.event import MariadbGtidEvent
from pymysqlreplication.row_event import DeleteRowsEvent, UpdateRowsEvent, WriteRowsEvent

EPOCH = datetime.datetime(1970, 1, 1)
MILLISECOND = datetime.timedelta(milliseconds=1)
VERSION = "3.6.1.Final"  # Debezium's release whose events these are (``source.version``)
OPS = {WriteRowsEvent: "c", UpdateRowsEvent: "u", DeleteRowsEvent: "d"}


def row_schema(topic: str, field: str) -> dict[str, Any]:
    """The ``<topic>.Value`` struct of a ``customers`` row, as the envelope's *field*."""
    return {"type": "struct", "fields": [
        {"type": "int32", "optional": False, "field": "id"},
        {"type": "string", "optional": False, "field": "email"},
        {"type": "bytes", "optional": True, "name": "org.apache.kafka.connect.data.Decimal",
         "version": 1, "parameters": {"scale": "2", "connect.decimal.precision": "10"},
         "field": "balance"},
        {"type": "int64", "optional": True, "name": "io.debezium.time.Timestamp", "version": 1,
         "field": "updated_at"},
    ], "optional": True, "name": f"{topic}.Value", "field": field}  # fmt: skip


def field(kind: str, name: str, optional: bool = True) -> dict[str, Any]:
    return {"type": kind, "optional": optional, "field": name}


def source_schema() -> dict[str, Any]:
    """``io.debezium.connector.mariadb.Source``."""
    snapshot = {"type": "string", "optional": True, "name": "io.debezium.data.Enum",
                "version": 1, "parameters": {"allowed": "true,first,first_in_data_collection,"
                                             "last_in_data_collection,last,false,incremental"},
                "default": "false", "field": "snapshot"}  # fmt: skip
    return {"type": "struct", "fields": [
        field("string", "version", False), field("string", "connector", False),
        field("string", "name", False), field("int64", "ts_ms", False), snapshot,
        field("string", "db", False), field("string", "sequence"), field("int64", "ts_us"),
        field("int64", "ts_ns"), field("string", "table"), field("int64", "server_id", False),
        field("string", "gtid"), field("string", "file", False), field("int64", "pos", False),
        field("int32", "row", False), field("int64", "thread"), field("string", "query"),
    ], "optional": False, "name": "io.debezium.connector.mariadb.Source", "version": 1,
        "field": "source"}  # fmt: skip


def envelope_schema(topic: str) -> dict[str, Any]:
    """``<topic>.Envelope``."""
    transaction = {"type": "struct", "fields": [
        field("string", "id", False), field("int64", "total_order", False),
        field("int64", "data_collection_order", False),
    ], "optional": True, "name": "event.block", "version": 1, "field": "transaction"}  # fmt: skip
    return {"type": "struct", "fields": [
        row_schema(topic, "before"), row_schema(topic, "after"), source_schema(), transaction,
        field("string", "op", False), field("int64", "ts_ms"), field("int64", "ts_us"),
        field("int64", "ts_ns"),
    ], "optional": False, "name": f"{topic}.Envelope", "version": 2}  # fmt: skip


def key_schema(topic: str) -> dict[str, Any]:
    """``<topic>.Key``."""
    return {"type": "struct", "fields": [field("int32", "id", False)], "optional": False,
            "name": f"{topic}.Key"}  # fmt: skip


def dumps(node: Any) -> bytes:
    """Compact JSON, as Kafka's JsonConverter writes it."""
    return json.dumps(node, separators=(",", ":")).encode()


def decimal_bytes(value: Decimal | None) -> str | None:
    """A DECIMAL(10,2) as Connect's Decimal: the unscaled value's two's complement bytes
    (Java's ``BigInteger.toByteArray``), base64 in JSON."""
    if value is None:
        return None
    unscaled = int(value.scaleb(2))
    return base64.b64encode(
        unscaled.to_bytes((unscaled.bit_length() + 8) // 8, "big", signed=True)
    ).decode()


def row(values: dict[str, Any]) -> dict[str, Any]:
    """A ``customers`` row as Debezium writes it."""
    updated = values["updated_at"]
    return {"id": values["id"], "email": values["email"],
            "balance": decimal_bytes(values["balance"]),
            "updated_at": None if updated is None else (updated - EPOCH) // MILLISECOND,
            }  # fmt: skip


class Stop(Exception):
    """SIGTERM: flush and report."""


def _stop(_signum: int, _frame: Any) -> None:
    raise Stop


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench._cdc_plain")
    add = parser.add_argument
    add("--port", type=int, required=True, help="MariaDB's port on 127.0.0.1 (user root)")
    add("--gtid", required=True, help="start after this GTID position")
    add("--database", required=True)
    add("--table", default="customers")
    add("--bootstrap", required=True)
    add("--topic", required=True)
    add("--prefix", required=True, help="Debezium's topic.prefix (source.name, schema names)")
    add("--records", type=int, default=0, help="exit after this many records (0: follow)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, _stop)
    started = time.perf_counter()
    name = f"{args.prefix}.{args.database}.{args.table}"
    key_prefix = b'{"schema":' + dumps(key_schema(name)) + b',"payload":'
    value_prefix = b'{"schema":' + dumps(envelope_schema(name)) + b',"payload":'
    producer = Producer({"bootstrap.servers": args.bootstrap, "acks": "all", "linger.ms": 5,
                         "batch.size": 1_000_000})  # fmt: skip
    stream = BinLogStreamReader(
        connection_settings={"host": "127.0.0.1", "port": args.port, "user": "root",
                             "passwd": ""},
        server_id=random.randint(1000, 2**31), blocking=True, is_mariadb=True,
        auto_position=args.gtid, only_events=[MariadbGtidEvent, *OPS],
        only_schemas=[args.database], only_tables=[args.table], slave_heartbeat=1.0,
        enable_logging=False,
    )  # fmt: skip
    sent = 0
    first: float | None = None
    gtid = None

    def produce(key: bytes, value: bytes | None) -> None:
        while True:
            try:
                producer.produce(args.topic, value, key)
                return
            except BufferError:
                producer.poll(0.05)

    try:
        for event in stream:
            if type(event) is MariadbGtidEvent:
                gtid = event.gtid
                continue
            op = OPS[type(event)]
            db, table, ts_ms = event.schema, event.table, event.timestamp * 1000
            pos, server_id = event.packet.log_pos - event.event_size, event.packet.server_id
            for index, change in enumerate(event.rows):
                if op == "u":
                    before, after = row(change["before_values"]), row(change["after_values"])
                elif op == "c":
                    before, after = None, row(change["values"])
                else:
                    before, after = row(change["values"]), None
                now = time.time_ns()
                payload = {
                    "before": before, "after": after,
                    "source": {"version": VERSION, "connector": "mariadb", "name": args.prefix,
                               "ts_ms": ts_ms, "snapshot": "false", "db": db, "sequence": None,
                               "ts_us": ts_ms * 1000, "ts_ns": ts_ms * 1_000_000,
                               "table": table, "server_id": server_id, "gtid": gtid,
                               "file": stream.log_file, "pos": pos, "row": index,
                               "thread": None, "query": None},
                    "transaction": None, "op": op, "ts_ms": now // 1_000_000,
                    "ts_us": now // 1000, "ts_ns": now,
                }  # fmt: skip
                key = key_prefix + dumps({"id": (after or before)["id"]}) + b"}"  # type: ignore[index]
                produce(key, value_prefix + dumps(payload) + b"}")
                sent += 1
                if op == "d":
                    produce(key, None)  # the tombstone
                    sent += 1
                if first is None:
                    first = time.perf_counter() - started
            producer.poll(0)
            if args.records and sent >= args.records:
                break
    except Stop:
        pass
    finally:
        stream.close()
        remaining = producer.flush(60)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    report = {
        "records": sent, "unacknowledged": remaining,
        "seconds": time.perf_counter() - started, "first_record_seconds": first,
        "cpu_seconds": usage.ru_utime + usage.ru_stime, "peak_rss": usage.ru_maxrss * 1024,
    }  # fmt: skip
    print(json.dumps(report), flush=True)
    return 0 if remaining == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

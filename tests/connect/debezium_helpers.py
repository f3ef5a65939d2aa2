"""Helpers for the Debezium connector tests: a topic's JSON records, and the schema fields
both connectors' envelopes and ``customers`` rows have."""

from __future__ import annotations

import json
import uuid
from typing import Any, Final

from confluent_kafka import Consumer, TopicPartition

__all__ = ["CUSTOMERS_ROW_FIELDS", "ENVELOPE_FIELDS", "topic_messages"]

ENVELOPE_FIELDS: Final = ["before", "after", "source", "transaction", "op", "ts_ms", "ts_us",
                          "ts_ns"]  # fmt: skip
"""The fields of a ``<topic>.Envelope``, in order."""

CUSTOMERS_ROW_FIELDS: Final = [
    {"type": "int32", "optional": False, "field": "id"},
    {"type": "string", "optional": False, "field": "email"},
    {"type": "bytes", "optional": True, "name": "org.apache.kafka.connect.data.Decimal",
     "version": 1, "parameters": {"scale": "2", "connect.decimal.precision": "10"},
     "field": "balance"},
    {"type": "int64", "optional": True, "name": "io.debezium.time.Timestamp",
     "version": 1, "field": "updated_at"}]  # fmt: skip
"""The JSON schema fields of a ``customers`` row (id, email, balance DECIMAL(10,2), updated_at
with milliseconds)."""


def topic_messages(bootstrap: str, topic: str, isolation: str = "read_uncommitted") -> list[Any]:
    """(key, value) of every record of partition 0, JSON-decoded (None for a null)."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"check-{uuid.uuid4().hex}",
                         "isolation.level": isolation, "enable.partition.eof": True,
                         "log_level": 3})  # fmt: skip
    consumer.assign([TopicPartition(topic, 0, 0)])
    out: list[Any] = []
    try:
        while (message := consumer.poll(5)) is not None:
            if (error := message.error()) is not None:
                if error.code() == -191:  # _PARTITION_EOF
                    break
                continue
            key, value = message.key(), message.value()
            out.append((key and json.loads(key), value and json.loads(value)))
    finally:
        consumer.close()
    return out

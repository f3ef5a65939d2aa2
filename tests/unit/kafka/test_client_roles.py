"""Clients made from another kind's settings: librdkafka warns of none of them."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from confluent_kafka import Consumer
from confluent_kafka.admin import AdminClient

from seaway.kafka.client_roles import (
    CONSUMER_ONLY,
    PRODUCER_ONLY,
    admin_settings,
    consumer_settings,
)

# A value librdkafka accepts for each setting (the defaults would not show the warning apart).
_VALUES = {
    "acks": "all", "request.required.acks": "all", "compression.type": "lz4",
    "compression.codec": "lz4", "partitioner": "murmur2", "transactional.id": "t",
    "queuing.strategy": "fifo", "auto.offset.reset": "earliest",
    "isolation.level": "read_committed", "group.protocol": "classic",
    "group.remote.assignor": "uniform", "offset.store.method": "broker",
    "partition.assignment.strategy": "range", "group.instance.id": "i",
    "transaction.timeout.ms": "60000", "auto.commit.interval.ms": "1000", "compression.level": "1",
}  # fmt: skip
_FLAGS = ("enable.", "check.", ".report", "produce.offset")


def _value(key: str) -> str:
    if key in _VALUES:
        return _VALUES[key]
    return "true" if any(f in key for f in _FLAGS) else "1000"


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def _warnings(make: Any, config: dict[str, Any]) -> list[str]:
    records = _Records()
    logger = logging.getLogger(f"client-roles-{id(records)}")
    logger.addHandler(records)
    logger.setLevel(logging.DEBUG)
    client = make({**config, "bootstrap.servers": "127.0.0.1:1", "logger": logger})
    client.poll(0)  # librdkafka's log lines reach the logger on poll
    return [line for line in records.lines if "CONFWARN" in line]


PRODUCER = {k: _value(k) for k in PRODUCER_ONLY}
CONSUMER = {k: _value(k) for k in CONSUMER_ONLY if k != "max.poll.records"}  # Java's only


@pytest.mark.parametrize("filtered", [False, True])
def test_a_consumer_of_producer_settings_warns_only_unfiltered(filtered: bool) -> None:
    config = {"group.id": "g", **PRODUCER}
    warnings = _warnings(Consumer, consumer_settings(config) if filtered else config)
    assert (warnings == []) is filtered, warnings


@pytest.mark.parametrize("filtered", [False, True])
def test_an_admin_of_consumer_settings_warns_only_unfiltered(filtered: bool) -> None:
    config = {**CONSUMER, "acks": "all"}
    warnings = _warnings(AdminClient, admin_settings(config) if filtered else config)
    assert (warnings == []) is filtered, warnings
    assert "acks" not in admin_settings(config)

"""seaway.kafka.clients against the embedded broker: a record produced and read back, each
client made from one shared config of every role's settings, and librdkafka warning of
none of them."""

from __future__ import annotations

import logging
import time
from typing import Any

from confluent_kafka import TopicPartition
from confluent_kafka.admin import NewTopic

from seaway.kafka import clients
from seaway.kafka.admin import create_topics
from seaway.kafka.timeouts import FLUSH_TIMEOUT_S, REQUEST_TIMEOUT_S

# One config for every kind of client, as a connector's or a flow's often is.
SHARED = {
    "acks": "all",
    "linger.ms": 5,
    "enable.idempotence": True,
    "isolation.level": "read_committed",
    "auto.offset.reset": "earliest",
    "fetch.wait.max.ms": 50,
}


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def _logger(name: str) -> tuple[logging.Logger, _Lines]:
    lines = _Lines()
    logger = logging.getLogger(f"test-clients-{name}-{id(lines)}")
    logger.addHandler(lines)
    logger.setLevel(logging.DEBUG)
    return logger, lines


def _warnings(lines: _Lines) -> list[str]:
    return [line for line in lines.lines if "CONFWARN" in line]


def test_a_record_produced_is_read_back_and_no_client_warns(
    bootstrap: str, topic_name: str
) -> None:
    config: dict[str, Any] = {"bootstrap.servers": bootstrap, **SHARED}
    admin_log, admin_lines = _logger("admin")
    admin = clients.admin({**config, "logger": admin_log})
    assert create_topics(admin, [NewTopic(topic_name, 1, 1)]) == [topic_name]
    assert topic_name in admin.list_topics(timeout=REQUEST_TIMEOUT_S).topics
    admin.poll(0)

    producer_log, producer_lines = _logger("producer")
    producer = clients.producer(config, {"logger": producer_log})
    delivered: list[Any] = []
    producer.produce(topic_name, b"value", b"key", on_delivery=lambda e, m: delivered.append(e))
    assert producer.flush(FLUSH_TIMEOUT_S) == 0
    assert delivered == [None]

    consumer_log, consumer_lines = _logger("consumer")
    consumer = clients.consumer(
        config, {"group.id": f"{topic_name}-reader", "logger": consumer_log}
    )
    try:
        consumer.assign([TopicPartition(topic_name, 0, 0)])
        message = None
        deadline = time.monotonic() + REQUEST_TIMEOUT_S
        while message is None and time.monotonic() < deadline:
            message = consumer.poll(0.5)
        assert message is not None and message.error() is None
        assert (message.key(), message.value()) == (b"key", b"value")
    finally:
        consumer.close()

    for lines in (admin_lines, producer_lines, consumer_lines):
        assert _warnings(lines) == []


def test_unfiltered_settings_would_warn(bootstrap: str) -> None:
    """The check above can fail: librdkafka warns of a consumer's settings in a producer."""
    from confluent_kafka import Producer

    logger, lines = _logger("unfiltered")
    producer = Producer({"bootstrap.servers": bootstrap, **SHARED, "logger": logger})
    producer.poll(0)
    assert _warnings(lines)


def test_overrides_win_and_client_id_is_a_default() -> None:
    base = {"bootstrap.servers": "b:9092", "acks": "1", "client.id": "given"}
    assert clients.settings(base, {"acks": "all"}, client_id="other") == {
        "bootstrap.servers": "b:9092",
        "acks": "all",
        "client.id": "given",
    }
    assert clients.settings({"acks": "1"}, client_id="seaway")["client.id"] == "seaway"
    assert "client.id" not in clients.settings({"acks": "1"})

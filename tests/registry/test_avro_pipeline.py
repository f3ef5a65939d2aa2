"""Avro through a Connect worker: a FileStream source writes lines as Avro (registered in
Seaway's registry), a FileStream sink reads them back; a record whose schema id the
registry does not know goes to the dead letter queue, and every good line arrives."""

from __future__ import annotations

from pathlib import Path

import pytest
from confluent_kafka import Producer
from confluent_kafka.schema_registry import SchemaRegistryClient

from seaway.registry.server import RegistryServer
from tests.broker.clients import create_topic, quiet
from tests.connect.test_error_handling import _dead_letters
from tests.connect.workers import WorkerProcess, distributed_props, line_count, wait_for

pytestmark = pytest.mark.waits

AVRO = "io.confluent.connect.avro.AvroConverter"


def test_lines_through_avro_and_a_poison_record_to_the_dead_letter_queue(
    tmp_path: Path, bootstrap: str, topic_name: str, registry: RegistryServer
) -> None:
    source = tmp_path / "in.txt"
    lines = [f"line {i}" for i in range(200)]
    source.write_text("".join(f"{line}\n" for line in lines))
    topic, dlq = f"{topic_name}-avro", f"{topic_name}-dlq"
    create_topic(bootstrap, topic, partitions=1)
    avro = {"value.converter": AVRO, "value.converter.schema.registry.url": registry.url}
    props = distributed_props(bootstrap, topic_name)
    copy = tmp_path / "copy.txt"
    with WorkerProcess(props, tmp_path / "worker") as worker:
        rest = worker.rest
        assert rest is not None
        rest.ok("POST", "/connectors", {"name": "src", "config": {
            "connector.class": "FileStreamSource", "file": str(source), "topic": topic,
            **avro}})  # fmt: skip
        wait_for("the schema registered", lambda: SchemaRegistryClient(
            {"url": registry.url}).get_subjects() == [f"{topic}-value"])  # fmt: skip
        # A record whose schema id no registry knows, in the middle of the stream.
        producer = Producer(quiet({"bootstrap.servers": bootstrap}))
        producer.produce(topic, value=b"\x00\x00\x00\x03\xe7" + b"\x02x")
        assert producer.flush(30) == 0
        rest.ok("POST", "/connectors", {"name": "sink", "config": {
            "connector.class": "FileStreamSink", "file": str(copy), "topics": topic,
            "errors.tolerance": "all", "errors.deadletterqueue.topic.name": dlq,
            "errors.deadletterqueue.topic.replication.factor": "1",
            "errors.deadletterqueue.context.headers.enable": "true", **avro}})  # fmt: skip
        wait_for("every line in the copy", lambda: line_count(copy) >= len(lines))
        letters = _dead_letters(bootstrap, dlq, 1)
    assert copy.read_text().splitlines() == lines
    assert len(letters) == 1
    headers = dict(letters[0].headers())  # type: ignore[attr-defined]
    assert headers["__connect.errors.stage"] == b"VALUE_CONVERTER"
    assert headers["__connect.errors.class.name"] == AVRO.encode()
    assert b"Schema 999 not found" in headers["__connect.errors.exception.message"]

"""The file copy benchmark's reference: one Python process produces the input's lines with
confluent-kafka, then consumes them into a copy."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from confluent_kafka import OFFSET_BEGINNING, KafkaException, Producer, TopicPartition

from bench._connect_file_input import files_equal
from bench._connect_file_results import Cpu, PlainRun, Results, Span, cpu_meter
from bench._util import progress
from bench._workload import create_topics, end_offset, new_consumer, unique_name

#: The plain reference's producer.
PLAIN_PRODUCER_CONFIG: dict[str, str | int | bool] = {
    "acks": "all",
    "linger.ms": 5,
    "batch.size": 1_000_000,
    "compression.type": "none",
    "queue.buffering.max.messages": 1_000_000,
    "queue.buffering.max.kbytes": 1_048_576,
    # Only failed deliveries call back, so no per-record Python callback.
    "delivery.report.only.error": True,
}

CONSUME_BATCH = 10_000


def plain_produce(bootstrap: str, topic: str, source: Path) -> int:
    """Produce every line of ``source`` (without its newline) to partition 0 of ``topic``."""
    failures: list[str] = []

    def on_delivery(error: Any, _message: Any) -> None:
        if error is not None:
            failures.append(str(error))

    producer = Producer(
        {"bootstrap.servers": bootstrap, **PLAIN_PRODUCER_CONFIG, "on_delivery": on_delivery}
    )
    producer.list_topics(topic, timeout=30)
    lines = 0
    produce = producer.produce
    with open(source, "rb", buffering=4 * 1024 * 1024) as lines_in:
        for line in lines_in:
            value = line[:-1] if line.endswith(b"\n") else line
            while True:
                try:
                    produce(topic, value, partition=0)
                    break
                except BufferError:
                    producer.poll(0.005)  # local queue full: let deliveries drain
            lines += 1
            if lines % 100_000 == 0:
                producer.poll(0)
    remaining = producer.flush(600)
    if remaining or failures:
        raise KafkaException(f"{remaining} unacknowledged, {len(failures)} failed: {failures[:3]}")
    return lines


def plain_consume(
    bootstrap: str, topic: str, copy: Path, expected: int, idle_timeout: float
) -> int:
    """Write ``expected`` values of ``topic`` (from the beginning) to ``copy``, one a line."""
    consumer = new_consumer(bootstrap)
    lines = 0
    try:
        consumer.list_topics(topic, timeout=30)  # metadata first: no 500 ms retry on assign
        consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
        last = time.monotonic()
        with open(copy, "wb", buffering=4 * 1024 * 1024) as out:
            while lines < expected:
                batch = consumer.consume(num_messages=CONSUME_BATCH, timeout=0.5)
                if not batch:
                    if time.monotonic() - last > idle_timeout:
                        raise TimeoutError(f"consumer stalled at {lines:,}/{expected:,} lines")
                    continue
                for message in batch:
                    if message.error() is not None:
                        raise KafkaException(message.error())
                out.write(b"\n".join([m.value() or b"" for m in batch]))
                out.write(b"\n")
                lines += len(batch)
                last = time.monotonic()
            out.flush()
            os.fsync(out.fileno())
    finally:
        consumer.close()
    return lines


def run_plain(
    bootstrap: str, broker_pid: int, source: Path, root: Path, results: Results, stall: float
) -> PlainRun:
    """The reference: produce the file, then consume it into a copy; verify the copy."""
    topic = unique_name("plain-lines")
    copy = root / "plain-copy.txt"
    create_topics(bootstrap, [topic], 1)
    progress(f"plain: producing {results.lines:,} lines to {topic} (acks=all)")
    cpu = cpu_meter(broker_pid)
    started = time.perf_counter()
    produced = plain_produce(bootstrap, topic, source)
    produced_at = time.perf_counter()
    produce_cpu = Cpu(**cpu.read())
    progress(
        f"plain: produced {produced:,} lines in {produced_at - started:.2f} s; consuming into "
        f"{copy.name}"
    )
    consumed = plain_consume(bootstrap, topic, copy, produced, stall)
    finished = time.perf_counter()
    end_to_end_cpu = Cpu(**cpu.read())
    consumer = new_consumer(bootstrap)
    try:
        stored = end_offset(consumer, topic)
    finally:
        consumer.close()
    identical = files_equal(source, copy)
    size = results.file_bytes
    run = PlainRun(
        produce=Span(produced, size, produced_at - started),
        consume=Span(consumed, size, finished - produced_at),
        end_to_end=Span(consumed, size, finished - started),
        produce_cpu=produce_cpu,
        end_to_end_cpu=end_to_end_cpu,
        topic_records=stored,
        identical=identical,
    )
    progress(
        f"plain: end to end {run.end_to_end.seconds:.2f} s, "
        f"{run.end_to_end.lines_per_s:,.0f} lines/s; topic holds {stored:,} records; "
        f"copy identical: {identical}"
    )
    if not identical:
        raise ValueError(f"the plain copy {copy} differs from the input")
    if produced != results.lines:
        raise ValueError(f"plain: produced {produced:,} lines, the file has {results.lines:,}")
    copy.unlink()  # keep the disk footprint down before the Seaway run
    return run

"""A distributed worker killed with ``kill -9`` mid-file, restarted from Kafka alone.

The restarted worker gets no connector configs and a fresh working directory (as on
another machine): everything comes from the config, offsets and status topics. With
``exactly.once.source.support=enabled`` every line reaches the topic exactly once, in
order; with it disabled every line arrives at least once (nothing lost), in order of first
appearance, and a sink connector's copy holds every line.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from tests.broker.clients import quiet
from tests.connect.workers import WorkerProcess, distributed_props, line_count, wait_for
from tests.soak import soak

pytestmark = pytest.mark.slow

LINES = soak(80_000)


def _write_file(path: Path) -> list[str]:
    lines = [f"line {i:06d} {'é' if i % 7 == 0 else 'x'} {'-' * (i % 40)}" for i in range(LINES)]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return lines


def _create_topic(bootstrap: str, topic: str) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(30)


def _end_offset(bootstrap: str, topic: str) -> int:
    consumer = Consumer(quiet({"bootstrap.servers": bootstrap, "group.id": "watch"}))
    try:
        return consumer.get_watermark_offsets(TopicPartition(topic, 0), 10)[1]
    finally:
        consumer.close()


def _payloads(bootstrap: str, topic: str, isolation: str) -> list[Any]:
    """Every value in the topic, decoded from the JsonConverter envelope."""
    return [envelope["payload"] for envelope in _envelopes(bootstrap, topic, isolation)]


def _every_payload(bootstrap: str, topic: str, isolation: str, count: int) -> list[Any] | None:
    """The topic's payloads once it holds *count* of them, else None: its end offset (one
    cheap request) says so before the whole topic is read and decoded."""
    if _end_offset(bootstrap, topic) < count:
        return None
    payloads = _payloads(bootstrap, topic, isolation)
    return payloads if len(payloads) >= count else None


def _envelopes(bootstrap: str, topic: str, isolation: str) -> list[Any]:
    """Every value of partition 0 of the topic as JSON (the JsonConverter's schema and payload)."""
    config = {
        "bootstrap.servers": bootstrap,
        "group.id": f"check-{uuid.uuid4().hex}",
        "isolation.level": isolation,
        "enable.partition.eof": True,
    }
    consumer = Consumer(quiet(config))
    consumer.assign([TopicPartition(topic, 0, 0)])
    out: list[Any] = []
    try:
        while True:
            message = consumer.poll(5)
            if message is None:
                break
            if message.error():
                if message.error().code() == -191:  # _PARTITION_EOF
                    break
                continue
            out.append(json.loads(message.value()))
    finally:
        consumer.close()
    return out


def _run_with_kill(
    tmp_path: Path, bootstrap: str, name: str, eos: bool, *, with_sink: bool
) -> tuple[list[str], Path, Path]:
    source = tmp_path / "big.txt"
    lines = _write_file(source)
    topic = f"{name}-lines"
    _create_topic(bootstrap, topic)
    props = distributed_props(
        bootstrap,
        name,
        **{
            "exactly.once.source.support": "enabled" if eos else "disabled",
            # Micro-batches of 6,000 lines, so the kill lands in the middle of the file.
            "spark.source.plans.per.batch": 3,
        },
    )
    copy = tmp_path / "copy.txt"
    first = WorkerProcess(props, tmp_path / "first").start()
    try:
        assert first.rest is not None
        src = {"connector.class": "FileStreamSource", "file": str(source), "topic": topic}
        first.rest.ok("POST", "/connectors", {"name": f"{name}-src", "config": src})
        if with_sink:
            sink = {"connector.class": "FileStreamSink", "file": str(copy), "topics": topic}
            first.rest.ok("POST", "/connectors", {"name": f"{name}-sink", "config": sink})
        wait_for("a fifth of the file", lambda: _end_offset(bootstrap, topic) > LINES // 5)
    finally:
        first.kill()
    written = _end_offset(bootstrap, topic)
    assert written < LINES, "the worker finished before it was killed; use a bigger file"

    # Restart on "another machine": same worker properties, nothing else.
    second = WorkerProcess(props, tmp_path / "second").start()
    try:
        assert second.rest is not None
        status = wait_for(
            "the source connector from the config topic",
            lambda: second.rest.get(f"/connectors/{name}-src/status")[0] == 200,
        )
        assert status
        wait_for(
            "the whole file in the topic",
            lambda: _every_payload(bootstrap, topic, "read_committed", LINES),
            timeout=240,
        )
        if with_sink:
            expected = set(lines)
            wait_for(
                "every line in the sink's copy",
                lambda: (
                    line_count(copy) >= LINES
                    and expected <= set(copy.read_text(encoding="utf-8").splitlines())
                ),
                timeout=240,
            )
        rest = second.rest
        final = {"position": source.stat().st_size}
        wait_for(  # at-least-once offsets are flushed every offset.flush.interval.ms
            "the final source offset",
            lambda: (
                rest.ok("GET", f"/connectors/{name}-src/offsets")["offsets"][0]["offset"] == final
            ),
            timeout=60,
        )
    finally:
        second.stop()
    return lines, source, copy


def test_kill9_exactly_once_source_delivers_every_line_once(tmp_path: Path, broker: object) -> None:
    bootstrap = broker.bootstrap_servers  # type: ignore[attr-defined]
    name = f"eos-{uuid.uuid4().hex[:6]}"
    lines, _, _ = _run_with_kill(tmp_path, bootstrap, name, eos=True, with_sink=False)
    assert _payloads(bootstrap, f"{name}-lines", "read_committed") == lines


def test_kill9_at_least_once_loses_nothing(tmp_path: Path, broker: object) -> None:
    bootstrap = broker.bootstrap_servers  # type: ignore[attr-defined]
    name = f"alo-{uuid.uuid4().hex[:6]}"
    lines, _, copy = _run_with_kill(tmp_path, bootstrap, name, eos=False, with_sink=True)
    delivered = _payloads(bootstrap, f"{name}-lines", "read_uncommitted")
    assert set(delivered) == set(lines)
    first_seen = list(dict.fromkeys(delivered))
    assert first_seen == lines
    copied = copy.read_text(encoding="utf-8").splitlines()
    assert set(copied) == set(lines)


def test_corrupt_offset_record_is_reported_not_reset(tmp_path: Path, broker: object) -> None:
    from confluent_kafka import Producer

    bootstrap = broker.bootstrap_servers  # type: ignore[attr-defined]
    name = f"bad-{uuid.uuid4().hex[:6]}"
    source = tmp_path / "in.txt"
    source.write_text("a\nb\nc\n", encoding="utf-8")
    _create_topic(bootstrap, name)
    props = distributed_props(bootstrap, name)
    with WorkerProcess(props, tmp_path / "worker") as worker:
        rest = worker.rest
        assert rest is not None
        key = json.dumps([f"{name}-src", {"filename": str(source)}], separators=(",", ":"))
        producer = Producer({"bootstrap.servers": bootstrap})
        producer.produce(f"{name}-offsets", key=key.encode(), value=b"\x00garbage")
        producer.flush(10)
        config = {"connector.class": "FileStreamSource", "file": str(source), "topic": name}
        rest.ok("POST", "/connectors", {"name": f"{name}-src", "config": config})
        status = wait_for(
            "the connector to fail",
            lambda: (
                (s := rest.get(f"/connectors/{name}-src/status")[1])
                and s.get("connector", {}).get("state") == "FAILED"
                and s
            ),
        )
        trace = status["connector"]["trace"]
        assert f"{name}-offsets" in trace and "is not a JSON object" in trace
        assert _end_offset(bootstrap, name) == 0  # nothing was read from the start again
        # The way out the message names: stop, set the offsets, resume.
        rest.ok("PUT", f"/connectors/{name}-src/stop")
        wait_for(
            "STOPPED",
            lambda: (
                rest.get(f"/connectors/{name}-src/status")[1]["connector"]["state"] == "STOPPED"
            ),
        )
        offsets = {"offsets": [{"partition": {"filename": str(source)}, "offset": {"position": 2}}]}
        rest.ok("PATCH", f"/connectors/{name}-src/offsets", offsets)
        rest.ok("PUT", f"/connectors/{name}-src/resume")
        wait_for("the lines after position 2", lambda: _end_offset(bootstrap, name) == 2)
        assert _payloads(bootstrap, name, "read_uncommitted") == ["b", "c"]

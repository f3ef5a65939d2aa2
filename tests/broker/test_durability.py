"""Durability: a broker process killed with SIGKILL and restarted loses nothing it acked."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource

from seaway.broker import BrokerProcess
from tests.broker.clients import consume_all, create_topic, produce, quiet

pytestmark = pytest.mark.timeout(180)


class AckedProducer:
    """Produces continuously with acks=all, remembering every acknowledged record."""

    def __init__(self, bootstrap: str, topic: str, partitions: int) -> None:
        self.topic = topic
        self.partitions = partitions
        self.acked: dict[tuple[int, int], bytes] = {}
        self.failed = 0
        self._stop = threading.Event()
        self._producer = Producer(
            quiet(
                {
                    "bootstrap.servers": bootstrap,
                    "acks": "all",
                    "linger.ms": 1,
                    "message.timeout.ms": 60000,
                    "reconnect.backoff.max.ms": 200,
                }
            )
        )
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _on_delivery(self, err: object, msg: object) -> None:
        if err is None:
            self.acked[(msg.partition(), msg.offset())] = msg.value()  # type: ignore[attr-defined]
        else:
            self.failed += 1

    def _run(self) -> None:
        i = 0
        while not self._stop.is_set():
            try:
                self._producer.produce(
                    self.topic,
                    value=f"record-{i}".encode(),
                    partition=i % self.partitions,
                    on_delivery=self._on_delivery,
                )
                i += 1
            except BufferError:
                pass
            self._producer.poll(0.001 if i % 50 == 0 else 0)

    def start(self) -> None:
        self._thread.start()

    def wait_for(self, count: int, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while len(self.acked) < count:
            assert time.monotonic() < deadline, f"only {len(self.acked)} records acked"
            time.sleep(0.02)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        assert self._producer.flush(60) == 0


def read_partition_values(
    bootstrap: str, topic: str, partitions: int
) -> dict[tuple[int, int], bytes]:
    consumer = Consumer(quiet({"bootstrap.servers": bootstrap, "group.id": f"check-{topic}"}))
    out: dict[tuple[int, int], bytes] = {}
    ends = {
        p: consumer.get_watermark_offsets(TopicPartition(topic, p), 10)[1]
        for p in range(partitions)
    }
    consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    deadline = time.monotonic() + 60
    while len(out) < sum(ends.values()):
        assert time.monotonic() < deadline, f"read {len(out)} of {sum(ends.values())}"
        for msg in consumer.consume(1000, timeout=0.5):
            assert msg.error() is None, msg.error()
            out[(msg.partition(), msg.offset())] = msg.value()
    consumer.close()
    return out


def test_kill9_mid_stream_keeps_every_acked_record_and_commit(tmp_path: Path) -> None:
    config = {"log.flush.interval.messages": 1, "num.partitions": 3}
    broker = BrokerProcess(tmp_path / "data", config=config).start()
    try:
        topic = "durable"
        create_topic(broker.bootstrap_servers, topic, partitions=3, config={"flush.messages": "1"})
        group = "durable-group"
        consumer = Consumer(
            quiet({"bootstrap.servers": broker.bootstrap_servers, "group.id": group})
        )
        producer = AckedProducer(broker.bootstrap_servers, topic, 3)
        producer.start()
        for round_ in range(3):
            producer.wait_for(300 * (round_ + 1))
            commit = [
                TopicPartition(topic, p, 10 * (round_ + 1) + p, metadata=f"r{round_}")
                for p in range(3)
            ]
            consumer.commit(offsets=commit, asynchronous=False)
            broker.kill()
            broker.start()  # same data dir and port: clients reconnect
        producer.wait_for(len(producer.acked) + 100)
        producer.stop()
        on_disk = read_partition_values(broker.bootstrap_servers, topic, 3)
        missing = {k: v for k, v in producer.acked.items() if on_disk.get(k) != v}
        assert not missing, (
            f"{len(missing)} acked records lost or changed, e.g. {list(missing.items())[:3]}"
        )
        committed = consumer.committed([TopicPartition(topic, p) for p in range(3)], 10)
        assert [(tp.offset, tp.metadata) for tp in committed] == [(30 + p, "r2") for p in range(3)]
        consumer.close()
        assert producer.failed == 0
    finally:
        broker.stop()


def test_restart_keeps_topics_configs_and_idempotent_state(tmp_path: Path) -> None:
    broker = BrokerProcess(tmp_path / "data").start()
    try:
        create_topic(
            broker.bootstrap_servers, "kept", partitions=2, config={"retention.ms": "123456"}
        )
        produce(
            broker.bootstrap_servers, "kept", [(b"k", str(i).encode(), i % 2) for i in range(100)]
        )
        broker.stop()  # clean
        broker.start()
        admin = AdminClient(quiet({"bootstrap.servers": broker.bootstrap_servers}))
        topics = admin.list_topics(timeout=10).topics
        assert sorted(topics["kept"].partitions) == [0, 1]
        resource = ConfigResource(ConfigResource.Type.TOPIC, "kept")
        assert (
            admin.describe_configs([resource])[resource].result(10)["retention.ms"].value
            == "123456"
        )
        assert len(consume_all(broker.bootstrap_servers, "kept", 100)) == 100
        broker.kill()
        broker.start()
        produce(broker.bootstrap_servers, "kept", [(b"k", b"after", 0)])
        values = read_partition_values(broker.bootstrap_servers, "kept", 2)
        assert len(values) == 101
        assert values[(0, 50)] == b"after"
    finally:
        broker.stop()


def _segments(data: Path, topic: str, partition: int) -> list[Path]:
    return sorted((data / f"{topic}-{partition}").glob("*.log"))


def test_torn_tail_is_truncated_and_log_stays_readable(tmp_path: Path) -> None:
    data = tmp_path / "data"
    broker = BrokerProcess(data).start()
    try:
        create_topic(broker.bootstrap_servers, "torn", partitions=1)
        produce(broker.bootstrap_servers, "torn", [(None, f"v{i}".encode(), 0) for i in range(50)])
        broker.kill()
        segment = _segments(data, "torn", 0)[-1]
        intact = segment.stat().st_size
        with open(segment, "ab") as f:  # half a batch: a write torn by the crash
            f.write(bytes(8) + (500).to_bytes(4, "big") + b"\x00" * 40)
        broker.start()
        assert segment.stat().st_size == intact
        produce(broker.bootstrap_servers, "torn", [(None, b"next", 0)])
        values = read_partition_values(broker.bootstrap_servers, "torn", 1)
        assert [values[(0, i)] for i in range(51)] == [f"v{i}".encode() for i in range(50)] + [
            b"next"
        ]
    finally:
        broker.stop()


def test_corrupt_batch_truncates_from_there_and_missing_index_is_rebuilt(tmp_path: Path) -> None:
    data = tmp_path / "data"
    broker = BrokerProcess(data).start()
    try:
        create_topic(
            broker.bootstrap_servers, "crc", partitions=1, config={"index.interval.bytes": "100"}
        )
        for i in range(20):  # 20 batches of 5 records
            produce(
                broker.bootstrap_servers, "crc", [(None, f"{i}-{j}".encode(), 0) for j in range(5)]
            )
        broker.kill()
        segment = _segments(data, "crc", 0)[-1]
        raw = bytearray(segment.read_bytes())
        # Find the batch that starts at offset 70 (a slow producer may send a call's five
        # records as more than one batch) and flip a byte inside its records.
        pos = 0
        while int.from_bytes(raw[pos : pos + 8], "big") != 70:
            pos += 12 + int.from_bytes(raw[pos + 8 : pos + 12], "big")
        raw[pos + 70] ^= 0xFF
        segment.write_bytes(bytes(raw))
        segment.with_suffix(".index").unlink()
        broker.start()
        consumer = Consumer(
            quiet({"bootstrap.servers": broker.bootstrap_servers, "group.id": "crc"})
        )
        assert consumer.get_watermark_offsets(TopicPartition("crc", 0), 10) == (0, 70)
        consumer.assign([TopicPartition("crc", 0, 42)])  # a seek served by the rebuilt index
        msg = None
        while msg is None or msg.error():
            msg = consumer.poll(5)
        assert (msg.offset(), msg.value()) == (42, b"8-2")
        consumer.close()
        assert segment.with_suffix(".index").stat().st_size > 0
    finally:
        broker.stop()


@pytest.mark.filterwarnings("ignore:alter_configs has been deprecated")  # AlterConfigs on purpose
def test_segments_roll_and_retention_deletes_old_ones(tmp_path: Path) -> None:
    data = tmp_path / "data"
    broker = BrokerProcess(data, config={"log.retention.check.interval.ms": 200}).start()
    try:
        create_topic(
            broker.bootstrap_servers, "rolling", partitions=1, config={"segment.bytes": "2000"}
        )
        for _ in range(30):
            produce(broker.bootstrap_servers, "rolling", [(None, b"x" * 200, 0)])
        segments = _segments(data, "rolling", 0)
        assert len(segments) >= 3
        bases = [int(s.stem) for s in segments]
        admin = AdminClient(quiet({"bootstrap.servers": broker.bootstrap_servers}))
        resource = ConfigResource(
            ConfigResource.Type.TOPIC,
            "rolling",
            set_config={"retention.bytes": "2000", "segment.bytes": "2000"},
        )
        admin.alter_configs([resource])[resource].result(10)
        consumer = Consumer(quiet({"bootstrap.servers": broker.bootstrap_servers, "group.id": "r"}))
        deadline = time.monotonic() + 20
        while consumer.get_watermark_offsets(TopicPartition("rolling", 0), 10)[0] == 0:
            assert time.monotonic() < deadline, "retention never deleted a segment"
            time.sleep(0.1)
        low, high = consumer.get_watermark_offsets(TopicPartition("rolling", 0), 10)
        consumer.close()
        assert high == 30
        assert low in bases and low > 0
        assert int(_segments(data, "rolling", 0)[0].stem) == low
        assert len(consume_all(broker.bootstrap_servers, "rolling", 30 - low)) == 30 - low
    finally:
        broker.stop()

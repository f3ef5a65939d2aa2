"""Log compaction against a real broker with confluent-kafka (librdkafka) clients.

The broker's cleaner runs every 100 ms here, on topics with small segments and a low
``min.cleanable.dirty.ratio``. After it has cleaned up to the active segment, a consumer
reading from offset 0 must see exactly the newest record of each key below the active
segment and every record in it, at their original offsets.
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition

from seaway.broker import BrokerProcess, BrokerThread
from seaway.broker.config import BROKER_CONFIG_DEF
from seaway.broker.log import swap
from seaway.broker.log.cleaner import clean
from seaway.broker.log.config import LogConfig
from seaway.broker.log.log_cleaner import CleanerConfig, cleanable, plan
from seaway.broker.log.partition import PartitionLog
from tests.broker.clients import create_topic, produce, quiet, read_partition

pytestmark = pytest.mark.timeout(120)

CLEANER = {
    "log.cleaner.backoff.ms": 100,
    "log.retention.check.interval.ms": 200,
    "num.partitions": 1,
}
COMPACT = {
    "cleanup.policy": "compact",
    "segment.bytes": "2048",
    "min.cleanable.dirty.ratio": "0.01",
}

Written = list[tuple[int, bytes, bytes | None]]


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerThread]:
    with BrokerThread(tmp_path_factory.mktemp("compaction"), config=CLEANER) as b:
        yield b


def new_topic(broker: BrokerThread | BrokerProcess, **config: str) -> str:
    name = f"compacted-{uuid.uuid4().hex[:8]}"
    create_topic(broker.bootstrap_servers, name, 1, {**COMPACT, **config})
    return name


def write(
    broker: BrokerThread | BrokerProcess,
    topic: str,
    records: list[tuple[bytes, bytes | None]],
    **config: Any,
) -> Written:
    """Produce in batches of 20 records (librdkafka would send a few large ones)."""
    settings = {"batch.num.messages": 20, **config}
    done = produce(broker.bootstrap_servers, topic, records, **settings)  # type: ignore[arg-type]
    return [(offset, key, value) for (_, offset), (key, value) in zip(done, records, strict=True)]


def updates(
    count: int, keys: int, start: int = 0, prefix: str = "k"
) -> list[tuple[bytes, bytes | None]]:
    return [
        (f"{prefix}{i % keys}".encode(), f"value-{i:05d}".encode())
        for i in range(start, start + count)
    ]


def log_state(broker: BrokerThread, topic: str) -> dict[str, int]:
    async def read() -> dict[str, int]:
        plog = broker.broker.topics.partition(topic, 0)
        return {
            "first_dirty": plog.cleaner_checkpoint.first_dirty,
            "active": plog.active.base_offset,
            "size": plog.size,
            "log_start": plog.log_start_offset,
        }

    return broker.call(read())  # type: ignore[no-any-return]


def wait_cleaned(broker: BrokerThread, topic: str, timeout: float = 20) -> dict[str, int]:
    """Wait until the log is clean up to its active segment."""
    deadline = time.monotonic() + timeout
    while True:
        state = log_state(broker, topic)
        if state["active"] > 0 and state["first_dirty"] == state["active"]:
            return state
        assert time.monotonic() < deadline, f"{topic} not cleaned: {state}"
        time.sleep(0.05)


def expected(written: Written, active: int) -> list[int]:
    """Offsets a cleaned log keeps: the newest per key below ``active``, all from it on."""
    newest = {key: offset for offset, key, _ in written if offset < active}
    return sorted({*newest.values(), *(o for o, _, _ in written if o >= active)})


def test_a_consumer_sees_the_latest_value_per_key_at_its_offset(broker: BrokerThread) -> None:
    topic = new_topic(broker)
    plain = new_topic(broker, **{"cleanup.policy": "delete"})
    records = updates(600, keys=8)
    written = write(broker, topic, records, **{"compression.type": "lz4"})
    write(broker, plain, records)
    state = wait_cleaned(broker, topic)
    seen = read_partition(broker.bootstrap_servers, topic, committed=False)
    offsets = [m.offset() for m in seen]
    assert offsets == expected(written, state["active"])
    assert offsets[-1] == written[-1][0]  # the active segment is untouched
    values = {o: (k, v) for o, k, v in written}
    assert all((m.key(), m.value()) == values[m.offset()] for m in seen)
    assert len({m.key() for m in seen if m.offset() < state["active"]}) == len(
        [m for m in seen if m.offset() < state["active"]]
    )
    assert state["size"] < log_state(broker, plain)["size"] / 3


def test_tombstones_stay_for_delete_retention_ms_then_go(broker: BrokerThread) -> None:
    topic = new_topic(broker, **{"delete.retention.ms": "3000"})
    write(broker, topic, updates(40, keys=8))
    write(broker, topic, [(f"k{i}".encode(), None) for i in range(4)])
    write(broker, topic, updates(200, keys=3, prefix="filler"))
    wait_cleaned(broker, topic)
    cleaned_at = time.monotonic()
    latest = {m.key(): m.value() for m in read_partition(broker.bootstrap_servers, topic)}
    assert time.monotonic() - cleaned_at < 2.5, "too slow to see the tombstones in time"
    assert all(latest[f"k{i}".encode()] is None for i in range(4))
    assert all(latest[f"k{i}".encode()] is not None for i in range(4, 8))
    time.sleep(max(0.0, 3.2 - (time.monotonic() - cleaned_at)))
    write(broker, topic, updates(200, keys=3, start=200, prefix="filler"))  # dirty again
    wait_cleaned(broker, topic)
    keys = {m.key() for m in read_partition(broker.bootstrap_servers, topic)}
    assert not keys & {f"k{i}".encode() for i in range(4)}
    assert {f"k{i}".encode() for i in range(4, 8)} <= keys


def test_tombstones_go_after_delete_retention_ms_though_the_log_is_little_dirty(
    broker: BrokerThread,
) -> None:
    """A record now and then rolls a segment (segment.ms): far too little to pass
    min.cleanable.dirty.ratio for long, but the tombstones go once their horizon passes."""
    config = {"delete.retention.ms": "1000", "segment.ms": "500", "segment.bytes": "1048576"}
    topic = new_topic(broker, **config)
    records = [(f"k{i % 100}".encode(), b"%05d" % i + b"v" * 2000) for i in range(1000)]
    written = write(broker, topic, records, **{"batch.num.messages": 200})
    dead = {f"k{i}".encode() for i in range(10)}
    written += write(broker, topic, [(key, None) for key in sorted(dead)])
    latest = {key: value for _, key, value in written}
    deadline = time.monotonic() + 8  # the dirty ratio alone would need ~25 of these records
    for tick in range(1000):
        time.sleep(0.6)  # past segment.ms: the next record rolls a segment
        written += write(broker, topic, [(b"tick", b"%d" % tick)])
        seen = read_partition(broker.bootstrap_servers, topic)
        if not {m.key() for m in seen} & dead:
            break
        assert time.monotonic() < deadline, f"tombstones still there: {len(seen)} records"
    assert len([m for m in seen if m.key() != b"tick"]) == 90
    assert {m.key(): m.value() for m in seen if m.key() != b"tick"} == {
        key: value for key, value in latest.items() if key not in dead | {b"tick"}
    }


def test_aborted_records_are_removed_and_committed_ones_kept(broker: BrokerThread) -> None:
    topic = new_topic(broker)
    producer = Producer(
        quiet(
            {
                "bootstrap.servers": broker.bootstrap_servers,
                "transactional.id": f"tx-{topic}",
                "linger.ms": 2,
            }
        )
    )
    producer.init_transactions(30)
    for i, commit in enumerate([True, False, True, False, True]):
        producer.begin_transaction()
        for k in range(5):
            value = b"committed" if commit else b"aborted"
            producer.produce(topic, key=f"t{i}-{k}".encode(), value=value)
        producer.flush(30)
        if commit:
            producer.commit_transaction(30)
        else:
            producer.abort_transaction(30)
    write(broker, topic, updates(300, keys=3, prefix="filler"))
    wait_cleaned(broker, topic)
    for committed in (True, False):
        seen = read_partition(broker.bootstrap_servers, topic, committed=committed)
        txn = {m.key(): m.value() for m in seen if m.key().startswith(b"t")}
        assert set(txn.values()) == {b"committed"}
        assert sorted(txn) == sorted(f"t{i}-{k}".encode() for i in (0, 2, 4) for k in range(5))
        offsets = [m.offset() for m in seen]
        assert offsets == sorted(set(offsets))


def test_compact_delete_also_applies_retention(broker: BrokerThread) -> None:
    old = int(time.time() * 1000) - 3_600_000
    topics = {
        policy: new_topic(broker, **{"cleanup.policy": policy, "retention.ms": "60000"})
        for policy in ("compact", "compact,delete")
    }
    for topic in topics.values():
        producer = Producer(quiet({"bootstrap.servers": broker.bootstrap_servers, "linger.ms": 2}))
        for i in range(200):
            producer.produce(topic, key=f"u{i}".encode(), value=b"x" * 40, timestamp=old + i)
        assert producer.flush(30) == 0
    deadline = time.monotonic() + 10
    while log_state(broker, topics["compact,delete"])["log_start"] == 0:
        assert time.monotonic() < deadline, "retention did not delete the old segments"
        time.sleep(0.1)
    time.sleep(0.5)  # a few more retention checks
    assert log_state(broker, topics["compact"])["log_start"] == 0
    seen = read_partition(broker.bootstrap_servers, topics["compact"], committed=False)
    assert len(seen) == 200  # unique keys: compaction removes nothing either


def test_records_younger_than_min_compaction_lag_are_not_cleaned(broker: BrokerThread) -> None:
    lagged = new_topic(broker, **{"min.compaction.lag.ms": "3600000"})
    control = new_topic(broker)
    written = write(broker, lagged, updates(300, keys=3))
    write(broker, control, updates(300, keys=3))
    wait_cleaned(broker, control)
    time.sleep(0.3)  # a few more cleaner rounds
    assert log_state(broker, lagged)["first_dirty"] == 0
    seen = read_partition(broker.bootstrap_servers, lagged, committed=False)
    assert [m.offset() for m in seen] == [o for o, _, _ in written]


def test_an_idempotent_producer_goes_on_after_cleaning(broker: BrokerThread) -> None:
    topic = new_topic(broker)
    errors: list[Any] = []
    producer = Producer(
        quiet(
            {
                "bootstrap.servers": broker.bootstrap_servers,
                "enable.idempotence": True,
                "linger.ms": 2,
                "batch.num.messages": 20,
            }
        )
    )

    def send(records: list[tuple[bytes, bytes | None]]) -> None:
        for key, value in records:
            producer.produce(
                topic, key=key, value=value, on_delivery=lambda e, _m: e and errors.append(e)
            )
            producer.poll(0)
        assert producer.flush(30) == 0

    send(updates(100, keys=4))
    write(broker, topic, updates(300, keys=4, start=100))  # another producer supersedes all
    wait_cleaned(broker, topic)
    assert empty_batches(broker, topic)  # the producer's last batch, emptied, stays
    latest = {m.key(): m.value() for m in read_partition(broker.bootstrap_servers, topic)}
    assert latest == dict(updates(400, keys=4))  # librdkafka reads past the empty batch
    send(updates(10, keys=4, start=400))
    assert errors == []
    latest = {m.key(): m.value() for m in read_partition(broker.bootstrap_servers, topic)}
    assert latest == dict(updates(410, keys=4))


def empty_batches(broker: BrokerThread, topic: str) -> list[tuple[int, int, int]]:
    """``(producer id, last offset, base sequence)`` of the log's empty batches."""

    async def read() -> list[tuple[int, int, int]]:
        plog = broker.broker.topics.partition(topic, 0)
        return [
            (h.producer_id, h.last_offset, h.base_sequence)
            for segment in plog.segments
            for _, h in segment.batches()
            if h.records_count == 0
        ]

    return broker.call(read())  # type: ignore[no-any-return]


def test_a_restart_in_the_middle_of_a_swap_recovers(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with BrokerThread(data, config={**CLEANER, "log.cleaner.enable": False}) as first:
        topic = new_topic(first)
        written = write(first, topic, updates(400, keys=6))
        port = int(first.bootstrap_servers.rsplit(":", 1)[1])
    # What a kill -9 during a cleaning leaves: the first cleaned segment committed as .swap
    # files (its old segments still there), the others still .cleaned.
    directory = data / f"{topic}-0"
    plog = PartitionLog(directory, LogConfig(compact=True, segment_bytes=2048))
    section = cleanable(plog, int(time.time() * 1000))
    assert section is not None
    work = plan(plog, section, topic, int(time.time() * 1000))
    try:
        result = clean(work, memory=1 << 20)
    finally:
        work.close()
    assert len(result.groups) >= 2
    swap.commit(directory, result.groups[0].base)
    for segment in plog.segments:
        segment.close()
    (data / ".clean-shutdown").unlink()
    active = section.end
    with BrokerThread(data, port=port, config=CLEANER) as second:
        seen = read_partition(second.bootstrap_servers, topic, committed=False)
        offsets = [m.offset() for m in seen]
        assert offsets == sorted(set(offsets))
        newest = {k: v for _, k, v in written}
        assert {m.key(): m.value() for m in seen} == newest
        wait_cleaned(second, topic)
        seen = read_partition(second.bootstrap_servers, topic, committed=False)
        assert [m.offset() for m in seen] == expected(written, active)
        assert not [p for p in directory.iterdir() if p.suffix in (".cleaned", ".swap")]
        consumer = Consumer(quiet({"bootstrap.servers": second.bootstrap_servers, "group.id": "w"}))
        low, high = consumer.get_watermark_offsets(TopicPartition(topic, 0), 10)
        consumer.close()
        assert (low, high) == (0, written[-1][0] + 1)


def test_the_cleaner_keeps_to_log_cleaner_io_max_bytes_per_second(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with BrokerThread(data, config={**CLEANER, "log.cleaner.enable": False}) as broker:
        topic = new_topic(broker, **{"segment.bytes": "65536"})
        write(broker, topic, [(b"k%d" % (i % 50), b"v" * 1000) for i in range(1000)])
    bound = 2_000_000  # bytes/s, read and written together
    values = BROKER_CONFIG_DEF.parse({"log.cleaner.io.max.bytes.per.second": str(bound)})
    started = time.monotonic()  # before the throttler: its periods start after this
    throttler = CleanerConfig.from_values(values).throttler()
    assert throttler is not None and CleanerConfig().throttler() is None  # default: unbounded
    assert throttler.check_interval_s == 0.3  # Kafka's: the bound holds within it too
    plog = PartitionLog(data / f"{topic}-0", LogConfig(compact=True, segment_bytes=65536))
    section = cleanable(plog, int(time.time() * 1000))
    assert section is not None
    work = plan(plog, section, topic, int(time.time() * 1000))
    try:
        result = clean(work, memory=1 << 20, throttler=throttler)
        elapsed = time.monotonic() - started
    finally:
        work.close()
        plog.close()
    assert result.records_written == 50
    # pass 2 alone reads and writes this much (pass 1 reads the dirty part too); every byte
    # was counted and paid for at the bound: however fast the machine, the cleaning takes no
    # less than what it counted over the bound
    assert throttler.total >= result.bytes_read + result.bytes_written > 900_000
    assert elapsed >= throttler.total / bound, (elapsed, throttler.total)


def sizes(directory: Path) -> dict[str, int]:
    return {p.name: p.stat().st_size for p in directory.glob("*.log")}


def cleaned_files(directory: Path) -> int:
    return len(list(directory.glob("*.log.cleaned")))


def wait_for_cleaned(directory: Path, count: int, timeout: float = 15) -> None:
    """Poll until the cleaner has written ``count`` cleaned segments (its second pass)."""
    deadline = time.monotonic() + timeout
    while cleaned_files(directory) < count:
        assert time.monotonic() < deadline, f"no {count} cleaned segments in {directory}"
        time.sleep(0.01)


def pause_in_the_swap(broker: BrokerProcess, directory: Path, timeout: float = 15) -> int:
    """SIGSTOP the broker once the swap of its cleaned segments has begun (their number
    falls); how many are left to swap in then (0: the swap ended first)."""
    deadline = time.monotonic() + timeout
    peak = 0
    while not 0 < (count := cleaned_files(directory)) < peak:
        peak = max(peak, count)
        assert time.monotonic() < deadline, f"no swap in {directory}"
        time.sleep(0.002)
    os.kill(broker.pid, signal.SIGSTOP)
    return cleaned_files(directory)


def check_read(bootstrap: str, topic: str, written: Written, start: int = 0) -> list[int]:
    """Read from ``start``: offsets ascend without repeats, each record is the one written at
    its offset, and every key's latest value from ``start`` on is there. The offsets read."""
    seen = read_partition(bootstrap, topic, committed=False, start=start)
    offsets = [m.offset() for m in seen]
    assert offsets == sorted(set(offsets)) and offsets[0] >= start, offsets[:20]
    at = {offset: (key, value) for offset, key, value in written}
    wrong = [m.offset() for m in seen if (m.key(), m.value()) != at[m.offset()]]
    assert not wrong, f"records not as written at offsets {wrong[:10]}"
    newest = {key: offset for offset, key, _ in written if offset >= start}
    missing = sorted(set(newest.values()) - set(offsets))
    assert not missing, f"the latest values at {missing[:10]} are gone"
    return offsets


def test_kill9_in_the_middle_of_cleaning_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    """A broker process killed in the cleaner's second pass, then in its swap, restarted
    on the same data: every record it keeps is the one written at its offset, the latest
    value of each key stays, and the next cleaning completes."""
    data = tmp_path / "data"
    broker = BrokerProcess(data, config={**CLEANER, "log.cleaner.enable": "false"}).start()
    try:
        topic = new_topic(broker, **{"segment.bytes": "16384"})
        records: list[tuple[bytes, bytes | None]] = [
            (f"k{i % 150}".encode(), b"%05d" % i + b"." * 100) for i in range(6000)
        ]
        written = write(broker, topic, records)  # ~0.8 MB: about 45 segments
        broker.stop()
        directory = data / f"{topic}-0"
        written_sizes = sizes(directory)
        assert len(written_sizes) > 20, written_sizes
        middle = written[len(written) // 2][0]
        # Both passes read the ~0.8 MB at 400 kB/s; pass 2 writes one cleaned segment per
        # segment, then the swap replaces them one by one.
        broker.config = {**CLEANER, "log.cleaner.io.max.bytes.per.second": "400000"}
        log_start = broker.log_file.stat().st_size
        broker.start()
        wait_for_cleaned(directory, 4)
        broker.kill()  # in pass 2: nothing swapped in
        assert cleaned_files(directory) and sizes(directory) == written_sizes

        broker.start()  # the throttled cleaner starts over
        left = pause_in_the_swap(broker, directory)
        broker.kill()
        assert left, "the swap ended before the broker was stopped"
        now = sizes(directory)  # some segments swapped in (or committed: .log.swap), not all
        assert {n for n, size in now.items() if size == written_sizes.get(n)}, "all swapped"
        swapped = {n for n, size in now.items() if size < written_sizes.get(n, 0)}
        assert swapped or list(directory.glob("*.log.swap")), "none swapped"
        assert "Cleaned log" not in broker.log_file.read_text()[log_start:]

        broker.config = CLEANER  # unthrottled: it cleans at once, as the log is read
        broker.start()
        assert check_read(broker.bootstrap_servers, topic, written)[-1] == written[-1][0]
        check_read(broker.bootstrap_servers, topic, written, start=middle)
        deadline = time.monotonic() + 15
        while f"Cleaned log {topic}-0 " not in broker.log_file.read_text()[log_start:]:
            assert time.monotonic() < deadline, "the cleaning after the restarts never ended"
            time.sleep(0.05)
        assert not [p for p in directory.iterdir() if p.suffix in (".cleaned", ".swap")]
        active = max(int(p.stem) for p in directory.glob("*.log"))
        offsets = check_read(broker.bootstrap_servers, topic, written)
        assert offsets == expected(written, active)
        from_middle = check_read(broker.bootstrap_servers, topic, written, start=middle)
        assert from_middle == [o for o in offsets if o >= middle]
    finally:
        broker.stop()

"""``seaway mirror verify`` against two real clusters: exact copies, every kind of defect."""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest
from confluent_kafka import Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from seaway.cli.main import main
from seaway.mirror.verify import VerifyError, record_digest, verify_mirror
from tests.broker.clients import quiet

pytestmark = pytest.mark.waits

Record = tuple[int, bytes | None, bytes | None, list[tuple[str, bytes | None]], int]


def _records(partitions: int, per_partition: int) -> list[Record]:
    # Recent timestamps: time retention (7 days) would delete older ones when the log start
    # moves.
    now = int(time.time() * 1000) - 60_000
    out: list[Record] = []
    for p in range(partitions):
        for i in range(per_partition):
            key = None if i % 7 == 0 else f"k{i % 5}".encode()
            value = b"" if i % 11 == 0 else f"value {p}-{i}".encode()
            headers = [("h", f"{i}".encode()), ("empty", b"")] if i % 3 else []
            out.append((p, key, value, headers, now + i))
    return out


def _topic(bootstrap: str, name: str, partitions: int) -> None:
    admin = AdminClient(quiet({"bootstrap.servers": bootstrap}))
    admin.create_topics([NewTopic(name, partitions, 1)])[name].result(30)


def _produce(bootstrap: str, topic: str, records: list[Record], **config: Any) -> None:
    producer = Producer(
        quiet({"bootstrap.servers": bootstrap, "enable.idempotence": True, **config})
    )
    for p, key, value, headers, ts in records:
        producer.produce(topic, key=key, value=value, headers=headers, timestamp=ts, partition=p)
    assert producer.flush(30) == 0


def _pair(a: str, b: str, partitions: int) -> tuple[str, str, str]:
    """A new topic on A, the alias, and the (not yet created) remote name on B."""
    alias = f"V{uuid.uuid4().hex[:6]}"
    topic = f"orders-{uuid.uuid4().hex[:6]}"
    _topic(a, topic, partitions)
    _topic(b, f"{alias}.{topic}", partitions)
    return topic, alias, f"{alias}.{topic}"


def _cli(a: str, b: str, topic: str, *extra: str) -> int:
    return main(["mirror", "verify", "--source-bootstrap", a, "--target-bootstrap", b,
                 "--topic", topic, *extra])  # fmt: skip


def test_record_digest_tells_null_empty_and_header_order_apart() -> None:
    base = record_digest(b"k", b"v", [("a", b"1"), ("b", b"2")], 5)
    variants = [
        record_digest(None, b"v", [("a", b"1"), ("b", b"2")], 5),
        record_digest(b"", b"v", [("a", b"1"), ("b", b"2")], 5),
        record_digest(b"k", None, [("a", b"1"), ("b", b"2")], 5),
        record_digest(b"k", b"v", [("b", b"2"), ("a", b"1")], 5),
        record_digest(b"k", b"v", [("a", None), ("b", b"2")], 5),
        record_digest(b"k", b"v", [("a", b"1")], 5),
        record_digest(b"k", b"v", [("a", b"1"), ("b", b"2")], 6),
        record_digest(b"kv", b"", [("a", b"1"), ("b", b"2")], 5),  # no ambiguous joins
    ]
    assert len({base, *variants}) == len(variants) + 1
    assert record_digest(b"k", b"v", None, 5) == record_digest(b"k", b"v", [], 5)
    assert len(base) == 16


def test_an_exact_copy_matches(cluster_a: Any, cluster_b: Any, capsys: Any) -> None:
    a, b = cluster_a.bootstrap_servers, cluster_b.bootstrap_servers
    topic, alias, remote = _pair(a, b, 3)
    records = _records(3, 400)
    _produce(a, topic, records)
    _produce(b, remote, records)
    # An aborted transaction on the target is invisible to read_committed: still a match.
    aborted = Producer(quiet({"bootstrap.servers": b, "transactional.id": f"tx-{alias}"}))
    aborted.init_transactions(30)
    aborted.begin_transaction()
    aborted.produce(remote, value=b"never committed", partition=1)
    aborted.flush(30)
    aborted.abort_transaction(30)
    progress: list[tuple[int, int]] = []
    result = verify_mirror(a, b, topic, remote, progress=lambda r, t: progress.append((r, t)))
    assert result.ok
    assert [(p.partition, p.source_records, p.target_records) for p in result.partitions] == [
        (0, 400, 400), (1, 400, 400), (2, 400, 400),
    ]  # fmt: skip
    for field in ("lost", "duplicated", "unexpected", "older"):
        assert result.total(field) == 0
    assert all(p.checksum_match for p in result.partitions)
    assert progress[-1][0] == 2400

    assert _cli(a, b, topic, "--source-alias", alias) == 0
    out = capsys.readouterr().out
    assert "PARTITION SOURCE-RECORDS TARGET-RECORDS" in " ".join(out.split())
    assert "MATCH: 3 partition(s), 1200 source records, 1200 target records, 0 lost" in out
    assert _cli(a, b, topic, "--remote-topic", remote) == 0


def test_lost_duplicated_changed_headers_and_timestamps(
    cluster_a: Any, cluster_b: Any, capsys: Any
) -> None:
    a, b = cluster_a.bootstrap_servers, cluster_b.bootstrap_servers
    topic, alias, remote = _pair(a, b, 6)
    records = _records(6, 50)
    _produce(a, topic, records)
    parts = {p: [r for r in records if r[0] == p] for p in range(6)}
    del parts[0][10]  # p0: one record lost
    parts[1].insert(21, parts[1][20])  # p1: one record produced twice
    r = parts[2][30]
    parts[2][30] = (*r[:2], b"changed", *r[3:])  # p2: a changed value
    r = parts[3][31]
    parts[3][31] = (*r[:3], [("h", b"other")], r[4])  # p3: other headers
    r = parts[4][32]
    parts[4][32] = (*r[:4], r[4] + 1)  # p4: another timestamp
    copy = [r for p in range(6) for r in parts[p]]
    _produce(b, remote, copy)  # p5: exact

    result = verify_mirror(a, b, topic, remote)
    found = {
        p.partition: (p.source_records, p.target_records, p.lost, p.duplicated, p.unexpected)
        for p in result.partitions
    }
    assert found == {
        0: (50, 49, 1, 0, 0),
        1: (50, 51, 0, 1, 0),
        2: (50, 50, 1, 0, 1),
        3: (50, 50, 1, 0, 1),
        4: (50, 50, 1, 0, 1),
        5: (50, 50, 0, 0, 0),
    }
    assert [p.checksum_match for p in result.partitions] == [False] * 5 + [True]
    assert not result.ok

    assert _cli(a, b, topic, "--source-alias", alias) == 1
    out = capsys.readouterr().out
    assert "MISMATCH: 6 partition(s), 300 source records, 300 target records, 4 lost, " in out
    assert "1 duplicated, 3 unexpected" in out


def test_source_log_start_older_target_records_are_not_errors(
    cluster_a: Any, cluster_b: Any, capsys: Any
) -> None:
    a, b = cluster_a.bootstrap_servers, cluster_b.bootstrap_servers
    topic, alias, remote = _pair(a, b, 2)
    records = _records(2, 100)
    _produce(a, topic, records)
    _produce(b, remote, records)
    admin = AdminClient(quiet({"bootstrap.servers": a}))
    for tp in (TopicPartition(topic, 0, 40), TopicPartition(topic, 1, 100)):  # p1: all gone
        assert admin.delete_records([tp])[tp].result(30).low_watermark == tp.offset

    result = verify_mirror(a, b, topic, remote)
    found = {
        p.partition: (p.source_start, p.source_records, p.target_records, p.older, p.lost,
                      p.duplicated, p.unexpected, p.checksum_match)
        for p in result.partitions
    }  # fmt: skip
    assert found == {
        0: (40, 60, 100, 40, 0, 0, 0, True),
        1: (100, 0, 100, 100, 0, 0, 0, True),
    }
    assert result.ok
    assert _cli(a, b, topic, "--source-alias", alias) == 0
    assert "140 older than the source's log start" in capsys.readouterr().out

    # A duplicate after the older records is still a duplicate, and a foreign record after
    # them is unexpected (not "older").
    dup = [r for r in records if r[0] == 0][70]
    _produce(b, remote, [dup, (0, b"x", b"foreign", [], 1)])
    part0 = verify_mirror(a, b, topic, remote).partitions[0]
    assert (part0.older, part0.duplicated, part0.unexpected, part0.lost) == (40, 1, 1, 0)
    assert _cli(a, b, topic, "--source-alias", alias) == 1


def test_usage_and_connection_errors(cluster_a: Any, cluster_b: Any, capsys: Any) -> None:
    a, b = cluster_a.bootstrap_servers, cluster_b.bootstrap_servers
    topic, alias, remote = _pair(a, b, 1)
    assert _cli(a, b, "no-such-topic", "--source-alias", alias) == 2
    assert f"Topic no-such-topic does not exist on the source cluster ({a})" in (
        capsys.readouterr().err
    )
    assert _cli(a, b, topic, "--source-alias", "Other") == 2
    assert f"Topic Other.{topic} does not exist on the target cluster ({b})" in (
        capsys.readouterr().err
    )
    # The identity policy names the copy as the topic itself.
    assert _cli(a, b, remote, "--source-alias", alias, "--replication-policy", "identity") == 2
    assert f"Topic {remote} does not exist on the source cluster" in capsys.readouterr().err
    assert _cli("127.0.0.1:1", b, topic, "--source-alias", alias, "--timeout", "1") == 2
    assert "Cannot reach the source cluster at 127.0.0.1:1" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:  # argparse: --source-alias or --remote-topic
        _cli(a, b, topic)
    assert exit_info.value.code == 2
    with pytest.raises(VerifyError, match="does not exist on the target"):
        verify_mirror(a, b, topic, f"{remote}-missing")

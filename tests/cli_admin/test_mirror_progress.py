"""``seaway mirror`` tools as a user runs them: a progress bar on a terminal, and exactly the
same standard output (and nothing on standard error) when piped."""

from __future__ import annotations

import sys
import time
import uuid

from confluent_kafka import Producer

from tests.broker.clients import create_topic, quiet
from tests.terminal import on_terminal, piped

RECORDS = 300  # per partition
# Record i of each partition is stamped BASE_MS + i s: recent, or retention would drop it.
BASE_MS = (int(time.time()) - 3600) * 1000
SEAWAY = (sys.executable, "-m", "seaway", "mirror")


def _topic_with_records(bootstrap: str, name: str) -> None:
    """A 2-partition topic of RECORDS records per partition, stamped from BASE_MS."""
    create_topic(bootstrap, name, partitions=2)
    producer = Producer(quiet({"bootstrap.servers": bootstrap, "linger.ms": 5}))
    for partition in range(2):
        for i in range(RECORDS):
            value = f"{partition}-{i}".encode()
            producer.produce(name, value=value, partition=partition, timestamp=BASE_MS + i * 1000)
    assert producer.flush(30) == 0


def test_verify_shows_records_read_with_rate_and_eta(bootstrap: str) -> None:
    topic, copy = f"orders-{uuid.uuid4().hex[:6]}", f"copy-{uuid.uuid4().hex[:6]}"
    for name in (topic, copy):
        _topic_with_records(bootstrap, name)
    argv = [*SEAWAY, "verify", "--source-bootstrap", bootstrap, "--target-bootstrap",
            bootstrap, "--topic", topic, "--remote-topic", copy]  # fmt: skip

    shown, plain = on_terminal(argv), piped(argv)

    assert shown.code == plain.code == 0, shown.err + plain.err
    assert shown.out == plain.out and "MATCH: 2 partition(s), 600 source records" in plain.out
    assert plain.err == ""
    final = next(line for line in reversed(shown.err.splitlines()) if line.startswith("verify"))
    total = 2 * 2 * RECORDS  # both sides read
    assert "100%" in final and f"{total:,}/{total:,} records" in final, shown.err
    assert "records/s" in final and "ETA" in final


def test_group_tools_count_groups_and_go_on_past_a_failed_group(bootstrap: str) -> None:
    topic = f"orders-{uuid.uuid4().hex[:6]}"
    _topic_with_records(bootstrap, topic)
    when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(BASE_MS / 1000 + 100))
    groups = [f"g-{uuid.uuid4().hex[:6]}", f"g-{uuid.uuid4().hex[:6]}"]
    argv = [*SEAWAY, "reset-to-datetime", "--bootstrap-server", bootstrap, "--topic", topic,
            "--to-datetime", when, "--group", groups[0], "--group", groups[1]]  # fmt: skip

    shown, plain = on_terminal(argv), piped(argv)

    assert shown.code == plain.code == 0, shown.err + plain.err
    assert shown.out == plain.out and plain.err == ""
    for group in groups:  # one table per group, as for a single --group
        assert f"2 partition(s) dry run (use --execute to commit) for group {group}" in plain.out
    for partition in (0, 1):
        assert plain.out.count(f"{topic:<40} {partition:>9} {100:>12}\n") == 2
    final = next(line for line in reversed(shown.err.splitlines()) if "groups" in line)
    assert final.startswith("reset-to-datetime") and "100%" in final and "2/2 groups" in final

    # No checkpoints: each group fails with its own error, the next one still runs.
    argv = [*SEAWAY, "fail-over", "--bootstrap-server", bootstrap, "--source", "Nowhere",
            "--group", groups[0], "--group", groups[1]]  # fmt: skip
    failed = piped(argv)
    assert failed.code == 1 and failed.out == ""
    assert [line for line in failed.err.splitlines() if line.startswith("ERROR")] == [
        f"ERROR No checkpoint of group {group} from cluster Nowhere on {bootstrap} "
        "(is the checkpoint flow Nowhere->... emitting for this group?)"
        for group in groups
    ]

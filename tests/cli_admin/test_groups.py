"""``seaway groups`` (kafka-consumer-groups.sh) against real brokers, checked with real clients."""

from __future__ import annotations

import datetime as dt
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from seaway.broker import BrokerThread
from seaway.cli.group_inputs import parse_datetime, parse_duration
from seaway.cli.main import main
from tests.broker.acl_cluster import AclBroker, start_acl_broker
from tests.broker.clients import quiet
from tests.cli_admin.cli import command_config, run

# Record i of each partition is stamped BASE_MS + i s: recent, or retention would drop it.
BASE_MS = (int(time.time()) - 3600) * 1000
RECORDS = 10
OFFSETS_HEADER = (
    "GROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             "
    "CONSUMER-ID     HOST            CLIENT-ID"
)
RESET_HEADER = f"{'GROUP':<30} {'TOPIC':<30} {'PARTITION':<10} {'NEW-OFFSET':<15}"
NO_COMMIT = -1001


def _groups(capsys: Any, bootstrap: str, *args: str) -> tuple[int, str, str]:
    """Run ``seaway groups``: its exit code, standard output and standard error."""
    return run(capsys, "groups", "--bootstrap-server", bootstrap, *args)


@pytest.fixture(scope="module")
def bootstrap(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A broker of this module's own: listings (and the widths of their columns, which the
    longest group name sets) show only the groups these tests made."""
    with BrokerThread(tmp_path_factory.mktemp("groups"), config={}) as broker:
        yield broker.bootstrap_servers


def _setup(client: dict[str, Any], commits: dict[int, int]) -> tuple[str, str]:
    """A 2-partition topic of RECORDS records per partition and a group (no members) with
    *commits* (partition -> offset); their names."""
    suffix = uuid.uuid4().hex[:6]
    topic, group = f"t-{suffix}", f"g-{suffix}"
    admin = AdminClient(quiet(client))
    admin.create_topics([NewTopic(topic, 2, 1)])[topic].result(30)
    producer = Producer(quiet(client))
    for i in range(RECORDS):
        for partition in range(2):
            producer.produce(topic, value=b"x", partition=partition, timestamp=BASE_MS + i * 1000)
    assert producer.flush(30) == 0
    consumer = Consumer(quiet({**client, "group.id": group}))
    try:
        offsets = [TopicPartition(topic, p, o) for p, o in commits.items()]
        consumer.commit(offsets=offsets, asynchronous=False)
    finally:
        consumer.close()
    return topic, group


def _committed(client: dict[str, Any], group: str, topic: str) -> list[int]:
    """The group's committed offsets of both partitions, as a consumer of it sees them."""
    consumer = Consumer(quiet({**client, "group.id": group}))
    try:
        return [
            tp.offset for tp in consumer.committed([TopicPartition(topic, p) for p in (0, 1)], 10)
        ]
    finally:
        consumer.close()


def _row(*values: object) -> str:
    """A --describe offsets row, names of 15 characters at most."""
    widths = (15, 15, 10, 15, 15, 15, 15, 15)
    return " ".join(f"{v!s:<{w}}" for v, w in zip(values, widths, strict=False)) + f" {values[-1]}"


def _reset_rows(out: str) -> dict[tuple[str, int], int]:
    """The NEW-OFFSET table of --reset-offsets: (topic, partition) -> offset."""
    lines = out.splitlines()
    assert RESET_HEADER in lines
    rows = [line.split() for line in lines[lines.index(RESET_HEADER) + 1 :] if line.strip()]
    return {(topic, int(partition)): int(offset) for _, topic, partition, offset in rows}


def _timestamp(millis: int, offset_hours: int = 0) -> str:
    """*millis* as --to-datetime takes it, in UTC (no zone) or at *offset_hours* from it."""
    zone = dt.timezone(dt.timedelta(hours=offset_hours))
    when = dt.datetime.fromtimestamp(millis / 1000, zone)
    text = when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{millis % 1000:03d}"
    return text if not offset_hours else text + when.strftime("%z")[:3] + ":00"


def test_list_and_describe_show_offsets_and_lag(bootstrap: str, capsys: Any) -> None:
    topic, group = _setup({"bootstrap.servers": bootstrap}, {0: 3, 1: 6})

    code, out, _ = _groups(capsys, bootstrap, "--list")
    assert code == 0 and group in out.splitlines()
    code, out, _ = _groups(capsys, bootstrap, "--list", "--state")
    assert code == 0
    assert f"{'GROUP':<25} {'STATE':<20}" in out.splitlines()
    assert f"{group:<25} {'Empty':<20}" in out.splitlines()
    _, out, _ = _groups(capsys, bootstrap, "--list", "--state", "stable,preparingrebalance")
    assert group not in out

    code, out, err = _groups(capsys, bootstrap, "--describe", "--group", group)
    assert code == 0
    assert f"Consumer group '{group}' has no active members." in err
    assert out == (
        f"\n{OFFSETS_HEADER}\n"
        f"{_row(group, topic, 0, 3, RECORDS, RECORDS - 3, '-', '-', '-')}\n"
        f"{_row(group, topic, 1, 6, RECORDS, RECORDS - 6, '-', '-', '-')}\n"
    )
    code, out, _ = _groups(capsys, bootstrap, "--describe", "--group", group, "--state")
    assert code == 0
    header, row = out.strip("\n").splitlines()
    assert header.split() == ["GROUP", "COORDINATOR", "(ID)", "ASSIGNMENT-STRATEGY", "STATE",
                              "#MEMBERS"]  # fmt: skip
    assert row.split()[0] == group and row.split()[-2:] == ["Empty", "0"]

    code, out, _ = _groups(capsys, bootstrap, "--describe", "--group", "no-such-group")
    assert code == 1
    assert out == "\nError: Consumer group 'no-such-group' does not exist.\n"


def test_an_active_group_is_described_and_not_reset(bootstrap: str, capsys: Any) -> None:
    client = {"bootstrap.servers": bootstrap}
    topic, group = _setup(client, {0: 3, 1: 6})
    consumer = Consumer(quiet({**client, "group.id": group, "client.id": "reporter",
                               "enable.auto.commit": False}))  # fmt: skip
    consumer.subscribe([topic])
    try:
        deadline = time.monotonic() + 30
        while len(consumer.assignment()) < 2 and time.monotonic() < deadline:
            consumer.poll(0.2)
        assert len(consumer.assignment()) == 2
        member = consumer.memberid()

        code, out, err = _groups(capsys, bootstrap, "--describe", "--group", group)
        assert code == 0 and "no active members" not in err
        rows = [line.split() for line in out.splitlines()[2:]]
        who = [member, "127.0.0.1", "reporter"]
        assert rows == [
            [group, topic, "0", "3", str(RECORDS), str(RECORDS - 3), *who],
            [group, topic, "1", "6", str(RECORDS), str(RECORDS - 6), *who],
        ]
        code, out, _ = _groups(capsys, bootstrap, "--describe", "--group", group, "--members",
                               "--verbose")  # fmt: skip
        assert code == 0
        assert out.splitlines()[1].split() == ["GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID",
                                               "#PARTITIONS", "ASSIGNMENT"]  # fmt: skip
        assert out.splitlines()[2].split() == [group, member, "127.0.0.1", "reporter", "2",
                                               f"{topic}(0,1)"]  # fmt: skip
        _, out, _ = _groups(capsys, bootstrap, "--describe", "--group", group, "--state")
        assert out.splitlines()[-1].split()[-3:] == ["range", "Stable", "1"]

        code, out, _ = _groups(capsys, bootstrap, "--reset-offsets", "--group", group,
                               "--topic", topic, "--to-earliest", "--execute")  # fmt: skip
        assert code == 1
        assert out == (
            f"\nError: Assignments can only be reset if the group '{group}' is inactive, but the "
            f"current state is Stable.\n\n{RESET_HEADER}\n"
        )
        assert _committed(client, group, topic) == [3, 6]

        code, out, _ = _groups(capsys, bootstrap, "--delete-offsets", "--group", group,
                               "--topic", topic)  # fmt: skip
        assert code == 1
        assert "Error: Encounter some partition level error, see the follow-up details:" in out
        assert [line.split()[-1] for line in out.splitlines()[-2:]] == ["it", "it"]  # "...to it"
        code, out, _ = _groups(capsys, bootstrap, "--delete", "--group", group)
        assert code == 1
        assert "Error: Deletion of some consumer groups failed:" in out
        assert f"* Group '{group}' could not be deleted due to: " in out
        assert _committed(client, group, topic) == [3, 6]
    finally:
        consumer.close()


def test_reset_offsets(bootstrap: str, capsys: Any, tmp_path: Path) -> None:
    client = {"bootstrap.servers": bootstrap}
    topic, group = _setup(client, {0: 3, 1: 6})

    def reset(*args: str, execute: bool = True) -> dict[tuple[str, int], int]:
        flags = ["--execute"] if execute else []
        code, out, _ = _groups(capsys, bootstrap, "--reset-offsets", "--group", group, *args,
                               *flags)  # fmt: skip
        assert code == 0, out
        return _reset_rows(out)

    code, out, err = _groups(capsys, bootstrap, "--reset-offsets", "--group", group, "--topic",
                             topic, "--to-earliest")  # fmt: skip
    assert code == 0 and err.startswith("WARN: No action will be performed")
    assert out == f"\n{RESET_HEADER}\n" + "".join(
        f"{group:<30} {topic:<30} {p:<10} {0:<15}\n" for p in (0, 1)
    )
    assert _committed(client, group, topic) == [3, 6]  # a dry run
    assert reset("--topic", topic, "--to-earliest") == {(topic, 0): 0, (topic, 1): 0}
    assert _committed(client, group, topic) == [0, 0]
    reset("--topic", topic, "--to-offset", "5")
    assert _committed(client, group, topic) == [5, 5]
    assert reset("--all-topics", "--shift-by", "-2") == {(topic, 0): 3, (topic, 1): 3}
    assert _committed(client, group, topic) == [3, 3]
    reset("--topic", f"{topic}:1", "--to-offset", "50")  # past the end: the end
    assert _committed(client, group, topic) == [3, RECORDS]
    reset("--topic", topic, "--to-datetime", _timestamp(BASE_MS + 4000))
    assert _committed(client, group, topic) == [4, 4]
    reset("--topic", topic, "--to-datetime", _timestamp(BASE_MS + 6500, offset_hours=2))
    assert _committed(client, group, topic) == [7, 7]
    reset("--topic", topic, "--by-duration", "P1D")  # before every record
    assert _committed(client, group, topic) == [0, 0]
    reset("--topic", f"{topic}:1", "--to-latest")
    assert _committed(client, group, topic) == [0, RECORDS]
    current = reset("--all-topics", "--to-current", execute=False)
    assert current == {(topic, 0): 0, (topic, 1): RECORDS}

    code, out, _ = _groups(capsys, bootstrap, "--reset-offsets", "--group", group, "--topic",
                           topic, "--shift-by", "2", "--dry-run", "--export")  # fmt: skip
    assert code == 0 and out == f"{topic},0,2\n{topic},1,{RECORDS}\n\n"
    plan = tmp_path / "plan.csv"
    plan.write_text(out.replace(f"{topic},1,{RECORDS}", f"{topic},1,8"))
    assert reset("--from-file", str(plan)) == {(topic, 0): 2, (topic, 1): 8}
    assert _committed(client, group, topic) == [2, 8]


def test_delete_offsets_then_the_group(bootstrap: str, capsys: Any) -> None:
    client = {"bootstrap.servers": bootstrap}
    topic, group = _setup(client, {0: 3, 1: 6})

    code, out, _ = _groups(capsys, bootstrap, "--delete-offsets", "--group", group, "--topic",
                           f"{topic}:0", "--topic", "no-such-topic")  # fmt: skip
    assert code == 0
    assert out == (
        f"Request succeed for deleting offsets with topic {topic}:0, no-such-topic group {group}\n"
        f"\n{'TOPIC':<30} {'PARTITION':<15} {'STATUS':<15}"
        f"\n{'no-such-topic':<30} {'Not Provided':<15} Error: :Unknown topic or partition"
        f"\n{topic:<30} {0:<15} {'Successful':<15}\n"
    )
    assert _committed(client, group, topic) == [NO_COMMIT, 6]

    code, out, _ = _groups(capsys, bootstrap, "--delete", "--group", group)
    assert code == 0
    assert out == f"Deletion of requested consumer groups ('{group}') was successful.\n"
    assert group not in _groups(capsys, bootstrap, "--list")[1].splitlines()
    assert _committed(client, group, topic) == [NO_COMMIT, NO_COMMIT]


@pytest.fixture(scope="module")
def acl(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AclBroker]:
    yield from start_acl_broker(tmp_path_factory.mktemp("acl"))


def test_command_config_logs_in_with_sasl(acl: AclBroker, capsys: Any, tmp_path: Path) -> None:
    client = acl.client_config("admin")
    del client["logger"]
    topic, group = _setup(client, {0: 3, 1: 6})
    as_admin = ["--command-config", command_config(tmp_path, "admin")]

    code, out, _ = _groups(capsys, acl.bootstrap, *as_admin, "--list")
    assert code == 0 and group in out.splitlines()
    code, out, _ = _groups(capsys, acl.bootstrap, *as_admin, "--describe", "--group", group)
    assert code == 0
    assert _row(group, topic, 1, 6, RECORDS, RECORDS - 6, "-", "-", "-") in out.splitlines()
    code, out, _ = _groups(capsys, acl.bootstrap, *as_admin, "--reset-offsets", "--group", group,
                           "--all-topics", "--to-earliest", "--execute")  # fmt: skip
    assert code == 0 and _committed(client, group, topic) == [0, 0]
    code, out, _ = _groups(capsys, acl.bootstrap, *as_admin, "--delete-offsets", "--group",
                           group, "--topic", f"{topic}:1")  # fmt: skip
    assert code == 0 and _committed(client, group, topic) == [0, NO_COMMIT]

    as_mallory = ["--command-config", command_config(tmp_path, "mallory")]
    code, out, _ = _groups(capsys, acl.bootstrap, *as_mallory, "--list")
    assert code == 0 and group not in out
    code, out, _ = _groups(capsys, acl.bootstrap, *as_mallory, "--describe", "--group", group)
    assert code == 1 and "Error: Executing consumer group command failed due to" in out
    code, out, _ = _groups(capsys, acl.bootstrap, *as_mallory, "--delete-offsets", "--group",
                           group, "--topic", f"{topic}:0")  # fmt: skip
    assert code == 1 and f"Error: Access to '{group}' is not authorized." in out
    assert _committed(client, group, topic) == [0, NO_COMMIT]

    code, out, _ = _groups(capsys, acl.bootstrap, *as_admin, "--delete", "--group", group)
    assert code == 0 and _committed(client, group, topic) == [NO_COMMIT, NO_COMMIT]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--describe"], "Option [describe] takes one of these options"),
        (["--reset-offsets", "--group", "g", "--topic", "t"], "requires one of the following"),
        (["--reset-offsets", "--group", "g", "--to-earliest"], "One of the reset scopes"),
        (["--reset-offsets", "--group", "g", "--all-topics", "--to-earliest", "--to-latest"],
         "not allowed with argument"),
        (["--delete", "--group", "g", "--topic", "t"], "topic-specific offset deletion"),
        (["--list", "--members"], "may be used with [describe] only"),
        (["--describe", "--group", "g", "--state", "stable"], "does not take a value"),
        (["--delete-offsets", "--group", "g"], "takes the following options"),
    ],
)  # fmt: skip
def test_usage_errors(args: list[str], message: str, capsys: Any) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["groups", "--bootstrap-server", "localhost:1", *args])
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err


def test_datetime_and_duration_formats() -> None:
    assert parse_datetime("2024-05-01T04:03:00.250") == 1714536180250
    assert parse_datetime("2024-05-01T06:03:00.250+02:00") == 1714536180250
    assert parse_datetime("2024-05-01T06:03:00.250+0200") == 1714536180250
    assert parse_datetime("2024-05-01T03:03:00.250-01") == 1714536180250
    assert parse_datetime("2024-05-01T04:03:00.250Z") == 1714536180250
    assert parse_duration("P1DT2H3M4.5S") == ((24 + 2) * 3600 + 3 * 60 + 4) * 1000 + 500
    assert parse_duration("PT0S") == 0
    assert parse_duration("-PT1M") == -60_000
    for bad in ("2024-05-01 04:03:00.000", "2024-05-01T04:03:00"):
        with pytest.raises(Exception, match="Unparseable date"):
            parse_datetime(bad)
    for bad in ("P", "PT", "1D", "P1H"):
        with pytest.raises(Exception, match="cannot be parsed to a Duration"):
            parse_duration(bad)

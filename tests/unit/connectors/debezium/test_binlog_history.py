"""The schema history in a file (Debezium's ``FileSchemaHistory``): one record a line, fsynced
before the write returns, read back in order; recovery as the topic's, with its error when
the file holds none of the connector's records; the store ``schema.history.internal`` picks."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from seaway.connect.api import ConnectError
from seaway.connectors.debezium.binlog.config import settings
from seaway.connectors.debezium.binlog.history import (
    MISSING,
    FileSchemaHistory,
    HistoryRecord,
    KafkaSchemaHistory,
    TableChange,
    schema_history,
)
from seaway.connectors.debezium.binlog.position import Position
from seaway.connectors.debezium.binlog.tables import Column, Table

SOURCE = {"server": "dbserver1"}
ID = Column("id", 1, "INT", optional=False)
CUSTOMERS = Table(("inv", "customers"), (ID, Column("email", 2, "VARCHAR", length=50)), ("id",))
WIDER = Table(("inv", "customers"), (*CUSTOMERS.columns, Column("country", 3, "VARCHAR")), ("id",))
ORDERS = Table(("inv", "orders"), (ID,), ("id",))


def _record(table: Table, kind: str, pos: int, gtid: str, source: Any = SOURCE) -> HistoryRecord:
    offset = Position("mariadb-bin.000001", pos, gtid).offset()
    return HistoryRecord(source, offset, 1_767_225_600_000, "inv", f"{kind} TABLE {table.id[1]}",
                         (TableChange(kind, table),))  # fmt: skip


HISTORY = [
    _record(CUSTOMERS, "CREATE", 100, "0-1-5"),
    _record(ORDERS, "CREATE", 100, "0-1-5"),
    _record(CUSTOMERS, "CREATE", 150, "0-1-6", {"server": "other"}),  # another connector's
    _record(WIDER, "ALTER", 200, "0-1-7"),
    _record(ORDERS, "DROP", 300, "0-1-9"),
]


def _written(path: Path) -> FileSchemaHistory:
    history = FileSchemaHistory(path, SOURCE)
    history.initialize_storage()
    for record in HISTORY:
        history.write(record)
    return history


def test_one_record_a_line_read_back_in_order(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "history.dat"  # the directories are made too
    history = _written(path)
    text = path.read_text(encoding="utf-8")
    assert text.endswith("\n") and text.count("\n") == len(HISTORY)
    assert [json.loads(line) for line in text.splitlines()] == [r.json() for r in HISTORY]
    assert text.splitlines()[0] == HISTORY[0].text()  # compact, as the topic's values
    assert list(history.records()) == [r.json() for r in HISTORY]
    # a new instance over the same file (a restarted task) reads the same records
    assert list(FileSchemaHistory(str(path), SOURCE).records()) == [r.json() for r in HISTORY]


def test_each_line_is_fsynced_before_the_write_returns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "history.dat"
    synced: list[tuple[int, str]] = []  # (inode, what the file held) at each fsync
    real_fsync = os.fsync

    def spy(fd: int) -> None:
        inode = os.fstat(fd).st_ino
        held = path.read_text(encoding="utf-8") if path.stat().st_ino == inode else "<dir>"
        synced.append((inode, held))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", spy)
    history = FileSchemaHistory(path, SOURCE)
    history.write(HISTORY[0])
    assert synced == [(path.stat().st_ino, HISTORY[0].text() + "\n"),  # the file, written
                      (tmp_path.stat().st_ino, "<dir>")]  # then the new file's name  # fmt: skip
    synced.clear()
    history.write(HISTORY[1])
    assert synced == [(path.stat().st_ino, HISTORY[0].text() + "\n" + HISTORY[1].text() + "\n")]


@pytest.mark.parametrize("gtids", [True, False], ids=["by-gtid", "by-file-position"])
def test_recover_applies_the_connectors_records_up_to_the_offset(
    tmp_path: Path, gtids: bool
) -> None:
    history = _written(tmp_path / "history.dat")

    def at(pos: int, gtid: str) -> dict[str, Any]:
        return Position("mariadb-bin.000001", pos, gtid if gtids else None).offset()

    assert history.recover(at(120, "0-1-5")) == {CUSTOMERS.id: CUSTOMERS, ORDERS.id: ORDERS}
    assert history.recover(at(200, "0-1-7")) == {CUSTOMERS.id: WIDER, ORDERS.id: ORDERS}
    assert history.recover(at(400, "0-1-12")) == {CUSTOMERS.id: WIDER}  # orders dropped
    assert history.recover(at(50, "0-1-4")) == {}  # before every record: none applies


def test_recover_without_the_connectors_records_is_debeziums_error(tmp_path: Path) -> None:
    offset = Position("mariadb-bin.000001", 500, "0-1-20").offset()
    missing = FileSchemaHistory(tmp_path / "none" / "history.dat", SOURCE)
    with pytest.raises(ConnectError, match=MISSING):
        missing.recover(offset)
    assert not (tmp_path / "none").exists()  # reading creates nothing
    empty = FileSchemaHistory(tmp_path / "empty.dat", SOURCE)
    empty.initialize_storage()
    assert (tmp_path / "empty.dat").read_bytes() == b""
    with pytest.raises(ConnectError, match=MISSING):
        empty.recover(offset)
    others = FileSchemaHistory(tmp_path / "others.dat", SOURCE)
    others.write(HISTORY[2])  # another connector's record only
    with pytest.raises(ConnectError, match=MISSING):
        others.recover(offset)
    other = FileSchemaHistory(tmp_path / "others.dat", {"server": "other"})
    assert other.recover(offset) == {CUSTOMERS.id: CUSTOMERS}


def test_an_unreadable_line_names_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "history.dat"
    FileSchemaHistory(path, SOURCE).write(HISTORY[0])
    with path.open("a", encoding="utf-8") as file:
        file.write('\n{"source": {"serv')  # a blank line is skipped, a cut one is not
    with pytest.raises(ConnectError, match=f"Unreadable line 3 of the schema history file {path}"):
        list(FileSchemaHistory(path, SOURCE).records())


def test_an_unwritable_file_is_a_connect_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(ConnectError, match=r"Writing to the schema history file .*file/h\.dat"):
        FileSchemaHistory(tmp_path / "file" / "h.dat", SOURCE).write(HISTORY[0])


def test_the_store_schema_history_internal_names(tmp_path: Path) -> None:
    base = {"database.hostname": "db", "database.user": "u", "database.server.id": "5",
            "topic.prefix": "dbserver1"}  # fmt: skip
    kafka = schema_history(settings({**base,
                                      "schema.history.internal.kafka.bootstrap.servers": "k:9092",
                                      "schema.history.internal.kafka.topic": "history"}),
                           SOURCE)  # fmt: skip
    assert isinstance(kafka, KafkaSchemaHistory)
    assert (kafka.client, kafka.topic, kafka.source) == ({"bootstrap.servers": "k:9092"},
                                                         "history", SOURCE)  # fmt: skip
    path = str(tmp_path / "history.dat")
    file = schema_history(settings({**base,
        "schema.history.internal": "io.debezium.storage.file.history.FileSchemaHistory",
        "schema.history.internal.file.filename": path}), SOURCE)  # fmt: skip
    assert isinstance(file, FileSchemaHistory)
    assert (file.path, file.source) == (Path(path), SOURCE)

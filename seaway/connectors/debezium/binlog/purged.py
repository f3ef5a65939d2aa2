"""Whether a stored offset's binlog is still on the server (``BinlogSourceTask``'s
``validateBinlogConfiguration`` / ``isBinlogAvailable``): a restart from a position whose
file was purged would silently miss every change in between, so the task either fails with
Debezium's message or, under ``snapshot.mode=when_needed``, takes a snapshot again."""

from __future__ import annotations

from typing import Any

from seaway.connectors.debezium.binlog.position import Position

__all__ = ["binlog_files", "is_available", "unavailable_message"]


def binlog_files(connection: Any) -> list[str]:
    """The server's binlog files, oldest first (``SHOW BINARY LOGS``)."""
    with connection.cursor() as cursor:
        cursor.execute("SHOW BINARY LOGS")
        return [str(row[0]) for row in cursor.fetchall()]


def is_available(connection: Any, position: Position) -> bool:
    """Whether the binlog holds everything from *position* on: its file is still there
    (a GTID position lies in that file too, so this covers both ways of resuming)."""
    return not position.file or position.file in binlog_files(connection)


def unavailable_message(position: Position) -> str:
    """Debezium's error for a position no longer on the server."""
    offset = ", ".join(f"{k}={v}" for k, v in position.offset().items())
    return (
        f"The connector is trying to read change stream starting at {{{offset}}}, but this "
        "is no longer available on the server. Reconfigure the connector to use a snapshot "
        "mode when needed."
    )

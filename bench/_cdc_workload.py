"""The CDC benchmark's workload: a ``customers`` table and the transactions of row changes
written into MariaDB's binlog, 100 changes each (60 inserts, 30 updates, 10 deletes).

Transaction *k* inserts ids ``60k .. 60k+59`` (one multi-row INSERT), updates ids
``60k .. 60k+29`` (one UPDATE) and deletes ids ``10k .. 10k+9`` (one DELETE), so every change
hits a row that exists, and a record's transaction follows from its key alone
(:func:`transaction_of`): what the lag measurement needs to find a record's commit time.
"""

from __future__ import annotations

import datetime
import time
from collections.abc import Callable
from typing import Any, Final

from tests.databases import MariaDbServer

TABLE: Final = "customers"
DDL: Final = (
    "CREATE TABLE customers (id INT PRIMARY KEY, email VARCHAR(64) NOT NULL, "
    "balance DECIMAL(10,2), updated_at DATETIME(3))"
)
CHANGES_PER_TX: Final = 100
INSERTS, UPDATES, DELETES = 60, 30, 10

_INSERT: Final = "INSERT INTO customers (id, email, balance, updated_at) VALUES (%s, %s, %s, %s)"
_UPDATE: Final = (
    "UPDATE customers SET balance = balance + 1.25, updated_at = %s WHERE id BETWEEN %s AND %s"
)
_DELETE: Final = "DELETE FROM customers WHERE id BETWEEN %s AND %s"


def transactions_for(changes: int) -> int:
    """Transactions of :data:`CHANGES_PER_TX` changes holding at least *changes*."""
    return max(1, -(-changes // CHANGES_PER_TX))


def records_of(transactions: int) -> int:
    """Kafka records of *transactions*: one per change, plus a tombstone per delete."""
    return transactions * (CHANGES_PER_TX + DELETES)


def transaction_of(key_id: int, delete: bool) -> int:
    """The transaction that wrote the change of row *key_id* (a delete or its tombstone if
    *delete*, else an insert or update)."""
    return key_id // DELETES if delete else key_id // INSERTS


def _stamp(now: float) -> str:
    return datetime.datetime.fromtimestamp(now, datetime.UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def write_transaction(connection: Any, k: int) -> float:
    """Write transaction *k* and commit it; the wall-clock time (``time.time()``) at which
    the commit returned."""
    first = INSERTS * k
    stamp = _stamp(time.time())
    rows = [
        (i, f"customer{i}@example.org", f"{(i * 37) % 100000}.{i % 100:02d}", stamp)
        for i in range(first, first + INSERTS)
    ]
    with connection.cursor() as cursor:
        cursor.execute("BEGIN")
        cursor.executemany(_INSERT, rows)
        cursor.execute(_UPDATE, (stamp, first, first + UPDATES - 1))
        cursor.execute(_DELETE, (DELETES * k, DELETES * k + DELETES - 1))
        cursor.execute("COMMIT")
    return time.time()


def create_table(mariadb: MariaDbServer, database: str) -> None:
    """Create *database* and its empty ``customers`` table."""
    mariadb.create_database(database)
    with mariadb.connect(database) as connection, connection.cursor() as cursor:
        cursor.execute(DDL)


def load(
    mariadb: MariaDbServer,
    database: str,
    transactions: int,
    report: Callable[[int], None] | None = None,
) -> float:
    """Write transactions ``0 .. transactions-1`` as fast as MariaDB takes them; seconds."""
    started = time.perf_counter()
    with mariadb.connect(database) as connection:
        for k in range(transactions):
            write_transaction(connection, k)
            if report is not None and k and k % 1000 == 0:
                report(k)
    return time.perf_counter() - started


def gtid_position(mariadb: MariaDbServer) -> str:
    """The server's binlog GTID position (``@@gtid_binlog_pos``): where a reader starting now
    begins."""
    with mariadb.connect() as connection, connection.cursor() as cursor:
        cursor.execute("SELECT @@gtid_binlog_pos")
        return str(cursor.fetchone()[0])


def binlog_bytes(mariadb: MariaDbServer) -> int:
    """The binlog files' total size."""
    with mariadb.connect() as connection, connection.cursor() as cursor:
        cursor.execute("SHOW BINARY LOGS")
        return sum(int(row[1]) for row in cursor.fetchall())

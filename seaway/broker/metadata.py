"""Durable cluster metadata of one node: topics, their configs, committed offsets, ids,
SCRAM credentials, ACLs and client quotas.

Kept in a SQLite database (WAL mode) in the data directory. A Kafka cluster keeps the same
facts in its KRaft metadata log and in ``__consumer_offsets``; a single embedded node needs
neither a quorum nor compaction, and SQLite gives atomic, crash-safe updates for free.
Every write commits before the broker acknowledges it, so it survives ``kill -9``.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

from seaway.protocol.errors import ErrorCode, KafkaError

log = logging.getLogger(__name__)

__all__ = ["AclRow", "CommittedOffset", "MetadataStore", "TopicRecord"]

AclRow = tuple[int, str, int, str, str, int, int]  # type, name, pattern, principal, host, op, perm

_SCHEMA = """
CREATE TABLE IF NOT EXISTS cluster (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS topics (
    name TEXT PRIMARY KEY,
    topic_id TEXT NOT NULL,
    partitions INTEGER NOT NULL,
    configs TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS groups (
    group_id TEXT PRIMARY KEY,
    protocol_type TEXT NOT NULL,
    generation INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS transactions (
    transactional_id TEXT PRIMARY KEY,
    state TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS txn_offsets (
    group_id TEXT NOT NULL,
    producer_id INTEGER NOT NULL,
    topic TEXT NOT NULL,
    partition INTEGER NOT NULL,
    committed_offset INTEGER NOT NULL,
    leader_epoch INTEGER NOT NULL,
    metadata TEXT,
    PRIMARY KEY (group_id, producer_id, topic, partition)
);
CREATE TABLE IF NOT EXISTS group_offsets (
    group_id TEXT NOT NULL,
    topic TEXT NOT NULL,
    partition INTEGER NOT NULL,
    committed_offset INTEGER NOT NULL,
    leader_epoch INTEGER NOT NULL,
    metadata TEXT,
    commit_timestamp INTEGER NOT NULL,
    PRIMARY KEY (group_id, topic, partition)
);
CREATE TABLE IF NOT EXISTS acls (
    resource_type INTEGER NOT NULL,
    name TEXT NOT NULL,
    pattern_type INTEGER NOT NULL,
    principal TEXT NOT NULL,
    host TEXT NOT NULL,
    operation INTEGER NOT NULL,
    permission INTEGER NOT NULL,
    PRIMARY KEY (resource_type, name, pattern_type, principal, host, operation, permission)
);
CREATE TABLE IF NOT EXISTS client_quotas (
    entity TEXT NOT NULL,
    key TEXT NOT NULL,
    value REAL NOT NULL,
    PRIMARY KEY (entity, key)
);
CREATE TABLE IF NOT EXISTS scram_credentials (
    user TEXT NOT NULL,
    mechanism TEXT NOT NULL,
    credential TEXT NOT NULL,
    PRIMARY KEY (user, mechanism)
);
"""


@dataclass(slots=True)
class TopicRecord:
    name: str
    topic_id: uuid.UUID
    partitions: int
    configs: dict[str, str] = field(default_factory=dict)  # dynamic overrides only


@dataclass(frozen=True, slots=True)
class CommittedOffset:
    offset: int
    leader_epoch: int
    metadata: str | None
    commit_timestamp: int


class _Connection(sqlite3.Connection):
    """A connection whose failed statements and commits (disk full, I/O error, read-only
    file system) raise KAFKA_STORAGE_ERROR, so requests answer it rather than dropping the
    connection. Any open transaction is rolled back first: the store stays as it was."""

    failing = False  # the failure is logged once, until a write commits again

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        try:
            cursor = super().execute(sql, parameters)
        except sqlite3.OperationalError as e:
            raise self._failed(e) from e
        if (
            self.failing
            and not self.in_transaction
            and not sql.lstrip().upper().startswith("SELECT")
        ):
            self.failing = False  # a write committed again
        return cursor

    def executemany(self, sql: str, parameters: Any, /) -> sqlite3.Cursor:
        try:
            return super().executemany(sql, parameters)
        except sqlite3.OperationalError as e:
            raise self._failed(e) from e

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
        /,
    ) -> Literal[False]:
        try:
            super().__exit__(kind, value, traceback)
        except sqlite3.OperationalError as e:
            raise self._failed(e) from e
        if kind is None:
            self.failing = False  # a transaction committed again
        return False

    def _failed(self, error: sqlite3.OperationalError) -> KafkaError:
        if self.in_transaction:
            try:
                self.rollback()
            except sqlite3.Error as e:
                log.warning("Rolling back the metadata store failed too: %s", e)
        if not self.failing:
            log.error("Error while writing the metadata store: %s", error)
            self.failing = True
        return KafkaError(ErrorCode.kafka_storage_error, f"metadata store: {error}")


class MetadataStore:
    """SQLite-backed durable state of the broker."""

    def __init__(self, path: Path) -> None:
        self._db = sqlite3.connect(
            path, isolation_level=None, check_same_thread=False, factory=_Connection
        )
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)

    # -- cluster ---------------------------------------------------------------------------

    def cluster_value(self, key: str, default: str) -> str:
        """Return the stored value for ``key``, storing ``default`` on first use."""
        row = self._db.execute("SELECT value FROM cluster WHERE key = ?", (key,)).fetchone()
        if row is not None:
            return str(row[0])
        self._db.execute("INSERT INTO cluster (key, value) VALUES (?, ?)", (key, default))
        return default

    def set_cluster_value(self, key: str, value: str) -> None:
        self._db.execute(
            "INSERT INTO cluster (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    # -- topics ----------------------------------------------------------------------------

    def topics(self) -> list[TopicRecord]:
        rows = self._db.execute("SELECT name, topic_id, partitions, configs FROM topics")
        return [TopicRecord(n, uuid.UUID(i), p, json.loads(c)) for n, i, p, c in rows]

    def put_topic(self, topic: TopicRecord) -> None:
        self._db.execute(
            "INSERT INTO topics (name, topic_id, partitions, configs) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (name) DO UPDATE SET topic_id = excluded.topic_id, "
            "partitions = excluded.partitions, configs = excluded.configs",
            (topic.name, str(topic.topic_id), topic.partitions, json.dumps(topic.configs)),
        )

    def delete_topic(self, name: str) -> None:
        with self._db:
            self._db.execute("BEGIN")
            self._db.execute("DELETE FROM topics WHERE name = ?", (name,))
            self._db.execute("DELETE FROM group_offsets WHERE topic = ?", (name,))

    # -- groups ----------------------------------------------------------------------------

    def groups(self) -> dict[str, tuple[str, int]]:
        """Every known group id with its protocol type and last generation."""
        rows = self._db.execute("SELECT group_id, protocol_type, generation FROM groups")
        known = {g: (t, n) for g, t, n in rows}
        for group_id in self.groups_with_offsets():
            known.setdefault(group_id, ("", 0))
        return known

    def put_group(self, group_id: str, protocol_type: str, generation: int) -> None:
        self._db.execute(
            "INSERT INTO groups VALUES (?, ?, ?) ON CONFLICT (group_id) DO UPDATE SET "
            "protocol_type = excluded.protocol_type, generation = excluded.generation",
            (group_id, protocol_type, generation),
        )

    def delete_group(self, group_id: str) -> None:
        with self._db:
            self._db.execute("BEGIN")
            self._db.execute("DELETE FROM groups WHERE group_id = ?", (group_id,))
            self._db.execute("DELETE FROM group_offsets WHERE group_id = ?", (group_id,))

    # -- group offsets ---------------------------------------------------------------------

    def commit_offsets(
        self, group_id: str, offsets: list[tuple[str, int, CommittedOffset]]
    ) -> None:
        """Store a batch of committed offsets atomically."""
        with self._db:
            self._db.execute("BEGIN")
            self._db.executemany(
                "INSERT INTO group_offsets VALUES (?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (group_id, topic, partition) DO UPDATE SET "
                "committed_offset = excluded.committed_offset, "
                "leader_epoch = excluded.leader_epoch, metadata = excluded.metadata, "
                "commit_timestamp = excluded.commit_timestamp",
                [
                    (group_id, t, p, o.offset, o.leader_epoch, o.metadata, o.commit_timestamp)
                    for t, p, o in offsets
                ],
            )

    def group_offsets(self, group_id: str) -> dict[tuple[str, int], CommittedOffset]:
        rows = self._db.execute(
            "SELECT topic, partition, committed_offset, leader_epoch, metadata, "
            "commit_timestamp FROM group_offsets WHERE group_id = ?",
            (group_id,),
        )
        return {(t, p): CommittedOffset(o, e, m, ts) for t, p, o, e, m, ts in rows}

    def groups_with_offsets(self) -> list[str]:
        rows = self._db.execute("SELECT DISTINCT group_id FROM group_offsets")
        return [r[0] for r in rows]

    def delete_group_offsets(
        self, group_id: str, partitions: list[tuple[str, int]] | None = None
    ) -> None:
        with self._db:
            self._db.execute("BEGIN")
            if partitions is None:
                self._db.execute("DELETE FROM group_offsets WHERE group_id = ?", (group_id,))
            else:
                self._db.executemany(
                    "DELETE FROM group_offsets WHERE group_id = ? AND topic = ? AND partition = ?",
                    [(group_id, t, p) for t, p in partitions],
                )

    def expire_offsets(self, older_than_ms: int, keep_groups: set[str]) -> int:
        """Delete offsets committed before ``older_than_ms`` by groups not in ``keep_groups``."""
        rows = self._db.execute(
            "SELECT DISTINCT group_id FROM group_offsets WHERE commit_timestamp < ?",
            (older_than_ms,),
        ).fetchall()
        doomed = [r[0] for r in rows if r[0] not in keep_groups]
        with self._db:
            self._db.execute("BEGIN")
            for group in doomed:
                self._db.execute(
                    "DELETE FROM group_offsets WHERE group_id = ? AND commit_timestamp < ?",
                    (group, older_than_ms),
                )
        return len(doomed)

    # -- transactions ----------------------------------------------------------------------

    def transactions(self) -> dict[str, dict[str, object]]:
        rows = self._db.execute("SELECT transactional_id, state FROM transactions")
        return {t: json.loads(state) for t, state in rows}

    def put_transaction(self, transactional_id: str, state: dict[str, object]) -> None:
        self._db.execute(
            "INSERT INTO transactions VALUES (?, ?) ON CONFLICT (transactional_id) "
            "DO UPDATE SET state = excluded.state",
            (transactional_id, json.dumps(state)),
        )

    def put_txn_offsets(
        self, group_id: str, producer_id: int, offsets: list[tuple[str, int, CommittedOffset]]
    ) -> None:
        with self._db:
            self._db.execute("BEGIN")
            self._db.executemany(
                "INSERT INTO txn_offsets VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT "
                "(group_id, producer_id, topic, partition) DO UPDATE SET "
                "committed_offset = excluded.committed_offset, "
                "leader_epoch = excluded.leader_epoch, metadata = excluded.metadata",
                [
                    (group_id, producer_id, t, p, o.offset, o.leader_epoch, o.metadata)
                    for t, p, o in offsets
                ],
            )

    def txn_offsets(self) -> dict[tuple[str, int], dict[tuple[str, int], CommittedOffset]]:
        """Pending transactional offsets: (group, producer id) -> partition -> offset."""
        out: dict[tuple[str, int], dict[tuple[str, int], CommittedOffset]] = {}
        rows = self._db.execute(
            "SELECT group_id, producer_id, topic, partition, committed_offset, leader_epoch, "
            "metadata FROM txn_offsets"
        )
        for g, pid, t, p, o, e, m in rows:
            out.setdefault((g, pid), {})[(t, p)] = CommittedOffset(o, e, m, 0)
        return out

    def complete_txn_offsets(
        self, group_id: str, producer_id: int, commit: bool, now_ms: int
    ) -> None:
        """Make a transaction's pending offsets the group's (commit) or drop them (abort)."""
        with self._db:
            self._db.execute("BEGIN")
            if commit:
                self._db.execute(
                    "INSERT INTO group_offsets SELECT group_id, topic, partition, "
                    "committed_offset, leader_epoch, metadata, ? FROM txn_offsets "
                    "WHERE group_id = ? AND producer_id = ? "
                    "ON CONFLICT (group_id, topic, partition) DO UPDATE SET "
                    "committed_offset = excluded.committed_offset, "
                    "leader_epoch = excluded.leader_epoch, metadata = excluded.metadata, "
                    "commit_timestamp = excluded.commit_timestamp",
                    (now_ms, group_id, producer_id),
                )
            self._db.execute(
                "DELETE FROM txn_offsets WHERE group_id = ? AND producer_id = ?",
                (group_id, producer_id),
            )

    # -- SCRAM credentials (salted: never a password) -----------------------------------

    def scram_credentials(self) -> dict[tuple[str, str], str]:
        """(user, mechanism) -> the credential in Kafka's text form."""
        rows = self._db.execute("SELECT user, mechanism, credential FROM scram_credentials")
        return {(user, mechanism): credential for user, mechanism, credential in rows}

    def alter_scram_credentials(
        self, upserts: dict[tuple[str, str], str], deletions: list[tuple[str, str]]
    ) -> None:
        """Apply upserts and deletions in one transaction."""
        with self._db:
            self._db.execute("BEGIN")
            self._db.executemany(
                "INSERT INTO scram_credentials (user, mechanism, credential) VALUES (?, ?, ?) "
                "ON CONFLICT (user, mechanism) DO UPDATE SET credential = excluded.credential",
                [(user, mechanism, text) for (user, mechanism), text in upserts.items()],
            )
            self._db.executemany(
                "DELETE FROM scram_credentials WHERE user = ? AND mechanism = ?", deletions
            )

    # -- client quotas (entity: its JSON text, {"user": "alice", "client-id": null}) ----------

    def client_quotas(self) -> list[tuple[str, str, float]]:
        """Every stored quota as (entity, key, value)."""
        rows = self._db.execute("SELECT entity, key, value FROM client_quotas")
        return [(entity, key, float(value)) for entity, key, value in rows]

    def alter_client_quotas(
        self, upserts: list[tuple[str, str, float]], removals: list[tuple[str, str]]
    ) -> None:
        """Set and remove quota values in one transaction."""
        with self._db:
            self._db.execute("BEGIN")
            self._db.executemany(
                "INSERT INTO client_quotas (entity, key, value) VALUES (?, ?, ?) "
                "ON CONFLICT (entity, key) DO UPDATE SET value = excluded.value",
                upserts,
            )
            self._db.executemany("DELETE FROM client_quotas WHERE entity = ? AND key = ?", removals)

    # -- ACLs (codes as on the wire: resource type, pattern, operation, permission) -----------

    def acls(self) -> list[AclRow]:
        rows = self._db.execute(
            "SELECT resource_type, name, pattern_type, principal, host, operation, permission "
            "FROM acls"
        )
        return [tuple(row) for row in rows]

    def alter_acls(self, added: list[AclRow], removed: list[AclRow]) -> None:
        """Add and remove ACLs in one transaction."""
        with self._db:
            self._db.execute("BEGIN")
            self._db.executemany("INSERT OR IGNORE INTO acls VALUES (?, ?, ?, ?, ?, ?, ?)", added)
            self._db.executemany(
                "DELETE FROM acls WHERE resource_type = ? AND name = ? AND pattern_type = ? AND "
                "principal = ? AND host = ? AND operation = ? AND permission = ?",
                removed,
            )

    def close(self) -> None:
        self._db.close()

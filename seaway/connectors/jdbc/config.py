"""Configuration of the JDBC connectors, with the names and defaults of Confluent's
``JdbcSourceConnectorConfig`` and ``JdbcSinkConfig``."""

from __future__ import annotations

from typing import Final

from seaway.config import ConfigDef, Importance, Type
from seaway.config.validators import CaseInsensitiveValidString, Range

CONNECTION_URL: Final = "connection.url"
CONNECTION_USER: Final = "connection.user"
CONNECTION_PASSWORD: Final = "connection.password"
CONNECTION_ATTEMPTS: Final = "connection.attempts"
CONNECTION_BACKOFF: Final = "connection.backoff.ms"
DIALECT_NAME: Final = "dialect.name"
DB_TIMEZONE: Final = "db.timezone"
TABLE_POLL_INTERVAL: Final = "table.poll.interval.ms"
MODE: Final = "mode"
INCREMENTING_COLUMN: Final = "incrementing.column.name"
TIMESTAMP_COLUMN: Final = "timestamp.column.name"
TIMESTAMP_INITIAL: Final = "timestamp.initial"
VALIDATE_NON_NULL: Final = "validate.non.null"
QUERY: Final = "query"
TOPIC_PREFIX: Final = "topic.prefix"
POLL_INTERVAL: Final = "poll.interval.ms"
BATCH_MAX_ROWS: Final = "batch.max.rows"
TIMESTAMP_DELAY: Final = "timestamp.delay.interval.ms"
TABLE_WHITELIST: Final = "table.whitelist"
TABLE_BLACKLIST: Final = "table.blacklist"
TABLE_INCLUDE: Final = "table.include.list"
TABLE_EXCLUDE: Final = "table.exclude.list"
NUMERIC_MAPPING: Final = "numeric.mapping"
TABLES: Final = "tables"  # task config: the tables a task reads

BULK: Final = "bulk"
INCREMENTING: Final = "incrementing"
TIMESTAMP: Final = "timestamp"
TIMESTAMP_INCREMENTING: Final = "timestamp+incrementing"
MODES: Final = (BULK, INCREMENTING, TIMESTAMP, TIMESTAMP_INCREMENTING)


def define_connection(d: ConfigDef) -> None:
    """The database connection settings both connectors share."""
    d.define(
        CONNECTION_URL,
        Type.STRING,
        importance=Importance.HIGH,
        doc="JDBC connection URL: jdbc:mysql://host:3306/db?user=u&password=p, "
        "jdbc:mariadb://..., jdbc:postgresql://host:5432/db or jdbc:sqlite:/path/to/file.",
        group="Database",
    )
    d.define(
        CONNECTION_USER,
        Type.STRING,
        None,
        importance=Importance.HIGH,
        doc="JDBC connection user (overrides a user given in the URL).",
        group="Database",
    )
    d.define(
        CONNECTION_PASSWORD,
        Type.PASSWORD,
        None,
        importance=Importance.HIGH,
        doc="JDBC connection password (overrides a password given in the URL).",
        group="Database",
    )
    d.define(
        CONNECTION_ATTEMPTS,
        Type.INT,
        3,
        Range.at_least(1),
        Importance.LOW,
        "How many times to try opening a connection before failing.",
        group="Database",
    )
    d.define(
        CONNECTION_BACKOFF,
        Type.LONG,
        10000,
        Range.at_least(0),
        Importance.LOW,
        "How long to wait between two connection attempts, in ms.",
        group="Database",
    )
    d.define(
        DIALECT_NAME,
        Type.STRING,
        "",
        CaseInsensitiveValidString(
            ["", "SqliteDatabaseDialect", "MySqlDatabaseDialect", "PostgreSqlDatabaseDialect"]
        ),
        Importance.LOW,
        "The database dialect; empty picks it from the JDBC URL's subprotocol.",
        group="Database",
    )
    d.define(
        DB_TIMEZONE,
        Type.STRING,
        "UTC",
        importance=Importance.MEDIUM,
        doc="The time zone of the database's TIMESTAMP values without a zone (an IANA name).",
        group="Database",
    )


def _config_def() -> ConfigDef:
    d = ConfigDef()
    define_connection(d)
    d.define(
        TABLE_WHITELIST,
        Type.LIST,
        "",
        importance=Importance.MEDIUM,
        doc="Tables to include (all when empty).",
        group="Database",
    )
    d.define(
        TABLE_BLACKLIST,
        Type.LIST,
        "",
        importance=Importance.MEDIUM,
        doc="Tables to exclude.",
        group="Database",
    )
    d.define(
        TABLE_INCLUDE,
        Type.LIST,
        "",
        importance=Importance.MEDIUM,
        doc="Tables to include (the newer name of table.whitelist).",
        group="Database",
    )
    d.define(
        TABLE_EXCLUDE,
        Type.LIST,
        "",
        importance=Importance.MEDIUM,
        doc="Tables to exclude (the newer name of table.blacklist).",
        group="Database",
    )
    d.define(
        TABLE_POLL_INTERVAL,
        Type.INT,
        60000,
        Range.at_least(0),
        Importance.LOW,
        "How often to look for new or dropped tables, in ms.",
        group="Connector",
    )
    d.define(
        NUMERIC_MAPPING,
        Type.STRING,
        "none",
        CaseInsensitiveValidString(["none", "precision_only", "best_fit", "best_fit_eager_double"]),
        Importance.LOW,
        "How NUMERIC/DECIMAL columns map: none keeps Connect's Decimal, "
        "best_fit uses INT/FLOAT64 when the precision allows.",
        group="Database",
    )
    d.define(
        MODE,
        Type.STRING,
        "",
        CaseInsensitiveValidString(["", *MODES]),
        Importance.HIGH,
        "How a table is polled: bulk (the whole table each time), incrementing (a "
        "strictly increasing column), timestamp (a modification timestamp column) or "
        "timestamp+incrementing (both).",
        group="Mode",
    )
    d.define(
        INCREMENTING_COLUMN,
        Type.STRING,
        "",
        importance=Importance.MEDIUM,
        doc="The strictly increasing column of incrementing modes.",
        group="Mode",
    )
    d.define(
        TIMESTAMP_COLUMN,
        Type.LIST,
        "",
        importance=Importance.MEDIUM,
        doc="The timestamp column(s) of timestamp modes (the first non-null is used).",
        group="Mode",
    )
    d.define(
        TIMESTAMP_INITIAL,
        Type.LONG,
        None,
        importance=Importance.LOW,
        doc="Epoch ms to start timestamp modes from (default: the beginning; -1: now).",
        group="Mode",
    )
    d.define(
        VALIDATE_NON_NULL,
        Type.BOOLEAN,
        True,
        importance=Importance.LOW,
        doc="Check that the mode's columns are NOT NULL before starting.",
        group="Mode",
    )
    d.define(
        QUERY,
        Type.STRING,
        "",
        importance=Importance.MEDIUM,
        doc="A SELECT to run instead of reading whole tables (one task; topic = topic.prefix).",
        group="Mode",
    )
    d.define(
        POLL_INTERVAL,
        Type.INT,
        5000,
        Range.at_least(0),
        Importance.HIGH,
        "How often to poll each table for new data, in ms.",
        group="Connector",
    )
    d.define(
        BATCH_MAX_ROWS,
        Type.INT,
        100,
        Range.at_least(1),
        Importance.LOW,
        "The most rows in one batch of one table.",
        group="Connector",
    )
    d.define(
        TOPIC_PREFIX,
        Type.STRING,
        importance=Importance.HIGH,
        doc="Prefix of the topic names: the topic is <prefix><table>.",
        group="Connector",
    )
    d.define(
        TIMESTAMP_DELAY,
        Type.LONG,
        0,
        Range.at_least(0),
        Importance.HIGH,
        "How long after a row's timestamp it is read, in ms, so transactions that "
        "commit late with earlier timestamps are not missed.",
        group="Connector",
    )
    return d  # fmt: skip


CONFIG_DEF: Final = _config_def()


# --- the sink (Confluent's JdbcSinkConfig) ----------------------------------------------------

INSERT_MODE: Final = "insert.mode"
BATCH_SIZE: Final = "batch.size"
DELETE_ENABLED: Final = "delete.enabled"
TABLE_NAME_FORMAT: Final = "table.name.format"
PK_MODE: Final = "pk.mode"
PK_FIELDS: Final = "pk.fields"
FIELDS_WHITELIST: Final = "fields.whitelist"
AUTO_CREATE: Final = "auto.create"
AUTO_EVOLVE: Final = "auto.evolve"
MAX_RETRIES: Final = "max.retries"
RETRY_BACKOFF: Final = "retry.backoff.ms"

INSERT_MODES: Final = ("insert", "upsert", "update")
PK_MODES: Final = ("none", "kafka", "record_key", "record_value")


def _sink_config_def() -> ConfigDef:
    d = ConfigDef()
    define_connection(d)
    d.define(
        INSERT_MODE,
        Type.STRING,
        "insert",
        CaseInsensitiveValidString(list(INSERT_MODES)),
        Importance.HIGH,
        "insert: plain INSERT; upsert: insert or update by the primary key (ON DUPLICATE KEY "
        "UPDATE / ON CONFLICT), idempotent on replay; update: UPDATE by the primary key.",
        group="Writes",
    )
    d.define(
        BATCH_SIZE,
        Type.INT,
        3000,
        Range.at_least(0),
        Importance.MEDIUM,
        "How many records to write to a table in one batched statement.",
        group="Writes",
    )
    d.define(
        DELETE_ENABLED,
        Type.BOOLEAN,
        False,
        importance=Importance.MEDIUM,
        doc="Whether a record with a null value (a tombstone) deletes the row of its key "
        "(needs pk.mode=record_key).",
        group="Writes",
    )
    d.define(
        TABLE_NAME_FORMAT,
        Type.STRING,
        "${topic}",
        importance=Importance.MEDIUM,
        doc="The destination table, where ${topic} is the record's topic; a dotted name "
        "is [database.]table (MySQL) or [schema.]table (PostgreSQL).",
        group="Data Mapping",
    )
    d.define(
        PK_MODE,
        Type.STRING,
        "none",
        CaseInsensitiveValidString(list(PK_MODES)),
        Importance.HIGH,
        "Where the primary key comes from: none; kafka (__connect_topic, "
        "__connect_partition, __connect_offset); record_key; record_value.",
        group="Data Mapping",
    )
    d.define(
        PK_FIELDS,
        Type.LIST,
        "",
        importance=Importance.MEDIUM,
        doc="The primary key columns: for kafka three names; for record_key the name of a "
        "primitive key or a subset of a struct key's fields; for record_value a subset of "
        "the value's fields (empty: all).",
        group="Data Mapping",
    )
    d.define(
        FIELDS_WHITELIST,
        Type.LIST,
        "",
        importance=Importance.MEDIUM,
        doc="The value fields to write (empty: all).",
        group="Data Mapping",
    )
    d.define(
        AUTO_CREATE,
        Type.BOOLEAN,
        False,
        importance=Importance.MEDIUM,
        doc="Whether to CREATE a missing table from the record's schema.",
        group="DDL Support",
    )
    d.define(
        AUTO_EVOLVE,
        Type.BOOLEAN,
        False,
        importance=Importance.MEDIUM,
        doc="Whether to ALTER TABLE ... ADD a column for a new optional field (columns are "
        "never dropped or changed).",
        group="DDL Support",
    )
    d.define(
        MAX_RETRIES,
        Type.INT,
        10,
        Range.at_least(0),
        Importance.MEDIUM,
        "How many times a failed write is retried before the task fails.",
        group="Retries",
    )
    d.define(
        RETRY_BACKOFF,
        Type.INT,
        3000,
        Range.at_least(0),
        Importance.MEDIUM,
        "How long to wait before a retry, in ms.",
        group="Retries",
    )
    return d


SINK_CONFIG_DEF: Final = _sink_config_def()

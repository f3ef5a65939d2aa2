"""Configuration of the JDBC source connector, with the names and defaults of Confluent's
``JdbcSourceConnectorConfig``."""

from __future__ import annotations

from typing import Final

from seaway.config import ConfigDef, Importance, Type
from seaway.config.validators import CaseInsensitiveValidString, Range

CONNECTION_URL: Final = "connection.url"
CONNECTION_USER: Final = "connection.user"
CONNECTION_PASSWORD: Final = "connection.password"
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


def _config_def() -> ConfigDef:
    d = ConfigDef()
    d.define(
        CONNECTION_URL,
        Type.STRING,
        importance=Importance.HIGH,
        doc="JDBC connection URL, e.g. jdbc:sqlite:/path/to/db.sqlite.",
        group="Database",
    )
    d.define(
        CONNECTION_USER,
        Type.STRING,
        None,
        importance=Importance.HIGH,
        doc="JDBC connection user.",
        group="Database",
    )
    d.define(
        CONNECTION_PASSWORD,
        Type.PASSWORD,
        None,
        importance=Importance.HIGH,
        doc="JDBC connection password.",
        group="Database",
    )
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

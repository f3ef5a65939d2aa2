"""Configuration of the PostgreSQL connector with the names, defaults and checks of Debezium
3.x (``PostgresConnectorConfig`` and the common and relational configs it extends), parsed
into :class:`Settings`.

Differences from Debezium, each refused with a message rather than ignored:

* ``plugin.name`` defaults to ``pgoutput`` (Debezium: ``decoderbufs``). ``pgoutput`` is built
  into PostgreSQL 10+; ``decoderbufs`` is a server extension Seaway has no decoder for.
* ``snapshot.mode``: ``initial``, ``initial_only``, ``no_data``, ``when_needed`` and
  ``always``; the modes Debezium 3.3 removed (``never``, ``exported``, ``schema_only``,
  ``schema_only_recovery``) name their successor, and ``configuration_based``/``custom`` are
  not supported.
* ``time.precision.mode``: ``adaptive`` (default), ``adaptive_time_microseconds``, ``connect``.

The validators shared with the binlog connectors (topic prefix, regular expression lists,
skipped operations) are imported from :mod:`seaway.connectors.debezium.config`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from seaway.config import ConfigDef, ConfigException, Importance, Password, Type
from seaway.config.validators import CaseInsensitiveValidString, Range, Validator
from seaway.connect.api.connector import ConfigValidation
from seaway.connectors.debezium.config import (
    Operations,
    Patterns,
    TopicPrefix,
    split_patterns,
)

__all__ = ["CONFIG_DEF", "Settings", "settings", "validate"]

HOSTNAME: Final = "database.hostname"
PORT: Final = "database.port"
USER: Final = "database.user"
PASSWORD: Final = "database.password"
DBNAME: Final = "database.dbname"
TOPIC_PREFIX: Final = "topic.prefix"
PLUGIN_NAME: Final = "plugin.name"
SLOT_NAME: Final = "slot.name"
PUBLICATION_NAME: Final = "publication.name"
PUBLICATION_AUTOCREATE: Final = "publication.autocreate.mode"
SLOT_DROP_ON_STOP: Final = "slot.drop.on.stop"
SCHEMA_INCLUDE: Final = "schema.include.list"
SCHEMA_EXCLUDE: Final = "schema.exclude.list"
TABLE_INCLUDE: Final = "table.include.list"
TABLE_EXCLUDE: Final = "table.exclude.list"
COLUMN_INCLUDE: Final = "column.include.list"
COLUMN_EXCLUDE: Final = "column.exclude.list"
SNAPSHOT_MODE: Final = "snapshot.mode"
TOMBSTONES_ON_DELETE: Final = "tombstones.on.delete"
DECIMAL_MODE: Final = "decimal.handling.mode"
TIME_PRECISION_MODE: Final = "time.precision.mode"
MAX_BATCH_SIZE: Final = "max.batch.size"
POLL_INTERVAL: Final = "poll.interval.ms"
SKIPPED_OPERATIONS: Final = "skipped.operations"

SNAPSHOT_MODES: Final = ("initial", "initial_only", "no_data", "when_needed", "always")
PUBLICATION_MODES: Final = ("all_tables", "disabled", "filtered", "no_tables")
DECIMAL_MODES: Final = ("precise", "double", "string")
TIME_PRECISION_MODES: Final = ("adaptive", "adaptive_time_microseconds", "connect")

_REMOVED_SNAPSHOT_MODES: Final = {
    "never": "no_data",
    "exported": "initial",
    "schema_only": "no_data",
    "schema_only_recovery": "recovery",
}
_SLOT_NAME: Final = re.compile(r"[a-z0-9_]{1,63}")


class _PluginName(Validator):
    """``pgoutput`` only: Seaway decodes pgoutput itself and has no decoderbufs decoder."""

    def ensure_valid(self, name: str, value: Any) -> None:
        plugin = str(value or "").strip().lower()
        if plugin == "decoderbufs":
            raise ConfigException(
                name,
                value,
                "The 'decoderbufs' logical decoding plugin is not supported by Seaway: set "
                "plugin.name=pgoutput (PostgreSQL's built-in plugin, Seaway's default)",
            )
        if plugin != "pgoutput":
            raise ConfigException(name, value, "Value must be one of pgoutput")

    def __str__(self) -> str:
        return "[pgoutput]"


class _SnapshotMode(Validator):
    def ensure_valid(self, name: str, value: Any) -> None:
        mode = str(value).strip().lower()
        if mode in _REMOVED_SNAPSHOT_MODES:
            raise ConfigException(
                name,
                value,
                f"The '{mode}' snapshot mode was removed in Debezium 3.3: use "
                f"'{_REMOVED_SNAPSHOT_MODES[mode]}' instead",
            )
        if mode not in SNAPSHOT_MODES:
            raise ConfigException(name, value, f"Value must be one of {', '.join(SNAPSHOT_MODES)}")

    def __str__(self) -> str:
        return "[" + ", ".join(SNAPSHOT_MODES) + "]"


class _SlotName(Validator):
    """A replication slot name PostgreSQL accepts (``ReplicationSlotValidateName``)."""

    def ensure_valid(self, name: str, value: Any) -> None:
        if not _SLOT_NAME.fullmatch(str(value or "")):
            raise ConfigException(
                name,
                value,
                "Valid replication slot name must contain only digits, lowercase characters "
                "and underscores with length <= 63",
            )


class _Required(Validator):
    def ensure_valid(self, name: str, value: Any) -> None:
        if value is None or not str(value).strip():
            raise ConfigException(
                name, value, f"The '{name}' value is invalid: A value is required"
            )


def _config_def() -> ConfigDef:
    d = ConfigDef()
    for key, doc in (
        (HOSTNAME, "Resolvable hostname or IP address of the database server."),
        (USER, "Name of the database user to connect with."),
        (DBNAME, "The name of the database from which the connector should capture changes."),
    ):
        d.define(key, Type.STRING, importance=Importance.HIGH, doc=doc, group="Connection")
    d.define(
        PORT,
        Type.INT,
        5432,
        Range.between(1, 65535),
        Importance.HIGH,
        "Port of the database server.",
        group="Connection",
    )
    d.define(
        PASSWORD,
        Type.PASSWORD,
        None,
        importance=Importance.HIGH,
        doc="Password of the database user.",
        group="Connection",
    )
    d.define(
        TOPIC_PREFIX,
        Type.STRING,
        validator=TopicPrefix(),
        importance=Importance.HIGH,
        doc="The logical name of the server: the prefix of every topic, the source "
        "partition and the source's name field.",
        group="Connector",
    )
    d.define(
        PLUGIN_NAME,
        Type.STRING,
        "pgoutput",
        _PluginName(),
        Importance.MEDIUM,
        "The logical decoding plugin: pgoutput (Seaway supports no other).",
        group="Connection",
    )
    d.define(
        SLOT_NAME,
        Type.STRING,
        "debezium",
        _SlotName(),
        Importance.MEDIUM,
        "The logical replication slot the connector streams from (created if missing).",
        group="Connection",
    )
    d.define(
        PUBLICATION_NAME,
        Type.STRING,
        "dbz_publication",
        _Required(),
        Importance.MEDIUM,
        "The publication pgoutput streams.",
        group="Connection",
    )
    d.define(
        PUBLICATION_AUTOCREATE,
        Type.STRING,
        "all_tables",
        CaseInsensitiveValidString(PUBLICATION_MODES),
        Importance.LOW,
        "all_tables: create the publication FOR ALL TABLES if missing; disabled: fail if "
        "it is missing; filtered: FOR TABLE the captured tables, kept in sync; no_tables: "
        "create it empty.",
        group="Connection",
    )
    d.define(
        SLOT_DROP_ON_STOP,
        Type.BOOLEAN,
        False,
        importance=Importance.LOW,
        doc="Whether to drop the slot when the connector stops.",
        group="Connection",
    )
    for key, what in (
        (SCHEMA_INCLUDE, "schemas to capture"),
        (SCHEMA_EXCLUDE, "schemas not to capture"),
        (TABLE_INCLUDE, "tables (schema.table) to capture"),
        (TABLE_EXCLUDE, "tables (schema.table) not to capture"),
        (COLUMN_INCLUDE, "columns (schema.table.column) to include in events"),
        (COLUMN_EXCLUDE, "columns (schema.table.column) to leave out of events"),
    ):
        d.define(
            key,
            Type.STRING,
            "",
            Patterns(),
            Importance.MEDIUM,
            f"Comma-separated regular expressions, matched whole and ignoring case, of the {what}.",
            group="Filters",
        )
    d.define(
        SNAPSHOT_MODE,
        Type.STRING,
        "initial",
        _SnapshotMode(),
        Importance.LOW,
        "initial: snapshot when there is no offset, then stream; initial_only: only the "
        "snapshot; no_data: no snapshot, stream from the slot; when_needed: also when "
        "the offset's position is no longer available; always: at every start.",
        group="Connector",
    )
    d.define(
        TOMBSTONES_ON_DELETE,
        Type.BOOLEAN,
        True,
        importance=Importance.MEDIUM,
        doc="Whether a delete is followed by a tombstone (the key with a null value).",
        group="Events",
    )
    d.define(
        DECIMAL_MODE,
        Type.STRING,
        "precise",
        CaseInsensitiveValidString(DECIMAL_MODES),
        Importance.MEDIUM,
        "NUMERIC columns as Connect's Decimal (precise), FLOAT64 (double) or text (string).",
        group="Events",
    )
    d.define(
        TIME_PRECISION_MODE,
        Type.STRING,
        "adaptive",
        CaseInsensitiveValidString(TIME_PRECISION_MODES),
        Importance.MEDIUM,
        "Temporal columns as Debezium's types at the column's precision (adaptive, "
        "adaptive_time_microseconds) or Connect's Date/Time/Timestamp (connect).",
        group="Events",
    )
    d.define(
        MAX_BATCH_SIZE,
        Type.INT,
        2048,
        Range.at_least(1),
        Importance.MEDIUM,
        "The most events in one batch.",
        group="Connector",
    )
    d.define(
        POLL_INTERVAL,
        Type.LONG,
        500,
        Range.at_least(1),
        Importance.MEDIUM,
        "How long to wait for new events before returning a batch, in ms.",
        group="Connector",
    )
    d.define(
        SKIPPED_OPERATIONS,
        Type.STRING,
        "t",
        Operations(),
        Importance.LOW,
        "Operations not emitted: c (inserts), u (updates), d (deletes), t (truncates), or none.",
        group="Events",
    )
    return d  # fmt: skip


CONFIG_DEF: Final = _config_def()


def _both_lists(values: Mapping[str, Any]) -> list[tuple[str, str]]:
    problems = []
    for include, exclude in ((SCHEMA_INCLUDE, SCHEMA_EXCLUDE), (TABLE_INCLUDE, TABLE_EXCLUDE),
                             (COLUMN_INCLUDE, COLUMN_EXCLUDE)):  # fmt: skip
        if values.get(include) and values.get(exclude):
            problems.append(
                (exclude, f'"{include}" is already specified: set {include} or {exclude}, '
                 "not both")
            )  # fmt: skip
    return problems


def validate(props: Mapping[str, str]) -> ConfigValidation:
    """Every key's errors, each on its key; the include/exclude rule on the exclude key."""
    results = CONFIG_DEF.validate_all(props)
    values = {name: result.value for name, result in results.items()}
    for key, message in _both_lists(values):
        results[key].add_error_message(message)
    return ConfigValidation(list(results.values()))


@dataclass(frozen=True)
class Settings:
    """A checked configuration."""

    hostname: str
    port: int
    user: str
    password: str
    dbname: str
    topic_prefix: str
    slot_name: str
    publication_name: str
    publication_autocreate: str
    slot_drop_on_stop: bool
    schema_include: tuple[str, ...]
    schema_exclude: tuple[str, ...]
    table_include: tuple[str, ...]
    table_exclude: tuple[str, ...]
    column_include: tuple[str, ...]
    column_exclude: tuple[str, ...]
    snapshot_mode: str
    tombstones_on_delete: bool
    decimal_mode: str
    time_precision_mode: str
    max_batch_size: int
    poll_interval_ms: int
    skipped_operations: frozenset[str]


def settings(props: Mapping[str, str]) -> Settings:
    """The :class:`Settings` of *props*; raises ``ConfigException`` on the first problem."""
    values = CONFIG_DEF.parse({k: v for k, v in props.items() if k in CONFIG_DEF})
    for key, message in _both_lists(values):
        raise ConfigException(key, values[key], message)
    password = values[PASSWORD]
    skipped = {v.strip().lower() for v in str(values[SKIPPED_OPERATIONS]).split(",")}
    return Settings(
        hostname=values[HOSTNAME],
        port=values[PORT],
        user=values[USER],
        password=password.value if isinstance(password, Password) else (password or ""),
        dbname=values[DBNAME],
        topic_prefix=values[TOPIC_PREFIX],
        slot_name=values[SLOT_NAME],
        publication_name=values[PUBLICATION_NAME],
        publication_autocreate=str(values[PUBLICATION_AUTOCREATE]).lower(),
        slot_drop_on_stop=values[SLOT_DROP_ON_STOP],
        schema_include=tuple(split_patterns(values[SCHEMA_INCLUDE])),
        schema_exclude=tuple(split_patterns(values[SCHEMA_EXCLUDE])),
        table_include=tuple(split_patterns(values[TABLE_INCLUDE])),
        table_exclude=tuple(split_patterns(values[TABLE_EXCLUDE])),
        column_include=tuple(split_patterns(values[COLUMN_INCLUDE])),
        column_exclude=tuple(split_patterns(values[COLUMN_EXCLUDE])),
        snapshot_mode=str(values[SNAPSHOT_MODE]).strip().lower(),
        tombstones_on_delete=values[TOMBSTONES_ON_DELETE],
        decimal_mode=str(values[DECIMAL_MODE]).lower(),
        time_precision_mode=str(values[TIME_PRECISION_MODE]).lower(),
        max_batch_size=values[MAX_BATCH_SIZE],
        poll_interval_ms=values[POLL_INTERVAL],
        skipped_operations=frozenset(skipped - {"none", ""}),
    )

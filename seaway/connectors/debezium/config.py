"""What every Debezium connector's configuration shares (Debezium 3.x's ``CommonConnectorConfig``
and ``RelationalDatabaseConnectorConfig``): the common keys with their defaults and checks,
the validators, the include/exclude rule, the :class:`Settings` fields parsed from them, and
:class:`ConnectorConfig`, which checks a connector's configuration and makes its settings.

Each connector's own config module defines its keys with the ``define_*`` helpers here, in
its own order, and extends :class:`Settings` with its own fields.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Generic, TypeVar

from seaway.config import ConfigDef, ConfigException, Importance, Password, Type
from seaway.config.validators import CaseInsensitiveValidString, Range, Validator
from seaway.connect.api.connector import ConfigValidation

__all__ = [
    "ConnectorConfig",
    "Operations",
    "Patterns",
    "Rule",
    "Settings",
    "SnapshotMode",
    "TopicPrefix",
    "common_settings",
    "define_batches",
    "define_filters",
    "define_password",
    "define_port",
    "define_row_modes",
    "define_snapshot_mode",
    "define_string",
    "define_topic_prefix",
    "password_text",
    "split_patterns",
]

HOSTNAME: Final = "database.hostname"
PORT: Final = "database.port"
USER: Final = "database.user"
PASSWORD: Final = "database.password"
TOPIC_PREFIX: Final = "topic.prefix"
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
HEARTBEAT_INTERVAL: Final = "heartbeat.interval.ms"
HEARTBEAT_TOPIC_PREFIX: Final = "topic.heartbeat.prefix"

DECIMAL_MODES: Final = ("precise", "double", "string")
OPERATIONS: Final = ("c", "u", "d", "t", "none")

_DOCS: Final = {
    HOSTNAME: "Resolvable hostname or IP address of the database server.",
    USER: "Name of the database user to connect with.",
}
_TOPIC_NAME: Final = re.compile(r"[A-Za-z0-9._-]+")


class TopicPrefix(Validator):
    """A non-empty topic name of ``[A-Za-z0-9._-]`` (Debezium's ``validateTopicName``)."""

    def ensure_valid(self, name: str, value: Any) -> None:
        if value is None or not str(value).strip():
            raise ConfigException(
                name, value, "The 'topic.prefix' value is invalid: A value is required"
            )
        if not _TOPIC_NAME.fullmatch(str(value)):
            raise ConfigException(
                name,
                value,
                f"{value} has invalid format (only the underscore, hyphen, dot and "
                "alphanumeric characters are allowed)",
            )


class Patterns(Validator):
    """Comma-separated regular expressions that must compile."""

    def ensure_valid(self, name: str, value: Any) -> None:
        for pattern in split_patterns(value):
            try:
                re.compile(pattern)
            except re.error as error:
                message = (
                    f"A comma-separated list of valid regular expressions is expected: {error}"
                )
                raise ConfigException(name, value, message) from None


class Operations(Validator):
    """``c``, ``u``, ``d``, ``t`` (any of them) or ``none``."""

    def ensure_valid(self, name: str, value: Any) -> None:
        for op in (v.strip().lower() for v in str(value or "").split(",") if v.strip()):
            if op not in OPERATIONS:
                raise ConfigException(
                    name, value, f"The 'skipped.operations' value is invalid: unknown '{op}'"
                )


class SnapshotMode(Validator):
    """One of a connector's *modes*; a mode Debezium 3.3 removed names its successor."""

    def __init__(self, modes: Sequence[str], removed: Mapping[str, str]) -> None:
        self.modes = tuple(modes)
        self.removed = dict(removed)

    def ensure_valid(self, name: str, value: Any) -> None:
        mode = str(value).strip().lower()
        if mode in self.removed:
            raise ConfigException(
                name,
                value,
                f"The '{mode}' snapshot mode was removed in Debezium 3.3: use "
                f"'{self.removed[mode]}' instead",
            )
        if mode not in self.modes:
            raise ConfigException(name, value, f"Value must be one of {', '.join(self.modes)}")

    def __str__(self) -> str:
        return "[" + ", ".join(self.modes) + "]"


def split_patterns(value: Any) -> list[str]:
    """The regular expressions of a comma-separated list (``\\,`` keeps a comma in one)."""
    if not value:
        return []
    parts = re.split(r"(?<!\\),", str(value))
    return [p.replace("\\,", ",").strip() for p in parts if p.strip()]


def define_string(
    d: ConfigDef, key: str, doc: str | None = None, group: str = "Connection"
) -> None:
    """A required string of high importance (the connection's host and user by default)."""
    doc = doc if doc is not None else _DOCS[key]
    d.define(key, Type.STRING, importance=Importance.HIGH, doc=doc, group=group)


def define_port(d: ConfigDef, default: int) -> None:
    """``database.port``."""
    d.define(
        PORT,
        Type.INT,
        default,
        Range.between(1, 65535),
        Importance.HIGH,
        "Port of the database server.",
        group="Connection",
    )


def define_password(d: ConfigDef) -> None:
    """``database.password``."""
    d.define(
        PASSWORD,
        Type.PASSWORD,
        None,
        importance=Importance.HIGH,
        doc="Password of the database user.",
        group="Connection",
    )


def define_topic_prefix(d: ConfigDef) -> None:
    """``topic.prefix``."""
    d.define(
        TOPIC_PREFIX,
        Type.STRING,
        validator=TopicPrefix(),
        importance=Importance.HIGH,
        doc="The logical name of the server: the prefix of every topic, the source "
        "partition and the source's name field.",
        group="Connector",
    )


def define_filters(d: ConfigDef, first: tuple[str, str], plural: str, singular: str) -> None:
    """The include and exclude lists: *first*'s (of the connector's first level, *plural*
    ``databases`` or ``schemas``, each a *singular* ``db`` or ``schema``), the tables' and the
    columns'."""
    for key, what in (
        (first[0], f"{plural} to capture"),
        (first[1], f"{plural} not to capture"),
        (TABLE_INCLUDE, f"tables ({singular}.table) to capture"),
        (TABLE_EXCLUDE, f"tables ({singular}.table) not to capture"),
        (COLUMN_INCLUDE, f"columns ({singular}.table.column) to include in events"),
        (COLUMN_EXCLUDE, f"columns ({singular}.table.column) to leave out of events"),
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


def define_snapshot_mode(d: ConfigDef, validator: SnapshotMode, doc: str) -> None:
    """``snapshot.mode`` (default ``initial``)."""
    d.define(SNAPSHOT_MODE, Type.STRING, "initial", validator, Importance.LOW, doc,
             group="Connector")  # fmt: skip


def define_row_modes(
    d: ConfigDef, decimals: str, time_default: str, time_validator: Validator, time_doc: str
) -> None:
    """``tombstones.on.delete``, ``decimal.handling.mode`` (for the *decimals* columns) and
    ``time.precision.mode``."""
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
        f"{decimals} columns as Connect's Decimal (precise), FLOAT64 (double) or text (string).",
        group="Events",
    )
    d.define(TIME_PRECISION_MODE, Type.STRING, time_default, time_validator, Importance.MEDIUM,
             time_doc, group="Events")  # fmt: skip


def define_batches(d: ConfigDef) -> None:
    """``max.batch.size``, ``poll.interval.ms``, ``skipped.operations`` and the heartbeat's
    ``heartbeat.interval.ms`` and ``topic.heartbeat.prefix``."""
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
    d.define(
        HEARTBEAT_INTERVAL,
        Type.INT,
        0,
        Range.at_least(0),
        Importance.MEDIUM,
        "How often to emit a heartbeat record carrying the current position while streaming, "
        "in ms (0: never), so the stored offset moves on when only tables that are not "
        "captured change.",
        group="Connector",
    )
    d.define(
        HEARTBEAT_TOPIC_PREFIX,
        Type.STRING,
        "__debezium-heartbeat",
        None,
        Importance.LOW,
        "The heartbeat topic is this prefix, '.', then topic.prefix.",
        group="Connector",
    )


def _both_lists(values: Mapping[str, Any], first: tuple[str, str]) -> list[tuple[str, str]]:
    """(key, message) for each include list set beside its exclude list; *first* is the
    (include, exclude) pair of the connector's first level (databases or schemas)."""
    problems = []
    for include, exclude in (first, (TABLE_INCLUDE, TABLE_EXCLUDE),
                             (COLUMN_INCLUDE, COLUMN_EXCLUDE)):  # fmt: skip
        if values.get(include) and values.get(exclude):
            problems.append(
                (exclude, f'"{include}" is already specified: set {include} or {exclude}, '
                 "not both")
            )  # fmt: skip
    return problems


@dataclass(frozen=True, kw_only=True)
class Settings:
    """The fields of a checked configuration every connector has."""

    hostname: str
    port: int
    user: str
    password: str
    topic_prefix: str
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
    heartbeat_interval_ms: int
    heartbeat_topic: str


def password_text(value: Any) -> str:
    """The text of a parsed ``database.password`` ("" when unset)."""
    return value.value if isinstance(value, Password) else (value or "")


def common_settings(values: Mapping[str, Any]) -> dict[str, Any]:
    """The :class:`Settings` fields of parsed *values*, as keyword arguments."""
    skipped = {v.strip().lower() for v in str(values[SKIPPED_OPERATIONS]).split(",")}
    return {
        "hostname": values[HOSTNAME],
        "port": values[PORT],
        "user": values[USER],
        "password": password_text(values[PASSWORD]),
        "topic_prefix": values[TOPIC_PREFIX],
        "table_include": tuple(split_patterns(values[TABLE_INCLUDE])),
        "table_exclude": tuple(split_patterns(values[TABLE_EXCLUDE])),
        "column_include": tuple(split_patterns(values[COLUMN_INCLUDE])),
        "column_exclude": tuple(split_patterns(values[COLUMN_EXCLUDE])),
        "snapshot_mode": str(values[SNAPSHOT_MODE]).strip().lower(),
        "tombstones_on_delete": values[TOMBSTONES_ON_DELETE],
        "decimal_mode": str(values[DECIMAL_MODE]).lower(),
        "time_precision_mode": str(values[TIME_PRECISION_MODE]).lower(),
        "max_batch_size": values[MAX_BATCH_SIZE],
        "poll_interval_ms": values[POLL_INTERVAL],
        "skipped_operations": frozenset(skipped - {"none", ""}),
        "heartbeat_interval_ms": values[HEARTBEAT_INTERVAL],
        "heartbeat_topic": f"{values[HEARTBEAT_TOPIC_PREFIX]}.{values[TOPIC_PREFIX]}",
    }


SettingsT = TypeVar("SettingsT", bound=Settings)


Rule = Callable[[Mapping[str, Any]], list[tuple[str, str]]]
"""A check over several keys: (key, message) of each problem in the parsed values."""


class ConnectorConfig(Generic[SettingsT]):
    """A connector's configuration: its keys, the (include, exclude) keys of its first level
    (databases or schemas), how its parsed values make its settings, and its own *rules*
    over several keys (beside the include/exclude one)."""

    def __init__(
        self,
        config_def: ConfigDef,
        first: tuple[str, str],
        make: Callable[[Mapping[str, Any]], SettingsT],
        rules: Sequence[Rule] = (),
    ) -> None:
        self.config_def = config_def
        self.first = first
        self.make = make
        self.rules = tuple(rules)

    def _problems(self, values: Mapping[str, Any]) -> list[tuple[str, str]]:
        """(key, message) of what the rules over several keys find in parsed *values*."""
        problems = _both_lists(values, self.first)
        for rule in self.rules:
            problems.extend(rule(values))
        return problems

    def validate(self, props: Mapping[str, str]) -> ConfigValidation:
        """Every key's errors, each on its key; a rule's on the key it names (the
        include/exclude rule's on the exclude key)."""
        results = self.config_def.validate_all(props)
        values = {name: result.value for name, result in results.items()}
        for key, message in self._problems(values):
            results[key].add_error_message(message)
        return ConfigValidation(list(results.values()))

    def settings(self, props: Mapping[str, str]) -> SettingsT:
        """The settings of *props*; raises ``ConfigException`` on the first problem."""
        values = self.config_def.parse({k: v for k, v in props.items() if k in self.config_def})
        for key, message in self._problems(values):
            raise ConfigException(key, values[key], message)
        return self.make(values)

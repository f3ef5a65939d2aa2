"""Configuration of the PostgreSQL connector with the names, defaults and checks of Debezium
3.x (``PostgresConnectorConfig``), parsed into :class:`Settings`.

Differences from Debezium, each refused with a message rather than ignored:

* ``plugin.name`` defaults to ``pgoutput`` (Debezium: ``decoderbufs``). ``pgoutput`` is built
  into PostgreSQL 10+; ``decoderbufs`` is a server extension Seaway has no decoder for.
* ``snapshot.mode``: ``initial``, ``initial_only``, ``no_data``, ``when_needed`` and
  ``always``; the modes Debezium 3.3 removed (``never``, ``exported``, ``schema_only``,
  ``schema_only_recovery``) name their successor, and ``configuration_based``/``custom`` are
  not supported.
* ``time.precision.mode``: ``adaptive`` (default), ``adaptive_time_microseconds``, ``connect``.

The keys, validators and settings every Debezium connector shares come from
:mod:`seaway.connectors.debezium.config`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from seaway.config import ConfigDef, ConfigException, Importance, Type
from seaway.config.validators import CaseInsensitiveValidString, Validator
from seaway.connectors.debezium import config as common

__all__ = ["CONFIG", "CONFIG_DEF", "Settings", "settings", "validate"]

DBNAME: Final = "database.dbname"
PLUGIN_NAME: Final = "plugin.name"
SLOT_NAME: Final = "slot.name"
PUBLICATION_NAME: Final = "publication.name"
PUBLICATION_AUTOCREATE: Final = "publication.autocreate.mode"
SLOT_DROP_ON_STOP: Final = "slot.drop.on.stop"
SCHEMA_INCLUDE: Final = "schema.include.list"
SCHEMA_EXCLUDE: Final = "schema.exclude.list"

SNAPSHOT_MODES: Final = ("initial", "initial_only", "no_data", "when_needed", "always")
PUBLICATION_MODES: Final = ("all_tables", "disabled", "filtered", "no_tables")
TIME_PRECISION_MODES: Final = ("adaptive", "adaptive_time_microseconds", "connect")

_REMOVED_SNAPSHOT_MODES: Final = {
    "never": "no_data",
    "exported": "initial",
    "schema_only": "no_data",
    "schema_only_recovery": "recovery",
}
_SLOT_NAME: Final = re.compile(r"[a-z0-9_]{1,63}")
_FIRST_LEVEL: Final = (SCHEMA_INCLUDE, SCHEMA_EXCLUDE)


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
    common.define_string(d, common.HOSTNAME)
    common.define_string(d, common.USER)
    common.define_string(
        d, DBNAME, "The name of the database from which the connector should capture changes."
    )
    common.define_port(d, 5432)
    common.define_password(d)
    common.define_topic_prefix(d)
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
    common.define_filters(d, _FIRST_LEVEL, "schemas", "schema")
    common.define_snapshot_mode(
        d,
        common.SnapshotMode(SNAPSHOT_MODES, _REMOVED_SNAPSHOT_MODES),
        "initial: snapshot when there is no offset, then stream; initial_only: only the "
        "snapshot; no_data: no snapshot, stream from the slot; when_needed: also when "
        "the offset's position is no longer available; always: at every start.",
    )
    common.define_row_modes(
        d,
        "NUMERIC",
        "adaptive",
        CaseInsensitiveValidString(TIME_PRECISION_MODES),
        "Temporal columns as Debezium's types at the column's precision (adaptive, "
        "adaptive_time_microseconds) or Connect's Date/Time/Timestamp (connect).",
    )
    common.define_batches(d)
    return d  # fmt: skip


@dataclass(frozen=True, kw_only=True)
class Settings(common.Settings):
    """A checked configuration."""

    dbname: str
    slot_name: str
    publication_name: str
    publication_autocreate: str
    slot_drop_on_stop: bool
    schema_include: tuple[str, ...]
    schema_exclude: tuple[str, ...]


def _settings(values: Mapping[str, Any]) -> Settings:
    return Settings(
        **common.common_settings(values),
        dbname=values[DBNAME],
        slot_name=values[SLOT_NAME],
        publication_name=values[PUBLICATION_NAME],
        publication_autocreate=str(values[PUBLICATION_AUTOCREATE]).lower(),
        slot_drop_on_stop=values[SLOT_DROP_ON_STOP],
        schema_include=tuple(common.split_patterns(values[SCHEMA_INCLUDE])),
        schema_exclude=tuple(common.split_patterns(values[SCHEMA_EXCLUDE])),
    )


CONFIG: Final = common.ConnectorConfig(_config_def(), _FIRST_LEVEL, _settings)
CONFIG_DEF: Final = CONFIG.config_def
validate: Final = CONFIG.validate
settings: Final = CONFIG.settings

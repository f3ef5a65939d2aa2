"""The binlog connectors' configuration: Debezium's names, defaults and checks, each error on
its key."""

from __future__ import annotations

import pytest

from seaway.config import ConfigException
from seaway.connectors.debezium.binlog.config import settings, validate
from seaway.connectors.debezium.binlog.database import Filters
from seaway.connectors.debezium.config import split_patterns

PROPS = {
    "database.hostname": "db", "database.user": "u", "database.server.id": "5",
    "topic.prefix": "dbserver1", "schema.history.internal.kafka.bootstrap.servers": "k:9092",
    "schema.history.internal.kafka.topic": "history",
}  # fmt: skip


def _errors(**changes: str) -> dict[str, list[str]]:
    props = {**PROPS, **changes}
    return validate({k: v for k, v in props.items() if v != "<unset>"}).errors()


def test_defaults_are_debeziums() -> None:
    s = settings(PROPS)
    assert (s.port, s.snapshot_mode, s.decimal_mode, s.time_precision_mode) == (
        3306,
        "initial",
        "precise",
        "adaptive_time_microseconds",
    )
    assert (s.include_schema_changes, s.tombstones_on_delete, s.bigint_unsigned_mode) == (
        True,
        True,
        "long",
    )
    assert (s.max_batch_size, s.poll_interval_ms, s.heartbeat_interval_ms) == (2048, 500, 0)
    assert s.heartbeat_topic == "__debezium-heartbeat.dbserver1"
    assert s.skipped_operations == frozenset({"t"})
    assert validate(PROPS).is_valid


REQUIRED = ["database.server.id", "topic.prefix", "database.hostname",
            "schema.history.internal.kafka.bootstrap.servers",
            "schema.history.internal.kafka.topic"]  # fmt: skip


@pytest.mark.parametrize("key", REQUIRED)
def test_required_keys(key: str) -> None:
    assert list(_errors(**{key: "<unset>"})) == [key]


def test_each_error_is_on_its_key() -> None:
    errors = _errors(**{"snapshot.mode": "schema_only", "time.precision.mode": "adaptive",
                        "topic.prefix": "a/b", "decimal.handling.mode": "exact",
                        "table.include.list": "db.a", "table.exclude.list": "db.b"})  # fmt: skip
    assert set(errors) == {"snapshot.mode", "time.precision.mode", "topic.prefix",
                           "decimal.handling.mode", "table.exclude.list"}  # fmt: skip
    assert "'no_data'" in errors["snapshot.mode"][0]
    assert errors["time.precision.mode"] == [
        "Invalid value adaptive for configuration time.precision.mode: The 'adaptive' "
        "time.precision.mode is no longer supported"]  # fmt: skip
    assert "only the underscore, hyphen, dot and alphanumeric" in errors["topic.prefix"][0]
    assert "table.include.list" in errors["table.exclude.list"][0]
    assert "table.exclude.list" in errors["table.exclude.list"][0]


def test_include_beside_exclude_fails_parsing_too() -> None:
    with pytest.raises(ConfigException, match=r"database\.exclude\.list"):
        settings({**PROPS, "database.include.list": "a", "database.exclude.list": "b"})


def test_snapshot_modes() -> None:
    for mode in ("initial", "no_data", "when_needed", "never", "initial_only", "NEVER"):
        assert settings({**PROPS, "snapshot.mode": mode}).snapshot_mode == mode.lower()
    assert "snapshot.mode" in _errors(**{"snapshot.mode": "always"})


def test_filters_are_anchored_and_ignore_case() -> None:
    f = Filters.of(settings({**PROPS, "table.include.list": "inv\\.cust.*,other.t{1\\,2}"}))
    assert f.table("INV", "Customers") and f.table("other", "tt")
    assert not f.table("inv", "orders") and not f.table("xinv", "customers")
    assert split_patterns("a{1\\,2},b") == ["a{1,2}", "b"]
    assert not Filters.of(settings(PROPS)).table("mysql", "user")  # the server's own
    excluded = Filters.of(settings({**PROPS, "column.exclude.list": "inv.t.secret"}))
    assert not excluded.column("inv", "t", "SECRET") and excluded.column("inv", "t", "secret2")


KAFKA = "io.debezium.storage.kafka.history.KafkaSchemaHistory"
FILE = "io.debezium.storage.file.history.FileSchemaHistory"
FILE_PROPS = {**{k: v for k, v in PROPS.items() if ".kafka." not in k},
              "schema.history.internal": FILE,
              "schema.history.internal.file.filename": "/var/lib/cdc/history.dat"}  # fmt: skip


def test_the_kafka_history_is_the_default_and_needs_its_keys_only() -> None:
    s = settings(PROPS)
    assert (s.history_class, s.history_servers, s.history_topic, s.history_file) == (
        KAFKA, "k:9092", "history", None)  # fmt: skip
    assert validate({**PROPS, "schema.history.internal": KAFKA}).is_valid
    errors = _errors(**{"schema.history.internal.kafka.topic": "<unset>",
                        "schema.history.internal.kafka.bootstrap.servers": " "})  # fmt: skip
    assert list(errors) == ["schema.history.internal.kafka.bootstrap.servers",
                            "schema.history.internal.kafka.topic"]  # fmt: skip
    assert errors["schema.history.internal.kafka.topic"] == [
        'Missing required configuration "schema.history.internal.kafka.topic": '
        f"schema.history.internal is {KAFKA}, which needs it; set it to the history topic's "
        f"name, or keep the history in a file: schema.history.internal={FILE} and "
        "schema.history.internal.file.filename"]  # fmt: skip
    with pytest.raises(ConfigException, match=r"schema\.history\.internal\.kafka\.topic"):
        settings({k: v for k, v in PROPS.items() if k != "schema.history.internal.kafka.topic"})


def test_the_file_history_needs_the_filename_only() -> None:
    s = settings(FILE_PROPS)
    assert (s.history_class, s.history_servers, s.history_topic, s.history_file) == (
        FILE, None, None, "/var/lib/cdc/history.dat")  # fmt: skip
    assert validate(FILE_PROPS).is_valid
    unset = {k: v for k, v in FILE_PROPS.items() if k != "schema.history.internal.file.filename"}
    assert validate(unset).errors() == {"schema.history.internal.file.filename": [
        'Missing required configuration "schema.history.internal.file.filename": '
        f"schema.history.internal is {FILE}, which needs it; set it to the history file's path"
    ]}  # fmt: skip
    with pytest.raises(ConfigException, match=r"schema\.history\.internal\.file\.filename"):
        settings(unset)
    # the Kafka keys beside it are ignored, as Debezium's file history ignores them
    assert settings({**PROPS, **FILE_PROPS}).history_file == "/var/lib/cdc/history.dat"


def test_an_unknown_history_lists_the_supported_ones() -> None:
    name = "io.debezium.storage.redis.history.RedisSchemaHistory"
    errors = _errors(**{"schema.history.internal": name,
                        "schema.history.internal.kafka.topic": "<unset>"})  # fmt: skip
    assert errors == {"schema.history.internal": [
        f"Invalid value {name} for configuration schema.history.internal: Unsupported schema "
        f"history: use {KAFKA} (a Kafka topic: schema.history.internal.kafka.bootstrap.servers "
        f"and schema.history.internal.kafka.topic) or {FILE} (a file: "
        "schema.history.internal.file.filename)"]}  # fmt: skip
    with pytest.raises(ConfigException, match="Unsupported schema history"):
        settings({**PROPS, "schema.history.internal": name})

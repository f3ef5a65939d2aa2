"""Config: typed getters, originals, prefixes, usage tracking and logging."""

from __future__ import annotations

import collections
import logging
import re
from collections.abc import Mapping
from typing import Any

import pytest

from seaway.config import NO_DEFAULT, Config, ConfigDef, ConfigException, Password, Range, Type

DEF = (
    ConfigDef()
    .define("bootstrap.servers", Type.LIST, NO_DEFAULT)
    .define("acks", Type.STRING, "all")
    .define("batch.size", Type.INT, 16384, Range.at_least(0))
    .define("linger.ms", Type.LONG, 0)
    .define("ratio", Type.DOUBLE, 0.5)
    .define("idempotent", Type.BOOLEAN, False)
    .define("sasl.password", Type.PASSWORD, None)
    .define("partitioner", Type.CLASS, "collections.OrderedDict")
    .define("retries", Type.SHORT, 3)
)

PROPS = {
    "bootstrap.servers": "a:9092, b:9092",
    "sasl.password": "hunter2",
    "producer.batch.size": "100",
    "producer.acks": "1",
    "producer.unknown": "x",
    "producer.": "ignored-empty-suffix",
    "custom.thing": "y",
}


def test_typed_getters() -> None:
    c = Config(DEF, PROPS)
    assert c.get_list("bootstrap.servers") == ["a:9092", "b:9092"]
    assert c.get_string("acks") == "all"
    assert c.get_int("batch.size") == 16384
    assert c.get_long("linger.ms") == 0
    assert c.get_short("retries") == 3
    assert c.get_double("ratio") == 0.5
    assert c.get_boolean("idempotent") is False
    assert c.get_class("partitioner") is collections.OrderedDict
    pw = c.get_password("sasl.password")
    assert pw == Password("hunter2") and pw is not None and pw.value == "hunter2"
    assert c.get("acks") == "all"


def test_getter_type_mismatch_and_unknown() -> None:
    c = Config(DEF, PROPS)
    with pytest.raises(TypeError, match="idempotent is a bool, not an integer"):
        c.get_int("idempotent")
    with pytest.raises(TypeError):
        c.get_string("batch.size")
    with pytest.raises(ConfigException, match="Unknown configuration 'nope'"):
        c.get("nope")


def test_nullable_getter_returns_none() -> None:
    c = Config(ConfigDef().define("x", Type.STRING, None), {})
    assert c.get_string("x") is None


def test_construction_raises_on_invalid_or_missing() -> None:
    with pytest.raises(
        ConfigException, match=re.escape('"bootstrap.servers" which has no default')
    ):
        Config(DEF, {})
    with pytest.raises(ConfigException, match="Value must be at least 0"):
        Config(DEF, {"bootstrap.servers": "a", "batch.size": "-5"})
    with pytest.raises(ConfigException, match=re.escape("Key must be a string.")):
        Config(DEF, {1: "x"})  # type: ignore[dict-item]


def test_originals_and_values_are_copies() -> None:
    c = Config(DEF, PROPS)
    assert c.originals == PROPS
    c.originals["acks"] = "0"
    c.values["acks"] = "0"
    assert "acks" not in c.originals and c.get("acks") == "all"
    assert set(c.values) == set(DEF.names())


def test_originals_with_prefix() -> None:
    c = Config(DEF, PROPS)
    assert c.originals_with_prefix("producer.") == {
        "batch.size": "100",
        "acks": "1",
        "unknown": "x",
    }
    assert c.originals_with_prefix("producer.", strip=False) == {
        "producer.batch.size": "100",
        "producer.acks": "1",
        "producer.unknown": "x",
    }


def test_values_with_prefix_override() -> None:
    c = Config(DEF, PROPS)
    values = c.values_with_prefix_override("producer.")
    assert values["batch.size"] == 100 and values["acks"] == "1"
    assert values["linger.ms"] == 0 and "unknown" not in values
    bad = Config(DEF, {**PROPS, "producer.batch.size": "-1"})
    with pytest.raises(ConfigException, match=re.escape("batch.size: Value must be at least 0")):
        bad.values_with_prefix_override("producer.")


def test_originals_strings() -> None:
    assert Config(DEF, PROPS).originals_strings() == PROPS
    with pytest.raises(ConfigException, match="Not a string"):
        Config(DEF, {**PROPS, "n": 5}).originals_strings()


def test_unused_tracking(caplog: pytest.LogCaptureFixture) -> None:
    c = Config(DEF, {"bootstrap.servers": "a", "acks": "1", "custom": "x"})
    assert c.unused() == {"bootstrap.servers", "acks", "custom"}
    c.get("acks")
    c.ignore("custom")
    assert c.unused() == {"bootstrap.servers"}
    with caplog.at_level(logging.WARNING, logger="seaway.config.base"):
        c.log_unused()
    assert "were supplied but are not used yet: bootstrap.servers" in caplog.text


def test_logging_masks_passwords(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="seaway.config.base"):
        c = Config(DEF, PROPS, log_values=True)
    assert "Config values:" in caplog.text and "sasl.password = [hidden]" in caplog.text
    assert "hunter2" not in caplog.text and "hunter2" not in repr(c)


def test_post_process_hook_and_equality() -> None:
    class Derived(Config):
        def post_process_parsed_config(self, parsed: Mapping[str, Any]) -> Mapping[str, Any]:
            return {"batch.size": 0} if parsed["idempotent"] else {}

    d = Derived(DEF, {"bootstrap.servers": "a", "idempotent": "true"})
    assert d.get_int("batch.size") == 0
    assert d == Derived(DEF, {"bootstrap.servers": "a", "idempotent": "true"})
    assert d != Config(DEF, {"bootstrap.servers": "a", "idempotent": "true"})

    class Invalid(Config):
        def post_process_parsed_config(self, parsed: Mapping[str, Any]) -> Mapping[str, Any]:
            return {"batch.size": -1}

    with pytest.raises(ConfigException, match="at least 0"):
        Invalid(DEF, {"bootstrap.servers": "a"})

"""Avro compatibility as Confluent's registry decides it, level by level."""

from __future__ import annotations

from typing import Any

import pytest

from seaway.registry.compatibility import incompatibilities


def record(*fields: dict[str, Any], name: str = "login") -> dict[str, Any]:
    return {"type": "record", "name": name, "fields": list(fields)}


ID = {"name": "id", "type": "int"}
USER = {"name": "user", "type": "string"}
EMAIL_DEFAULT = {"name": "email", "type": ["null", "string"], "default": None}
EMAIL = {"name": "email", "type": "string"}


@pytest.mark.parametrize(
    ("level", "new", "old", "compatible"),
    [
        ("BACKWARD", record(ID, USER, EMAIL_DEFAULT), record(ID, USER), True),  # column added
        ("BACKWARD", record(ID, USER, EMAIL), record(ID, USER), False),  # no default
        ("FORWARD", record(ID, USER, EMAIL), record(ID, USER), True),  # old ignores it
        ("FORWARD", record(ID), record(ID, USER), False),  # old needs user, new drops it
        ("BACKWARD", record(ID), record(ID, USER), True),  # new ignores the dropped field
        ("FULL", record(ID, USER, EMAIL_DEFAULT), record(ID, USER), True),
        ("FULL", record(ID), record(ID, USER), False),  # dropped without default
        ("NONE", record(ID), record(USER), True),
        ("BACKWARD", record({"name": "id", "type": "long"}), record(ID), True),  # int -> long
        ("BACKWARD", record(ID), record({"name": "id", "type": "long"}), False),
        ("BACKWARD", record(ID, name="other"), record(ID), False),  # renamed record
        ("BACKWARD", "bytes", "string", True),
        ("BACKWARD", ["null", "int"], "int", True),  # a union reads one of its branches
        ("BACKWARD", "int", ["null", "int"], False),  # null cannot be read as int
        (
            "BACKWARD",
            {"type": "enum", "name": "e", "symbols": ["A"]},
            {"type": "enum", "name": "e", "symbols": ["A", "B"]},
            False,
        ),
        (
            "BACKWARD",
            {"type": "enum", "name": "e", "symbols": ["A"], "default": "A"},
            {"type": "enum", "name": "e", "symbols": ["A", "B"]},
            True,
        ),
        ("BACKWARD", {"type": "array", "items": "long"}, {"type": "array", "items": "int"}, True),
        ("BACKWARD", {"type": "map", "values": "int"}, {"type": "map", "values": "long"}, False),
        (
            "BACKWARD",
            record({"name": "renamed", "type": "int", "aliases": ["id"]}),
            record(ID),
            True,
        ),
    ],
)
def test_levels_against_the_latest(level: str, new: Any, old: Any, compatible: bool) -> None:
    problems = incompatibilities(level, new, [old])
    assert (not problems) is compatible, problems


def test_transitive_levels_check_every_earlier_version() -> None:
    v1 = record(ID, USER)
    v2 = record(ID, USER, EMAIL_DEFAULT)
    v3 = record(ID, EMAIL_DEFAULT)  # drops user: fine backward; forward breaks only v1's readers
    assert incompatibilities("FORWARD", v3, [v1, v2])  # v2's readers need user too
    v3b = record(ID, {"name": "user", "type": "string", "default": ""}, EMAIL_DEFAULT)
    assert incompatibilities("BACKWARD", v3b, [v1, v2]) == []
    v4 = record(ID, USER, EMAIL)  # email now required: v2's data has it, v1's does not
    assert incompatibilities("BACKWARD", v4, [v1, v2]) != []  # against v2 (latest): no default
    assert incompatibilities("BACKWARD_TRANSITIVE", v2, [v1]) == []


def test_recursive_schemas_terminate() -> None:
    node = {
        "type": "record",
        "name": "node",
        "fields": [{"name": "next", "type": ["null", "node"], "default": None}],
    }
    assert incompatibilities("FULL_TRANSITIVE", node, [node]) == []


def test_problems_name_the_field_and_the_rule() -> None:
    (problem,) = incompatibilities("BACKWARD", record(ID, USER, EMAIL), [record(ID, USER)])
    assert "/fields/email" in problem and "no default" in problem

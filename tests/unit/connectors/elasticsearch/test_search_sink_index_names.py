"""Index and data stream names from topics, as Confluent's sink task and Aiven's config
make them."""

from __future__ import annotations

import pytest

from seaway.connectors.elasticsearch.index_names import (
    data_stream_name,
    index_name,
    opensearch_index_name,
)
from seaway.connectors.elasticsearch.settings import DataStream


@pytest.mark.parametrize(
    ("topic", "expected"),
    [
        ("dbserver1.inventory.customers", "dbserver1.inventory.customers"),
        ("Orders.EU", "orders.eu"),
        ("_orders", "orders"),
        ("-orders", "orders"),
        ("__orders", "_orders"),  # one character only
        ("-_orders", "_orders"),
        (".", "dot"),
        ("..", "dotdot"),
        ("...", "..."),
        ("_.", "dot"),  # stripped first, then spelled
        ("-..", "dotdot"),
        ("a.", "a."),
        ("+a:b", "+a:b"),  # Confluent leaves + and : alone
    ],
)
def test_confluent_index_names(topic: str, expected: str) -> None:
    assert index_name(topic) == expected


def test_index_names_are_cut_to_255_characters_before_the_leading_character_goes() -> None:
    assert index_name("A" * 300) == "a" * 255
    assert index_name("_" + "b" * 300) == "b" * 254
    assert index_name("_" * 2 + "c" * 253) == "_" + "c" * 253


def test_lengths_count_utf16_code_units_as_java_does() -> None:
    assert index_name("é" * 300) == "é" * 255
    # U+1F600 is two UTF-16 units: Java cuts the pair and writes the lone half as "?"
    assert index_name("a" * 254 + "\U0001f600") == "a" * 254 + "?"
    assert index_name("a" * 253 + "\U0001f600") == "a" * 253 + "\U0001f600"


@pytest.mark.parametrize(
    ("topic", "expected"),
    [
        ("Orders", "orders"),
        ("+orders", "orders"),
        ("_orders", "orders"),
        ("a:b:c", "a_b_c"),
        (":orders", "orders"),  # ":" became "_", which is then stripped
        ("_:orders", "_orders"),
        ("..", "dotdot"),
        ("+.", "dot"),
    ],
)
def test_aiven_index_names(topic: str, expected: str) -> None:
    assert opensearch_index_name(topic) == expected


def test_confluent_data_stream_names() -> None:
    logs = DataStream(type="LOGS", dataset="shop")
    assert data_stream_name("Orders.EU", logs) == "logs-shop-orders.eu"
    assert data_stream_name("_x", logs) == "logs-shop-_x"  # the topic is only lowercased
    metrics = DataStream(type="metrics", dataset="db", namespace="prod-${topic}-${topic}")
    assert data_stream_name("T", metrics) == "metrics-db-prod-t-t"
    fixed = DataStream(type="logs", dataset="d", namespace="Fixed")
    assert data_stream_name("T", fixed) == "logs-d-Fixed"


def test_data_stream_namespaces_are_cut_to_100_characters() -> None:
    stream = DataStream(type="logs", dataset="a", namespace="ns-${topic}")
    assert data_stream_name("X" * 200, stream) == "logs-a-ns-" + "x" * 97


def test_aiven_data_stream_names() -> None:
    assert data_stream_name("Orders", DataStream(prefix="events")) == "events-orders"
    assert data_stream_name("+a:b", DataStream(prefix="p")) == "p-a_b"
    assert data_stream_name("Orders", DataStream()) == "orders"  # no prefix: the index name

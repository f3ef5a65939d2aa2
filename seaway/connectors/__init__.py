"""Connectors bundled with Seaway.

Connectors depend on :mod:`seaway.connect.api` (and :mod:`seaway.config`) only. The runtime
finds them through the ``seaway.connectors`` entry points (``pyproject.toml``), under Kafka's
and Confluent's class names (``org.apache.kafka.connect.file.FileStreamSourceConnector``) and
their aliases (``FileStreamSourceConnector``, ``FileStreamSource``). The Debezium connectors
(:mod:`seaway.connectors.debezium`) are found only that way, so importing a connector never
imports the others' database clients.
"""

from __future__ import annotations

from typing import Final

from seaway import __version__
from seaway.connectors.file import FileStreamSinkConnector, FileStreamSourceConnector
from seaway.connectors.hdfs import HdfsSinkConnector
from seaway.connectors.jdbc import JdbcSinkConnector, JdbcSourceConnector

VERSION: Final = __version__
"""The version every bundled connector reports (``Connector.version()``)."""

__all__ = [
    "VERSION",
    "FileStreamSinkConnector",
    "FileStreamSourceConnector",
    "HdfsSinkConnector",
    "JdbcSinkConnector",
    "JdbcSourceConnector",
    "__version__",
]

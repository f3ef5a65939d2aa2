"""Connectors bundled with Seaway, found by the runtime through :data:`PLUGINS`.

Connectors depend on :mod:`seaway.connect.api` (and :mod:`seaway.config`) only.

:data:`PLUGINS` maps every name a ``connector.class`` may use to the class: the Kafka
class name, its simple name and the simple name without ``Connector``, as Kafka's plugin
aliases allow (``FileStreamSource``, ``FileStreamSourceConnector``,
``org.apache.kafka.connect.file.FileStreamSourceConnector``). :data:`CLASS_NAMES` gives
each class's canonical (Kafka) name, for ``GET /connector-plugins``.

>>> PLUGINS["FileStreamSource"] is PLUGINS["FileStreamSourceConnector"]
True
>>> CLASS_NAMES[PLUGINS["FileStreamSink"]]
'org.apache.kafka.connect.file.FileStreamSinkConnector'
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Final

from seaway import __version__
from seaway.connect.api import Connector
from seaway.connectors.file import FileStreamSinkConnector, FileStreamSourceConnector
from seaway.connectors.hdfs import HdfsSinkConnector
from seaway.connectors.jdbc import JdbcSinkConnector, JdbcSourceConnector

VERSION: Final = __version__
"""The version every bundled connector reports (``Connector.version()``)."""


def _aliases(kafka_class_name: str) -> list[str]:
    simple = kafka_class_name.rsplit(".", 1)[-1]
    return [kafka_class_name, simple, simple.removesuffix("Connector")]


CLASS_NAMES: Final[MappingProxyType[type[Connector], str]] = MappingProxyType(
    {
        FileStreamSourceConnector: "org.apache.kafka.connect.file.FileStreamSourceConnector",
        FileStreamSinkConnector: "org.apache.kafka.connect.file.FileStreamSinkConnector",
        JdbcSourceConnector: "io.confluent.connect.jdbc.JdbcSourceConnector",
        JdbcSinkConnector: "io.confluent.connect.jdbc.JdbcSinkConnector",
        HdfsSinkConnector: "io.confluent.connect.hdfs.HdfsSinkConnector",
    }
)
"""The canonical (Kafka) class name of each bundled connector."""

PLUGINS: Final[MappingProxyType[str, type[Connector]]] = MappingProxyType(
    {alias: cls for cls, name in CLASS_NAMES.items() for alias in _aliases(name)}
)
"""Every accepted ``connector.class`` name, mapped to the connector class."""

__all__ = [
    "CLASS_NAMES",
    "PLUGINS",
    "VERSION",
    "FileStreamSinkConnector",
    "FileStreamSourceConnector",
    "HdfsSinkConnector",
    "JdbcSinkConnector",
    "JdbcSourceConnector",
    "__version__",
]

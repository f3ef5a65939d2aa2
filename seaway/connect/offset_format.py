"""Connect's source-offset records, as a Java worker writes them (``OffsetStorageWriter``).

* key: ``["<namespace>",{<source partition>}]``
* value: ``{<source offset>}``, or null to delete the entry (a tombstone).

Both are JsonConverter's schemaless JSON (compact, keys in insertion order). Connect's
offset stores (:mod:`seaway.connect.runtime.storage.offsets`) and MirrorMaker's copy, which
writes MM2's source offsets itself, share these two functions.

>>> offset_key("local-file-source", {"filename": "/tmp/test.txt"})
b'["local-file-source",{"filename":"/tmp/test.txt"}]'
>>> offset_value({"position": 28})
b'{"position":28}'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from seaway.connect.converters import JsonConverter

__all__ = ["offset_key", "offset_value"]


def _converter() -> JsonConverter:
    converter = JsonConverter()
    converter.configure({"schemas.enable": "false"}, is_key=False)
    return converter


_CONVERTER = _converter()


def offset_key(namespace: str, partition: Mapping[str, Any]) -> bytes:
    """The record key of a partition's offset: ``["<namespace>",{partition}]``."""
    key = _CONVERTER.from_connect_data("", None, [namespace, dict(partition)])
    assert key is not None
    return key


def offset_value(offset: Mapping[str, Any] | None) -> bytes | None:
    """The record value of an offset: its JSON, or None for a tombstone."""
    return None if offset is None else _CONVERTER.from_connect_data("", None, dict(offset))

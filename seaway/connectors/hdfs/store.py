"""Where the HDFS sink's files go: the folder under ``store.url`` and the file names."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from seaway.connect.api import ConnectError
from seaway.connectors.hdfs import config as c

__all__ = ["COMMITTED", "TEMP_DIR", "committed_name", "open_store"]

#: Confluent's pattern of a committed file name: topic, partition, first and last offset.
COMMITTED: Final = re.compile(r"([a-zA-Z0-9\._\-]+)\+(\d+)\+(\d+)\+(\d+)(.\w+)?")
TEMP_DIR: Final = "+tmp"


def committed_name(topic: str, partition: int, first: int, last: int, width: int) -> str:
    """``<topic>+<partition>+<first>+<last>.parquet``, offsets zero-padded to *width*."""
    return f"{topic}+{partition}+{first:0{width}d}+{last:0{width}d}.parquet"


def open_store(values: Mapping[str, Any]) -> tuple[Any, str, str]:
    """``(filesystem, path, url)`` of the topics folder under ``store.url``."""
    import pyarrow.fs as fs

    url = str(values[c.STORE_URL] or values[c.HDFS_URL]).rstrip("/")
    try:
        filesystem, root = fs.FileSystem.from_uri(url)
    except Exception as error:
        raise ConnectError(f"Cannot open store.url {url}: {error}") from None
    topics = values[c.TOPICS_DIR]
    return filesystem, f"{root.rstrip('/')}/{topics}", f"{url}/{topics}"

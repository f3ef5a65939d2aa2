"""``hive.integration``: a table over each topic's files, kept in step with them.

A thread of the connector (on the worker) looks at the topics' folders every
:data:`SYNC_INTERVAL_S`: a topic with files gets an external Parquet table
``<hive.database>.<hive.table.name>`` (``.`` and ``-`` as ``_``) over
``<topics.dir>/<topic>`` partitioned by the string column ``partition``; the schema of the
newest file adds the columns the table lacks (a field added upstream becomes a column; older
files read it as null), and each new ``partition=<n>`` folder becomes a partition.
Confluent's connector does the same from its writers, asynchronously; here the tables follow
the files within the interval.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Mapping
from typing import Any, Final

from seaway.connect.api import ConnectError, ConnectorContext, TableCatalog
from seaway.connectors.hdfs import config as c
from seaway.connectors.hdfs.store import COMMITTED, open_store

__all__ = ["SYNC_INTERVAL_S", "HiveSync", "table_name"]

log = logging.getLogger(__name__)

SYNC_INTERVAL_S: Final = 2.0
_PARTITION: Final = re.compile(r"partition=(\d+)")
_NOT_IN_NAMES: Final = re.compile(r"[.-]")


def table_name(pattern: str, topic: str) -> str:
    """``hive.table.name`` for *topic*, with ``.`` and ``-`` as ``_`` as Confluent's
    ``HiveMetaStore`` has them (Hive table names are letters, digits and ``_``): Debezium's
    ``<prefix>.<database>.<table>`` topics get ``<prefix>_<database>_<table>``.

    >>> table_name("${topic}", "cdc-1.shop.customers")
    'cdc_1_shop_customers'
    """
    return _NOT_IN_NAMES.sub("_", pattern.replace("${topic}", topic))


class HiveSync:
    """Keeps the connector's tables in step with its files, from a background thread."""

    def __init__(self, values: Mapping[str, Any], props: Mapping[str, str],
                 catalog: TableCatalog, context: ConnectorContext | None) -> None:  # fmt: skip
        self.values, self.catalog, self.context = values, catalog, context
        self.fs, self.root, self.root_url = open_store(values)
        self.topics = [t.strip() for t in props.get("topics", "").split(",") if t.strip()]
        self.pattern = re.compile(props["topics.regex"]) if props.get("topics.regex") else None
        self.newest: dict[str, str] = {}  # the file a topic's table schema was taken from
        self.partitions: dict[str, set[str]] = {}
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="hive-sync")

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join(30)

    def _run(self) -> None:
        while not self._stopping.wait(SYNC_INTERVAL_S):
            try:
                self.sync()
            except ConnectError as error:
                if self.context is not None:
                    self.context.raise_error(error)
                return
            except Exception as error:  # the filesystem or metastore hiccuped: next round
                log.warning("Hive integration could not sync the tables: %s", error)

    def _wanted(self, topic: str) -> bool:
        return topic in self.topics or bool(self.pattern and self.pattern.fullmatch(topic))

    def sync(self) -> None:
        """One round: every topic folder with files gets its table, columns and partitions."""
        import pyarrow.fs as fs
        import pyarrow.parquet as pq

        selector = fs.FileSelector(self.root, allow_not_found=True)
        for folder in self.fs.get_file_info(selector):
            topic = folder.base_name
            if folder.type != fs.FileType.Directory or not self._wanted(topic):
                continue
            newest, newest_end, partitions = None, -1, set()
            for info in self.fs.get_file_info(fs.FileSelector(folder.path, recursive=True)):
                match = COMMITTED.fullmatch(info.base_name)
                parent = _PARTITION.fullmatch(info.path.rsplit("/", 2)[-2])
                if match is None or parent is None or info.type != fs.FileType.File:
                    continue
                partitions.add(parent.group(1))
                if int(match.group(4)) > newest_end:
                    newest, newest_end = info.path, int(match.group(4))
            if newest is None:
                continue
            database = str(self.values[c.HIVE_DATABASE])
            table = table_name(str(self.values[c.HIVE_TABLE_NAME]), topic)
            if self.newest.get(topic) != newest:
                with self.fs.open_input_file(newest) as handle:
                    schema = pq.read_schema(handle)
                location = f"{self.root_url}/{topic}"
                self.catalog.ensure_table(database, table, location, schema, ["partition"])
                self.newest[topic] = newest
                log.info("Hive table %s.%s over %s has the columns %s", database, table,
                         location, ", ".join(schema.names))  # fmt: skip
            new = partitions - self.partitions.get(topic, set())
            if new:
                self.catalog.add_partitions(
                    database, table, [{"partition": p} for p in sorted(new, key=int)]
                )
                self.partitions.setdefault(topic, set()).update(new)
                log.info("Hive table %s.%s has the partitions %s", database, table,
                         sorted(self.partitions[topic], key=int))  # fmt: skip

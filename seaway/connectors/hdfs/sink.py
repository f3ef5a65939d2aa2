"""The partitioned-file sink (Confluent's ``HdfsSinkConnector``): topics into Parquet files.

Layout and names are Confluent's: ``<store.url>/<topics.dir>/<topic>/partition=<n>/
<topic>+<n>+<first offset>+<last offset>.parquet`` (offsets zero-padded, inclusive), each
file written under ``<topics.dir>/+tmp/`` first and renamed into place when complete.

**Exactly once.** A file's name says which offsets it holds and appears only whole, so the
files are the record of what was written: a task asked to write a topic-partition first
lists its files and drops every record at or below the highest offset they hold. A batch
replayed after a crash (before the worker committed the consumer offsets) therefore writes
nothing twice, and one that was cut short writes the rest. Kafka's worker keeps a task
running across ``put`` calls and Confluent's connector keeps a file open until
``flush.size`` records; Seaway's sink tasks live for one micro-batch, so a file also closes
at the end of each micro-batch, which keeps the consumer offsets committed after it exact.

**Schemas.** Only value schemas count (the values must be Structs). With
``schema.compatibility=NONE`` a new schema closes the file and starts one with the new
schema; with ``BACKWARD`` or ``FULL`` a record of a newer schema version closes the file and
records of older versions are projected to the newer schema (a missing optional field is
null, a missing field with a default gets it); ``FORWARD`` the other way round. Schema
versions decide which is newer; where they are missing or equal (Debezium's row schemas after
``ExtractNewRecordState`` have none, and Confluent's connector fails on them with "Schema
version required") the fields do: a schema whose records the current one holds (it has their
fields unchanged, its others optional or defaulted) is older, any other is newer, so a column
added upstream rolls the file once and records of the schema before it are projected.
Debezium's date and timestamp types become date and timestamp columns
(:mod:`~seaway.connectors.hdfs.temporal`).
Tombstones (null values) are skipped, as Confluent's connector does.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from seaway import __version__
from seaway.config import ConfigException
from seaway.connect.api import (
    ConnectError,
    OffsetAndMetadata,
    Schema,
    SinkRecord,
    SinkTask,
    Task,
    TopicPartition,
)
from seaway.connect.api.data import SchemaType, Struct
from seaway.connect.api.data.arrow import structs_to_table
from seaway.connectors.common import UniformSinkConnector
from seaway.connectors.hdfs import config as c
from seaway.connectors.hdfs.hive import HiveSync
from seaway.connectors.hdfs.store import COMMITTED, TEMP_DIR, committed_name, open_store
from seaway.connectors.hdfs.temporal import temporal_columns

__all__ = ["HdfsSinkConnector", "HdfsSinkTask"]

log = logging.getLogger(__name__)


def _settings(props: Mapping[str, str]) -> dict[str, Any]:
    values = c.CONFIG_DEF.parse({k: v for k, v in props.items() if k in c.CONFIG_DEF})
    if not (values[c.STORE_URL] or values[c.HDFS_URL]):
        raise ConfigException(
            'Missing required configuration "store.url" which has no default value: give '
            "the folder's URL, e.g. file:///data/kafka"
        )
    values[c.SCHEMA_COMPATIBILITY] = str(values[c.SCHEMA_COMPATIBILITY]).upper()
    if values[c.HIVE_INTEGRATION] and values[c.SCHEMA_COMPATIBILITY] == "NONE":
        raise ConfigException(
            "Hive Integration requires schema compatibility to be BACKWARD, FORWARD or FULL: "
            "set schema.compatibility"
        )
    return values


class HdfsSinkConnector(UniformSinkConnector):
    """Writes topics into partitioned Parquet files (and keeps Hive tables over them)."""

    config_def = c.CONFIG_DEF
    settings = staticmethod(_settings)

    def __init__(self) -> None:
        super().__init__()
        self.hive: HiveSync | None = None

    def start(self, props: dict[str, str]) -> None:
        super().start(props)
        values = _settings(props)
        if values[c.HIVE_INTEGRATION]:
            catalog = self.context.table_catalog() if self.context is not None else None
            if catalog is None:
                raise ConnectError(
                    "hive.integration=true needs a worker whose Spark session keeps tables in "
                    "a Hive metastore: set spark.sql.catalogImplementation=hive in the worker's "
                    "properties (and spark.hadoop.hive.metastore.uris for a shared metastore)"
                )
            self.hive = HiveSync(values, props, catalog, self.context)
            self.hive.start()

    def task_class(self) -> type[Task]:
        return HdfsSinkTask

    def stop(self) -> None:
        if self.hive is not None:
            self.hive.stop()
            self.hive = None


@dataclass
class _OpenFile:
    """The records of one topic-partition waiting to become a file."""

    schema: Schema
    records: list[SinkRecord] = field(default_factory=list)


class HdfsSinkTask(SinkTask):
    """Writes the records of its topic-partitions into Parquet files."""

    def version(self) -> str:
        return __version__

    def start(self, props: dict[str, str]) -> None:
        self.values = _settings(props)
        self.fs, self.root, _ = open_store(self.values)
        self.next_offset: dict[TopicPartition, int] = {}  # the first offset not in a file
        self.open_files: dict[TopicPartition, _OpenFile] = {}
        self.current: dict[TopicPartition, Schema] = {}

    def stop(self) -> None:
        pass

    # --- files ------------------------------------------------------------------------------

    def _folder(self, tp: TopicPartition) -> str:
        return f"{self.root}/{tp.topic}/partition={tp.partition}"

    def _committed_end(self, tp: TopicPartition) -> int:
        """The first offset after the files of *tp* (0 with no file)."""
        import pyarrow.fs as fs

        end = 0
        selector = fs.FileSelector(self._folder(tp), allow_not_found=True)
        for info in self.fs.get_file_info(selector):
            match = COMMITTED.fullmatch(info.base_name)
            if match and match.group(1) == tp.topic and int(match.group(2)) == tp.partition:
                end = max(end, int(match.group(4)) + 1)
        return end

    def open(self, partitions: Collection[TopicPartition]) -> None:
        for tp in partitions:
            self.next_offset[tp] = self._committed_end(tp)

    def _write(self, tp: TopicPartition) -> None:
        """Write *tp*'s open file: a temp file, renamed to its committed name when whole."""
        import pyarrow.parquet as pq

        pending = self.open_files.pop(tp, None)
        if pending is None or not pending.records:
            return
        records = pending.records
        table = structs_to_table(pending.schema, [r.value for r in records])
        table = temporal_columns(pending.schema, table)
        first, last = records[0].kafka_offset, records[-1].kafka_offset
        temp_folder = f"{self.root}/{TEMP_DIR}/{tp.topic}/partition={tp.partition}"
        self.fs.create_dir(temp_folder, recursive=True)
        self.fs.create_dir(self._folder(tp), recursive=True)
        temp = f"{temp_folder}/{uuid.uuid4()}_tmp.parquet"
        codec = str(self.values[c.PARQUET_CODEC]).lower()
        with self.fs.open_output_stream(temp) as out:
            pq.write_table(table, out, compression=None if codec == "none" else codec)
        name = committed_name(tp.topic, tp.partition, first, last, self.values[c.ZERO_PAD_WIDTH])
        self.fs.move(temp, f"{self._folder(tp)}/{name}")
        self.next_offset[tp] = last + 1
        log.debug("Committed %s (%d records)", name, len(records))

    def flush(self, current_offsets: Mapping[TopicPartition, OffsetAndMetadata]) -> None:
        """Write every open file: the micro-batch ends, its offsets are committed next."""
        for tp in list(self.open_files):
            self._write(tp)

    def close(self, partitions: Collection[TopicPartition]) -> None:
        for tp in partitions:
            self._write(tp)

    # --- records ----------------------------------------------------------------------------

    def put(self, records: Collection[SinkRecord]) -> None:
        flush_size, rotate = self.values[c.FLUSH_SIZE], self.values[c.ROTATE_INTERVAL]
        for record in records:
            tp = TopicPartition(record.topic, record.kafka_partition or 0)
            if tp not in self.next_offset:
                self.next_offset[tp] = self._committed_end(tp)
            if record.kafka_offset < self.next_offset[tp] or record.value is None:
                continue  # already in a file (a replay), or a tombstone
            value = self._fitted(tp, record)
            pending = self.open_files.get(tp)
            if pending is not None and (
                (pending.schema is not value.schema and pending.schema != value.schema)
                or (rotate >= 0 and record.timestamp is not None
                    and pending.records[0].timestamp is not None
                    and record.timestamp - pending.records[0].timestamp >= rotate)
            ):  # fmt: skip
                self._write(tp)
                pending = None
            if pending is None:
                pending = self.open_files[tp] = _OpenFile(value.schema)
            pending.records.append(record if value is record.value else record.new_record(
                value_schema=value.schema, value=value))  # fmt: skip
            if len(pending.records) >= flush_size:
                self._write(tp)

    def _fitted(self, tp: TopicPartition, record: SinkRecord) -> Struct:
        """The record's value in the schema its file takes (``schema.compatibility``)."""
        schema, value = record.value_schema, record.value
        if schema is None or schema.type is not SchemaType.STRUCT or not isinstance(value, Struct):
            raise ConnectError(
                f"The HDFS sink writes Struct values with a schema, and the record at "
                f"{record.topic}-{record.kafka_partition}@{record.kafka_offset} has "
                f"{'no schema' if schema is None else schema.type.name}: use a converter with "
                "schemas (AvroConverter, JsonConverter with schemas.enable=true)"
            )
        mode = self.values[c.SCHEMA_COMPATIBILITY]
        current = self.current.get(tp)
        if current is None or mode == "NONE" or current == schema:
            self.current[tp] = schema
            return value
        if _newer(schema, current) == (mode != "FORWARD"):
            self.current[tp] = schema  # adopt it: the file rolls
            return value
        return _project(value, current)


def _newer(schema: Schema, current: Schema) -> bool:
    """Whether *schema* is a newer version than *current*: by their versions when they
    differ, else by their fields (Debezium's row schemas have no version): older when
    *current* holds every field of *schema* unchanged and its other fields are optional or
    have defaults (so *schema*'s records project to *current* losing nothing), else newer."""
    version, current_version = schema.version, current.version
    if version is not None and current_version is not None and version != current_version:
        return version > current_version
    return not _holds(current, schema)


def _holds(target: Schema, schema: Schema) -> bool:
    """Whether values of *schema* project to *target* losing nothing."""
    names = {f.name for f in target.fields}
    for target_field in target.fields:
        source_field = schema.field(target_field.name)
        if source_field is None:
            own = target_field.schema
            if not own.is_optional and own.default_value is None:
                return False
        elif source_field.schema != target_field.schema:
            return False
    return all(f.name in names for f in schema.fields)


def _project(value: Struct, target: Schema) -> Struct:
    """*value* in *target*'s fields (Connect's SchemaProjector for structs): a field *value*
    lacks is its default, or null when optional; fields *target* lacks are dropped."""
    values = []
    for target_field in target.fields:
        source_field = value.schema.field(target_field.name)
        item = value.get(source_field) if source_field is not None else None
        if item is None:
            item = target_field.schema.default_value
        if item is None and not target_field.schema.is_optional:
            raise ConnectError(
                f"Cannot project {value.schema.name or 'the value'} version "
                f"{value.schema.version} to version {target.version}: field "
                f"{target_field.name} is required, has no default and the record lacks it"
            )
        values.append(item)
    return Struct.of_values(target, values)

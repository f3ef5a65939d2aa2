"""Configuration of the partitioned-file sink, with the names and defaults of Confluent's
``HdfsSinkConnectorConfig`` (kafka-connect-hdfs and kafka-connect-storage-common)."""

from __future__ import annotations

from typing import Final

from seaway.config import ConfigDef, Importance, Type
from seaway.config.validators import CaseInsensitiveValidString, Range

STORE_URL: Final = "store.url"
HDFS_URL: Final = "hdfs.url"
TOPICS_DIR: Final = "topics.dir"
FORMAT_CLASS: Final = "format.class"
FLUSH_SIZE: Final = "flush.size"
ROTATE_INTERVAL: Final = "rotate.interval.ms"
PARTITIONER_CLASS: Final = "partitioner.class"
SCHEMA_COMPATIBILITY: Final = "schema.compatibility"
ZERO_PAD_WIDTH: Final = "filename.offset.zero.pad.width"
PARQUET_CODEC: Final = "parquet.codec"
HIVE_INTEGRATION: Final = "hive.integration"
HIVE_DATABASE: Final = "hive.database"
HIVE_TABLE_NAME: Final = "hive.table.name"

PARQUET_FORMAT: Final = "io.confluent.connect.hdfs.parquet.ParquetFormat"
DEFAULT_PARTITIONER: Final = "io.confluent.connect.storage.partitioner.DefaultPartitioner"
COMPATIBILITIES: Final = ("NONE", "BACKWARD", "FORWARD", "FULL")


def _config_def() -> ConfigDef:
    d = ConfigDef()
    d.define(
        STORE_URL,
        Type.STRING,
        None,
        importance=Importance.HIGH,
        doc="Where the files go: file:///path, hdfs://namenode:8020/path, s3://bucket/path "
        "(any filesystem pyarrow opens).",
        group="Storage",
    )
    d.define(
        HDFS_URL,
        Type.STRING,
        None,
        importance=Importance.HIGH,
        doc="The older name of store.url.",
        group="Storage",
    )
    d.define(
        TOPICS_DIR,
        Type.STRING,
        "topics",
        importance=Importance.HIGH,
        doc="The folder under store.url that holds one folder per topic.",
        group="Storage",
    )
    d.define(
        FORMAT_CLASS,
        Type.STRING,
        PARQUET_FORMAT,
        CaseInsensitiveValidString([PARQUET_FORMAT]),
        Importance.HIGH,
        "The file format: Parquet (io.confluent.connect.hdfs.parquet.ParquetFormat).",
        group="Connector",
    )
    d.define(
        FLUSH_SIZE,
        Type.INT,
        validator=Range.at_least(1),
        importance=Importance.HIGH,
        doc="The most records in one file of a topic-partition.",
        group="Connector",
    )
    d.define(
        ROTATE_INTERVAL,
        Type.LONG,
        -1,
        importance=Importance.HIGH,
        doc="Close a file when its records span this many ms of record time (-1: never).",
        group="Connector",
    )
    d.define(
        PARTITIONER_CLASS,
        Type.STRING,
        DEFAULT_PARTITIONER,
        CaseInsensitiveValidString([DEFAULT_PARTITIONER]),
        Importance.HIGH,
        "How files are laid out: DefaultPartitioner (partition=<Kafka partition>).",
        group="Partitioner",
    )
    d.define(
        SCHEMA_COMPATIBILITY,
        Type.STRING,
        "NONE",
        CaseInsensitiveValidString(list(COMPATIBILITIES)),
        Importance.HIGH,
        "NONE: a schema change closes the file; BACKWARD/FULL: records of older schema "
        "versions are projected to the newest; FORWARD: newer ones to the current.",
        group="Schema",
    )
    d.define(
        ZERO_PAD_WIDTH,
        Type.INT,
        10,
        Range.at_least(0),
        Importance.LOW,
        "Digits of the offsets in file names (zero-padded).",
        group="Connector",
    )
    d.define(
        PARQUET_CODEC,
        Type.STRING,
        "snappy",
        CaseInsensitiveValidString(["none", "snappy", "gzip", "zstd", "lz4", "brotli"]),
        Importance.LOW,
        "The Parquet compression codec.",
        group="Connector",
    )
    d.define(
        HIVE_INTEGRATION,
        Type.BOOLEAN,
        False,
        importance=Importance.HIGH,
        doc="Keep a table over each topic's files in Spark's Hive metastore: created, given "
        "new columns and partitions as files appear (the worker sets "
        "spark.sql.catalogImplementation=hive).",
        group="Hive",
    )
    d.define(
        HIVE_DATABASE,
        Type.STRING,
        "default",
        importance=Importance.HIGH,
        doc="The database of the tables.",
        group="Hive",
    )
    d.define(
        HIVE_TABLE_NAME,
        Type.STRING,
        "${topic}",
        importance=Importance.MEDIUM,
        doc="The table of a topic, where ${topic} is the topic's name (. and - become _).",
        group="Hive",
    )
    return d  # fmt: skip


CONFIG_DEF: Final = _config_def()

"""Confluent's ``ElasticsearchSinkConnector`` (and Aiven's OpenSearch sink, ``opensearch``):
records into Elasticsearch 7-9 or OpenSearch 1-3 indices through ``_bulk``.

Each record becomes one bulk action, as Confluent's ``DataConverter`` makes it:

* the index is the topic's (lowercased, ``index_names``), a data stream or a named resource;
* the document id is ``<topic>+<partition>+<offset>`` when keys are ignored (``key.ignore``,
  ``topic.key.ignore``), else the key (an integer or a string);
* keyed writes carry ``version_type=external`` with the record's offset as version, so a
  replayed record never overwrites a newer document (the server answers a version conflict,
  which counts as written);
* ``write.method=upsert`` sends a partial update that creates the document when missing;
* a record with a null value is skipped, deletes the document of its key, or fails the task
  (``behavior.on.null.values``);
* the document is the value as JSON (Decimal as a number, logical dates as numbers, maps as
  objects with ``compact.map.entries``).

A task takes Arrow batches (the batch contract): when nothing needs a record by itself, a
batch's action lines are built column by column (``document_columns``) and a bulk body is a
slice of their buffer; otherwise records go one by one through the same rules. ``pre_commit``
waits for every bulk request (``bulk``), so the offsets Connect commits are of records the
server acknowledged: at least once, and with external versions an idempotent replay.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Collection, Mapping
from typing import Any, ClassVar

import pyarrow as pa
import pyarrow.compute as pc

from seaway import __version__
from seaway.connect.api import ConnectError, SinkRecord, Task
from seaway.connect.api.batches import BatchSinkTask, SinkBatch
from seaway.connect.api.connector import ConfigValidation
from seaway.connect.api.data import Schema, SchemaType
from seaway.connect.api.errors import DataError
from seaway.connect.api.sink import ErrantRecordReporter
from seaway.connect.api.structs import OffsetAndMetadata, TopicPartition
from seaway.connectors.common import UniformSinkConnector
from seaway.connectors.elasticsearch import config, config_checks, opensearch_config
from seaway.connectors.elasticsearch.bulk import Actions, BulkWriter
from seaway.connectors.elasticsearch.client import SearchClient
from seaway.connectors.elasticsearch.document_columns import documents_column, json_strings
from seaway.connectors.elasticsearch.documents import document
from seaway.connectors.elasticsearch.indices import Indices
from seaway.connectors.elasticsearch.settings import (
    IdStrategy,
    NullBehavior,
    SinkSettings,
    WriteMethod,
)

__all__ = [
    "ElasticsearchSinkConnector",
    "ElasticsearchSinkTask",
    "OpensearchSinkConnector",
    "OpensearchSinkTask",
]

log = logging.getLogger(__name__)

_INTEGER_KEYS = (SchemaType.INT8, SchemaType.INT16, SchemaType.INT32, SchemaType.INT64)
_DUMPS = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


class ElasticsearchSinkConnector(UniformSinkConnector):
    """Writes the records of its topics into Elasticsearch or OpenSearch indices."""

    config_def = config.CONFIG_DEF
    settings = staticmethod(config_checks.confluent_settings)

    def task_class(self) -> type[Task]:
        return ElasticsearchSinkTask

    def validate(self, connector_configs: Mapping[str, str]) -> ConfigValidation:
        return config_checks.validate_confluent(connector_configs)


class OpensearchSinkConnector(ElasticsearchSinkConnector):
    """Aiven's OpenSearch sink: its configuration names and defaults, the same sink."""

    config_def = opensearch_config.OPENSEARCH_CONFIG_DEF
    settings = staticmethod(opensearch_config.opensearch_settings)

    def task_class(self) -> type[Task]:
        return OpensearchSinkTask

    def validate(self, connector_configs: Mapping[str, str]) -> ConfigValidation:
        return opensearch_config.validate_opensearch(connector_configs)


class _Cluster:
    """A cluster's client and checked indices, shared by a Python worker's tasks (each Spark
    task starts a fresh sink task; the connections and checks outlive it)."""

    _shared: ClassVar[dict[tuple[Any, ...], _Cluster]] = {}
    _lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, settings: SinkSettings) -> None:
        self.client = SearchClient(settings)
        self.indices = Indices(self.client)

    @classmethod
    def of(cls, settings: SinkSettings) -> _Cluster:
        s = settings
        key = (s.urls, s.username, s.password, s.tls, s.connection_timeout_ms,
               s.read_timeout_ms, s.max_in_flight_requests, s.max_retries,
               s.retry_backoff_ms, s.compression, s.proxy, s.proxy_username,
               s.proxy_password)  # fmt: skip
        with cls._lock:
            found = cls._shared.get(key)
            if found is None:
                found = cls._shared[key] = cls(settings)
            return found

    @classmethod
    def forget(cls, cluster: _Cluster) -> None:
        """Drop a cluster whose requests failed: the next task starts afresh."""
        with cls._lock:
            for key, found in list(cls._shared.items()):
                if found is cluster:
                    del cls._shared[key]
        cluster.client.close()


class ElasticsearchSinkTask(BatchSinkTask):
    """Turns records into bulk actions and waits for them in ``pre_commit``."""

    parse: ClassVar[staticmethod[[Mapping[str, str]], SinkSettings]] = staticmethod(
        config_checks.confluent_settings
    )

    def version(self) -> str:
        return __version__

    def start(self, props: dict[str, str]) -> None:
        self.settings = type(self).parse(props)
        if self.settings.type_name:
            log.warning("type.name=%s is ignored: Elasticsearch 7 and later and OpenSearch have "
                        "no mapping types", self.settings.type_name)  # fmt: skip
        self.cluster = _Cluster.of(self.settings)
        self.cluster.client.info()  # refuses servers the sink cannot write to
        tolerant = props.get("errors.tolerance", "none").strip().lower() == "all"
        context_reporter = self.context.errant_record_reporter() if self.context else None
        self.reporter: ErrantRecordReporter | None = context_reporter if tolerant else None
        self.writer = BulkWriter(self.cluster.client, self.settings, self.reporter)

    def stop(self) -> None:
        writer = getattr(self, "writer", None)
        if writer is not None:
            writer.close()

    # --- records one by one -----------------------------------------------------------------

    def put(self, records: Collection[SinkRecord]) -> None:
        run: list[SinkRecord] = []
        for record in records:
            if run and (run[0].topic, run[0].kafka_partition) != (
                    record.topic, record.kafka_partition):  # fmt: skip
                self._put_run(run)
                run = []
            run.append(record)
        if run:
            self._put_run(run)

    def _put_run(self, records: list[SinkRecord]) -> None:
        """Records of one topic-partition as one :class:`Actions`."""
        lines: list[bytes] = []
        kept: list[SinkRecord] = []
        for record in records:
            line = self._action(record)
            if line is not None:
                lines.append(line)
                kept.append(record)
        if lines:
            first = kept[0]
            self.writer.add(Actions(first.topic, first.kafka_partition or 0,
                                    pa.array(lines, pa.binary()), kept.__getitem__,
                                    self._versioned(first.topic)))  # fmt: skip

    def _action(self, record: SinkRecord) -> bytes | None:
        """A record's bulk action lines (None: nothing to write), Confluent's rules."""
        s, topic = self.settings, record.topic
        if record.value is None and s.null_values is not NullBehavior.DELETE:
            if s.null_values is NullBehavior.IGNORE:
                self._report(record, ConnectError("Cannot write null valued record."))
                return None
            raise DataError(
                f"Sink record with key of {record.key} and null value encountered for "
                f"topic/partition/offset {topic}/{record.kafka_partition}/"
                f"{record.kafka_offset} (to ignore future records like this change the "
                "configuration property 'behavior.on.null.values' from 'fail' to 'ignore')"
            )
        if record.value is None and record.key is None:
            return None  # nothing to delete by
        index = self.cluster.indices.ensure(
            s, topic, record.value_schema, tombstone=record.value is None
        )
        meta: dict[str, Any] = {"_index": index}
        document_id = self._document_id(record)
        if document_id is not None:
            meta["_id"] = document_id
        if self._versioned(topic):
            meta["version"] = self._version(record)
            meta["version_type"] = "external"
        if record.value is None:
            return _DUMPS({"delete": meta}).encode() + b"\n"
        try:
            body = document(record.value_schema, record.value,
                            compact_map_entries=s.compact_map_entries,
                            schema_ignore=s.ignores_schema(topic))  # fmt: skip
        except DataError as error:
            self._report(record, error)
            if not s.drop_invalid_message:
                raise
            log.error("Can't convert %s; dropping it (drop.invalid.message=true): %s",
                      _where(record), error)  # fmt: skip
            return None
        if s.data_stream is not None:
            return _DUMPS({"create": meta}).encode() + b"\n" + self._timestamped(record, body)
        if s.write_method is WriteMethod.UPSERT:
            meta["retry_on_conflict"] = min(s.max_in_flight_requests, 5)
            update = b'{"doc":' + body + b',"doc_as_upsert":true}'
            return _DUMPS({"update": meta}).encode() + b"\n" + update + b"\n"
        return _DUMPS({"index": meta}).encode() + b"\n" + body + b"\n"

    def _document_id(self, record: SinkRecord) -> str | None:
        s = self.settings
        if s.ignores_key(record.topic):
            strategy = s.ignored_key_ids
            if strategy is IdStrategy.NONE or (
                    s.use_autogenerated_ids and s.write_method is WriteMethod.INSERT):  # fmt: skip
                return None
            if strategy is IdStrategy.TOPIC_PARTITION_OFFSET:
                return f"{record.topic}+{record.kafka_partition}+{record.kafka_offset}"
        return _key_id(record.key_schema, record.key)

    def _versioned(self, topic: str) -> bool:
        """External versions: keyed documents written with ``index`` (or deleted)."""
        s = self.settings
        return (
            s.data_stream is None
            and s.write_method is WriteMethod.INSERT
            and not s.ignores_key(topic)
        )

    def _version(self, record: SinkRecord) -> int:
        header = self.settings.external_version_header
        if not header:
            return record.kafka_offset
        found = record.headers.last_with_name(header) if record.headers else None
        if found is None or found.value is None:
            raise DataError(f"Record {_where(record)} has no header '{header}' to take its "
                            "version from (external.version.header)")  # fmt: skip
        value = found.value.decode() if isinstance(found.value, bytes) else str(found.value)
        try:
            return int(value.strip())
        except ValueError:
            raise DataError(f"Header '{header}' of {_where(record)} is not a number: "
                            f"{found.value!r} (external.version.header)") from None  # fmt: skip

    def _timestamped(self, record: SinkRecord, body: bytes) -> bytes:
        """A data stream document with ``@timestamp``: the first of
        ``data.stream.timestamp.field`` present, else the record's timestamp."""
        document_fields = json.loads(body)
        if isinstance(document_fields, dict) and "@timestamp" not in document_fields:
            stream = self.settings.data_stream
            fields = stream.timestamp_fields if stream is not None else ()
            found = next((document_fields[f] for f in fields if f in document_fields), None)
            document_fields["@timestamp"] = found if found is not None else record.timestamp
        return _DUMPS(document_fields).encode() + b"\n"

    def _report(self, record: SinkRecord, error: Exception) -> None:
        if self.reporter is not None:
            self.reporter.report(record, error).result()

    # --- whole batches ----------------------------------------------------------------------

    def put_batch(self, batch: SinkBatch) -> None:
        lines = self._batch_lines(batch)
        if lines is None:
            self.put(batch.sink_records())
            return
        records = _LazyRecords(batch)
        self.writer.add(Actions(batch.topic, batch.partition, lines, records.get,
                                self._versioned(batch.topic)))  # fmt: skip

    def _batch_lines(self, batch: SinkBatch) -> pa.Array | None:
        """The batch's action lines built column by column; None when a record needs the
        one-by-one path (a null value, a key that cannot be an id, a value the column
        builder cannot write, data streams, upserts of schemaless values ...)."""
        s, topic, rows = self.settings, batch.topic, batch.records
        schema = batch.value_schema
        if s.data_stream is not None or s.ignores_schema(topic) or schema is None:
            return None
        if s.external_version_header or rows.column("value").null_count:
            return None
        ids = self._batch_ids(batch)
        if ids is None:
            return None
        documents = documents_column(rows.column("value"), schema,
                                     compact_map_entries=s.compact_map_entries)  # fmt: skip
        if documents is None or documents.null_count:
            return None
        index = self.cluster.indices.ensure(s, topic, schema)
        offsets = rows.column("offset").cast(pa.string())
        pieces: list[Any]
        if s.write_method is WriteMethod.UPSERT:
            retry = min(s.max_in_flight_requests, 5)
            head = '{"update":{"_index":' + json.dumps(index) + ',"_id":'
            pieces = [head, ids, f',"retry_on_conflict":{retry}}}}}\n{{"doc":', documents,
                      ',"doc_as_upsert":true}\n']  # fmt: skip
        else:
            pieces = ['{"index":{"_index":' + json.dumps(index)]
            if ids is not _NO_IDS:
                pieces += [',"_id":', ids]
            if self._versioned(topic):
                pieces += [',"version":', offsets, ',"version_type":"external"']
            pieces += ["}}\n", documents, "\n"]
        text = pc.binary_join_element_wise(*[_piece(p) for p in pieces], "")
        return text.cast(pa.binary())

    def _batch_ids(self, batch: SinkBatch) -> pa.Array | object | None:
        """The document ids as JSON string literals, :data:`_NO_IDS` for server-made ids,
        None when a key cannot be an id (the one-by-one path raises Confluent's error)."""
        s, topic, rows = self.settings, batch.topic, batch.records
        if s.ignores_key(topic):
            if s.ignored_key_ids is IdStrategy.NONE or (
                    s.use_autogenerated_ids and s.write_method is WriteMethod.INSERT):  # fmt: skip
                return _NO_IDS
            if s.ignored_key_ids is IdStrategy.TOPIC_PARTITION_OFFSET:
                prefix = json.dumps(f"{topic}+{batch.partition}+")[:-1]
                offsets = rows.column("offset").cast(pa.string())
                return pc.binary_join_element_wise(prefix, offsets, '"', "")
        keys, key_schema = rows.column("key"), batch.key_schema
        if key_schema is None or keys.null_count:
            return None
        if key_schema.type in _INTEGER_KEYS:
            return pc.binary_join_element_wise('"', keys.cast(pa.string()), '"', "")
        if key_schema.type is SchemaType.STRING and not pc.any(
                pc.equal(pc.utf8_length(keys), 0)).as_py():  # fmt: skip
            return json_strings(keys)
        return None

    # --- offsets ----------------------------------------------------------------------------

    def flush(self, current_offsets: Mapping[TopicPartition, OffsetAndMetadata]) -> None:
        try:
            self.writer.flush()
        except Exception:
            _Cluster.forget(self.cluster)
            raise


class OpensearchSinkTask(ElasticsearchSinkTask):
    """Aiven's configuration names and defaults."""

    parse = staticmethod(opensearch_config.opensearch_settings)


_NO_IDS = object()


class _LazyRecords:
    """The :class:`SinkRecord` of a batch row, made only when asked for (to report it)."""

    def __init__(self, batch: SinkBatch) -> None:
        self.batch = batch
        self._records: list[SinkRecord] | None = None

    def get(self, i: int) -> SinkRecord:
        if self._records is None:
            self._records = self.batch.sink_records()
        return self._records[i]


def _piece(piece: Any) -> Any:
    return pa.scalar(piece, pa.string()) if isinstance(piece, str) else piece


def _key_id(schema: Schema | None, key: Any) -> str:
    """The document id a key makes (Confluent's ``DataConverter.convertKey``)."""
    if key is None:
        raise DataError("Key is used as document id and can not be null.")
    text = str(key)
    if not text:
        raise DataError("Key is used as document id and can not be empty.")
    kind = schema.type if schema is not None else SchemaType.for_value(key)
    if kind in _INTEGER_KEYS or kind is SchemaType.STRING:
        return text
    name = kind.name if kind is not None else type(key).__name__
    raise DataError(f"{name} is not supported as the document id.")


def _where(record: SinkRecord) -> str:
    return f"{record.topic}-{record.kafka_partition}@{record.kafka_offset}"

"""Where a topic's records go, and making sure it is there before the first write.

A topic writes to its own index (``index_names.index_name``), to a data stream
(``data.stream.*``) or to an existing resource named by ``topic.to.external.resource.mapping``.
Before the first write the sink creates the index (or data stream) if it is missing and, unless
the schema is ignored for the topic, gives an index that has no mapping yet one made from the
record schema (``mapping.mapping_for``); existing mappings are never changed, as in Confluent's
``ElasticsearchSinkTask.checkMapping``.

What was checked is remembered for the life of the Python worker (its tasks share one
:class:`Indices` per cluster), so a micro-batch after the first sends no such request.
"""

from __future__ import annotations

import threading

from seaway.connect.api import Schema
from seaway.connect.api.errors import DataError
from seaway.connect.converters.json_text import dumps
from seaway.connectors.elasticsearch.client import SearchClient
from seaway.connectors.elasticsearch.index_names import (
    data_stream_name,
    index_name,
    opensearch_index_name,
)
from seaway.connectors.elasticsearch.mapping import mapping_for
from seaway.connectors.elasticsearch.settings import SinkSettings

__all__ = ["Indices"]


class Indices:
    """The indices (or data streams) of one cluster that the sink has checked."""

    def __init__(self, client: SearchClient) -> None:
        self.client = client
        self._lock = threading.Lock()
        self._present: set[str] = set()
        self._mapped: set[str] = set()

    def resource(self, settings: SinkSettings, topic: str) -> str:
        """The index, data stream or alias *topic*'s records are written to."""
        mapped = settings.resources.get(topic)
        if mapped:
            return mapped
        if settings.data_stream is not None:
            return data_stream_name(topic, settings.data_stream)
        return opensearch_index_name(topic) if settings.aiven_index_names else index_name(topic)

    def ensure(
        self, settings: SinkSettings, topic: str, schema: Schema | None, *, tombstone: bool = False
    ) -> str:
        """*topic*'s resource, created (and mapped from *schema*) on first use; a *tombstone*
        maps nothing (Confluent would fail it with "Cannot infer mapping" on an index without
        a mapping: the next record with a value makes it)."""
        name = self.resource(settings, topic)
        if settings.resources.get(topic):
            return name  # an existing resource the user named: never created nor mapped
        with self._lock:
            if name not in self._present:
                self._create(settings, name)
                self._present.add(name)
            mapped = settings.data_stream is not None or settings.ignores_schema(topic)
            if not mapped and not tombstone and name not in self._mapped:
                self._map(name, schema)
                self._mapped.add(name)
        return name

    def _create(self, settings: SinkSettings, name: str) -> None:
        if self.client.index_exists(name):
            return
        if settings.data_stream is not None:
            self.client.create_data_stream(name)
        else:
            self.client.create_index(name)

    def _map(self, index: str, schema: Schema | None) -> None:
        if self.client.has_mapping(index):
            return
        if schema is None:
            raise DataError(
                f"Cannot infer mapping without schema. (index '{index}': set schema.ignore=true "
                "to write schemaless records, or use a converter with schemas)"
            )
        self.client.put_mapping(index, dumps(mapping_for(schema)))  # Java's number format

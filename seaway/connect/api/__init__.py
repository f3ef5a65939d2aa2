"""The Connect connector API: what connectors, converters and transforms are written against.

Like Kafka's ``connect-api`` (which depends only on ``clients``), this package imports
nothing from Seaway except :mod:`seaway.config`; the runtime never leaks in.

* :mod:`~seaway.connect.api.data`: schemas, structs and logical types.
* :mod:`~seaway.connect.api.records`, :mod:`~seaway.connect.api.header`: records and headers.
* :mod:`~seaway.connect.api.connector`, :mod:`~seaway.connect.api.source`,
  :mod:`~seaway.connect.api.sink`: the connector and task lifecycle.
* :mod:`~seaway.connect.api.flow`: connectors that run their own flow instead of tasks.
* :mod:`~seaway.connect.api.replay`: optional replayable source tasks (exact Spark retries).
* :mod:`~seaway.connect.api.offsets`: source partitions, offsets and their reader.
* :mod:`~seaway.connect.api.storage`: converter interfaces.
* :mod:`~seaway.connect.api.transforms`: transformation and predicate interfaces.
* :mod:`~seaway.connect.api.errors`: the error taxonomy.
"""

from seaway.connect.api.catalog import TableCatalog
from seaway.connect.api.connector import ConfigValidation, Connector, ConnectorContext, Task
from seaway.connect.api.data import (
    ConnectSchema,
    Date,
    Decimal,
    Field,
    Schema,
    SchemaAndValue,
    SchemaBuilder,
    SchemaType,
    Struct,
    Time,
    Timestamp,
)
from seaway.connect.api.errors import (
    AlreadyExistsError,
    ConnectError,
    DataError,
    IllegalWorkerStateError,
    NotFoundError,
    RetriableError,
    SchemaBuilderError,
)
from seaway.connect.api.flow import FlowConnector, FlowContext, FlowHandle, FlowTask
from seaway.connect.api.header import Header, Headers
from seaway.connect.api.offsets import (
    OffsetStorageReader,
    PartitionKey,
    SourceOffset,
    SourcePartition,
    partition_from_key,
    partition_key,
)
from seaway.connect.api.records import ConnectRecord, SinkRecord, SourceRecord
from seaway.connect.api.replay import ReplayableSourceTask
from seaway.connect.api.sink import (
    ErrantRecordReporter,
    SinkConnector,
    SinkConnectorContext,
    SinkTask,
    SinkTaskContext,
)
from seaway.connect.api.source import (
    ConnectorTransactionBoundaries,
    ExactlyOnceSupport,
    RecordSchemas,
    SourceConnector,
    SourceConnectorContext,
    SourceTask,
    SourceTaskContext,
    TransactionBoundary,
    TransactionContext,
)
from seaway.connect.api.storage import Converter, ConverterType, HeaderConverter
from seaway.connect.api.structs import (
    OffsetAndMetadata,
    RecordMetadata,
    TimestampType,
    TopicPartition,
)
from seaway.connect.api.transforms import Predicate, Transformation

__all__ = [
    "AlreadyExistsError",
    "ConfigValidation",
    "ConnectError",
    "ConnectRecord",
    "ConnectSchema",
    "Connector",
    "ConnectorContext",
    "ConnectorTransactionBoundaries",
    "Converter",
    "ConverterType",
    "DataError",
    "Date",
    "Decimal",
    "ErrantRecordReporter",
    "ExactlyOnceSupport",
    "Field",
    "FlowConnector",
    "FlowContext",
    "FlowHandle",
    "FlowTask",
    "Header",
    "HeaderConverter",
    "Headers",
    "IllegalWorkerStateError",
    "NotFoundError",
    "OffsetAndMetadata",
    "OffsetStorageReader",
    "PartitionKey",
    "Predicate",
    "RecordMetadata",
    "RecordSchemas",
    "ReplayableSourceTask",
    "RetriableError",
    "Schema",
    "SchemaAndValue",
    "SchemaBuilder",
    "SchemaBuilderError",
    "SchemaType",
    "SinkConnector",
    "SinkConnectorContext",
    "SinkRecord",
    "SinkTask",
    "SinkTaskContext",
    "SourceConnector",
    "SourceConnectorContext",
    "SourceOffset",
    "SourcePartition",
    "SourceRecord",
    "SourceTask",
    "SourceTaskContext",
    "Struct",
    "TableCatalog",
    "Task",
    "Time",
    "Timestamp",
    "TimestampType",
    "TopicPartition",
    "TransactionBoundary",
    "TransactionContext",
    "Transformation",
    "partition_from_key",
    "partition_key",
]

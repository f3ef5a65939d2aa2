"""Config keys, defaults and ``ConfigDef``s of the FileStream connectors (Kafka's, verbatim).

Source (``FileStreamSourceConnector.CONFIG_DEF``):

=============  ======  ==========  =============================================
key            type    default     meaning
=============  ======  ==========  =============================================
``file``       STRING  null        source file; unset or blank means stdin
``topic``      STRING  (required)  topic to publish to; must be non-empty
``batch.size`` INT     2000        maximum records per batch (``poll``/``plan``)
=============  ======  ==========  =============================================

Sink (``FileStreamSinkConnector.CONFIG_DEF``): ``file`` (STRING, default null meaning
stdout). The sink's ``topics`` / ``topics.regex`` are framework keys checked by the runtime.

As in Kafka, string values are trimmed when parsed, so ``file="  "`` means stdin and
``topic="  "`` fails with ``Invalid value  for configuration topic: String must be
non-empty``.
"""

from __future__ import annotations

from typing import Final

from seaway.config import ConfigDef, Importance, NonEmptyString, Type

FILE_CONFIG: Final = "file"
TOPIC_CONFIG: Final = "topic"
TASK_BATCH_SIZE_CONFIG: Final = "batch.size"
DEFAULT_TASK_BATCH_SIZE: Final = 2000

FILENAME_FIELD: Final = "filename"
"""The key of the source partition: ``{"filename": <file as configured>}``."""
POSITION_FIELD: Final = "position"
"""The key of the source offset: ``{"position": <byte position after the line>}``."""

SOURCE_CONFIG_DEF: Final = (
    ConfigDef()
    .define(
        FILE_CONFIG,
        Type.STRING,
        None,
        importance=Importance.HIGH,
        doc="Source filename. If not specified, the standard input will be used",
    )
    .define(
        TOPIC_CONFIG,
        Type.STRING,
        validator=NonEmptyString(),
        importance=Importance.HIGH,
        doc="The topic to publish data to",
    )
    .define(
        TASK_BATCH_SIZE_CONFIG,
        Type.INT,
        DEFAULT_TASK_BATCH_SIZE,
        importance=Importance.LOW,
        doc="The maximum number of records the source task can read from the file each time "
        "it is polled",
    )
)

SINK_CONFIG_DEF: Final = ConfigDef().define(
    FILE_CONFIG,
    Type.STRING,
    None,
    importance=Importance.HIGH,
    doc="Destination filename. If not specified, the standard output will be used",
)

__all__ = [
    "DEFAULT_TASK_BATCH_SIZE",
    "FILENAME_FIELD",
    "FILE_CONFIG",
    "POSITION_FIELD",
    "SINK_CONFIG_DEF",
    "SOURCE_CONFIG_DEF",
    "TASK_BATCH_SIZE_CONFIG",
    "TOPIC_CONFIG",
]

"""The FileStream connectors: Kafka's ``connect-file`` example connectors, rebuilt.

* :class:`FileStreamSourceConnector` / :class:`FileStreamSourceTask`: each line of a file
  (or stdin) becomes a string record on one topic; the task is replayable, with byte
  positions as offsets (see :mod:`seaway.connectors.file.source`).
* :class:`FileStreamSinkConnector` / :class:`FileStreamSinkTask`: each record's value is
  appended as a line to a file (or stdout).
"""

from seaway import __version__
from seaway.connectors.file.config import (
    DEFAULT_TASK_BATCH_SIZE,
    FILE_CONFIG,
    FILENAME_FIELD,
    POSITION_FIELD,
    SINK_CONFIG_DEF,
    SOURCE_CONFIG_DEF,
    TASK_BATCH_SIZE_CONFIG,
    TOPIC_CONFIG,
)
from seaway.connectors.file.sink import FileStreamSinkConnector, FileStreamSinkTask
from seaway.connectors.file.source import (
    FileStreamSourceConnector,
    FileStreamSourceTask,
    FileStreamStdinSourceTask,
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
    "FileStreamSinkConnector",
    "FileStreamSinkTask",
    "FileStreamSourceConnector",
    "FileStreamSourceTask",
    "FileStreamStdinSourceTask",
    "__version__",
]

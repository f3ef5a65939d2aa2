"""Any Seaway connector in a user's own PySpark job: ``format("connect")``.

>>> import seaway.spark                                             # doctest: +SKIP
>>> lines = (spark.readStream.format("connect")                     # doctest: +SKIP
...          .option("connector.class", "FileStreamSource")
...          .option("file", "/var/log/app.log").option("topic", "app").load())

``connector`` checks the options as a Connect worker checks a new connector; ``reader`` gives a
source connector's records as rows, their source offsets kept in the query's checkpoint;
``writer`` puts rows into a sink connector's tasks (:func:`foreach_batch` for a
``foreachBatch`` job); ``data_source`` is what Spark registers.
Importing :mod:`seaway.spark` makes the name ``connect`` known to every session.
"""

from typing import Any

from seaway.connect.spark_format.data_source import ConnectDataSource

__all__ = ["ConnectDataSource", "foreach_batch"]


def __getattr__(name: str) -> Any:
    """``foreach_batch``, imported when asked for: Spark imports this package in every process
    that looks up its Python data sources, which need only :class:`ConnectDataSource`."""
    if name == "foreach_batch":
        from seaway.connect.spark_format.writer import foreach_batch

        return foreach_batch
    raise AttributeError(name)

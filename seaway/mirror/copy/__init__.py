"""The copy of a MirrorSource flow: what a ``seaway-mirror-copy`` task does with its range.

* :mod:`~seaway.mirror.copy.spec`: what a task is told (:class:`MirrorCopySpec`) and what it
  reports (:class:`RangeSummary`), MM2's source offset record;
* :mod:`~seaway.mirror.copy.outgoing`: the batches to send for the source's batches
  (whole, joined, or opened and rebuilt);
* :mod:`~seaway.mirror.copy.syncs`: MM2's offset syncs of a flow, and where they go;
* :mod:`~seaway.mirror.copy.loop`: the copy loop, at least once or in one transaction;
* :mod:`~seaway.mirror.copy.source`: the Spark data source whose tasks run it.

One loop for every cluster: it fetches and produces record batches through
:mod:`seaway.kafka.ranges`, which picks Seaway's batch client or librdkafka per cluster.
"""

"""MirrorMaker 2 (KIP-382) for Seaway: cross-cluster replication on Spark.

The modules mirror Kafka's ``connect/mirror`` and ``connect/mirror-client`` packages:
the internal-topic record formats (:mod:`~seaway.mirror.formats`), topic naming
(:mod:`~seaway.mirror.policy`), offset syncs and their translation
(:mod:`~seaway.mirror.offset_syncs`), the connector configs (:mod:`~seaway.mirror.config`)
and the topic/group/config filters (:mod:`~seaway.mirror.filters`).
"""

"""Seaway's Kafka client at batch granularity: record batches in and out, never records.

Kafka clients hand records to their callers one by one; a mirror or a pipeline that only
moves data needs none of that. This client fetches raw record batches (with the aborted
transactions a read_committed reader must drop) and produces raw batches, idempotent and
transactional, on the same protocol codec the broker uses (:mod:`seaway.protocol`). It
speaks to any Kafka with record-batch v2 (0.11+) over PLAINTEXT, SSL and SASL (PLAIN,
SCRAM-SHA-256/512). For the SASL mechanisms it does not speak (GSSAPI, OAUTHBEARER)
librdkafka (confluent-kafka) stands behind the same interfaces; :mod:`~seaway.kafka.ranges`
picks one per cluster, so no caller has a second path.

Layers: :mod:`~seaway.kafka.connection` (one broker, requests in order),
:mod:`~seaway.kafka.cluster` (metadata, leaders, coordinators, retries),
:mod:`~seaway.kafka.fetcher` and :mod:`~seaway.kafka.producer`; their librdkafka
counterparts :mod:`~seaway.kafka.librdkafka_fetcher` and
:mod:`~seaway.kafka.librdkafka_producer`; :mod:`~seaway.kafka.ranges` (an offset range, and
the chooser). Beside them, for this client and confluent-kafka's alike:
:mod:`~seaway.kafka.pool` (the clients a process shares) and
:mod:`~seaway.kafka.transactions` (a range written exactly once). It imports nothing of the
broker, Spark, Connect or the mirror.
"""

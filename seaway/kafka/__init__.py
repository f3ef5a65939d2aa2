"""Seaway's Kafka client at batch granularity: record batches in and out, never records.

Kafka clients hand records to their callers one by one; a mirror or a pipeline that only
moves data needs none of that. This client fetches raw record batches (with the aborted
transactions a read_committed reader must drop) and produces raw batches, idempotent and
transactional, on the same protocol codec the broker uses (:mod:`seaway.protocol`). It
speaks to any Kafka with record-batch v2 (0.11+), over plaintext TCP; clusters that need
TLS or SASL use confluent-kafka's record path until this client supports them.

Layers: :mod:`~seaway.kafka.connection` (one broker, requests in order),
:mod:`~seaway.kafka.cluster` (metadata, leaders, coordinators, retries),
:mod:`~seaway.kafka.fetcher` and :mod:`~seaway.kafka.producer`. Beside them, for this client
and confluent-kafka's alike: :mod:`~seaway.kafka.pool` (the clients a process shares) and
:mod:`~seaway.kafka.transactions` (a range written exactly once). It imports nothing of the
broker, Spark, Connect or the mirror.
"""

"""Kafka Connect rebuilt on Spark.

* :mod:`seaway.connect.api` is the connector API (Kafka's ``connect-api``): what a
  connector, task, converter or transform is written against. It imports nothing from
  Seaway except :mod:`seaway.config`.
* :mod:`seaway.connect.converters` holds the Kafka-compatible converters
  (``JsonConverter``, ``StringConverter``, ``ByteArrayConverter``).
"""

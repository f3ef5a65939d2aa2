"""Debezium-compatible change data capture from PostgreSQL through the built-in ``pgoutput``
plugin: ``io.debezium.connector.postgresql.PostgresConnector`` with Debezium's configuration,
topics, events and offsets."""

"""Debezium-compatible change data capture (docs/connect.md, "Change data capture"): what every
connector shares (configuration keys, topics, schemas, envelopes and records, filters,
snapshot marks, the task's snapshot-then-stream loop) here; the MariaDB/MySQL binlog
connectors in :mod:`.binlog`, the PostgreSQL connector in :mod:`.postgres`. Importing this
package imports neither."""

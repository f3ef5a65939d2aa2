"""Kafka Connect's REST API, path by path and field by field (see docs/connect.md)."""

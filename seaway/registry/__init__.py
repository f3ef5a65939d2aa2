"""A schema registry with Confluent's REST API, keeping its schemas in a Kafka topic."""

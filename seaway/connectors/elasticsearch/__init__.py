"""The Elasticsearch/OpenSearch sink: Confluent's ``ElasticsearchSinkConnector`` and Aiven's
``OpensearchSinkConnector`` on one implementation."""

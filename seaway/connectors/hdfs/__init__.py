"""The partitioned-file sink, with the configuration of Confluent's ``HdfsSinkConnector``."""

from seaway.connectors.hdfs.sink import HdfsSinkConnector, HdfsSinkTask

__all__ = ["HdfsSinkConnector", "HdfsSinkTask"]

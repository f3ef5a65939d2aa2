"""DescribeLogDirs (35) with the batch client: how many bytes each partition holds."""

from __future__ import annotations

from collections.abc import Iterable

from seaway.kafka.cluster import KafkaCluster, raise_for
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.framing import make

__all__ = ["partition_sizes"]


def partition_sizes(cluster: KafkaCluster, node_ids: Iterable[int]) -> dict[tuple[str, int], int]:
    """``(topic, partition)`` -> bytes on disk, asked of every broker in *node_ids* (the largest
    replica when several hold one); KafkaError when a broker refuses (e.g. without DESCRIBE on
    the cluster)."""
    sizes: dict[tuple[str, int], int] = {}
    for node in node_ids:
        connection = cluster.connection(node)
        cls = connection.request_class(ApiKey.DESCRIBE_LOG_DIRS, 1, 4)
        response = connection.request(make(cls, topics=None))
        raise_for(getattr(response, "error_code", 0), f"DescribeLogDirs(broker {node})")
        for result in response.results:
            raise_for(result.error_code, f"DescribeLogDirs({result.log_dir} on broker {node})")
            for topic in result.topics:
                for p in topic.partitions:
                    key = (str(topic.name), int(p.partition_index))
                    sizes[key] = max(sizes.get(key, 0), int(p.partition_size))
    return sizes

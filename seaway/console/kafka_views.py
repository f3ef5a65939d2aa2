"""The console's topics and consumer groups of any Kafka cluster, read with an admin client
(Connect's and the mirror's clusters; the broker reads its own state instead).

End offsets and committed offsets come through confluent-kafka's AdminClient
(:func:`seaway.kafka.pool.admin`, :func:`seaway.kafka.admin.committed_offsets`); partition sizes
through DescribeLogDirs with Seaway's batch client (unknown, shown as "—", when the cluster
refuses it or speaks a SASL mechanism the batch client does not). Lag is the partition's end
offset minus the group's committed offset, as ``kafka-consumer-groups.sh`` shows it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any, Final

from seaway.console.views import GroupLagView, PartitionLag, PartitionView, TopicView
from seaway.kafka import pool
from seaway.kafka.admin import committed_offsets, group_state

__all__ = ["ClusterViews", "is_internal_topic"]

log = logging.getLogger(__name__)

TIMEOUT_S: Final = 15.0


def is_internal_topic(name: str) -> bool:
    """Kafka's ``__`` topics and MirrorMaker's ``*.internal`` ones."""
    return name.startswith("__") or name.endswith(".internal")


class ClusterViews:
    """Providers of the topics and groups of the cluster *client* (librdkafka settings with
    ``bootstrap.servers``) reaches; *cluster* names it on the pages (e.g. a mirror alias)."""

    def __init__(
        self, client: Mapping[str, Any], cluster: str = "", timeout_s: float = TIMEOUT_S
    ) -> None:
        self.client = dict(client)
        self.cluster = cluster
        self.timeout_s = timeout_s

    def _admin(self) -> Any:
        return pool.admin(self.client)

    def _offsets(
        self, partitions: Iterable[tuple[str, int]], spec: Any
    ) -> dict[tuple[str, int], int]:
        from confluent_kafka import TopicPartition

        wanted = {TopicPartition(t, p): spec for t, p in sorted(set(partitions))}
        if not wanted:
            return {}
        futures = self._admin().list_offsets(wanted, request_timeout=self.timeout_s)
        return {
            (tp.topic, tp.partition): int(future.result(self.timeout_s).offset)
            for tp, future in futures.items()
        }

    def _sizes(self, node_ids: Iterable[int]) -> dict[tuple[str, int], int] | None:
        from seaway.kafka.cluster import KafkaCluster
        from seaway.kafka.log_dirs import partition_sizes
        from seaway.kafka.security import ClientSecurity

        if not pool.batch_client_reaches(self.client):
            return None
        cluster = KafkaCluster(
            str(self.client["bootstrap.servers"]),
            client_id="seaway-console",
            request_timeout_s=self.timeout_s,
            security=ClientSecurity.from_config(self.client),
        )
        try:
            return partition_sizes(cluster, node_ids)
        except Exception as error:
            log.debug("No partition sizes from %s: %s", self.client["bootstrap.servers"], error)
            return None
        finally:
            cluster.close()

    def topics(self) -> list[TopicView]:
        """Every topic with its partitions' start and end offsets and sizes."""
        from confluent_kafka.admin import OffsetSpec

        metadata = self._admin().list_topics(timeout=self.timeout_s)
        partitions = {
            name: sorted(topic.partitions)
            for name, topic in metadata.topics.items()
            if topic.error is None
        }
        keys = [(t, p) for t, ps in partitions.items() for p in ps]
        ends = self._offsets(keys, OffsetSpec.latest())
        starts = self._offsets(keys, OffsetSpec.earliest())
        sizes = self._sizes(metadata.brokers) or {}
        return [
            TopicView(
                name,
                tuple(
                    PartitionView(
                        p, ends.get((name, p), 0), starts.get((name, p)), sizes.get((name, p))
                    )
                    for p in numbers
                ),
                internal=is_internal_topic(name),
                cluster=self.cluster,
            )
            for name, numbers in sorted(partitions.items())
        ]

    def groups(self) -> list[GroupLagView]:
        """Every consumer group with its state, members and lag per committed partition."""
        from confluent_kafka.admin import OffsetSpec

        admin = self._admin()
        listing = admin.list_consumer_groups(request_timeout=self.timeout_s).result(self.timeout_s)
        described = []
        for group in sorted(g.group_id for g in listing.valid):
            state, members = group_state(admin, group, self.timeout_s)
            described.append(
                (group, state, members, committed_offsets(admin, group, self.timeout_s))
            )
        ends = self._offsets((k for *_, c in described for k in c), OffsetSpec.latest())
        return [
            GroupLagView(
                group,
                state.title().replace("_", ""),
                members,
                tuple(PartitionLag(t, p, o, ends.get((t, p))) for (t, p), o in sorted(c.items())),
                cluster=self.cluster,
            )
            for group, state, members, c in described
        ]

"""Producer id allocation for idempotent producers (InitProducerId).

Ids are handed out from blocks reserved durably in the metadata store, as Kafka's
controller hands out ``AllocateProducerIds`` blocks: after a restart the node starts at the
next unreserved block, so no producer id is ever reused.
"""

from __future__ import annotations

from seaway.broker.metadata import MetadataStore

__all__ = ["ProducerIdManager"]

BLOCK_SIZE = 1000
_KEY = "next.producer.id.block"


class ProducerIdManager:
    def __init__(self, store: MetadataStore) -> None:
        self.store = store
        self._next = 0
        self._end = 0

    def next_id(self) -> int:
        if self._next >= self._end:
            start = int(self.store.cluster_value(_KEY, "0"))
            self.store.set_cluster_value(_KEY, str(start + BLOCK_SIZE))
            self._next, self._end = start, start + BLOCK_SIZE
        pid = self._next
        self._next += 1
        return pid

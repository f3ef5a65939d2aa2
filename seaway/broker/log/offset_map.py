"""The cleaner's key map: key -> offset of its latest record, in a fixed memory budget.

Like Kafka's ``SkimpyOffsetMap`` it stores a hash of each key, not the key: an 8-byte hash
and an 8-byte offset per slot, in two :mod:`array` buffers with linear probing. Two keys
whose hashes collide (odds about n²/2⁶⁵) count as one, as they do in Kafka.

The hash is Python's own of the key's bytes (SipHash, keyed at random per process), which
C computes as fast as Python: a map lives only in memory, for one cleaning in one process,
so nothing needs the same hash across processes. A batch's records are put and looked up
by the C loops of :mod:`key_scan`, over the same buffers, or with the same results by
:meth:`OffsetMap.put` and :meth:`OffsetMap.get`.
"""

from __future__ import annotations

from array import array

__all__ = ["OffsetMap"]

SLOT_BYTES = 16
_EMPTY = 0


def _hash(key: bytes) -> int:
    return hash(key) or 1  # 0 marks an empty slot; the C loops compute the same


class OffsetMap:
    """A fixed-size open-addressing table from key hashes to offsets."""

    def __init__(self, slots: int, load_factor: float = 0.9) -> None:
        self.slots = max(slots, 2)
        # How many keys it takes before it counts as full (probes stay short); one slot
        # always stays empty, so that a probe for a missing key ends.
        self.capacity = max(min(int(self.slots * load_factor), self.slots - 1), 1)
        self._hashes = array("q", bytes(8 * self.slots))
        self._offsets = array("q", bytes(8 * self.slots))
        self.size = 0
        self.latest_offset = -1

    @classmethod
    def for_budget(cls, memory: int, keys: int, load_factor: float = 0.9) -> OffsetMap:
        """A map within ``memory`` bytes, no larger than ``keys`` keys need."""
        wanted = int(keys / load_factor) + 1
        return cls(min(memory // SLOT_BYTES, wanted), load_factor)

    @property
    def buffers(self) -> tuple[array[int], array[int]]:
        """The int64 slots: key hashes (0: empty) and offsets, for the C loops."""
        return self._hashes, self._offsets

    @property
    def full(self) -> bool:
        return self.size >= self.capacity

    def _slot(self, h: int) -> int:
        hashes = self._hashes
        i = h % self.slots
        while True:
            found = hashes[i]
            if found in (h, _EMPTY):
                return i
            i += 1
            if i == self.slots:
                i = 0

    def put(self, key: bytes, offset: int) -> None:
        """Record ``offset`` as the latest for ``key`` (offsets come in ascending order)."""
        h = _hash(key)
        i = self._slot(h)
        if self._hashes[i] == _EMPTY:
            if self.size >= self.slots - 1:
                raise OverflowError("the offset map is full")
            self._hashes[i] = h
            self.size += 1
        self._offsets[i] = offset
        self.latest_offset = offset

    def get(self, key: bytes) -> int:
        """The latest offset recorded for ``key``, or -1."""
        h = _hash(key)
        i = self._slot(h)
        return self._offsets[i] if self._hashes[i] == h else -1

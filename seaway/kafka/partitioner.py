"""Java's default partitioner for keyed records: ``toPositive(murmur2(key)) % partitions``.

The internal topics (Connect's offsets, MM2's offsets) are written by several producers —
Seaway's, librdkafka's with ``partitioner=murmur2_random``, Java's — and each key must land
in the same partition whoever writes it. Written here because the batch client builds its
own records; it is a dozen lines of Kafka's ``Utils.murmur2``.
"""

from __future__ import annotations

__all__ = ["murmur2", "partition_for_key"]

_M = 0x5BD1E995
_MASK = 0xFFFFFFFF


def murmur2(data: bytes) -> int:
    """Kafka's 32-bit murmur2 of *data* (seed 0x9747b28c), as an unsigned int."""
    length = len(data)
    h = (0x9747B28C ^ length) & _MASK
    whole = length - length % 4
    for i in range(0, whole, 4):
        k = int.from_bytes(data[i : i + 4], "little")
        k = (k * _M) & _MASK
        k ^= k >> 24
        k = (k * _M) & _MASK
        h = ((h * _M) & _MASK) ^ k
    rest = length % 4
    if rest == 3:
        h ^= data[whole + 2] << 16
    if rest >= 2:
        h ^= data[whole + 1] << 8
    if rest >= 1:
        h ^= data[whole]
        h = (h * _M) & _MASK
    h ^= h >> 13
    h = (h * _M) & _MASK
    h ^= h >> 15
    return h


def partition_for_key(key: bytes, partitions: int) -> int:
    """The partition Java's producer picks for *key* among *partitions*."""
    return (murmur2(key) & 0x7FFFFFFF) % partitions

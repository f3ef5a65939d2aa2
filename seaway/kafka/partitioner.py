"""Java's default partitioner for keyed records: ``toPositive(murmur2(key)) % partitions``.

The internal topics (Connect's offsets, MM2's offsets) are written by several producers —
Seaway's, librdkafka's with ``partitioner=murmur2_random``, Java's — and each key must land
in the same partition whoever writes it. Written here because the batch client builds its
own records; it is a dozen lines of Kafka's ``Utils.murmur2``. :func:`partitions_for_keys`
partitions a whole Arrow column of keys at once (its loop in C, ``_murmur2.c``).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from typing import Any

from seaway.protocol.column_records import ColumnBuffers, binary_values

__all__ = ["murmur2", "partition_for_key", "partitions_for_keys"]

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


_partitions_c: Callable[[Any, int], bytes] | None
try:  # the C loop, built by `pip install` where a compiler is
    from seaway.kafka._murmur2 import partitions_for_keys as _partitions_c
except ImportError:  # pragma: no cover - the Python loop gives the same bytes
    _partitions_c = None


def partitions_for_keys(keys: ColumnBuffers, partitions: int, *, accelerated: bool = True) -> bytes:
    """The partition of every row of a binary column of *keys*: one int32 (little-endian) a
    row, as :func:`partition_for_key` picks it, -1 for a null key. Bad buffers raise
    ValueError. With *accelerated* (and the C module built) the loop runs in C."""
    if partitions < 1:
        raise ValueError(f"partitions must be positive, not {partitions}")
    if accelerated and _partitions_c is not None:
        return _partitions_c(keys, partitions)
    rows = binary_values(keys, "keys")
    return array(
        "i", [-1 if k is None else partition_for_key(k, partitions) for k in rows]
    ).tobytes()

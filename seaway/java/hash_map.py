"""Java's hash codes and the order a ``java.util.HashMap`` (or ``HashSet``) iterates in, for
output a Java tool prints by walking one.

>>> string_hash("hello"), string_hash(""), map_hash({"user": "alice", "client-id": None})
(99162322, 0, -1807702104)
>>> order = [("consumer_byte_rate", 1.0), ("controller_mutation_rate", 2.0),
...          ("producer_byte_rate", 3.0), ("request_percentage", 4.0)]
>>> [k for k, _ in hash_map_order(order, string_hash, initial_capacity=4)]
['producer_byte_rate', 'consumer_byte_rate', 'controller_mutation_rate', 'request_percentage']
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final, TypeVar

__all__ = ["hash_map_order", "map_hash", "objects_hash", "string_hash"]

T = TypeVar("T")
K = TypeVar("K")

_DEFAULT_CAPACITY: Final = 16
_MAX_CAPACITY: Final = 1 << 30
_TREEIFY: Final = 8  # a bin longer than this grows a table under 64 instead of becoming a tree
_MIN_TREEIFY_CAPACITY: Final = 64


def _int32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def string_hash(text: str | None) -> int:
    """``String.hashCode()`` over UTF-16 code units (``Objects.hashCode``: 0 for None)."""
    h = 0
    data = (text or "").encode("utf-16-be", "surrogatepass")
    for i in range(0, len(data), 2):
        h = (31 * h + (data[i] << 8 | data[i + 1])) & 0xFFFFFFFF
    return _int32(h)


def map_hash(entries: Mapping[str, str | None]) -> int:
    """``AbstractMap.hashCode()`` of a ``Map<String, String>``: the sum of key ^ value hashes."""
    return _int32(sum(string_hash(k) ^ string_hash(v) for k, v in entries.items()))


def objects_hash(*hashes: int) -> int:
    """``Objects.hash(a, b, ...)`` given the values' own hash codes."""
    h = 1
    for value in hashes:
        h = 31 * h + value
    return _int32(h)


def _table_size_for(capacity: int) -> int:
    return 1 if capacity <= 1 else min(1 << (capacity - 1).bit_length(), _MAX_CAPACITY)


def hash_map_order(
    items: Iterable[tuple[K, T]], key_hash: Callable[[K], int], initial_capacity: int | None = None
) -> list[tuple[K, T]]:
    """*items* (distinct keys, in the order they were put) in the order a ``HashMap`` made with
    ``new HashMap<>(initial_capacity)`` (None: ``new HashMap<>()``) iterates them: by bucket
    of the spread hash, then in insertion order. Bins of more than 8 keys in a table of 64 or
    more (Java makes them trees) are not modelled. The order depends on the keys alone, so it
    is worked out once per sequence of keys (a connector writes the same keys every record)."""
    listed = list(items)
    order = _order(tuple(k for k, _ in listed), key_hash, initial_capacity)
    return [listed[i] for i in order]


@functools.lru_cache(maxsize=1024)
def _order(
    keys: tuple[Any, ...], key_hash: Callable[[Any], int], initial_capacity: int | None
) -> tuple[int, ...]:
    """The iteration order of *keys* (indices), as :func:`hash_map_order` describes it."""
    hashes = [key_hash(key) & 0xFFFFFFFF for key in keys]
    spread = [h ^ (h >> 16) for h in hashes]
    capacity = 0
    threshold = _DEFAULT_CAPACITY if initial_capacity is None else _table_size_for(initial_capacity)

    def grow() -> None:
        nonlocal capacity, threshold
        if capacity < _MAX_CAPACITY:
            capacity, threshold = capacity * 2, int(capacity * 2 * 0.75)

    for size in range(1, len(keys) + 1):
        if capacity == 0:  # the first put allocates the table
            capacity, threshold = threshold, int(threshold * 0.75)
        mask = capacity - 1
        bin_length = sum(1 for s in spread[:size] if s & mask == spread[size - 1] & mask)
        if bin_length > _TREEIFY and capacity < _MIN_TREEIFY_CAPACITY:
            grow()
        if size > threshold:
            grow()
    return tuple(sorted(range(len(keys)), key=lambda i: (spread[i] & (capacity - 1), i)))

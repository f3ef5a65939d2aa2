"""Types of the C murmur2 partitioner of :mod:`seaway.kafka.partitioner` (``_murmur2.c``)."""

from typing import Any

def partitions_for_keys(keys: tuple[Any, Any, Any, int, int], partitions: int, /) -> bytes: ...

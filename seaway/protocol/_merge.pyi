"""Types of the C record loop of :mod:`seaway.protocol.batch_merge` (``_merge.c``)."""

from collections.abc import Sequence

def merge_records(
    parts: Sequence[tuple[bytes | bytearray | memoryview, int, int]], /
) -> tuple[bytes, int, int]: ...

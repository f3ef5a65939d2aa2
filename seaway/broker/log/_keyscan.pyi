"""Types of the C loops of :mod:`seaway.broker.log.key_scan` (``_keyscan.c``)."""

from array import array

_Section = bytes | bytearray | memoryview

def null_keys(records: _Section, count: int, /) -> list[int]: ...
def map_keys(
    records: _Section,
    count: int,
    base_offset: int,
    hashes: array[int],
    offsets: array[int],
    room: int,
    /,
) -> tuple[int, int | None, bool]: ...
def retain(
    records: _Section,
    count: int,
    base_offset: int,
    hashes: array[int],
    offsets: array[int],
    horizon: int,
    /,
) -> tuple[int, bytes]: ...

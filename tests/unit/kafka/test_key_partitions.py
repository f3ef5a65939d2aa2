"""Java's murmur2 partitioner over a whole column of keys: the C loop and the Python one agree
with ``partition_for_key`` row by row, and with Kafka's own test vectors."""

from __future__ import annotations

import random
import struct

import pyarrow as pa
import pytest

from seaway.kafka import partitioner
from seaway.kafka.partitioner import murmur2, partition_for_key, partitions_for_keys
from seaway.protocol.column_records import ColumnBuffers, binary_buffers

# Kafka's UtilsTest.testMurmur2: Utils.murmur2 as a signed Java int.
JAVA_VECTORS = {
    b"21": -973932308,
    b"foobar": -790332482,
    b"a-little-bit-long-string": -985981536,
    b"a-little-bit-longer-string": -1486304829,
    b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8": -58897971,
    b"abc": 479470107,
}


def _ints(data: bytes) -> list[int]:
    return list(struct.unpack(f"<{len(data) // 4}i", data))


def test_the_c_loop_is_built() -> None:
    assert partitioner._partitions_c is not None, "seaway.kafka._murmur2 was not built"


def test_murmur2_matches_kafka() -> None:
    for key, java in JAVA_VECTORS.items():
        assert murmur2(key) == java & 0xFFFFFFFF
    keys = binary_buffers(pa.array(list(JAVA_VECTORS)))
    for fast in (True, False):
        got = _ints(partitions_for_keys(keys, (1 << 31) - 1, accelerated=fast))
        assert got == [(java & 0x7FFFFFFF) % ((1 << 31) - 1) for java in JAVA_VECTORS.values()]


@pytest.mark.parametrize("seed", range(20))
def test_every_row_goes_where_partition_for_key_puts_it(seed: int) -> None:
    rng = random.Random(seed)
    rows = [
        None if rng.random() < 0.2 else rng.randbytes(rng.randrange(0, 40))
        for _ in range(rng.randrange(0, 200))
    ]
    skip = rng.randrange(0, 5)
    array = pa.array([b"pad"] * skip + rows, pa.binary()).slice(skip)
    if rng.random() < 0.3:
        array = array.cast(pa.large_binary())
    partitions = rng.choice([1, 3, 12, 1000])
    expected = [-1 if k is None else partition_for_key(k, partitions) for k in rows]
    for fast in (True, False):
        assert _ints(partitions_for_keys(binary_buffers(array), partitions, accelerated=fast)) == (
            expected
        )


def test_string_keys_hash_their_utf8_bytes() -> None:
    keys = binary_buffers(pa.array(["é", None, ""]))
    for fast in (True, False):
        assert _ints(partitions_for_keys(keys, 7, accelerated=fast)) == [
            partition_for_key("é".encode(), 7),
            -1,
            partition_for_key(b"", 7),
        ]


def test_bad_partitions_and_buffers_are_refused_alike() -> None:
    good = binary_buffers(pa.array([b"a"]))
    cases = [
        (good, 0, "partitions must be positive"),
        (ColumnBuffers(None, struct.pack("<2i", 0, 9), b"ab", 0, 1), 3, "offsets of row 0"),
        (ColumnBuffers(None, struct.pack("<i", 0), b"ab", 0, 1), 3, "offsets buffer too short"),
        (ColumnBuffers(b"", struct.pack("<2i", 0, 1), b"ab", 0, 1), 3, "validity buffer too short"),
        (ColumnBuffers(None, None, None, 0, 1), 3, "offsets buffer missing"),
        (ColumnBuffers(None, 7, None, 0, 1), 3, "not a contiguous buffer"),
        (ColumnBuffers(None, b"", None, -1, 1), 3, "negative"),
    ]
    for keys, partitions, message in cases:
        errors = []
        for fast in (True, False):
            with pytest.raises(ValueError, match=message) as info:
                partitions_for_keys(keys, partitions, accelerated=fast)
            errors.append(str(info.value))
        assert errors[0] == errors[1]

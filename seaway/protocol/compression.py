"""Compression of record batch payloads, for the few places that must look inside a batch.

The broker stores batches as received and never decompresses on the produce or fetch path;
the mirror copies them whole. Only lookups that need record granularity inside a compressed
batch (ListOffsets by timestamp, a batch the mirror must cut or restamp) call
:func:`decompress` and :func:`compress`. Codecs are Kafka's: 1 gzip, 2 snappy (raw, or the
xerial framing Java clients write; written raw, as librdkafka does), 3 lz4 frame, 4 zstd;
cramjam provides the C/Rust codecs.
"""

from __future__ import annotations

import struct
import zlib
from typing import Final

import cramjam

__all__ = ["CODECS", "compress", "decompress"]

CODECS: Final = {"none": 0, "gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4}
"""Kafka's codec ids by producer ``compression.type`` name."""

_XERIAL_MAGIC = b"\x82SNAPPY\x00"


def _snappy(data: bytes) -> bytes:
    if not data.startswith(_XERIAL_MAGIC):
        return bytes(cramjam.snappy.decompress_raw(data))
    out = bytearray()
    pos = 16  # magic (8) + version (4) + compatible version (4)
    while pos + 4 <= len(data):
        (length,) = struct.unpack_from(">i", data, pos)
        pos += 4
        out += cramjam.snappy.decompress_raw(data[pos : pos + length])
        pos += length
    return bytes(out)


def decompress(codec: int, data: bytes) -> bytes:
    """Decompress a batch's records section; raise ValueError for an unknown codec."""
    if codec == 0:
        return data
    if codec == 1:
        return zlib.decompress(data, 47)  # 32 + 15: accept the gzip header
    if codec == 2:
        return _snappy(data)
    if codec == 3:
        return bytes(cramjam.lz4.decompress(data))
    if codec == 4:
        return bytes(cramjam.zstd.decompress(data))
    raise ValueError(f"unknown compression codec {codec}")


def compress(codec: int, data: bytes) -> bytes:
    """Compress a batch's records section with Kafka codec *codec*."""
    if codec == 0:
        return data
    if codec == 1:
        return bytes(cramjam.gzip.compress(data))
    if codec == 2:
        return bytes(cramjam.snappy.compress_raw(data))
    if codec == 3:
        return bytes(cramjam.lz4.compress(data))
    if codec == 4:
        return bytes(cramjam.zstd.compress(data))
    raise ValueError(f"unknown compression codec {codec}")

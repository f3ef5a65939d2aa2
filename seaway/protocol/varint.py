"""Zigzag varints, as the records of a v2 batch encode their lengths and deltas."""

from __future__ import annotations

from seaway.errors import SeawayError

__all__ = ["encode_varint", "read_varint"]


class VarintError(SeawayError, ValueError):
    """A varint that runs past 64 bits."""


def encode_varint(value: int) -> bytes:
    """The zigzag varint of *value* (Kafka's ``ByteUtils.writeVarlong``)."""
    value = (value << 1) ^ (value >> 63)
    out = bytearray()
    while value & ~0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def read_varint(buf: bytes | bytearray | memoryview, pos: int) -> tuple[int, int]:
    """``(value, position after it)`` of the zigzag varint at *pos*."""
    shift = result = 0
    while True:
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return (result >> 1) ^ -(result & 1), pos
        shift += 7
        if shift > 63:
            raise VarintError("varint too long")

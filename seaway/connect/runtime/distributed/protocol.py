"""Kafka Connect's group protocol bytes: worker metadata and assignments.

Byte for byte Kafka's ``ConnectProtocol`` (V0, protocol ``default``) and
``IncrementalCooperativeConnectProtocol`` (V1 ``compatible``, V2 ``sessioned``): big-endian
fixed-width integers, INT16-prefixed strings, INT32-prefixed bytes and arrays.

Metadata: ``version``, ``url``, ``config-offset`` and (V1+) ``allocation``, the member's whole
current assignment. Assignment: ``version``, ``error``, ``leader`` (member id),
``leader-url``, ``config-offset``, ``assignment`` (V1+: only what is added), and from V1
``revoked`` and ``delay``. A connector's entry lists task ids, -1 standing for the connector
itself.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Final

__all__ = [
    "COMPATIBLE",
    "CONFIG_MISMATCH",
    "CONNECTOR_TASK",
    "NO_ERROR",
    "PROTOCOLS",
    "SESSIONED",
    "Assignment",
    "WorkerMetadata",
    "protocols_offered",
]

COMPATIBLE: Final = "compatible"
SESSIONED: Final = "sessioned"
# connect.protocol -> the JoinGroup protocols offered, in preference order, with versions.
PROTOCOLS: Final = {COMPATIBLE: ((COMPATIBLE, 1),), SESSIONED: ((SESSIONED, 2), (COMPATIBLE, 1))}

NO_ERROR: Final = 0
CONFIG_MISMATCH: Final = 1
CONNECTOR_TASK: Final = -1

_I16 = struct.Struct(">h")
_I32 = struct.Struct(">i")
_I64 = struct.Struct(">q")


class _Writer:
    def __init__(self) -> None:
        self.parts: list[bytes] = []

    def i16(self, value: int) -> _Writer:
        self.parts.append(_I16.pack(value))
        return self

    def i32(self, value: int) -> _Writer:
        self.parts.append(_I32.pack(value))
        return self

    def i64(self, value: int) -> _Writer:
        self.parts.append(_I64.pack(value))
        return self

    def string(self, value: str) -> _Writer:
        data = value.encode("utf-8")
        self.i16(len(data)).parts.append(data)
        return self

    def nullable_bytes(self, value: bytes | None) -> _Writer:
        if value is None:
            return self.i32(-1)
        self.i32(len(value)).parts.append(value)
        return self

    def connectors(self, items: Mapping[str, Iterable[int]] | None) -> _Writer:
        if items is None:
            return self.i32(-1)
        self.i32(len(items))
        for connector, tasks in items.items():
            ids = list(tasks)
            self.string(connector).i32(len(ids))
            for task in ids:
                self.i32(task)
        return self

    def bytes(self) -> bytes:
        return b"".join(self.parts)


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = memoryview(data)
        self.pos = 0

    @property
    def remaining(self) -> int:
        return len(self.data) - self.pos

    def _take(self, n: int) -> memoryview:
        if n < 0 or self.pos + n > len(self.data):
            raise ValueError(f"Connect protocol data ends early (at byte {self.pos} of "
                             f"{len(self.data)})")  # fmt: skip
        view = self.data[self.pos : self.pos + n]
        self.pos += n
        return view

    def i16(self) -> int:
        value: int = _I16.unpack(self._take(2))[0]
        return value

    def i32(self) -> int:
        value: int = _I32.unpack(self._take(4))[0]
        return value

    def i64(self) -> int:
        value: int = _I64.unpack(self._take(8))[0]
        return value

    def string(self) -> str:
        return bytes(self._take(self.i16())).decode("utf-8")

    def nullable_bytes(self) -> bytes | None:
        size = self.i32()
        return None if size < 0 else bytes(self._take(size))

    def connectors(self) -> dict[str, list[int]]:
        count = self.i32()
        items: dict[str, list[int]] = {}
        for _ in range(max(count, 0)):
            connector = self.string()
            items.setdefault(connector, []).extend(self.i32() for _ in range(self.i32()))
        return items


@dataclass(frozen=True)
class Assignment:
    """What the leader hands one member (Kafka's ``ExtendedAssignment``)."""

    version: int
    error: int
    leader: str
    leader_url: str
    config_offset: int
    assigned: Mapping[str, list[int]] = field(default_factory=dict)
    revoked: Mapping[str, list[int]] = field(default_factory=dict)
    delay_ms: int = 0

    def encode(self) -> bytes:
        writer = (
            _Writer()
            .i16(self.version)
            .i16(self.error)
            .string(self.leader)
            .string(self.leader_url)
            .i64(self.config_offset)
            .connectors(self.assigned)
        )
        if self.version >= 1:
            writer.connectors(self.revoked).i32(self.delay_ms)
        return writer.bytes()

    @classmethod
    def decode(cls, data: bytes) -> Assignment:
        """Any version: V0 bytes are a prefix of V1's, missing fields read as empty."""
        reader = _Reader(data)
        version, error = reader.i16(), reader.i16()
        leader, leader_url, offset = reader.string(), reader.string(), reader.i64()
        assigned = reader.connectors()
        revoked: dict[str, list[int]] = {}
        delay = 0
        if version >= 1 and reader.remaining:
            revoked = reader.connectors()
            delay = reader.i32() if reader.remaining else 0
        return cls(version, error, leader, leader_url, offset, assigned, revoked, delay)

    @property
    def connectors(self) -> set[str]:
        """Connectors named in the added items."""
        return set(self.assigned)

    @property
    def revoked_connectors(self) -> set[str]:
        return set(self.revoked)


@dataclass(frozen=True)
class WorkerMetadata:
    """What a worker tells the leader when it joins (Kafka's ``ExtendedWorkerState``)."""

    url: str
    config_offset: int
    allocation: Assignment | None = None

    def encode(self, version: int) -> bytes:
        writer = _Writer().i16(version).string(self.url).i64(self.config_offset)
        if version >= 1:
            writer.nullable_bytes(None if self.allocation is None else self.allocation.encode())
        return writer.bytes()

    @classmethod
    def decode(cls, data: bytes) -> WorkerMetadata:
        reader = _Reader(data)
        version = reader.i16()
        if version < 0:
            raise ValueError(f"Connect protocol metadata has version {version}")
        url, offset = reader.string(), reader.i64()
        allocation = None
        if version >= 1 and reader.remaining:
            raw = reader.nullable_bytes()
            allocation = Assignment.decode(raw) if raw else None
        return cls(url, offset, allocation)

    @property
    def connectors(self) -> set[str]:
        """Connectors this worker runs now."""
        return set() if self.allocation is None else self.allocation.connectors


def protocols_offered(connect_protocol: str, metadata: WorkerMetadata) -> list[tuple[str, bytes]]:
    """The JoinGroup protocols for ``connect.protocol`` = *connect_protocol*."""
    return [(name, metadata.encode(version)) for name, version in PROTOCOLS[connect_protocol]]

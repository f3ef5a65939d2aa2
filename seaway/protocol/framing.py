"""Frames over kio's generated entities: the broker's side and the client's.

A frame on the wire is ``int32 size`` followed by a request header and a body. The header
version follows the body's: flexible API versions use header v2 (with tagged fields). The
functions here are pure: bytes in, entities out, and back. The broker decodes requests and
encodes responses; Seaway's client (:mod:`seaway.kafka`) encodes requests and decodes
responses, with the same entities.
"""

from __future__ import annotations

import dataclasses
import struct
import sys
import types
from functools import cache
from types import ModuleType
from typing import Any

from kio.index import KioIndexError, load_request_schema
from kio.serial import entity_reader, entity_writer
from kio.static.protocol import RequestPayload, ResponsePayload

from seaway.protocol.errors import UnsupportedVersion

Buffer = bytes | bytearray | memoryview
"""What a frame is built from (``collections.abc.Buffer`` from Python 3.12 on)."""

__all__ = [
    "Buffer",
    "RequestFrame",
    "decode_request",
    "decode_response",
    "encode_request",
    "encode_response",
    "make",
    "nested",
    "peek_header",
]

_HEADER_PREFIX = struct.Struct(">hhi")


@dataclasses.dataclass(frozen=True, slots=True)
class RequestFrame:
    """A decoded request: its header fields and its kio body entity."""

    api_key: int
    api_version: int
    correlation_id: int
    client_id: str | None
    body: Any


def peek_header(frame: bytes) -> tuple[int, int, int]:
    """Return ``(api_key, api_version, correlation_id)`` without decoding anything else.

    Every request header version starts with these three fields, so this works even for an
    API or version the broker cannot parse.
    """
    if len(frame) < _HEADER_PREFIX.size:
        raise ValueError(f"request frame of {len(frame)} bytes is shorter than a header")
    return _HEADER_PREFIX.unpack_from(frame, 0)


@cache
def _request_codec(api_key: int, version: int) -> tuple[Any, Any]:
    cls = load_request_schema(api_key, version)
    return entity_reader(cls.__header_schema__), entity_reader(cls)


def decode_request(frame: bytes) -> RequestFrame:
    """Decode a request frame (the bytes after the size prefix).

    Raises :class:`UnsupportedVersion` when kio has no schema for the API version, and
    kio's decode errors (or ``ValueError``) when the bytes are malformed.
    """
    api_key, version, _ = peek_header(frame)
    try:
        read_header, read_body = _request_codec(api_key, version)
    except KioIndexError:
        raise UnsupportedVersion(api_key, version) from None
    header, used = read_header(frame, 0)
    body, _ = read_body(frame, used)
    # Like Kafka, ignore bytes after the body: clients may send fields of newer versions.
    _reject_nulls(body)
    return RequestFrame(api_key, version, header.correlation_id, header.client_id, body)


@cache
def _nullability(cls: type) -> tuple[tuple[str, bool], ...]:
    """``(field name, may be null)`` for each field of a kio entity class."""
    return tuple(
        (f.name, isinstance(f.type, types.UnionType) and type(None) in f.type.__args__)
        for f in dataclasses.fields(cls)
    )


def _reject_nulls(entity: object) -> None:
    """Raise ValueError for a null in a field the spec says cannot be null.

    kio decodes a null array or string as None whatever the schema says; Kafka's generated
    readers refuse it ("non-nullable field ... was serialized as null") before any handler
    runs, so a malformed request never reaches a handler half-applied.
    """
    # mypy takes type[X].__hash__ for X's unbound method and so a class for unhashable
    for name, nullable in _nullability(type(entity)):  # type: ignore[arg-type]
        value = getattr(entity, name)
        if value is None:
            if not nullable:
                raise ValueError(f"non-nullable field {type(entity).__name__}.{name} was null")
        elif isinstance(value, tuple):
            for item in value:
                if dataclasses.is_dataclass(item):
                    _reject_nulls(item)
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            _reject_nulls(value)


@cache
def _response_codec(cls: type[ResponsePayload]) -> tuple[Any, Any, Any]:
    header_cls = cls.__header_schema__
    return header_cls, entity_writer(header_cls), entity_writer(cls)


class _ChunkWriter:
    """A write target that gathers small writes and keeps large ones (records) by reference.

    Responses are sent with one vectored write of these chunks, so the batch bytes read
    from a segment are never copied into a response buffer.
    """

    LARGE = 4096

    def __init__(self) -> None:
        self.chunks: list[Buffer] = [b""]  # the size prefix, filled in last
        self._small = bytearray()
        self.size = 0

    def write(self, data: Buffer) -> int:
        n = len(data)
        self.size += n
        if n >= self.LARGE:
            if self._small:
                self.chunks.append(self._small)
                self._small = bytearray()
            self.chunks.append(data)
        else:
            self._small += data
        return n

    def finish(self) -> list[Buffer]:
        if self._small:
            self.chunks.append(self._small)
        self.chunks[0] = _SIZE.pack(self.size)
        return self.chunks


_SIZE = struct.Struct(">i")


def encode_response(correlation_id: int, response: ResponsePayload) -> list[Buffer]:
    """Encode a response entity with its header: the size-prefixed frame as buffers."""
    header_cls, write_header, write_body = _response_codec(type(response))
    out = _ChunkWriter()
    write_header(out, header_cls(correlation_id=correlation_id))
    write_body(out, response)
    return out.finish()


@cache
def _field_names(cls: type) -> frozenset[str]:
    return frozenset(f.name for f in dataclasses.fields(cls))


def make(cls: type, **values: Any) -> Any:
    """Build a kio entity, dropping the values whose fields this version does not have.

    Field sets differ between versions of one API (``throttle_time_ms`` from v1, topic ids
    from v10, ...); handlers pass everything they know and let the version decide.
    """
    names = _field_names(cls)
    return cls(**{k: v for k, v in values.items() if k in names})


@cache
def _module_of(cls: type) -> ModuleType:
    return sys.modules[cls.__module__]


def nested(cls: type, name: str) -> type:
    """The nested entity class ``name`` defined beside the versioned entity ``cls``."""
    entity: type = getattr(_module_of(cls), name)
    return entity


@cache
def _request_writers(cls: type[RequestPayload]) -> tuple[Any, Any, Any]:
    header_cls = cls.__header_schema__
    return header_cls, entity_writer(header_cls), entity_writer(cls)


def encode_request(
    correlation_id: int, client_id: str | None, request: RequestPayload
) -> list[Buffer]:
    """Encode a request entity with its header: the size-prefixed frame as buffers (the
    record batches it carries are kept by reference, never copied)."""
    header_cls, write_header, write_body = _request_writers(type(request))
    out = _ChunkWriter()
    write_header(
        out,
        header_cls(
            request_api_key=request.__api_key__,
            request_api_version=request.__version__,
            correlation_id=correlation_id,
            client_id=client_id,
        ),
    )
    write_body(out, request)
    return out.finish()


@cache
def _response_readers(cls: type[ResponsePayload]) -> tuple[Any, Any]:
    return entity_reader(cls.__header_schema__), entity_reader(cls)


def decode_response(cls: type[ResponsePayload], payload: Buffer) -> tuple[int, Any]:
    """``(correlation_id, entity)`` of a response frame (the bytes after the size prefix)."""
    read_header, read_body = _response_readers(cls)
    header, used = read_header(payload, 0)
    body, _ = read_body(payload, used)
    return header.correlation_id, body

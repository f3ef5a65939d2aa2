"""The TCP listener: framing, dispatch to handlers, and responses in request order.

Each connection is served sequentially, as Kafka does (it mutes a channel until the
response to its current request is sent), so responses leave in request order without
re-ordering. Malformed frames, unknown API keys and unparseable versions are logged and
close that connection only; nothing else is touched.
"""

from __future__ import annotations

import asyncio
import logging
import struct
from typing import TYPE_CHECKING

from kio.schema.api_versions.v0.response import ApiVersion, ApiVersionsResponse
from kio.static.primitive import i16

from seaway.broker.handlers import handler_for
from seaway.broker.handlers.registry import RequestContext
from seaway.protocol.errors import ErrorCode, UnsupportedVersion
from seaway.protocol.framing import Buffer, decode_request, encode_response, peek_header

if TYPE_CHECKING:
    from seaway.broker.broker import Broker

log = logging.getLogger(__name__)

__all__ = ["Connection"]

_SIZE = struct.Struct(">i")
_API_VERSIONS = i16(18)
_CLOSE = object()
_WRITE_HIGH_WATER = 4 << 20


class Connection:
    """One client connection."""

    def __init__(
        self, broker: Broker, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        self.broker = broker
        self.reader = reader
        self.writer = writer
        peer = writer.get_extra_info("peername")
        self.peer = f"{peer[0]}:{peer[1]}" if peer else "?"
        self.host = peer[0] if peer else ""

    async def serve(self) -> None:
        max_size = self.broker.config_values["socket.request.max.bytes"]
        try:
            while True:
                (size,) = _SIZE.unpack(await self.reader.readexactly(4))
                if size < 8 or size > max_size:
                    log.warning(
                        "Closing connection from %s: frame size %d is outside [8, %d] "
                        "(socket.request.max.bytes)",
                        self.peer,
                        size,
                        max_size,
                    )
                    return
                frame = await self.reader.readexactly(size)
                response = await self.dispatch(frame)
                if response is _CLOSE:
                    return
                if response is not None:
                    self.writer.writelines(response)  # type: ignore[arg-type]
                    if self.writer.transport.get_write_buffer_size() > _WRITE_HIGH_WATER:
                        await self.writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self.writer.close()

    async def dispatch(self, frame: bytes) -> list[Buffer] | object | None:
        api_key, version, correlation_id = peek_header(frame)
        handler = handler_for(api_key)
        if handler is None:
            log.warning("Closing connection from %s: unknown API key %d", self.peer, api_key)
            return _CLOSE
        if not handler.min_version <= version <= handler.max_version:
            return self._unsupported(api_key, version, correlation_id, handler.max_version)
        try:
            request = decode_request(frame)
        except UnsupportedVersion:
            return self._unsupported(api_key, version, correlation_id, handler.max_version)
        except Exception as e:  # kio raises several decode error types
            log.warning(
                "Closing connection from %s: malformed request (api_key=%d v%d): %s",
                self.peer,
                api_key,
                version,
                e,
            )
            return _CLOSE
        log.debug(
            "Request api_key=%d v%d correlation_id=%d from %s",
            api_key,
            version,
            correlation_id,
            self.peer,
        )
        try:
            response = await handler.handle(RequestContext(self.broker, request, self.host))
        except Exception:
            log.exception(
                "Unexpected error handling api_key=%d v%d from %s", api_key, version, self.peer
            )
            return _CLOSE
        if response is None:
            return None
        return encode_response(correlation_id, response)

    def _unsupported(
        self, api_key: int, version: int, correlation_id: int, max_version: int
    ) -> object:
        if api_key == _API_VERSIONS:
            # KIP-511: answer in v0 with UNSUPPORTED_VERSION and our own ApiVersions range.
            return encode_response(
                correlation_id,
                ApiVersionsResponse(
                    error_code=ErrorCode.unsupported_version,
                    api_keys=(
                        ApiVersion(
                            api_key=_API_VERSIONS, min_version=i16(0), max_version=i16(max_version)
                        ),
                    ),
                ),
            )
        log.warning(
            "Closing connection from %s: API key %d version %d is not supported",
            self.peer,
            api_key,
            version,
        )
        return _CLOSE

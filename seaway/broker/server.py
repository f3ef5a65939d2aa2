"""The TCP listener: framing, dispatch to handlers, and responses in request order.

Each connection is served sequentially, as Kafka does (it mutes a channel until the
response to its current request is sent), so responses leave in request order without
re-ordering. Malformed frames, unknown API keys and unparseable versions are logged and
close that connection only; nothing else is touched.

On a SASL listener, until the client has authenticated, only ApiVersions, SaslHandshake and
SaslAuthenticate are served (anything else closes the connection, as Kafka does), frames
may not exceed ``sasl.server.max.receive.size`` (Kafka's 512 KiB), and after a v0 handshake
the SASL tokens come and go as bare length-prefixed frames.
"""

from __future__ import annotations

import asyncio
import logging
import struct
import time
from typing import TYPE_CHECKING

from kio.schema.api_versions.v0.response import ApiVersion, ApiVersionsResponse
from kio.static.primitive import i16

from seaway.broker.handlers import handler_for
from seaway.broker.handlers.registry import RequestContext
from seaway.broker.session import Session, certificate_principal
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode, UnsupportedVersion
from seaway.protocol.framing import Buffer, decode_request, encode_response, peek_header
from seaway.security.sasl import SaslAuthenticationError

if TYPE_CHECKING:
    from seaway.broker.broker import Broker
    from seaway.broker.listeners import Listener

log = logging.getLogger(__name__)

__all__ = ["Connection"]

_SIZE = struct.Struct(">i")
_API_VERSIONS = i16(ApiKey.API_VERSIONS)
_CLOSE = object()
_WRITE_HIGH_WATER = 4 << 20
_SASL_APIS = (i16(ApiKey.SASL_HANDSHAKE), _API_VERSIONS, i16(ApiKey.SASL_AUTHENTICATE))
_SASL_MAX_RECEIVE = 524288  # Kafka's sasl.server.max.receive.size


class Connection:
    """One client connection."""

    def __init__(
        self,
        broker: Broker,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        listener: Listener,
    ) -> None:
        self.broker = broker
        self.reader = reader
        self.writer = writer
        peer = writer.get_extra_info("peername")
        self.peer = f"{peer[0]}:{peer[1]}" if peer else "?"
        self.host = peer[0] if peer else ""
        self.session = Session(listener, self.host)
        tls = writer.get_extra_info("ssl_object")
        certificate = tls.getpeercert(binary_form=True) if tls is not None else None
        if certificate and not listener.sasl:
            self.session.principal = certificate_principal(certificate)

    async def serve(self) -> None:
        max_size = self.broker.config_values["socket.request.max.bytes"]
        session = self.session
        try:
            while True:
                (size,) = _SIZE.unpack(await self.reader.readexactly(4))
                if not session.authenticated and not 0 <= size <= _SASL_MAX_RECEIVE:
                    log.warning(
                        "Closing connection from %s: Failing SASL authentication due to invalid "
                        "receive size %d",
                        self.peer,
                        size,
                    )
                    return
                if session.raw_tokens:
                    if not self._raw_token(await self.reader.readexactly(size)):
                        return
                    continue
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
                    if session.close:
                        await self.writer.drain()
                        return
                    if self.writer.transport.get_write_buffer_size() > _WRITE_HIGH_WATER:
                        await self.writer.drain()
                if session.throttle_ms:  # over a client quota: read nothing for a while
                    delay, session.throttle_ms = session.throttle_ms, 0
                    await asyncio.sleep(delay / 1000)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self.writer.close()

    def _raw_token(self, token: bytes) -> bool:
        """One bare SASL token (after a v0 handshake): answer it the same way; a failure
        closes the connection with no answer, as Kafka does."""
        sasl = self.session.sasl
        assert sasl is not None
        try:
            challenge = sasl.evaluate(token)
        except SaslAuthenticationError as e:
            log.info("Failed authentication with %s (%s)", self.peer, e)
            return False
        if sasl.complete:
            self.session.raw_tokens = False
            self.session.login(sasl.authorization_id)
        self.writer.writelines((_SIZE.pack(len(challenge)), challenge))
        return True

    async def dispatch(self, frame: bytes) -> list[Buffer] | object | None:
        api_key, version, correlation_id = peek_header(frame)
        if not self.session.authenticated and api_key not in _SASL_APIS:
            log.warning(
                "Closing connection from %s: Unexpected Kafka request of type %d during SASL "
                "handshake.",
                self.peer,
                api_key,
            )
            return _CLOSE
        handler = handler_for(api_key)
        if handler is None:
            log.warning("Closing connection from %s: unknown API key %d", self.peer, api_key)
            return _CLOSE
        if not handler.min_version <= version <= handler.max_version:
            return self._unsupported(api_key, version, correlation_id, handler.max_version)
        started = time.perf_counter()
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
            response = await handler.handle(
                RequestContext(self.broker, request, self.host, self.session)
            )
        except Exception:
            log.exception(
                "Unexpected error handling api_key=%d v%d from %s", api_key, version, self.peer
            )
            return _CLOSE
        encoded = None if response is None else encode_response(correlation_id, response)
        self.broker.metrics.request_done(request, response, time.perf_counter() - started)
        return encoded

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

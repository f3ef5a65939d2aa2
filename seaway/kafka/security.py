"""TLS and SASL for Seaway's batch client, from the same librdkafka settings librdkafka's
clients get (:func:`seaway.kafka.java_config.to_librdkafka` turns Java settings into them).

``security.protocol`` PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL; TLS with the CA, client
certificate and key as files (``ssl.ca.location``, ``ssl.certificate.location``,
``ssl.key.location``, ``ssl.key.password``), PEM text (``ssl.ca.pem``, ...) or a PKCS#12
keystore (``ssl.keystore.location``/``.password``), verification and host name check as
librdkafka's ``enable.ssl.certificate.verification`` and
``ssl.endpoint.identification.algorithm`` say; SASL PLAIN and SCRAM-SHA-256/512 with
``sasl.username``/``sasl.password`` (SaslHandshake v1, then SaslAuthenticate). Python's
``ssl`` and :mod:`seaway.security.scram` do the work; this module only reads the settings
and runs the exchange.
"""

from __future__ import annotations

import ssl
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final, Protocol

from seaway.config import ConfigException
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.security.sasl import plain_token
from seaway.security.scram import MECHANISMS, ScramClient, ScramError
from seaway.security.tls import pkcs12_to_pem

__all__ = ["PLAINTEXT", "ClientSecurity"]

_PROTOCOLS: Final = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
_MECHANISMS: Final = ("PLAIN", *MECHANISMS)


class _Requester(Protocol):
    host: str
    port: int

    def request_class(self, api_key: int, lowest: int, highest: int) -> type: ...
    def request(self, request: Any) -> Any: ...


@dataclass(frozen=True)
class ClientSecurity:
    """How to reach a cluster's brokers (hashable: pooled clusters are keyed by it)."""

    protocol: str = "PLAINTEXT"
    ca_location: str | None = None
    ca_pem: str | None = None
    certificate_location: str | None = None
    certificate_pem: str | None = None
    key_location: str | None = None
    key_pem: str | None = None
    key_password: str | None = None
    keystore_location: str | None = None
    keystore_password: str | None = None
    verify: bool = True
    check_hostname: bool = True
    mechanism: str | None = None
    username: str | None = None
    password: str | None = None

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> ClientSecurity:
        """The security of librdkafka settings *config*; a setting the batch client cannot
        honour is a :class:`ConfigException` naming it."""
        get = {k: str(v) for k, v in config.items() if v is not None}.get
        protocol = (get("security.protocol") or "PLAINTEXT").upper()
        if protocol not in _PROTOCOLS:
            raise ConfigException(
                f"Invalid value {protocol} for configuration security.protocol: use one of "
                f"{', '.join(_PROTOCOLS)}"
            )
        mechanism = None
        if protocol.startswith("SASL_"):
            mechanism = (get("sasl.mechanism") or get("sasl.mechanisms") or "GSSAPI").upper()
            if mechanism not in _MECHANISMS:
                raise ConfigException(f"sasl.mechanism={mechanism} is not supported by Seaway's "
                                      f"batch client: use {', '.join(_MECHANISMS)}")  # fmt: skip
            if get("sasl.username") is None or get("sasl.password") is None:
                raise ConfigException(
                    f"SASL {mechanism} needs sasl.username and sasl.password (or "
                    "sasl.jaas.config with username and password)"
                )
        return cls(
            protocol=protocol,
            ca_location=get("ssl.ca.location"),
            ca_pem=get("ssl.ca.pem"),
            certificate_location=get("ssl.certificate.location"),
            certificate_pem=get("ssl.certificate.pem"),
            key_location=get("ssl.key.location"),
            key_pem=get("ssl.key.pem"),
            key_password=get("ssl.key.password"),
            keystore_location=get("ssl.keystore.location"),
            keystore_password=get("ssl.keystore.password"),
            verify=(get("enable.ssl.certificate.verification") or "true").lower() == "true",
            check_hostname=(get("ssl.endpoint.identification.algorithm") or "https").lower()
            == "https",
            mechanism=mechanism,
            username=get("sasl.username"),
            password=get("sasl.password"),
        )

    @property
    def tls(self) -> bool:
        return self.protocol in ("SSL", "SASL_SSL")

    @property
    def sasl(self) -> bool:
        return self.mechanism is not None

    def wrap(self, sock: Any, host: str) -> Any:
        """*sock* in TLS when the protocol asks for it (the broker's name checked)."""
        if not self.tls:
            return sock
        return _context(self).wrap_socket(sock, server_hostname=host)

    def authenticate(self, connection: _Requester) -> None:
        """The SASL exchange on a fresh *connection* (after ApiVersions); a refusal raises
        :class:`KafkaError` with the broker's message."""
        if not self.sasl:
            return
        assert self.mechanism and self.username is not None and self.password is not None
        handshake = connection.request_class(ApiKey.SASL_HANDSHAKE, 1, 1)
        reply = connection.request(handshake(mechanism=self.mechanism))
        if reply.error_code != ErrorCode.none:
            offered = ", ".join(reply.mechanisms)
            raise KafkaError(
                reply.error_code,
                f"{connection.host}:{connection.port} does not enable SASL {self.mechanism} "
                f"(it offers {offered})",
            )
        if self.mechanism == "PLAIN":
            self._round(connection, plain_token(self.username, self.password))
            return
        client = ScramClient(MECHANISMS[self.mechanism], self.username, self.password)
        server_first = self._round(connection, client.first())
        try:
            server_final = self._round(connection, client.final(server_first))
            client.verify(server_final)
        except ScramError as error:
            raise KafkaError(ErrorCode.sasl_authentication_failed, str(error)) from None

    @staticmethod
    def _round(connection: _Requester, token: bytes) -> bytes:
        authenticate = connection.request_class(ApiKey.SASL_AUTHENTICATE, 0, 2)
        reply = connection.request(authenticate(auth_bytes=token))
        if reply.error_code != ErrorCode.none:
            raise KafkaError(reply.error_code, f"{connection.host}:{connection.port}: "
                             f"{reply.error_message or 'SASL authentication failed'}")  # fmt: skip
        return bytes(reply.auth_bytes)


PLAINTEXT: Final = ClientSecurity()


@cache
def _context(security: ClientSecurity) -> ssl.SSLContext:
    """One TLS context per security (certificates are read once)."""
    # The given CAs, else the system's (only then are the system's read: 0.1 s)
    context = ssl.create_default_context(
        ssl.Purpose.SERVER_AUTH,
        cafile=security.ca_location or None,
        cadata=None if security.ca_location else security.ca_pem,
    )
    context.check_hostname = security.verify and security.check_hostname
    context.verify_mode = ssl.CERT_REQUIRED if security.verify else ssl.CERT_NONE
    chain = _client_chain(security)
    if chain:
        with tempfile.TemporaryDirectory(prefix="seaway-tls-") as folder:
            path = Path(folder) / "client.pem"
            path.touch(mode=0o600)
            path.write_bytes(chain)
            context.load_cert_chain(path, password=security.key_password)
    return context


def _client_chain(security: ClientSecurity) -> bytes:
    """The client certificate and key as PEM (empty without one)."""
    if security.keystore_location:
        key, certs = pkcs12_to_pem(
            security.keystore_location, security.keystore_password, "keystore"
        )
        return certs + key
    cert = _pem(security.certificate_location, security.certificate_pem)
    if security.key_location and security.key_location == security.certificate_location:
        return cert  # one PEM file with both (a PEM keystore)
    key = _pem(security.key_location, security.key_pem)
    return cert + b"\n" + key if cert and key else b""


def _pem(location: str | None, text: str | None) -> bytes:
    if location:
        try:
            return Path(location).read_bytes()
        except OSError as error:
            raise ConfigException(f"Cannot read {location}: {error}") from None
    return text.encode() if text else b""

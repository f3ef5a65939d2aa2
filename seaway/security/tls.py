"""TLS contexts from Kafka's ``ssl.*`` settings: the Connect REST API's HTTPS listeners
(``listeners.https.ssl.*`` over the worker's ``ssl.*``), the broker's SSL and SASL_SSL
listeners (``listener.name.<l>.ssl.*`` over ``ssl.*``) and the clients that talk to them.

Keystores and truststores are PEM (``ssl.keystore.type=PEM``: a file holding the private
key and the certificate chain, or the ``ssl.keystore.key`` / ``ssl.keystore.certificate.chain``
values themselves) or PKCS12 (read with ``cryptography``). JKS, Java's own format, is
refused with the ``keytool`` line that converts it to PKCS12.
"""

from __future__ import annotations

import ssl
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from seaway.config import ConfigException

__all__ = ["TlsSettings", "pkcs12_to_pem", "store_type"]

_PREFIX: Final = "listeners.https."
_CLIENT_AUTH: Final = {"none": ssl.CERT_NONE, "requested": ssl.CERT_OPTIONAL,
                       "required": ssl.CERT_REQUIRED}  # fmt: skip


def pkcs12_to_pem(path: str, password: str | None, what: str) -> tuple[bytes, bytes]:
    """``(private key PEM, certificates PEM)`` of a PKCS12 store (either may be empty), for
    what reads PEM only (librdkafka's CA settings, Python's ``ssl``)."""
    from cryptography.hazmat.primitives.serialization import (
        Encoding,
        NoEncryption,
        PrivateFormat,
        pkcs12,
    )

    try:
        key, cert, extra = pkcs12.load_key_and_certificates(
            Path(path).read_bytes(), password.encode() if password else None
        )
    except (OSError, ValueError) as error:
        raise ConfigException(f"Cannot read the {what} {path}: {error}") from None
    certs = ([cert] if cert is not None else []) + list(extra or ())
    key_pem = b"" if key is None else key.private_bytes(
        Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())  # fmt: skip
    return key_pem, b"".join(c.public_bytes(Encoding.PEM) for c in certs)


def store_type(config: Mapping[str, str], store: str) -> str:
    """``ssl.<store>.type`` (JKS by default, as in Kafka); a JKS file is refused with the
    ``keytool`` line that converts it, as neither Python's ``ssl`` nor librdkafka reads it."""
    kind = (config.get(f"ssl.{store}.type") or "JKS").upper()
    location = config.get(f"ssl.{store}.location")
    if kind == "JKS" and location:
        raise ConfigException(
            f"ssl.{store}.location {location} is a JKS store, which Seaway does not read: "
            f"convert it with keytool -importkeystore -srckeystore {location} -destkeystore "
            f"{store}.p12 -deststoretype PKCS12, then set ssl.{store}.type=PKCS12"
        )
    if kind not in ("JKS", "PKCS12", "PEM"):
        raise ConfigException(f"Invalid value {kind} for configuration ssl.{store}.type: use "
                              "PKCS12 or PEM")  # fmt: skip
    return kind


@dataclass(frozen=True)
class TlsSettings:
    """The ``ssl.*`` settings of one TLS endpoint (a listener, or a client's)."""

    values: Mapping[str, str]

    @classmethod
    def prefixed(cls, originals: Mapping[str, Any], prefix: str) -> TlsSettings:
        """``<prefix>ssl.*`` over ``ssl.*``: how Kafka reads a listener's TLS settings."""
        values = {k: str(v) for k, v in originals.items() if k.startswith("ssl.")}
        values.update({k[len(prefix) :]: str(v) for k, v in originals.items()
                       if k.startswith(prefix + "ssl.")})  # fmt: skip
        return cls(values)

    @classmethod
    def of_worker(cls, originals: Mapping[str, Any], prefix: str = _PREFIX) -> TlsSettings:
        """A Connect worker's HTTPS listeners (``admin.listeners.https.`` for the admin ones):
        Kafka's all-or-nothing rule, the ``<prefix>ssl.*`` keys if any is set, else the
        worker's ``ssl.*`` (those of its Kafka clients)."""
        prefixed = {k[len(prefix) :]: str(v) for k, v in originals.items()
                    if k.startswith(prefix + "ssl.")}  # fmt: skip
        if prefixed:
            return cls(prefixed)
        return cls({k: str(v) for k, v in originals.items() if k.startswith("ssl.")})

    def _get(self, key: str) -> str | None:
        value = self.values.get(key)
        return value if value not in (None, "") else None

    def _kind(self, store: str) -> str:
        return store_type({k: v for k, v in self.values.items() if v}, store)

    def server_context(self, listener: str = "An https listener", prefix: str = _PREFIX
                       ) -> ssl.SSLContext:  # fmt: skip
        """A TLS listener's context (*listener* and *prefix* name it in errors): the keystore's
        key and chain, client certificates checked against the truststore as
        ``ssl.client.auth`` asks."""
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        pem = self._keystore_pem()
        if b"CERTIFICATE" not in pem or b"PRIVATE KEY" not in pem:
            raise ConfigException(
                f"{listener} needs a keystore with a key and a certificate: set "
                f"{prefix}ssl.keystore.location (PEM or PKCS12) or "
                f"{prefix}ssl.keystore.certificate.chain and ...ssl.keystore.key"
            )
        self._load_chain(context, pem)
        auth = (self._get("ssl.client.auth") or "none").lower()
        if auth not in _CLIENT_AUTH:
            raise ConfigException(f"Invalid value {auth} for configuration ssl.client.auth: use "
                                  "none, requested or required")  # fmt: skip
        context.verify_mode = _CLIENT_AUTH[auth]
        self._trust(context)
        return context

    def client_context(self) -> ssl.SSLContext:
        """The context a worker sends requests to other workers with: the truststore (else
        the system's CAs), and the keystore as client certificate when there is one."""
        context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH)
        self._trust(context)
        pem = self._keystore_pem()
        if b"CERTIFICATE" in pem and b"PRIVATE KEY" in pem:
            self._load_chain(context, pem)
        return context

    def _load_chain(self, context: ssl.SSLContext, pem: bytes) -> None:
        with tempfile.TemporaryDirectory(prefix="seaway-tls-") as folder:
            certfile = Path(folder) / "keystore.pem"
            certfile.touch(mode=0o600)
            certfile.write_bytes(pem)
            context.load_cert_chain(certfile, password=self._get("ssl.key.password"))

    def _keystore_pem(self) -> bytes:
        """The keystore's private key and certificate chain as PEM (empty without one)."""
        kind = self._kind("keystore")
        location = self._get("ssl.keystore.location")
        if kind == "PKCS12" and location is not None:
            key, certs = pkcs12_to_pem(location, self._get("ssl.keystore.password"), "keystore")
            return certs + key
        if kind == "PEM":
            if location is not None:
                try:
                    return Path(location).read_bytes()
                except OSError as error:
                    raise ConfigException(f"Cannot read ssl.keystore.location: {error}") from None
            pem_key = self._get("ssl.keystore.key")
            pem_chain = self._get("ssl.keystore.certificate.chain")
            return f"{pem_chain or ''}\n{pem_key or ''}".encode()
        if location is not None:
            raise ConfigException(f"Invalid value {kind} for configuration ssl.keystore.type: "
                                  "use PEM or PKCS12")  # fmt: skip
        return b""

    def _trust(self, context: ssl.SSLContext) -> None:
        kind = self._kind("truststore")
        location = self._get("ssl.truststore.location")
        if location is not None and kind == "PKCS12":
            _, certs = pkcs12_to_pem(location, self._get("ssl.truststore.password"), "truststore")
            context.load_verify_locations(cadata=certs.decode())
        elif location is not None:
            context.load_verify_locations(cafile=location)
        elif self._get("ssl.truststore.certificates"):
            context.load_verify_locations(cadata=self.values["ssl.truststore.certificates"])

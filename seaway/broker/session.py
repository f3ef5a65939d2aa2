"""What one connection carries from request to request: the listener it came in on, who is
on the other end (the principal ACLs are checked for) and, on a SASL listener, where its
authentication stands.

Principals are Kafka's defaults: ``User:<name>`` after SASL, ``User:<subject DN>`` (RFC 2253,
as Java's ``X500Principal.getName()``) for a client certificate on an SSL listener, else
``User:ANONYMOUS``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from seaway.broker.listeners import Listener
    from seaway.security.sasl import SaslServer

__all__ = ["Session", "certificate_principal"]


def certificate_principal(der: bytes) -> str:
    """The principal of a client certificate (Kafka's ``ssl.principal.mapping.rules=DEFAULT``)."""
    from cryptography import x509

    return f"User:{x509.load_der_x509_certificate(der).subject.rfc4514_string()}"


@dataclass(eq=False)
class Session:
    """One connection's state. Before authentication on a SASL listener only ApiVersions,
    SaslHandshake and SaslAuthenticate are served; ``raw_tokens`` (after a v0 handshake)
    means the next frames are bare SASL tokens; ``close`` ends the connection once the
    current response is sent; ``throttle_ms`` mutes it once the response is sent."""

    listener: Listener
    client_host: str
    authenticated: bool = field(init=False)
    principal: str = "User:ANONYMOUS"  # Kafka's KafkaPrincipal as a string
    sasl: SaslServer | None = None
    raw_tokens: bool = False
    close: bool = False
    throttle_ms: int = 0  # over a client quota: read nothing more for this long (KIP-219)

    def __post_init__(self) -> None:
        self.authenticated = not self.listener.sasl

    def login(self, user: str) -> None:
        """A completed SASL exchange: *user* (its authorization id) is the principal."""
        self.authenticated = True
        self.principal = f"User:{user}"

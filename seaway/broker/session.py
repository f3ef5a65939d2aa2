"""What one connection carries from request to request: the listener it came in on and,
on a SASL listener, where its authentication stands."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from seaway.broker.listeners import Listener
    from seaway.security.sasl import SaslServer

__all__ = ["Session"]


@dataclass(eq=False)
class Session:
    """One connection's state. Before authentication on a SASL listener only ApiVersions,
    SaslHandshake and SaslAuthenticate are served; ``raw_tokens`` (after a v0 handshake)
    means the next frames are bare SASL tokens; ``close`` ends the connection once the
    current response is sent."""

    listener: Listener
    client_host: str
    authenticated: bool = field(init=False)
    principal: str = "ANONYMOUS"
    sasl: SaslServer | None = None
    raw_tokens: bool = False
    close: bool = False

    def __post_init__(self) -> None:
        self.authenticated = not self.listener.sasl

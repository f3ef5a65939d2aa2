"""The server side of SASL as Kafka's broker runs it: one :class:`SaslServer` per connection
and exchange, for PLAIN (RFC 4616, users from the JAAS ``user_<name>`` options) or SCRAM
(credentials from the broker's store). A failure is a :class:`SaslAuthenticationError`
whose message is what Kafka tells the client."""

from __future__ import annotations

import hmac
from collections.abc import Callable, Mapping
from typing import Final, Protocol

from seaway.errors import SeawayError
from seaway.security.scram import MECHANISMS, ScramCredential, ScramError, ScramServer

__all__ = ["PlainServer", "SaslAuthenticationError", "SaslServer", "new_server", "plain_token"]

PLAIN: Final = "PLAIN"


class SaslAuthenticationError(SeawayError):
    """Authentication failed; the message is sent to the client with error 58."""


class SaslServer(Protocol):
    """One exchange: tokens in, challenges out, until :attr:`complete`."""

    mechanism: str

    @property
    def complete(self) -> bool: ...

    @property
    def authorization_id(self) -> str: ...

    def evaluate(self, token: bytes) -> bytes: ...


def plain_token(username: str, password: str) -> bytes:
    """A PLAIN client's one message: empty authzid, user and password separated by NUL."""
    return f"\0{username}\0{password}".encode()


class PlainServer:
    """PLAIN: one message, checked against *users* (name -> password) in constant time."""

    mechanism = PLAIN

    def __init__(self, users: Mapping[str, str]) -> None:
        self.users = users
        self.complete = False
        self._user = ""

    @property
    def authorization_id(self) -> str:
        return self._user

    def evaluate(self, token: bytes) -> bytes:
        parts = token.decode("utf-8", "replace").split("\0")
        if len(parts) != 3:
            raise SaslAuthenticationError(
                f"Invalid SASL/PLAIN response: expected 3 tokens, got {len(parts)}"
            )
        authzid, user, password = parts
        if not user:
            raise SaslAuthenticationError("Authentication failed: username not specified")
        if not password:
            raise SaslAuthenticationError("Authentication failed: password not specified")
        expected = self.users.get(user)
        if expected is None or not hmac.compare_digest(expected.encode(), password.encode()):
            raise SaslAuthenticationError("Authentication failed: Invalid username or password")
        if authzid and authzid != user:
            raise SaslAuthenticationError(
                "Authentication failed: Client requested an authorization id that is different "
                "from username"
            )
        self._user, self.complete = user, True
        return b""


class _Scram:
    """SCRAM behind the :class:`SaslServer` face, every failure told as Kafka tells it."""

    def __init__(self, name: str, lookup: Callable[[str], ScramCredential | None]) -> None:
        self.mechanism = name
        self._server = ScramServer(MECHANISMS[name], lookup)

    @property
    def complete(self) -> bool:
        return self._server.complete

    @property
    def authorization_id(self) -> str:
        return self._server.username

    def evaluate(self, token: bytes) -> bytes:
        try:
            return self._server.evaluate(token)
        except ScramError:
            raise SaslAuthenticationError(
                "Authentication failed during authentication due to invalid credentials with "
                f"SASL mechanism {self.mechanism}"
            ) from None


def new_server(
    mechanism: str,
    plain_users: Mapping[str, str],
    scram_lookup: Callable[[str, str], ScramCredential | None],
) -> SaslServer:
    """A server for *mechanism* (already checked to be enabled)."""
    if mechanism == PLAIN:
        return PlainServer(plain_users)
    return _Scram(mechanism, lambda user: scram_lookup(user, mechanism))

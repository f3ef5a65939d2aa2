"""SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802 / RFC 7677) as Kafka speaks them.

Credentials are kept as Kafka keeps them, never the password: per user and mechanism the
salt, StoredKey, ServerKey and iteration count (4096 to 16384). :class:`ScramServer` runs the
broker's side of one exchange, :class:`ScramClient` the client's; both are pure functions of
the messages, so the RFC's test vector checks them. Kafka does no SASLprep and knows one
extension (``tokenauth``), which is ignored here as delegation tokens are not supported.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from seaway.errors import SeawayError

__all__ = [
    "MAX_ITERATIONS",
    "MECHANISMS",
    "MIN_ITERATIONS",
    "ScramClient",
    "ScramCredential",
    "ScramError",
    "ScramMechanism",
    "ScramServer",
]

MIN_ITERATIONS: Final = 4096
MAX_ITERATIONS: Final = 16384


class ScramError(SeawayError):
    """A SCRAM exchange that cannot go on (bad message, unknown user, wrong proof)."""


@dataclass(frozen=True)
class ScramMechanism:
    """A SCRAM mechanism: its SASL name, hash and the type byte of Kafka's SCRAM APIs."""

    name: str
    hash_name: str
    type_id: int

    def hash(self, data: bytes) -> bytes:
        return hashlib.new(self.hash_name, data).digest()

    def hmac(self, key: bytes, data: bytes) -> bytes:
        return hmac.new(key, data, self.hash_name).digest()

    def salted_password(self, password: str, salt: bytes, iterations: int) -> bytes:
        return hashlib.pbkdf2_hmac(self.hash_name, password.encode(), salt, iterations)


MECHANISMS: Final = {
    m.name: m
    for m in (
        ScramMechanism("SCRAM-SHA-256", "sha256", 1),
        ScramMechanism("SCRAM-SHA-512", "sha512", 2),
    )
}


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _unb64(text: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except ValueError:
        raise ScramError(f"Invalid base64 value {text!r}") from None


def _nonce() -> str:
    """A random nonce as Kafka makes it: a 130-bit number in base 36."""
    number, digits = secrets.randbits(130), []
    while number:
        number, digit = divmod(number, 36)
        digits.append("0123456789abcdefghijklmnopqrstuvwxyz"[digit])
    return "".join(reversed(digits)) or "0"


@dataclass(frozen=True)
class ScramCredential:
    """What a broker stores for one user and mechanism."""

    salt: bytes
    stored_key: bytes
    server_key: bytes
    iterations: int

    @classmethod
    def from_salted_password(
        cls, mechanism: ScramMechanism, salted: bytes, salt: bytes, iterations: int
    ) -> ScramCredential:
        """The credential of a SaltedPassword (what AlterUserScramCredentials carries)."""
        client_key = mechanism.hmac(salted, b"Client Key")
        return cls(
            salt, mechanism.hash(client_key), mechanism.hmac(salted, b"Server Key"), iterations
        )

    @classmethod
    def from_password(
        cls,
        mechanism: ScramMechanism,
        password: str,
        iterations: int = MIN_ITERATIONS,
        salt: bytes | None = None,
    ) -> ScramCredential:
        salt = _nonce().encode() if salt is None else salt
        salted = mechanism.salted_password(password, salt, iterations)
        return cls.from_salted_password(mechanism, salted, salt, iterations)

    def to_text(self) -> str:
        """Kafka's text form: ``salt=..,stored_key=..,server_key=..,iterations=..``."""
        return (
            f"salt={_b64(self.salt)},stored_key={_b64(self.stored_key)},"
            f"server_key={_b64(self.server_key)},iterations={self.iterations}"
        )

    @classmethod
    def from_text(cls, text: str) -> ScramCredential:
        fields = dict(part.split("=", 1) for part in text.split(","))
        return cls(
            _unb64(fields["salt"]),
            _unb64(fields["stored_key"]),
            _unb64(fields["server_key"]),
            int(fields["iterations"]),
        )


def _attributes(message: str) -> dict[str, str]:
    """``k=v,k=v`` of a SCRAM message (values may contain ``=``)."""
    found = {}
    for part in message.split(","):
        key, sep, value = part.partition("=")
        if not sep or len(key) != 1:
            raise ScramError(f"Invalid SCRAM attribute {part!r}")
        found[key] = value
    return found


def _saslname(name: str) -> str:
    """A saslname decoded: ``=2C`` is ``,`` and ``=3D`` is ``=``; any other ``=`` is invalid."""
    if "=" in name.replace("=2C", "").replace("=3D", ""):
        raise ScramError(f"Invalid username {name!r}")
    return name.replace("=2C", ",").replace("=3D", "=")


class ScramServer:
    """The broker's side of one exchange: feed it the client's messages in turn.

    *lookup* finds a user's credential for this mechanism (None when unknown); *nonce* is
    the server's part of the nonce (random by default).
    """

    def __init__(
        self,
        mechanism: ScramMechanism,
        lookup: Callable[[str], ScramCredential | None],
        nonce: str | None = None,
    ) -> None:
        self.mechanism = mechanism
        self.lookup = lookup
        self._server_nonce = nonce or _nonce()
        self.username = ""
        self.complete = False
        self._client_first_bare = ""
        self._server_first = ""
        self._nonce = ""
        self._credential: ScramCredential | None = None

    def evaluate(self, token: bytes) -> bytes:
        """The answer to the client's next message; :class:`ScramError` when it fails."""
        try:
            message = token.decode()
        except UnicodeDecodeError:
            raise ScramError("SCRAM message is not UTF-8") from None
        if self.complete:
            raise ScramError("SCRAM exchange already complete")
        if not self._server_first:
            return self._first(message)
        return self._final(message)

    def _first(self, message: str) -> bytes:
        gs2, sep, bare = message.partition(",")
        authzid, sep2, bare = bare.partition(",")
        if (
            not sep
            or not sep2
            or gs2 not in ("n", "y")
            or (authzid and not authzid.startswith("a="))
        ):
            raise ScramError("Invalid SCRAM client first message")
        if bare.startswith("m="):
            raise ScramError("SCRAM mandatory extensions are not supported")
        attributes = _attributes(bare)
        if "n" not in attributes or "r" not in attributes:
            raise ScramError("Invalid SCRAM client first message")
        self.username = _saslname(attributes["n"])
        if authzid and _saslname(authzid[2:]) != self.username:
            raise ScramError("Authorization id is different from the user name")
        credential = self.lookup(self.username)
        if credential is None:
            raise ScramError(f"Authentication failed: Invalid user credentials for {self.username}")
        if credential.iterations < MIN_ITERATIONS:
            raise ScramError(
                f"Iterations {credential.iterations} is less than the minimum "
                f"{MIN_ITERATIONS} for {self.mechanism.name}"
            )
        self._credential = credential
        self._client_first_bare = bare
        self._nonce = attributes["r"] + self._server_nonce
        self._server_first = f"r={self._nonce},s={_b64(credential.salt)},i={credential.iterations}"
        return self._server_first.encode()

    def _final(self, message: str) -> bytes:
        assert self._credential is not None
        without_proof, sep, proof = message.rpartition(",p=")
        attributes = _attributes(without_proof) if sep else {}
        if attributes.get("r") != self._nonce or "c" not in attributes:
            raise ScramError("Invalid SCRAM client final message")
        auth_message = f"{self._client_first_bare},{self._server_first},{without_proof}".encode()
        signature = self.mechanism.hmac(self._credential.stored_key, auth_message)
        client_key = bytes(a ^ b for a, b in zip(_unb64(proof), signature, strict=False))
        if len(client_key) != len(signature) or not hmac.compare_digest(
            self.mechanism.hash(client_key), self._credential.stored_key
        ):
            raise ScramError("Invalid client credentials")
        self.complete = True
        return f"v={_b64(self.mechanism.hmac(self._credential.server_key, auth_message))}".encode()


class ScramClient:
    """A client's side of one exchange: :meth:`first`, :meth:`final`, then :meth:`verify`."""

    def __init__(
        self, mechanism: ScramMechanism, username: str, password: str, nonce: str | None = None
    ) -> None:
        self.mechanism = mechanism
        self.password = password
        name = username.replace("=", "=3D").replace(",", "=2C")
        self._client_first_bare = f"n={name},r={nonce or _nonce()}"
        self._auth_message = b""
        self._salted = b""

    def first(self) -> bytes:
        return f"n,,{self._client_first_bare}".encode()

    def final(self, server_first: bytes) -> bytes:
        attributes = _attributes(server_first.decode())
        nonce, salt, iterations = attributes["r"], _unb64(attributes["s"]), int(attributes["i"])
        if not nonce.startswith(self._client_first_bare.split(",r=", 1)[1]):
            raise ScramError("The server's nonce does not extend the client's")
        if iterations < MIN_ITERATIONS:
            raise ScramError(f"The server asks for {iterations} iterations, below {MIN_ITERATIONS}")
        self._salted = self.mechanism.salted_password(self.password, salt, iterations)
        without_proof = f"c=biws,r={nonce}"
        self._auth_message = (
            f"{self._client_first_bare},{server_first.decode()},{without_proof}".encode()
        )
        client_key = self.mechanism.hmac(self._salted, b"Client Key")
        signature = self.mechanism.hmac(self.mechanism.hash(client_key), self._auth_message)
        proof = bytes(a ^ b for a, b in zip(client_key, signature, strict=True))
        return f"{without_proof},p={_b64(proof)}".encode()

    def verify(self, server_final: bytes) -> None:
        """Check the server's signature: it knew the credential too."""
        server_key = self.mechanism.hmac(self._salted, b"Server Key")
        expected = f"v={_b64(self.mechanism.hmac(server_key, self._auth_message))}".encode()
        if not hmac.compare_digest(server_final, expected):
            raise ScramError("The server's SCRAM signature is wrong")

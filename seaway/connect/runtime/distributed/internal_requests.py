"""Requests between the workers of a cluster: forwarding to the leader or an owner, and
the KIP-507 signatures of internal requests.

Kafka's ``RestClient`` and ``InternalRequestSignature``: a request goes to another worker
as JSON (``User-Agent: kafka-connect``, only the caller's ``Authorization`` copied), the
target's status and error body come back unchanged, and an I/O failure is a 500
``"IO Error trying to forward REST request: ..."``. Internal requests (task configs from a
connector's owner, zombie fencing) are signed with the session key the leader writes to the
config topic: ``X-Connect-Authorization`` is the base64 HMAC of the exact body bytes.
The standard library's HTTP client is enough for these few, small requests.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ssl
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from seaway.connect.runtime.errors import BadRequestError, ConnectRestError
from seaway.connect.runtime.storage import SessionKey

__all__ = [
    "ALGORITHM_HEADER",
    "SIGNATURE_HEADER",
    "Reply",
    "send",
    "sign",
    "verify",
]

SIGNATURE_HEADER: Final = "X-Connect-Authorization"
ALGORITHM_HEADER: Final = "X-Connect-Request-Signature-Algorithm"
_ALGORITHMS: Final = {"HmacSHA256": hashlib.sha256, "HmacSHA1": hashlib.sha1,
                      "HmacSHA512": hashlib.sha512}  # fmt: skip
DEFAULT_ALGORITHM: Final = "HmacSHA256"


@dataclass(frozen=True, slots=True)
class Reply:
    """Another worker's answer: status, body and content type."""

    status: int
    body: bytes
    content_type: str | None


def send(
    method: str,
    url: str,
    body: bytes | None = None,
    headers: Mapping[str, str] | None = None,
    timeout_s: float = 90.0,
    context: ssl.SSLContext | None = None,
) -> Reply:
    """Send one request to another worker; its error statuses come back as replies.
    *context* is the TLS context of ``https://`` workers (their truststore)."""
    request = urllib.request.Request(url, data=body, method=method)
    request.add_header("User-Agent", "kafka-connect")
    request.add_header("Accept", "application/json")
    if body is not None:
        request.add_header("Content-Type", "application/json")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=timeout_s, context=context) as response:
            return Reply(response.status, response.read(), response.headers.get("Content-Type"))
    except urllib.error.HTTPError as error:
        return Reply(error.code, error.read(), error.headers.get("Content-Type"))
    except OSError as error:
        raise ConnectRestError(500, f"IO Error trying to forward REST request: {error}") from None


def _mac(key: SessionKey, algorithm: str, body: bytes) -> bytes:
    digest = _ALGORITHMS.get(algorithm)
    if digest is None:
        raise BadRequestError(f"Unknown signature algorithm {algorithm}")
    return hmac.new(key.key, body, digest).digest()


def sign(key: SessionKey, body: bytes) -> dict[str, str]:
    """The signature headers of an internal request with *body*."""
    algorithm = key.algorithm if key.algorithm in _ALGORITHMS else DEFAULT_ALGORITHM
    signature = base64.b64encode(_mac(key, algorithm, body)).decode("ascii")
    return {SIGNATURE_HEADER: signature, ALGORITHM_HEADER: algorithm}


def verify(key: SessionKey | None, headers: Mapping[str, str], body: bytes) -> None:
    """Check an internal request's signature, failing as Kafka's workers answer."""
    lowered = {k.lower(): v for k, v in headers.items()}
    signature = lowered.get(SIGNATURE_HEADER.lower())
    algorithm = lowered.get(ALGORITHM_HEADER.lower())
    if not signature or not algorithm:
        raise BadRequestError("Internal request missing required signature")
    if algorithm not in _ALGORITHMS:
        raise BadRequestError(
            f"This worker does not support the '{algorithm}' key signing algorithm used by "
            f"other workers. This worker is currently configured to use: {sorted(_ALGORITHMS)}. "
            "Check that all workers' configuration files permit the same set of signature "
            "algorithms, and correct any misconfigured worker and restart it."
        )
    if key is None:
        raise ConnectRestError(
            503,
            "This worker is still starting up and has not been able to read a session key "
            "from the config topic yet",
        )
    try:
        given = base64.b64decode(signature, validate=True)
    except ValueError:
        raise BadRequestError("Internal request signature is not base64") from None
    if not hmac.compare_digest(given, _mac(key, algorithm, body)):
        raise ConnectRestError(403, "Internal request contained invalid signature.")

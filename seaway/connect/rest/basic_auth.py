"""HTTP basic authentication of the REST API: Kafka's ``BasicAuthSecurityRestExtension``.

A worker with ``rest.extension.classes`` naming the extension reads the users from the JAAS
file Kafka users give the JVM (``KAFKA_OPTS=-Djava.security.auth.login.config=<file>``)::

    KafkaConnect {
      org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule required
      file="/etc/kafka/connect.password";
    };

where the file is Java properties, ``<user>=<password>`` (or ``<user>: <password>``) per
line. Every request then needs ``Authorization: Basic ...`` of one of those users, else it
is answered 401, as Kafka's ``JaasBasicAuthFilter`` does; the workers' internal requests
(``POST /connectors/<c>/tasks``, ``PUT /connectors/<c>/fence``) are exempt, being signed
with the cluster's session key instead, and a request a worker forwards to the leader
carries the original ``Authorization`` header.
"""

from __future__ import annotations

import base64
import hmac
import logging
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from seaway.config import ConfigException
from seaway.config.properties import parse_properties
from seaway.security.jaas import jaas_file_contexts, jaas_file_path

log = logging.getLogger(__name__)

__all__ = ["BASIC_AUTH_EXTENSION", "BasicAuthMiddleware", "credentials_from_environment"]

BASIC_AUTH_EXTENSION: Final = (
    "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension"
)
_LOGIN_MODULE: Final = "org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule"
_INTERNAL: Final = (("POST", re.compile(r"/connectors/[^/]+/tasks/?")),
                    ("PUT", re.compile(r"/connectors/[^/]+/fence/?")))  # fmt: skip
_UNAUTHORIZED: Final = b"User cannot access the resource."


def credentials_from_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The users and passwords of the JAAS file ``KAFKA_OPTS`` names."""
    path = jaas_file_path(environ)
    if path is None:
        raise ConfigException(
            f"rest.extension.classes names {BASIC_AUTH_EXTENSION}, which reads its users from a "
            "JAAS file: set KAFKA_OPTS=-Djava.security.auth.login.config=/path/to/connect_jaas.conf"
        )
    contexts = jaas_file_contexts(environ)
    modules = [m for m in contexts.get("KafkaConnect", []) if m.name == _LOGIN_MODULE]
    if not modules:
        raise ConfigException(
            f"The JAAS file {path} has no KafkaConnect section with {_LOGIN_MODULE}: add "
            f'KafkaConnect {{ {_LOGIN_MODULE} required file="/path/to/connect.password"; }};'
        )
    users_file = modules[0].options.get("file")
    if users_file is None:
        raise ConfigException(f'{_LOGIN_MODULE} in {path} needs file="<users file>"')
    try:
        users = parse_properties(Path(users_file).read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigException(f"Cannot read the users file {users_file}: {error}") from None
    if not users:
        log.warning("Credential properties file '%s' is empty; all requests will be permitted",
                    users_file)  # fmt: skip
    return users


class BasicAuthMiddleware:
    """An ASGI middleware answering 401 to requests without a known user's credentials."""

    def __init__(self, app: Any, credentials: Mapping[str, str]) -> None:
        self.app = app
        self.credentials = dict(credentials)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or self._internal(scope) or self._allowed(scope):
            await self.app(scope, receive, send)
            return
        await send({"type": "http.response.start", "status": 401, "headers": [
            (b"content-type", b"text/plain"),
            (b"content-length", str(len(_UNAUTHORIZED)).encode())]})  # fmt: skip
        await send({"type": "http.response.body", "body": _UNAUTHORIZED})

    @staticmethod
    def _internal(scope: Any) -> bool:
        return any(scope["method"] == m and p.fullmatch(scope["path"]) for m, p in _INTERNAL)

    def _allowed(self, scope: Any) -> bool:
        if not self.credentials:  # an empty users file permits every request, as in Kafka
            return True
        header = dict(scope.get("headers") or ()).get(b"authorization", b"")
        scheme, _, encoded = header.partition(b" ")
        if scheme.lower() != b"basic":
            return False
        try:
            user, _, password = base64.b64decode(encoded, validate=True).decode().partition(":")
        except (ValueError, UnicodeDecodeError):
            return False
        expected = self.credentials.get(user)
        return expected is not None and hmac.compare_digest(expected, password)

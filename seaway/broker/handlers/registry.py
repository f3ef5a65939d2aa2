"""The table of API handlers; ApiVersions is computed from it, never listed by hand.

Each handler module registers one coroutine per Kafka API with the range of versions it
advertises. ``min_version`` is advertised as 0 for every classic API even where kio cannot
parse the oldest versions: older librdkafka enables features only when the broker's range
contains specific old versions (see docs/architecture.md), and no current client sends them.
"""

from __future__ import annotations

import datetime
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kio.index import load_response_schema

from seaway.security.acl import CLUSTER_NAME, SUPPORTED_OPERATIONS, AclOperation, ResourceType

if TYPE_CHECKING:
    from seaway.broker.listeners import Listener
    from seaway.broker.session import Session
    from seaway.broker.state import BrokerState
    from seaway.protocol.framing import RequestFrame

__all__ = ["ZERO", "ApiHandler", "RequestContext", "handler_for", "handlers", "handles"]

ZERO = datetime.timedelta(0)


@dataclass(frozen=True, slots=True)
class RequestContext:
    """What a handler gets: the broker, the decoded request, who sent it and the session
    (listener, SASL state) of its connection."""

    broker: BrokerState
    frame: RequestFrame
    client_host: str
    session: Session

    @property
    def listener(self) -> Listener:
        """The listener the request came in on: Metadata and co. advertise its address."""
        return self.session.listener

    @property
    def version(self) -> int:
        return self.frame.api_version

    @property
    def request(self) -> Any:
        return self.frame.body

    @property
    def response_class(self) -> type:
        return load_response_schema(self.frame.api_key, self.frame.api_version)

    def authorized(
        self,
        operation: AclOperation,
        resource_type: ResourceType,
        name: str = CLUSTER_NAME,
        *,
        log_denial: bool = True,
    ) -> bool:
        """Whether the connection's principal may do *operation* on the resource (always,
        without an authorizer); *log_denial* False where a denial only filters a listing."""
        authorizer = self.broker.authorizer
        if authorizer is None:
            return True
        return authorizer.authorize(
            self.session.principal, self.client_host, operation, resource_type, name,
            log_denial=log_denial,
        )  # fmt: skip

    def authorized_operations(self, resource_type: ResourceType, name: str = CLUSTER_NAME) -> int:
        """The ``authorized_operations`` bits of one resource (every supported operation
        without an authorizer)."""
        authorizer = self.broker.authorizer
        if authorizer is None:
            return sum(1 << op for op in SUPPORTED_OPERATIONS.get(resource_type, ()))
        return authorizer.table.authorized_operations(
            self.session.principal, self.client_host, resource_type, name
        )


Handler = Callable[[RequestContext], Awaitable[Any]]


@dataclass(frozen=True, slots=True)
class ApiHandler:
    api_key: int
    min_version: int
    max_version: int
    handle: Handler


_HANDLERS: dict[int, ApiHandler] = {}


def handles(
    api_key: int, max_version: int, *, min_version: int = 0
) -> Callable[[Handler], Handler]:
    """Register the decorated coroutine as the handler of ``api_key``."""

    def register(fn: Handler) -> Handler:
        if api_key in _HANDLERS:
            raise ValueError(f"API key {api_key} already has a handler")
        _HANDLERS[api_key] = ApiHandler(api_key, min_version, max_version, fn)
        return fn

    return register


def handler_for(api_key: int) -> ApiHandler | None:
    return _HANDLERS.get(api_key)


def handlers() -> list[ApiHandler]:
    return sorted(_HANDLERS.values(), key=lambda h: h.api_key)

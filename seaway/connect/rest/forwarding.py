"""Requests another worker must serve, forwarded to it (Kafka's ``HerderRequestHandler``)."""

from __future__ import annotations

import logging
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import Response

from seaway.connect.rest.call import Call, query_first
from seaway.connect.runtime.distributed.internal_requests import send
from seaway.connect.runtime.errors import ConnectRestError
from seaway.connect.runtime.herder import RequestTargetError

__all__ = ["CONFLICT_MESSAGE", "NO_LEADER_MESSAGE", "forward_request"]

log = logging.getLogger(__name__)

NO_LEADER_MESSAGE = (
    "Cannot complete request momentarily due to no known leader URL, likely because a "
    "rebalance was underway."
)
CONFLICT_MESSAGE = (
    "Cannot complete request because of a conflicting operation (e.g. worker rebalance)"
)


def forward_request(request: Request, call: Call, target: RequestTargetError) -> Response:
    """Send a request another worker must serve to it (Kafka's HerderRequestHandler): the
    first hop adds ``forward=true``, the second ``forward=false``, and a worker that got
    ``forward=false`` answers 409 instead of forwarding again."""
    if target.url is None:
        raise ConnectRestError(409, NO_LEADER_MESSAGE) from target
    forward = query_first(call.query, "forward")
    if forward is not None and forward.lower() != "true":
        raise ConnectRestError(409, CONFLICT_MESSAGE) from target
    params = [(k, v) for k, v in call.query.multi_items() if k != "forward"]
    params.append(("forward", "false" if forward is not None else "true"))
    raw_path = (request.scope.get("raw_path") or request.url.path.encode()).decode("latin-1")
    url = target.url.rstrip("/") + raw_path + "?" + urlencode(params)
    headers = {}
    if "authorization" in request.headers:
        headers["Authorization"] = request.headers["authorization"]
    log.debug("Forwarding %s %s to %s", request.method, raw_path, url)
    context = getattr(request.app.state.herder, "rest_client_context", None)
    reply = send(request.method, url, call.body or None, headers, context=context)
    response = Response(reply.body or None, reply.status)
    if reply.content_type and reply.body:
        response.headers["Content-Type"] = reply.content_type
    return response

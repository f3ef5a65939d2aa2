"""SaslHandshake (17): pick the mechanism of the connection's SASL exchange.

v0 (KIP-43) means the tokens follow as bare length-prefixed frames, v1 (KIP-152) that they
travel in SaslAuthenticate. A mechanism the listener does not enable is answered with
UNSUPPORTED_SASL_MECHANISM and the enabled list, then the connection closes.
"""

from __future__ import annotations

from typing import Any

from seaway.broker.handlers.registry import RequestContext, handles
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode
from seaway.protocol.framing import make
from seaway.security.sasl import new_server


@handles(ApiKey.SASL_HANDSHAKE, max_version=1)
async def sasl_handshake(ctx: RequestContext) -> Any:
    session, mechanisms = ctx.session, ctx.listener.mechanisms
    if session.authenticated or session.sasl is not None:
        error = ErrorCode.illegal_sasl_state
    elif ctx.request.mechanism not in mechanisms:
        error, session.close = ErrorCode.unsupported_sasl_mechanism, True
    else:
        error = ErrorCode.none
        plain_users = ctx.listener.plain_users or {}
        session.sasl = new_server(ctx.request.mechanism, plain_users, ctx.broker.scram.lookup)
        session.raw_tokens = ctx.version == 0
    return make(ctx.response_class, error_code=error, mechanisms=mechanisms)
